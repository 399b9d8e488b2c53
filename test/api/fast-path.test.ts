import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingsFastPath } from '../../src/aggregator/fast-path.ts';
import { createApp, publicBaseUrl } from '../../src/app.ts';
import type { AggmockConfigInput } from '../../src/config/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog } from '../../src/runtime.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { requestPayload, signPayload } from '../../src/signing/index.ts';

const KEY = { 'x-betnex-key': 'aggmock-dev-key' };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One server whose fast path can be switched off between requests, so the same request can be
 * answered by the fast path and by the Hono routes, at the same base URL.
 */
async function startPair(overrides: AggmockConfigInput = {}) {
  const config = validateConfig({ catalog: { providers: 12, games: 240 }, db: ':memory:', ...overrides });
  const catalog = loadCatalog(config);
  let url: string | undefined;
  const app = createApp({ config, catalog, sessions: new LaunchSessions(), listenUrl: () => url });
  const fast = listingsFastPath({ config, catalog, baseUrl: () => publicBaseUrl(config, url) });
  const state = { enabled: true, taken: 0 };
  const server = await listen(app, {
    port: 0,
    host: '127.0.0.1',
    fastPath: (req, res) => {
      if (!state.enabled || !fast?.(req, res)) return false;
      state.taken++;
      return true;
    },
  });
  url = server.url;
  return { server, state, config, fastPath: fast };
}

function request(
  server: RunningServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method: options.method ?? 'GET', headers: options.headers, agent: false });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const { date: _date, ...headers } = res.headers;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Asks twice (fast path on, then off) and returns both answers and whether the fast path took it. */
async function both(pair: Awaited<ReturnType<typeof startPair>>, path: string, options: Parameters<typeof request>[2] = {}) {
  pair.state.enabled = true;
  const before = pair.state.taken;
  const fast = await request(pair.server, path, options);
  const took = pair.state.taken > before;
  pair.state.enabled = false;
  const hono = await request(pair.server, path, options);
  pair.state.enabled = true;
  return { fast, hono, took };
}

describe('listings fast path (auth mode either)', () => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  let etag = '';
  beforeAll(async () => {
    pair = await startPair();
    etag = (await request(pair.server, '/getallgamesandprovider', { headers: KEY })).headers.etag as string;
  });
  afterAll(() => pair.server.close());

  const taken: Array<[string, Record<string, string>]> = [
    ['/getallproviders', KEY],
    ['/casino/getallproviders', KEY],
    ['/getallproviders?anything=1', KEY],
    ['/getallgamesandprovider', KEY],
    ['/casino/getallgamesandprovider', KEY],
    ['/getallgamesandprovider?provider=', KEY],
    ['/getallgamesandprovider?provider=%20%20', KEY],
    ['/getallgamesandprovider?provider=PGSOFT', KEY],
    ['/getallgamesandprovider?provider=pgsoft', KEY],
    ['/getallgamesandprovider?provider=+pgsoft+', KEY],
    ['/getallgamesandprovider?provider=%20PgSoft%20', KEY],
    ['/getallgamesandprovider', { 'x-rapidapi-key': ' aggmock-dev-key ' }],
  ];
  it.each(taken)('answers GET %s itself, with the bytes and headers of the Hono route', async (path, headers) => {
    const { fast, hono, took } = await both(pair, path, { headers });
    expect(took).toBe(true);
    expect(fast.status).toBe(200);
    expect(fast).toEqual(hono);
  });

  it('answers a revalidation with the same 304 as the route', async () => {
    for (const tag of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const { fast, hono, took } = await both(pair, '/getallgamesandprovider', {
        headers: { ...KEY, 'if-none-match': tag },
      });
      expect(took).toBe(true);
      expect(fast.status).toBe(304);
      expect(fast).toEqual(hono);
    }
  });

  it('accepts a valid HMAC signature, as the route does', async () => {
    const path = '/casino/getallgamesandprovider?provider=pgsoft';
    const headers = signPayload({
      scheme: pair.config.auth.signing.scheme,
      secrets: pair.config.auth.signing.secrets,
      payload: requestPayload('GET', path, ''),
      timestamp: Math.floor(Date.now() / 1000),
    });
    const { fast, hono, took } = await both(pair, path, { headers });
    expect(took).toBe(true);
    expect(fast.status).toBe(200);
    expect(fast).toEqual(hono);
  });

  const handedOn: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['no credentials', '/getallproviders', {}, undefined],
    ['a wrong key', '/getallproviders', { 'x-betnex-key': 'nope' }, undefined],
    ['a bad signature', '/getallproviders', { 'x-signature': 't=1,v1=00' }, undefined],
    ['an unknown provider', '/getallgamesandprovider?provider=NOPE', KEY, undefined],
    ['a repeated parameter', '/getallgamesandprovider?provider=a&provider=b', KEY, undefined],
    ['another parameter', '/getallgamesandprovider?provider=pgsoft&x=1', KEY, undefined],
    ['a bad escape', '/getallgamesandprovider?provider=%E0%A4%A', KEY, undefined],
    ['a trailing slash', '/getallproviders/', KEY, undefined],
    ['another route', '/health', {}, undefined],
    ['a request body', '/getallproviders', { ...KEY, 'content-type': 'text/plain', 'content-length': '5' }, 'hello'],
  ];
  it.each(handedOn)('hands a request with %s to Hono', async (_name, path, headers, body) => {
    const { fast, hono, took } = await both(pair, path, { headers, body });
    expect(took).toBe(false);
    expect(fast).toEqual(hono);
  });

  it.each(['HEAD', 'POST', 'DELETE'])('hands %s to Hono', async (method) => {
    const { fast, hono, took } = await both(pair, '/getallproviders', { method, headers: KEY });
    expect(took).toBe(false);
    expect(fast).toEqual(hono);
  });

  it('hands a host header the adapter would rewrite to Hono', async () => {
    const { fast, hono, took } = await both(pair, '/getallproviders', { headers: { ...KEY, host: 'EXAMPLE.test' } });
    expect(took).toBe(false);
    expect(fast.status).toBe(hono.status);
  });
});

describe('listings fast path, other configurations', () => {
  it('serves without credentials when auth mode is none', async () => {
    const pair = await startPair({ auth: { mode: 'none' } });
    try {
      const { fast, hono, took } = await both(pair, '/getallproviders');
      expect(took).toBe(true);
      expect(fast.status).toBe(200);
      expect(fast).toEqual(hono);
    } finally {
      await pair.server.close();
    }
  });

  it('refuses an API key when auth mode is hmac (Hono answers the 401)', async () => {
    const pair = await startPair({ auth: { mode: 'hmac' } });
    try {
      const { fast, hono, took } = await both(pair, '/getallproviders', { headers: KEY });
      expect(took).toBe(false);
      expect(fast.status).toBe(401);
      expect(fast).toEqual(hono);
    } finally {
      await pair.server.close();
    }
  });

  it('uses the configured public URL in the links', async () => {
    const pair = await startPair({ publicUrl: 'https://games.example.test/' });
    try {
      const { fast, hono, took } = await both(pair, '/getallproviders', { headers: KEY });
      expect(took).toBe(true);
      expect(fast.body).toContain('https://games.example.test/assets/');
      expect(fast).toEqual(hono);
    } finally {
      await pair.server.close();
    }
  });

  it('is off when a rate limit is configured, so every request counts against it', () => {
    const config = validateConfig({
      catalog: { providers: 2, games: 10 },
      db: ':memory:',
      limits: { rateLimit: { requests: 5, window: 1000 } },
    });
    expect(listingsFastPath({ config, catalog: loadCatalog(config), baseUrl: () => 'http://x' })).toBeUndefined();
  });
});
