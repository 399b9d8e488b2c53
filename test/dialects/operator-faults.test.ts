import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { ConfigError, validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { OperatorCallError } from './operator-clients/kit.ts';
import { pragmaticClient } from './operator-clients/pragmatic.ts';
import { OPERATOR_VENDORS } from './operator-vendors.ts';
import { PLAYER } from './vendor-table.ts';

/**
 * Fault rules and the request journal on a vendor's operator routes: a rule matches by the
 * vendor's route and by its field names (JSON or form), bends the reply as on the seed's routes,
 * and the journal counts the calls.
 */

afterEach(runCleanups);

async function serve(name: string, credentials: Record<string, string>) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 2, games: 12 },
      // The wallet is never called here: no spin.
      callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
      operator: { credentials },
    }),
  );
  onCleanup(() => aggmock.close());
  return aggmock;
}

const failing = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as OperatorCallError,
  );

describe('fault rules on a vendor operator API', () => {
  const hub88 = OPERATOR_VENDORS.find((v) => v.name === 'hub88');
  if (!hub88) throw new Error('hub88 missing');

  it("answers 503 on Hub88's launch for the named game_code only, then launches again; the journal counts each call", async () => {
    const { credentials, client } = hub88.operator();
    const aggmock = await serve('hub88', credentials);
    const [first, second] = aggmock.catalog.games;
    if (!first || !second) throw new Error('catalog too small');
    aggmock.faults.add({
      match: { method: 'POST', path: '/operator/generic/v2/game/url', body: { game_code: first.id } },
      fault: { kind: 'status', status: 503 },
      times: 1,
    });
    const operator = client(aggmock.url);
    const launch = (gameId: string) =>
      operator.launch({ player: PLAYER.playerId, currency: 'EUR', gameId, mode: 'real', token: PLAYER.token as string });
    // Another game does not match the rule.
    await expect(launch(second.id)).resolves.toContain('/play/');
    const refused = await failing(launch(first.id));
    expect(refused).toBeInstanceOf(OperatorCallError);
    expect(refused?.status).toBe(503);
    // times: 1 — spent.
    await expect(launch(first.id)).resolves.toContain('/play/');
    expect(aggmock.requests.count({ path: '/operator/generic/v2/game/url' })).toBe(3);
    expect(aggmock.requests.count({ path: '/operator/generic/v2/game/url', status: 503 })).toBe(1);
    expect(aggmock.requests.count({ path: '/operator/generic/v2/game/url', body: { game_code: first.id } })).toBe(2);
  });

  it('sends a malformed game list, then a hang the client gives up on; the list works once the rules are spent', async () => {
    const { credentials, client } = hub88.operator();
    const aggmock = await serve('hub88', credentials);
    const rule = aggmock.faults.add({
      match: { path: '/operator/generic/v2/game/list' },
      fault: { kind: 'malformed' },
      times: 1,
    });
    expect(rule.id).toBeTruthy();
    const malformed = await failing(client(aggmock.url).listGames?.() ?? Promise.resolve());
    expect(malformed).toBeInstanceOf(OperatorCallError);
    expect(malformed?.message).toContain('expected a JSON array');
    aggmock.faults.add({ match: { path: '/operator/generic/v2/game/list' }, fault: { kind: 'timeout' }, times: 1 });
    const hung = await fetch(`${aggmock.url}/operator/generic/v2/game/list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"operator_id":7}',
      signal: AbortSignal.timeout(300),
    }).then(
      () => 'answered',
      (e: Error) => e.name,
    );
    expect(hung).toBe('TimeoutError');
    expect(aggmock.requests.count({ path: '/operator/generic/v2/game/list' })).toBe(2);
    const games = await client(aggmock.url).listGames?.();
    expect(games).toHaveLength(aggmock.catalog.games.length);
  });

  it("matches Pragmatic's form fields by their names (symbol), and a rule on another symbol does not fire", async () => {
    const aggmock = await serve('pragmatic', { secureLogin: 'casino_one', secretKey: 'k' });
    const [first, second] = aggmock.catalog.games;
    if (!first || !second) throw new Error('catalog too small');
    aggmock.faults.add({
      match: { path: '/IntegrationService/v3/http/CasinoGameAPI/game/url', body: { symbol: first.id } },
      fault: { kind: 'status', status: 503 },
    });
    const operator = pragmaticClient({ baseUrl: aggmock.url, secureLogin: 'casino_one', secretKey: 'k' });
    const launch = (gameId: string) =>
      operator.launch({ player: PLAYER.playerId, currency: 'EUR', gameId, mode: 'real', token: PLAYER.token as string });
    await expect(launch(second.id)).resolves.toContain('/play/');
    expect((await failing(launch(first.id)))?.status).toBe(503);
    expect(aggmock.requests.count({ path: '/IntegrationService/v3/http/CasinoGameAPI/game/url', status: 503 })).toBe(1);
  });

  it('refuses a rule naming a path no API serves, suggesting the nearest seed route', () => {
    expect(() =>
      validateConfig({ api: { faults: [{ match: { path: '/operator/generic/v2/game/urls' }, fault: { kind: 'empty' } }] } }),
    ).toThrow(ConfigError);
    expect(() =>
      validateConfig({ api: { faults: [{ match: { path: '/operator/generic/v2/game/url' }, fault: { kind: 'empty' } }] } }),
    ).not.toThrow();
  });
});
