import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/cli/mcp/server.ts';
import { type AggmockTarget, embeddedTarget, remoteTarget } from '../../src/cli/mcp/target.ts';
import { type AggmockConfig, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * The MCP tools for a vendor's operator API: info names the dialect of the aggmock the tools talk
 * to (a --url instance's own, not this config's), list_vendor_games and launch_vendor_game call the
 * vendor's routes signed the vendor's way, and the launch opens the session the play page spins in.
 */

const config = (extra: Record<string, unknown> = {}): AggmockConfig =>
  validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 9 }, ...extra });

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

describe('MCP vendor tools, embedded aggmock with the hub88 dialect and its reference wallet', () => {
  let target: AggmockTarget;
  let client: Client;
  beforeAll(async () => {
    target = await embeddedTarget(config({ callbacks: { profile: 'hub88', timeScale: 0.001 } }), { ownWebhook: false });
    client = await connect(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  it('info names the hub88 dialect and its operator API base URL and OpenAPI document', async () => {
    const { json } = await call(client, 'info');
    expect(json).toMatchObject({
      dialect: 'hub88',
      operatorApi: { baseUrl: `${target.url}/operator/generic/v2`, openapi: `${target.url}/operator-openapi.json` },
    });
  });

  it("lists the games in Hub88's shape, paged by the tool", async () => {
    const { json } = await call(client, 'list_vendor_games', { limit: 4, offset: 2 });
    expect(json).toMatchObject({
      dialect: 'hub88',
      route: 'POST /operator/generic/v2/game/list',
      status: 200,
      total: 9,
      offset: 2,
    });
    expect(json.games).toHaveLength(4);
    expect(json.games[0]).toMatchObject({ game_code: expect.stringMatching(/^[0-9a-f]{32}$/), name: expect.any(String) });
  });

  it('launches through /game/url; the play page spins with the launch token and the wallet accepts each call', async () => {
    const game = (await call(client, 'list_vendor_games', { limit: 9 })).json.games[0];
    const { json } = await call(client, 'launch_vendor_game', { player: 'p1', gameId: game.game_code, currency: 'EUR' });
    expect(json).toMatchObject({ route: 'POST /operator/generic/v2/game/url', status: 200 });
    expect(json.url).toMatch(new RegExp(`^${target.url}/play/[0-9a-f]+$`));
    const spin = await fetch(`${json.url}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bet: 1 }),
    });
    const body = (await spin.json()) as { steps: { kind: string; status: string }[] };
    expect(spin.status, JSON.stringify(body)).toBe(200);
    expect(body.steps.length).toBeGreaterThan(0);
    for (const step of body.steps) expect(step.status, JSON.stringify(body)).toBe('delivered');
    const deliveries = (await call(client, 'list_deliveries', { player: 'p1' })).json;
    expect(JSON.stringify(deliveries)).toContain('aggmock-session-p1');
  });

  it("answers the vendor's refusal as a tool error with aggmock's reason (an unknown game), and a bad mode naming the field", async () => {
    const unknown = await call(client, 'launch_vendor_game', { player: 'p1', gameId: 'no-such-game' });
    expect(unknown.error).toMatch(/POST \/operator\/generic\/v2\/game\/url answered HTTP 404 .*game/i);
    const bad = await call(client, 'launch_vendor_game', { player: 'p1', gameId: 'x', mode: 'fun' });
    expect(bad.error).toMatch(/mode/);
  });
});

describe('MCP vendor tools against a --url aggmock that runs another dialect than the MCP config', () => {
  let caleta: Aggmock;
  let plain: Aggmock;
  beforeAll(async () => {
    caleta = await startAggmock(config({ callbacks: { profile: 'caleta', webhookUrl: 'http://127.0.0.1:9/' } }));
    plain = await startAggmock(config({ callbacks: { webhookUrl: 'http://127.0.0.1:9/' } }));
  });
  afterAll(async () => {
    await caleta?.close();
    await plain?.close();
  });

  it("info reports the instance's dialect (caleta), not the MCP's own config (default)", async () => {
    const client = await connect(remoteTarget(caleta.url, config(), {}));
    const { json } = await call(client, 'info');
    expect(json).toMatchObject({ mode: 'remote', dialect: 'caleta', profile: 'caleta' });
    expect(json.operatorApi.openapi).toBe(`${caleta.url}/operator-openapi.json`);
    const games = (await call(client, 'list_vendor_games', { limit: 2 })).json;
    expect(games).toMatchObject({ dialect: 'caleta', total: 9 });
    const launched = (await call(client, 'launch_vendor_game', { player: 'p2', gameId: games.games[0].game_code, mode: 'demo' }))
      .json;
    expect(launched.url).toMatch(/\/play\/[0-9a-f]+$/);
    await client.close();
  });

  it('info reports the default dialect of a plain instance even when the MCP config names a vendor, and the vendor tools say to use the seed tools', async () => {
    const client = await connect(remoteTarget(plain.url, config({ callbacks: { profile: 'hub88' } }), {}));
    const { json } = await call(client, 'info');
    expect(json.dialect).toBe('default');
    expect(json.operatorApi).toBeUndefined();
    const { error } = await call(client, 'list_vendor_games');
    expect(error).toMatch(/runs the default dialect, which has no vendor operator API: use list_games and launch_game/);
    await client.close();
  });
});
