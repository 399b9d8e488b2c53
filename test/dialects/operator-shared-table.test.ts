import { describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { createApp, launchCallbackUrls } from '../../src/app.ts';
import { validateConfig } from '../../src/config/index.ts';
import { HUB88 } from '../../src/dialects/builtin/hub88.ts';
import { CALETA_OPERATOR } from '../../src/dialects/builtin/operator/caleta.ts';
import { CAMPAIGN_REQUEST, HUB88_OPERATOR } from '../../src/dialects/builtin/operator/hub88.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import { type OperatorApi, type OperatorApiInput, operatorApiSchema } from '../../src/dialects/operator.ts';
import { operatorRequest } from '../../src/dialects/operator-client.ts';
import { dialectSchema } from '../../src/dialects/schema.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog } from '../../src/runtime.ts';

/*
 * Loading an operator API leaves what it was given alone, so one request table may serve several
 * dialects (Hub88's and Caleta's campaigns/create read the same fields): the table is read, never
 * written, and each loaded dialect holds its own copy, so nothing done to one reaches another.
 */

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

const createRoute = (api: OperatorApiInput) => api.routes.find((r) => r.does === 'create-campaign');

describe('a request table shared by operator APIs', () => {
  it('is read, not written, however often and by however many APIs it is loaded', () => {
    const table = deepFreeze(structuredClone(CAMPAIGN_REQUEST));
    const shown = JSON.stringify(table);
    const api = (basePath: string): OperatorApiInput => ({
      basePath,
      auth: { kind: 'basic', user: 'user', password: 'password' },
      routes: [{ path: '/campaigns/create', does: 'create-campaign', request: table, reply: { body: { const: {} } } }],
    });
    // A frozen input throws on any write (ES modules are strict), so every load below proves the loader only reads.
    const loaded = [
      operatorApiSchema.parse(api('/one')),
      operatorApiSchema.parse(api('/one')),
      operatorApiSchema.parse(api('/two')),
      dialectSchema.parse({ ...HUB88, name: 'acme', operator: api('/three') }).operator as OperatorApi,
    ];
    expect(JSON.stringify(table)).toBe(shown);
    for (const one of loaded) {
      const request = one.routes[0]?.request;
      expect(request).toEqual(table);
      expect(request).not.toBe(table);
    }
    // Each loaded API holds its own copy: a change to one reaches neither the other nor the input.
    const [first, second] = loaded as [OperatorApi, OperatorApi];
    (first.routes[0] as { request: Record<string, unknown> }).request.extra = { to: 'player' };
    expect(second.routes[0]?.request).not.toHaveProperty('extra');
    expect(table).not.toHaveProperty('extra');
  });

  it('is refused naming the field when wrong, in a shared table as in its own', () => {
    const table = deepFreeze({ ...CAMPAIGN_REQUEST, bet_value: { to: 'stake' } });
    const result = operatorApiSchema.safeParse({
      auth: { kind: 'basic', user: 'user', password: 'password' },
      routes: [{ path: '/c', does: 'create-campaign', request: table, reply: {} }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['routes', 0, 'request', 'bet_value', 'to']);
    expect(table.bet_value).toEqual({ to: 'stake' });
  });

  it("is the one table of Hub88's and Caleta's campaigns/create, and both dialects create campaigns from it", async () => {
    expect(createRoute(HUB88_OPERATOR)?.request).toBe(CAMPAIGN_REQUEST);
    expect(createRoute(CALETA_OPERATOR)?.request).toBe(CAMPAIGN_REQUEST);
    const shown = JSON.stringify(CAMPAIGN_REQUEST);
    for (const vendor of ['hub88', 'caleta', 'hub88']) {
      const config = validateConfig({ db: ':memory:', catalog: { providers: 1, games: 3 }, callbacks: { dialect: vendor } });
      const catalog = loadCatalog(config);
      const app = createApp({ config, catalog, sessions: new LaunchSessions(), callbackUrls: launchCallbackUrls(config) });
      const api = builtinOperatorApi(vendor) as OperatorApi;
      const route = api.routes.find((r) => r.does === 'create-campaign');
      if (!route) throw new Error(`${vendor} has no campaigns/create`);
      const game = catalog.games[1]?.id ?? '';
      const call = operatorRequest(
        api,
        route,
        { campaignName: `${vendor} ten`, gameId: game, currency: 'EUR', rounds: '7' },
        operatorCredentials(api, {}, vendor),
      );
      const res = await app.request(call.path, { method: call.method, headers: call.headers, body: call.body ?? null });
      expect([vendor, res.status]).toEqual([vendor, 200]);
      expect(await res.json()).toMatchObject({ name: `${vendor} ten`, prepaid_uuid: game, currency: 'EUR', bet_count: 7 });
    }
    expect(JSON.stringify(CAMPAIGN_REQUEST)).toBe(shown);
  });
});
