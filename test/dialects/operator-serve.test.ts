import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { OperatorCallError } from './operator-clients/kit.ts';
import { OPERATOR_VENDORS, type OperatorVendor } from './operator-vendors.ts';
import { PLAYER, started } from './vendor-table.ts';

/**
 * `aggmock serve --dialect <vendor>` serves the vendor's own operator API: an independent client
 * written from the vendor's docs (test/dialects/operator-clients) lists games, launches one, and the
 * play page's spins reach the vendor's independent wallet receiver carrying the launch's token; the
 * same client's spoiled requests are refused the vendor's way.
 */

afterEach(runCleanups);

async function startFor(vendor: OperatorVendor, operatorCredentials: Record<string, string>) {
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

describe.each(OPERATOR_VENDORS)("aggmock serve --dialect $name: the vendor's operator API", (vendor) => {
  it('lists the catalog, launches a game, and its play page spins reach the vendor wallet with the launch token', async () => {
    const { credentials, client } = vendor.operator();
    const { rx, aggmock } = await startFor(vendor, credentials);
    const operator = client(aggmock.url);
    if (operator.listGames) {
      const games = await operator.listGames();
      expect(games.map(vendor.nameOf)).toEqual(aggmock.catalog.games.map((g) => g.name));
    }
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100);
    if (!game) throw new Error('no game takes a 1.00 bet');
    const url = await operator.launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game.id,
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
        platform: vendor.platform === false ? 1 : 2,
      },
    });
    const token = found.status === 'active' ? found.session.token : undefined;
    if (vendor.token === 'operator') expect(token).toBe(PLAYER.token);
    if (vendor.token === 'issued') expect(token).toMatch(/^aggmock-[0-9a-f]{24}$/);
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(game.name);
    const kinds = new Set<string>();
    for (let i = 0; i < 40 && !kinds.has('credit'); i++) {
      const res = await fetch(`${aggmock.url}/play/${sessionId}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bet: 1 }),
      });
      const body = (await res.json()) as { outcome: string; steps: { kind: string; status: string }[] };
      expect(res.status, JSON.stringify({ body, errors: rx.errors })).toBe(200);
      for (const step of body.steps) {
        expect(step.status, JSON.stringify({ body, errors: rx.errors })).toBe('delivered');
        kinds.add(step.kind);
      }
    }
    expect([...kinds]).toEqual(expect.arrayContaining(['debit', 'credit']));
    // The journal shows the vendor's calls accepted by the vendor's own check, not the seed API's key.
    expect(aggmock.requests.count({ status: 200, authOk: true })).toBeGreaterThanOrEqual(operator.listGames ? 2 : 1);
    expect(aggmock.requests.count({ authOk: false })).toBe(0);
    expect(rx.errors).toEqual([]);
    if (vendor.token !== 'none') {
      // The bet and the win (at least) carried the launch's token; Caleta's first call swaps it for the wallet's own.
      const carrying = rx.log.filter((entry) => JSON.stringify(entry.fields).includes(token as string));
      if (vendor.swapsToken) expect(JSON.stringify(rx.log[0]?.fields)).toContain(token);
      else expect(carrying.length).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(vendor.tampers)("refuses the client's %s launch the vendor's way, opening no session", async (tamper) => {
    const { credentials, client } = vendor.operator();
    const { aggmock } = await startFor(vendor, credentials);
    const game = aggmock.catalog.games[0];
    if (!game) throw new Error('empty catalog');
    const error = await client(aggmock.url, tamper)
      .launch({ player: PLAYER.playerId, currency: 'EUR', gameId: game.id, mode: 'real', token: PLAYER.token as string })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(OperatorCallError);
    const refused = error as OperatorCallError;
    expect(refused.status).toBe(vendor.refused.status);
    expect(vendor.refused.body(refused.body), JSON.stringify(refused.body)).toBe(true);
    expect(aggmock.sessions.size).toBe(0);
    // The journal keeps the refused call with the vendor's verdict, and for a signature the text it should cover.
    expect(aggmock.requests.count({ method: 'POST', authOk: false })).toBe(1);
    const [entry] = aggmock.requests.list();
    expect(entry?.auth).toMatchObject({ ok: false, message: expect.any(String) });
    if (tamper === 'tampered-body') {
      // Bounded and masked as every journaled body: a prefix of the text, with its digest and length.
      const auth = entry?.auth as { signedPrefix?: unknown; bodySha256?: unknown; bodyBytes?: unknown } | undefined;
      expect(typeof auth?.signedPrefix === 'string' && auth.signedPrefix.length > 0, JSON.stringify(auth)).toBe(true);
      expect(auth?.bodySha256).toMatch(/^[0-9a-f]{64}$/);
      expect(auth?.bodyBytes).toBeGreaterThan(0);
      expect(JSON.stringify(auth)).not.toMatch(/"token":"[^[]/);
    }
  });
});
