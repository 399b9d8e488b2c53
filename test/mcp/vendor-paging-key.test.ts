import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEY_FILE_BYTES, readOperatorKey } from '../../src/cli/mcp/operator-key.ts';
import { createMcpServer } from '../../src/cli/mcp/server.ts';
import { type AggmockTarget, remoteTarget } from '../../src/cli/mcp/target.ts';
import { type AggmockConfig, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * list_vendor_games reads a paged vendor list (Slotegrator's GET /games, 50 a page) page by page up
 * to what was asked, and says whether the vendor pages; the vendor tools sign an RSA operator API
 * (Hub88) with the user's own private key (`aggmock mcp --operator-key <file>`), read bounded and
 * refused clearly when it is not an RSA private key.
 */

const config = (extra: Record<string, unknown> = {}): AggmockConfig => validateConfig({ port: 0, db: ':memory:', ...extra });

async function connect(target: AggmockTarget): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(target).connect(serverSide);
  const client = new Client({ name: 'aggmock-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return result.isError ? { error: text } : { json: JSON.parse(text) };
}

const dir = mkdtempSync(join(tmpdir(), 'aggmock-operator-key-'));
const file = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const OWN_PUBLIC = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('list_vendor_games on a vendor that pages its list (Slotegrator, 50 a page)', () => {
  let aggmock: Aggmock;
  let client: Client;
  beforeAll(async () => {
    aggmock = await startAggmock(
      config({ catalog: { providers: 3, games: 120 }, callbacks: { profile: 'slotegrator', webhookUrl: 'http://127.0.0.1:9/' } }),
    );
    client = await connect(remoteTarget(aggmock.url, config(), {}));
  });
  afterAll(async () => {
    await client?.close();
    await aggmock?.close();
  });

  it('reads every page for the whole list, in the catalog order', async () => {
    const before = aggmock.requests.count({ path: '/api/index.php/v1/games' });
    const { json } = await call(client, 'list_vendor_games', { limit: 500 });
    expect(json).toMatchObject({ total: 120, paging: { pagesRead: 3, pageCount: 3, perPage: 50 } });
    expect(json.games.map((g: { uuid: string }) => g.uuid)).toEqual(aggmock.catalog.games.map((g) => g.id));
    expect(aggmock.requests.count({ path: '/api/index.php/v1/games' }) - before).toBe(3);
  });

  it('stops at the page that holds the last game asked for', async () => {
    const { json } = await call(client, 'list_vendor_games', { limit: 10, offset: 55 });
    expect(json).toMatchObject({ total: 120, offset: 55, paging: { pagesRead: 2, pageCount: 3 } });
    expect(json.games.map((g: { uuid: string }) => g.uuid)).toEqual(aggmock.catalog.games.slice(55, 65).map((g) => g.id));
  });

  it('says a vendor without pages answers its list in one reply (Hub88)', async () => {
    const hub88 = await startAggmock(config({ callbacks: { profile: 'hub88', webhookUrl: 'http://127.0.0.1:9/' } }));
    try {
      const other = await connect(remoteTarget(hub88.url, config(), {}));
      const { json } = await call(other, 'list_vendor_games', { limit: 3 });
      expect(json.paging).toBe('the vendor answers its whole list in one reply');
      await other.close();
    } finally {
      await hub88.close();
    }
  });
});

describe("the vendor tools sign an RSA operator API with the user's own key (--operator-key)", () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(
      config({
        catalog: { providers: 1, games: 4 },
        callbacks: { profile: 'hub88', webhookUrl: 'http://127.0.0.1:9/' },
        operator: { credentials: { publicKey: OWN_PUBLIC } },
      }),
    );
  });
  afterAll(() => aggmock?.close());

  it("lists and launches signed with the user's key; aggmock's development key is refused", async () => {
    const keyed = remoteTarget(aggmock.url, config(), {});
    keyed.operatorKey = readOperatorKey(file('own.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string));
    const client = await connect(keyed);
    const { json } = await call(client, 'list_vendor_games', { limit: 2 });
    expect(json.games).toHaveLength(2);
    const launched = await call(client, 'launch_vendor_game', { player: 'p1', gameId: json.games[0].game_code, currency: 'EUR' });
    expect(launched.json.url).toMatch(/\/play\/[0-9a-f]+$/);
    await client.close();

    const unkeyed = await connect(remoteTarget(aggmock.url, config(), {}));
    const refused = await call(unkeyed, 'list_vendor_games');
    expect(refused.error).toMatch(/answered HTTP 401/);
    await unkeyed.close();
  });
});

describe('readOperatorKey', () => {
  it('takes an RSA private key in PKCS#8 and PKCS#1 PEM', () => {
    expect(readOperatorKey(file('p8.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string))).toContain(
      'BEGIN PRIVATE KEY',
    );
    expect(readOperatorKey(file('p1.pem', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string))).toContain(
      'BEGIN RSA PRIVATE KEY',
    );
  });

  it.each([
    ['a missing file', () => join(dir, 'nope.pem'), /cannot be read \(ENOENT\)/],
    ['a folder', () => dir, /is not a file/],
    [
      'a file too large to be a key',
      () => file('big.pem', Buffer.alloc(MAX_KEY_FILE_BYTES + 1, 65)),
      /bytes; a PEM private key is at most/,
    ],
    ['text that is not PEM', () => file('text.pem', 'hello'), /is not PEM text/],
    ['a public key', () => file('pub.pem', OWN_PUBLIC), /holds no readable private key/],
    [
      'an EC key',
      () =>
        file(
          'ec.pem',
          generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        ),
      /holds an ec key; the operator APIs sign with RSA/,
    ],
  ])('refuses %s, naming the flag and the file', (_, path, why) => {
    const at = path();
    expect(() => readOperatorKey(at)).toThrow(why);
    expect(() => readOperatorKey(at)).toThrow(`--operator-key: ${at}`);
  });
});
