import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/dev-keys.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { hub88Client } from './operator-clients/hub88.ts';
import { type LaunchRequest, OperatorCallError, type Tamper } from './operator-clients/kit.ts';
import { startHub88Receiver } from './receivers/hub88.ts';
import type { VendorReceiver } from './receivers/receiver-kit.ts';
import { PLAYER, started } from './vendor-table.ts';

/**
 * `aggmock serve --dialect <vendor>` serves the vendor's own operator API: an independent client
 * written from the vendor's docs (test/dialects/operator-clients) lists games, launches one, and the
 * play page's spins reach the vendor's independent wallet receiver carrying the launch's token; the
 * same client's spoiled requests are refused the vendor's way.
 */

afterEach(runCleanups);

interface OperatorClient {
  listGames(): Promise<{ name?: unknown; gameName?: unknown }[]>;
  launch(launch: LaunchRequest): Promise<string>;
}

interface VendorCase {
  name: string;
  receiver: () => Promise<VendorReceiver>;
  /** Wallet-side credentials (callbacks.credentials). */
  wallet: Record<string, string>;
  /** Operator-side credentials (operator.credentials) and the client that uses them. */
  operator: () => { credentials: Record<string, string>; client: (baseUrl: string, tamper?: Tamper) => OperatorClient };
  /** The refusal a spoiled request gets: status and a body check. */
  refusal: { status: number; body: (body: unknown) => boolean };
  /** Whether the wallet calls carry the operator's token (else aggmock issues one). */
  operatorToken: boolean;
  /** The game id the client launches, from the catalog game. */
  gameIdOf?: (game: Aggmock['catalog']['games'][number], index: number) => string;
  tampers: Tamper[];
}

function pemFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-operator-'));
  const path = join(dir, 'operator.pub.pem');
  writeFileSync(path, text);
  return path;
}

const VENDORS: VendorCase[] = [
  {
    name: 'hub88',
    receiver: () => startHub88Receiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players: [PLAYER] }),
    wallet: {},
    operator: () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
      return {
        // The operator's public key given as a PEM file path, as a user would.
        credentials: { publicKey: pemFile(pem), operatorId: '7' },
        client: (baseUrl, tamper) => hub88Client({ baseUrl, operatorId: 7, privateKey, ...(tamper ? { tamper } : {}) }),
      };
    },
    refusal: { status: 401, body: (b) => typeof (b as { error?: unknown }).error === 'string' },
    operatorToken: true,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
];

async function startFor(vendor: VendorCase, operatorCredentials: Record<string, string>) {
  const rx = await started(vendor.receiver());
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 2, games: 12 },
      callbacks: { profile: vendor.name, credentials: vendor.wallet, webhookUrl: rx.url },
      operator: { credentials: operatorCredentials },
    }),
  );
  onCleanup(() => aggmock.close());
  return { rx, aggmock };
}

describe.each(VENDORS)("aggmock serve --dialect $name: the vendor's operator API", (vendor) => {
  it('lists the catalog, launches a game, and its play page spins reach the vendor wallet with the launch token', async () => {
    const { credentials, client } = vendor.operator();
    const { rx, aggmock } = await startFor(vendor, credentials);
    const operator = client(aggmock.url);
    const games = await operator.listGames();
    expect(games).toHaveLength(aggmock.catalog.games.length);
    const names = games.map((g) => g.name ?? g.gameName);
    expect(names).toEqual(aggmock.catalog.games.map((g) => g.name));
    const index = aggmock.catalog.games.findIndex((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100);
    const game = aggmock.catalog.games[index];
    if (!game) throw new Error('no game takes a 1.00 bet');
    const url = await operator.launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: vendor.gameIdOf ? vendor.gameIdOf(game, index) : game.id,
      mode: 'real',
      token: PLAYER.token as string,
      language: 'de',
      platform: 'mobile',
      lobbyUrl: 'https://casino.example/lobby',
      depositUrl: 'https://casino.example/deposit',
    });
    const sessionId = new URL(url).pathname.split('/').pop() as string;
    const found = aggmock.sessions.lookup(sessionId);
    expect(found).toMatchObject({
      status: 'active',
      session: {
        playerId: PLAYER.playerId,
        gameId: game.id,
        currency: 'EUR',
        lang: 'de',
        platform: 2,
        homeUrl: 'https://casino.example/lobby',
      },
    });
    const token = found.status === 'active' ? found.session.token : undefined;
    if (vendor.operatorToken) expect(token).toBe(PLAYER.token);
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(game.name);
    const kinds = new Set<string>();
    for (let i = 0; i < 40 && !kinds.has('credit'); i++) {
      const res = await fetch(`${url}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bet: 1 }),
      });
      const body = (await res.json()) as { outcome: string; steps: { kind: string; status: string }[] };
      expect({ status: res.status, outcome: body.outcome }, JSON.stringify({ body, errors: rx.errors })).toMatchObject({
        status: 200,
      });
      for (const step of body.steps) {
        expect(step.status).toBe('delivered');
        kinds.add(step.kind);
      }
    }
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['credit', 'debit']));
    expect(rx.errors).toEqual([]);
    if (vendor.operatorToken) {
      const carrying = rx.log.filter((entry) => JSON.stringify(entry.fields).includes(PLAYER.token as string));
      expect(carrying.length).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(vendor.tampers)("refuses the client's %s request the vendor's way, creating no session", async (tamper) => {
    const { credentials, client } = vendor.operator();
    const { aggmock } = await startFor(vendor, credentials);
    const before = aggmock.sessions.size;
    const game = aggmock.catalog.games[0];
    if (!game) throw new Error('empty catalog');
    const error = await client(aggmock.url, tamper)
      .launch({
        player: PLAYER.playerId,
        currency: 'EUR',
        gameId: vendor.gameIdOf ? vendor.gameIdOf(game, 0) : game.id,
        mode: 'real',
        token: PLAYER.token as string,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(OperatorCallError);
    const refused = error as OperatorCallError;
    expect(refused.status).toBe(vendor.refusal.status);
    expect(vendor.refusal.body(refused.body), JSON.stringify(refused.body)).toBe(true);
    expect(aggmock.sessions.size).toBe(before);
    // The journal keeps the refused call.
    expect(aggmock.requests.count({ method: 'POST' })).toBeGreaterThanOrEqual(1);
  });
});
