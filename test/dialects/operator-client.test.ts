import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../src/dialects/operator.ts';
import {
  gamesIn,
  launchLinkIn,
  type OperatorCall,
  OperatorClientError,
  operatorRequest,
  operatorRouteFor,
} from '../../src/dialects/operator-client.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * aggmock's own operator client (src/dialects/operator-client.ts, which the MCP tools and the demo
 * use) against every built-in vendor's served operator API: built from the same data, it must be
 * accepted by the vendor's check, list the whole catalog, and open a launch session with the
 * player, token and currency it named; a request altered after signing, or signed with another
 * secret, must be refused. (The independent clients in operator-clients/ prove the served API
 * against the vendors' docs; this proves aggmock's client against the served API.)
 */

const send = (url: string, call: OperatorCall) =>
  fetch(`${url}${call.path}`, {
    method: call.method,
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });

/** A refusal the vendor's way: an error status, or a 200 with the vendor's error code (Blue Ocean {error: 1}, Pragmatic {error: "5"}). */
async function refused(res: Response): Promise<boolean> {
  const text = await res.text();
  return res.status >= 400 || (res.headers.get('x-aggmock-refusal') !== null && /"error":"?[1-9]/.test(text));
}

describe.each(BUILTIN_OPERATOR_APIS)("aggmock's operator client against the %s operator API", (name) => {
  let aggmock: Aggmock;
  let api: OperatorApi;
  let credentials: Record<string, string>;
  beforeAll(async () => {
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 7 },
        callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
      }),
    );
    api = builtinOperatorApi(name) as OperatorApi;
    credentials = { ...operatorCredentials(api, {}, name) };
  });
  afterAll(() => aggmock?.close());

  it('lists every catalog game in the vendor shape', async () => {
    const route = operatorRouteFor(api, 'list-games');
    if (!route) return expect(name).toBe('softswiss'); // SoftSwiss documents no game list.
    const res = await send(aggmock.url, operatorRequest(api, route, {}, credentials));
    expect(res.status).toBe(200);
    const games = gamesIn(route, await res.json());
    expect(games?.length).toBe(aggmock.catalog.games.length);
  });

  it.each(['real', 'demo'] as const)('launches in %s mode, opening a session with what the request named', async (mode) => {
    const route = operatorRouteFor(api, 'launch', mode);
    if (!route) throw new Error(`${name} has no launch`);
    const demoPossible = route.mode === 'demo' || Object.values(route.request).some((f) => f.demoWhen || f.to === 'mode');
    if (mode === 'demo' && !demoPossible) return; // Evolution's UA2 launch is real money only.
    const game = aggmock.catalog.games[2];
    if (!game) throw new Error('catalog');
    const token = `tok-${name}-${mode}`;
    const call = operatorRequest(
      api,
      route,
      { player: 'p7', gameId: game.id, currency: 'EUR', token, mode, language: 'de', platform: 'mobile' },
      credentials,
    );
    const res = await send(aggmock.url, call);
    const reply = await res.json();
    expect(res.status, JSON.stringify(reply)).toBeLessThan(300);
    const link = launchLinkIn(route, reply, aggmock.url);
    expect(link, JSON.stringify(reply)).toMatch(/\/play\/[0-9a-f]+/);
    const id = new URL(link as string).pathname.split('/').pop() as string;
    const found = aggmock.sessions.lookup(id);
    expect(found.status).toBe('active');
    if (found.status !== 'active') return;
    expect(found.session.gameId).toBe(game.id);
    if (mode === 'real') {
      expect(found.session.playerId).toBe('p7');
      expect(found.session.currency).toBe('EUR');
      if (api.sessionToken === 'operator' && Object.values(route.request).some((f) => f.to === 'token'))
        expect(found.session.token).toBe(token);
    }
  });

  it('is refused for a request altered after signing and for one signed with another secret, opening no session', async () => {
    const route = operatorRouteFor(api, 'launch') as NonNullable<ReturnType<typeof operatorRouteFor>>;
    const game = aggmock.catalog.games[1] as { id: string };
    const values = { player: 'p8', gameId: game.id, currency: 'EUR', token: 't-p8' };
    const before = aggmock.sessions.size;
    // Another value for every credential the recipe checks (an RSA key cannot be faked: it fails to sign, below).
    const wrong = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, v.includes('BEGIN') ? v : `${v}x`]));
    const recipe = route.auth ?? api.auth;
    if (recipe.kind === 'rsa-body') {
      expect(() => operatorRequest(api, route, values, { ...credentials, publicKey: 'another key' })).toThrow(
        OperatorClientError,
      );
      const signed = operatorRequest(api, route, values, credentials);
      expect(await refused(await send(aggmock.url, { ...signed, body: (signed.body as string).replace('p8', 'p9') }))).toBe(true);
    } else {
      expect(await refused(await send(aggmock.url, operatorRequest(api, route, values, wrong)))).toBe(true);
      const signed = operatorRequest(api, route, values, credentials);
      if (signed.body !== undefined && recipe.kind !== 'static') {
        expect(await refused(await send(aggmock.url, { ...signed, body: signed.body.replace('p8', 'p9') }))).toBe(true);
      }
    }
    expect(aggmock.sessions.size).toBe(before);
  });
});
