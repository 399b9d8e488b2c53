import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinDialect } from '../../src/dialects/builtin/index.ts';
import { HUB88_OPERATOR } from '../../src/dialects/builtin/operator/hub88.ts';
import { type OperatorApi, operatorApiSchema } from '../../src/dialects/operator.ts';
import { operatorRequest, operatorRouteFor } from '../../src/dialects/operator-client.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * A dialect file with its own operator section (here "acme": Hub88's wire under /acme/v1) gets the
 * fault rules and the journal the built-in vendors get: a rule may name its routes, in the config
 * or through the admin API, and match by its field names; the same path is refused where the
 * configured dialect does not serve it, and a misspelt one is refused with the field named.
 */

const operator = { ...HUB88_OPERATOR, basePath: '/acme/v1' };
const acme = { ...builtinDialect('hub88'), name: 'acme', operator };
const api = operatorApiSchema.parse(operator) as OperatorApi;
const credentials = operatorCredentials(api, {}, 'acme');
const rule = (path: string) => ({ match: { path }, fault: { kind: 'status', status: 503 } });

describe('fault rules on the routes of a dialect file with an operator section', () => {
  it('takes its routes in the config, and refuses them for a dialect that does not serve them, or misspelt', () => {
    const config = validateConfig({ callbacks: { dialect: acme }, api: { faults: [rule('/acme/v1/game/url')] } });
    expect(config.api.faults[0]?.match.path).toBe('/acme/v1/game/url');
    // Still taken whatever the dialect: the seed's routes and the built-in vendors' ones.
    for (const path of ['/getgameurl', '/casino/getallproviders', '/operator/generic/v2/game/list'])
      expect(() => validateConfig({ callbacks: { dialect: acme }, api: { faults: [rule(path)] } })).not.toThrow();
    expect(() => validateConfig({ api: { faults: [rule('/acme/v1/game/url')] } })).toThrow(
      /api\.faults\.0\.match\.path: no API route \/acme\/v1\/game\/url; expected an API route/,
    );
    expect(() => validateConfig({ callbacks: { dialect: acme }, api: { faults: [rule('/acme/v1/game/urls')] } })).toThrow(
      /api\.faults\.0\.match\.path: no API route \/acme\/v1\/game\/urls; .*or a route of the dialect's operator API/,
    );
  });

  describe('in a running aggmock', () => {
    let aggmock: Aggmock;
    beforeAll(async () => {
      aggmock = await startAggmock(
        validateConfig({
          port: 0,
          db: ':memory:',
          catalog: { providers: 2, games: 6 },
          callbacks: { dialect: acme, webhookUrl: 'http://127.0.0.1:9/' },
          api: {
            faults: [
              { match: { path: '/acme/v1/game/url', body: { user: 'p1' } }, fault: { kind: 'status', status: 503 }, times: 1 },
            ],
          },
        }),
      );
    });
    afterAll(() => aggmock?.close());

    const launch = (player: string) => {
      const game = aggmock.catalog.games[0] as { id: string };
      const call = operatorRequest(
        api,
        operatorRouteFor(api, 'launch') as never,
        { player, gameId: game.id, currency: 'EUR', token: `t-${player}` },
        credentials,
      );
      return fetch(`${aggmock.url}${call.path}`, { method: call.method, headers: call.headers, body: call.body });
    };

    it("fires the config rule on its route by the vendor's field name, and journals each call", async () => {
      expect((await launch('p2')).status).toBe(200); // Another player: the rule does not match.
      expect((await launch('p1')).status).toBe(503);
      expect((await launch('p1')).status).toBe(200); // Spent.
      expect(aggmock.requests.count({ path: '/acme/v1/game/url' })).toBe(3);
      expect(aggmock.requests.count({ path: '/acme/v1/game/url', status: 503 })).toBe(1);
      expect(aggmock.requests.count({ path: '/acme/v1/game/url', body: { user: 'p1' } })).toBe(2);
    });

    it('takes a rule on its route through the admin API, and refuses a route it does not serve, naming match.path', async () => {
      const add = (path: string) =>
        fetch(`${aggmock.url}/__admin/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...rule(path), times: 1 }),
        });
      expect((await add('/acme/v1/game/list')).status).toBe(201);
      const refused = await add('/acme/v1/nope');
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { errors?: { field: string; message: string }[] };
      expect(body.errors).toEqual([
        expect.objectContaining({ field: 'match.path', message: expect.stringContaining('no API route /acme/v1/nope') }),
      ]);
      const list = operatorRequest(api, operatorRouteFor(api, 'list-games') as never, {}, credentials);
      const res = await fetch(`${aggmock.url}${list.path}`, { method: list.method, headers: list.headers, body: list.body });
      expect(res.status).toBe(503);
    });
  });
});
