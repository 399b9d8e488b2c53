import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregatorFastPath } from '../../src/aggregator/fast-path.ts';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { createApp, launchCallbackUrls, publicBaseUrl } from '../../src/app.ts';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../src/dialects/operator.ts';
import { type OperatorCall, operatorRequest, operatorRouteFor } from '../../src/dialects/operator-client.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog, startAggmock } from '../../src/runtime.ts';
import { listen, type RunningServer } from '../../src/server.ts';

/**
 * A vendor's game list is answered in the Node listener from its cached bytes, as the seed's
 * listings are: the same status, headers (ETag included) and bytes as the Hono route, a 304 for a
 * revalidation, and every request it is not sure of (a refusal, a launch, a bad page) handed to Hono.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function startPair(name: string) {
  const config = validateConfig({ catalog: { providers: 3, games: 40 }, db: ':memory:', callbacks: { profile: name } });
  const catalog = loadCatalog(config);
  let url: string | undefined;
  const sessions = new LaunchSessions();
  const callbackUrls = launchCallbackUrls(config, () => url);
  const app = createApp({ config, catalog, sessions, callbackUrls, listenUrl: () => url });
  const fast = aggregatorFastPath({ config, catalog, sessions, callbackUrls, baseUrl: () => publicBaseUrl(config, url) });
  const state = { enabled: true, taken: 0 };
  const server = await listen(app, {
    port: 0,
    host: '127.0.0.1',
    fastPath: (req, res, handOff) => {
      if (!state.enabled) return false;
      let handedOff = false;
      const took = fast?.(req, res, () => {
        handedOff = true;
        handOff();
      });
      if (!took) return false;
      res.once('finish', () => {
        if (!handedOff) state.taken++;
      });
      return true;
    },
  });
  url = server.url;
  return { server, state };
}

function request(server: RunningServer, call: OperatorCall, extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${call.path}`, {
      method: call.method,
      headers: { ...call.headers, ...extra },
      agent: false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const { date: _date, ...headers } = res.headers;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

const LISTING_VENDORS = BUILTIN_OPERATOR_APIS.filter((name) =>
  operatorRouteFor(builtinOperatorApi(name) as OperatorApi, 'list-games'),
);

describe.each(LISTING_VENDORS)('the %s game list fast path', (name) => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  const api = builtinOperatorApi(name) as OperatorApi;
  const route = operatorRouteFor(api, 'list-games') as NonNullable<ReturnType<typeof operatorRouteFor>>;
  const credentials = operatorCredentials(api, {}, name);
  beforeAll(async () => {
    pair = await startPair(name);
  });
  afterAll(() => pair.server.close());

  /** Asks with the fast path on, then off: both answers, and whether the fast path answered itself. */
  async function both(call: OperatorCall, extra: Record<string, string> = {}) {
    const before = pair.state.taken;
    const fast = await request(pair.server, call, extra);
    const took = pair.state.taken > before;
    pair.state.enabled = false;
    const hono = await request(pair.server, call, extra);
    pair.state.enabled = true;
    return { fast, hono, took };
  }

  it('answers the signed listing itself, twice (the repeat reuses the decision), with the bytes and headers of the route', async () => {
    const call = operatorRequest(api, route, {}, credentials);
    for (let i = 0; i < 2; i++) {
      const { fast, hono, took } = await both(call);
      expect(took).toBe(true);
      expect(fast.status).toBe(200);
      expect(fast.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(fast).toEqual(hono);
    }
  });

  it('answers a revalidation with the same 304 as the route, and a stale tag with the listing', async () => {
    const call = operatorRequest(api, route, {}, credentials);
    const etag = (await request(pair.server, call)).headers.etag as string;
    for (const tag of [etag, `W/${etag}`, `"nope", ${etag}`]) {
      const { fast, hono, took } = await both(call, { 'if-none-match': tag });
      expect(took).toBe(true);
      expect(fast.status).toBe(304);
      expect(fast).toEqual(hono);
    }
    const { fast, took } = await both(call, { 'if-none-match': '"stale"' });
    expect(took).toBe(true);
    expect(fast.status).toBe(200);
  });

  it("hands a refused listing to the route, which answers it the vendor's way (a wrong credential, a body altered after signing)", async () => {
    const wrong = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, v.includes('BEGIN') ? v : `${v}x`]));
    const good = operatorRequest(api, route, {}, credentials);
    const spoiled: OperatorCall[] = [];
    const recipe = route.auth ?? api.auth;
    if (recipe.kind !== 'rsa-body') spoiled.push(operatorRequest(api, route, {}, wrong));
    if (good.body) spoiled.push({ ...good, body: good.body.replace(/"?}?$/, (end) => `x${end}`) });
    expect(spoiled.length).toBeGreaterThan(0);
    // The accepted request first, so the fast path holds a decision it must not reuse for these.
    expect((await both(good)).took).toBe(true);
    for (const call of spoiled) {
      const { fast, hono, took } = await both(call);
      expect(took, JSON.stringify(call)).toBe(false);
      expect(fast.headers['x-aggmock-refusal']).toBeTruthy();
      expect(fast).toEqual(hono);
    }
  });
});

describe('the vendor listing fast path in a running aggmock', () => {
  it('journals each listing with the operator verdict, as the route does', async () => {
    const aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 5 },
        callbacks: { profile: 'hub88', webhookUrl: 'http://127.0.0.1:9/' },
      }),
    );
    try {
      const api = builtinOperatorApi('hub88') as OperatorApi;
      const call = operatorRequest(api, operatorRouteFor(api, 'list-games') as never, {}, operatorCredentials(api, {}, 'hub88'));
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${aggmock.url}${call.path}`, { method: call.method, headers: call.headers, body: call.body });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(aggmock.requests.count({ path: '/operator/generic/v2/game/list', status: 200, authOk: true })).toBe(3);
      expect(aggmock.requests.list()[0]?.auth).toMatchObject({ ok: true, method: 'operator', header: 'X-Hub88-Signature' });
    } finally {
      await aggmock.close();
    }
  });
});
