import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregatorFastPath } from '../../src/aggregator/fast-path.ts';
import { createApp, launchCallbackUrls, publicBaseUrl } from '../../src/app.ts';
import type { AggmockConfigInput } from '../../src/config/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type LaunchSession, LaunchSessions } from '../../src/launch/sessions.ts';
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
 * answered by the fast path and by the Hono routes, at the same base URL. `taken` counts the
 * requests the fast path answered itself (a launch it read and then handed to Hono is not one).
 */
async function startPair(overrides: AggmockConfigInput = {}) {
  const config = validateConfig({ catalog: { providers: 12, games: 240 }, db: ':memory:', ...overrides });
  const catalog = loadCatalog(config);
  let url: string | undefined;
  const sessions = new LaunchSessions();
  const launched: LaunchSession[] = [];
  const onLaunch = (session: LaunchSession) => launched.push(session);
  const callbackUrls = launchCallbackUrls(config, () => url);
  const app = createApp({ config, catalog, sessions, callbackUrls, onLaunch, listenUrl: () => url });
  const fast = aggregatorFastPath({
    config,
    catalog,
    sessions,
    callbackUrls,
    onLaunch,
    baseUrl: () => publicBaseUrl(config, url),
  });
  const state = { enabled: true, taken: 0, handedOff: 0 };
  const server = await listen(app, {
    port: 0,
    host: '127.0.0.1',
    fastPath: (req, res, handOff) => {
      if (!state.enabled) return false;
      let handedOff = false;
      const took = fast?.(req, res, () => {
        handedOff = true;
        state.handedOff++;
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
  return { server, state, config, catalog, sessions, launched, fastPath: fast };
}

function request(
  server: RunningServer,
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** The body sent as these writes, `gapMs` apart (chunked unless a content-length is set). */
    pieces?: string[];
    gapMs?: number;
  } = {},
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
    const pieces = options.pieces;
    if (!pieces) return req.end(options.body);
    req.flushHeaders();
    const write = (i: number) => {
      if (i === pieces.length - 1) return req.end(pieces[i]);
      req.write(pieces[i] as string);
      setTimeout(() => write(i + 1), options.gapMs ?? 0);
    };
    write(0);
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
    // A fresh timestamp: a stale one's 401 names its age in seconds, which moves between the two asks.
    ['a bad signature', '/getallproviders', { 'x-signature': `t=${Math.floor(Date.now() / 1000)},v1=00` }, undefined],
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
    // Published: the development key is refused there (test/security/exposed-launches.test.ts), so an own key.
    const pair = await startPair({ publicUrl: 'https://games.example.test/', auth: { apiKeys: ['own-key-1'] } });
    try {
      const { fast, hono, took } = await both(pair, '/getallproviders', { headers: { 'x-betnex-key': 'own-key-1' } });
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
    const sessions = new LaunchSessions();
    const callbackUrls = launchCallbackUrls(config);
    expect(
      aggregatorFastPath({ config, catalog: loadCatalog(config), sessions, callbackUrls, baseUrl: () => 'http://x' }),
    ).toBeUndefined();
  });
});

/** A launch body for the first game of the catalog, with `overrides` merged in (undefined deletes). */
function launchBody(pair: Awaited<ReturnType<typeof startPair>>, overrides: Record<string, unknown> = {}): string {
  const game = pair.catalog.games[0];
  if (!game) throw new Error('no game');
  const body: Record<string, unknown> = {
    username: 'fast-player',
    gameId: game.id,
    money: 1000,
    platform: 1,
    home_url: 'https://casino.example',
    ...overrides,
  };
  return JSON.stringify(body);
}

const JSON_TYPE = { 'content-type': 'application/json' };

function signed(
  pair: Awaited<ReturnType<typeof startPair>>,
  path: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
) {
  return {
    ...JSON_TYPE,
    ...signPayload({
      scheme: pair.config.auth.signing.scheme,
      secrets: pair.config.auth.signing.secrets,
      payload: requestPayload('POST', path, body),
      timestamp,
    }),
  };
}

/** The answer with this launch's session id (in the id and in the link) replaced, so two launches compare. */
function withoutSessionId(answer: Answer): Answer {
  const id = (JSON.parse(answer.body) as { payload: { session_id: string } }).payload.session_id;
  return { ...answer, body: answer.body.replaceAll(id, '<session>') };
}

describe('launch fast path: POST /getgameurl', () => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  beforeAll(async () => {
    pair = await startPair();
  });
  afterAll(() => pair.server.close());

  type Extra = (p: typeof pair) => Record<string, unknown>;
  const apiKey = () => ({ ...JSON_TYPE, ...KEY });
  const accepted: Array<[string, string, (p: typeof pair, path: string, body: string) => Record<string, string>, Extra]> = [
    ['with the API key', '/getgameurl', apiKey, () => ({})],
    ['signed (HMAC)', '/getgameurl', (p, path, body) => signed(p, path, body), () => ({})],
    ['at /casino, signed', '/casino/getgameurl', (p, path, body) => signed(p, path, body), () => ({})],
    ['with charset=utf-8', '/getgameurl', () => ({ 'content-type': 'Application/JSON; charset=UTF-8', ...KEY }), () => ({})],
    [
      'with every optional field',
      '/getgameurl',
      apiKey,
      () => ({ currency: 'eur', lang: 'pt-BR', platform: '2', callback_url: 'http://127.0.0.1:4001/wallet', extras: { a: 1 } }),
    ],
    [
      'with an upper-case game id and cents',
      '/getgameurl',
      apiKey,
      (p) => ({ gameId: p.catalog.games[0]?.id.toUpperCase(), money: 12.5 }),
    ],
  ];
  it.each(accepted)(
    'answers a launch %s itself, as the route does, and creates the same session',
    async (_name, path, headers, extra) => {
      const body = launchBody(pair, extra(pair));
      const before = pair.launched.length;
      const { fast, hono, took } = await both(pair, path, { method: 'POST', headers: headers(pair, path, body), body });
      expect(took).toBe(true);
      expect(fast.status).toBe(200);
      expect(withoutSessionId(fast)).toEqual(withoutSessionId(hono));
      // One session each, alike but for their ids and times, both announced.
      const [viaFast, viaHono] = pair.launched.slice(before);
      expect(pair.launched.length).toBe(before + 2);
      const { id: fastId, createdAt: _a, expiresAt: _b, ...fastSession } = viaFast as LaunchSession;
      const { id: honoId, createdAt: _c, expiresAt: _d, ...honoSession } = viaHono as LaunchSession;
      expect(fastSession).toEqual(honoSession);
      expect(fastId).not.toBe(honoId);
      expect(JSON.parse(fast.body).payload.session_id).toBe(fastId);
      expect(pair.sessions.lookup(fastId).status).toBe('active');
      expect(JSON.parse(fast.body).payload.game_launch_url).toBe(`${pair.server.url}/play/${fastId}`);
    },
  );

  /** Requests the fast path reads and hands to Hono, or leaves to it: the answer is the route's, byte for byte. */
  const refused: Array<
    [string, string, (p: typeof pair) => { headers: Record<string, string>; body: string | Buffer }, number, 'read' | 'left']
  > = [
    ['no credentials', '/getgameurl', (p) => ({ headers: JSON_TYPE, body: launchBody(p) }), 401, 'read'],
    [
      'a wrong key',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, 'x-betnex-key': 'nope' }, body: launchBody(p) }),
      401,
      'read',
    ],
    [
      'a signature over other bytes',
      '/getgameurl',
      (p) => ({ headers: signed(p, '/getgameurl', launchBody(p, { money: 1 })), body: launchBody(p) }),
      401,
      'read',
    ],
    [
      'a signature for the other path',
      '/casino/getgameurl',
      (p) => ({ headers: signed(p, '/getgameurl', launchBody(p)), body: launchBody(p) }),
      401,
      'read',
    ],
    [
      'an expired signature',
      '/getgameurl',
      (p) => ({ headers: signed(p, '/getgameurl', launchBody(p), 1_000_000), body: launchBody(p) }),
      401,
      'read',
    ],
    ['malformed JSON', '/getgameurl', () => ({ headers: { ...JSON_TYPE, ...KEY }, body: '{"username": ' }), 400, 'read'],
    [
      'invalid UTF-8',
      '/getgameurl',
      () => ({ headers: { ...JSON_TYPE, ...KEY }, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) }),
      400,
      'read',
    ],
    ['a JSON array', '/getgameurl', () => ({ headers: { ...JSON_TYPE, ...KEY }, body: '[1,2]' }), 400, 'read'],
    [
      'no gameId',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { gameId: undefined }) }),
      400,
      'read',
    ],
    [
      'a bad platform',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { platform: 3 }) }),
      400,
      'read',
    ],
    [
      'an unknown game',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { gameId: 'f'.repeat(32) }) }),
      404,
      'read',
    ],
    [
      'too many decimals',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { money: 1.005 }) }),
      400,
      'read',
    ],
    [
      'an unknown currency',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { currency: 'ZZZ' }) }),
      400,
      'read',
    ],
    [
      'a callback_url that is not allowed',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { callback_url: 'http://x.invalid/wallet' }) }),
      400,
      'read',
    ],
    [
      'a callback_url at aggmock itself',
      '/getgameurl',
      (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p, { callback_url: `${p.server.url}/__admin/x` }) }),
      400,
      'read',
    ],
    [
      'another content type',
      '/getgameurl',
      (p) => ({ headers: { 'content-type': 'text/plain', ...KEY }, body: launchBody(p) }),
      415,
      'left',
    ],
    [
      'a JSON type with parameters',
      '/getgameurl',
      (p) => ({ headers: { 'content-type': 'application/json; x=1', ...KEY }, body: launchBody(p) }),
      200,
      'left',
    ],
    ['an empty body', '/getgameurl', () => ({ headers: { ...JSON_TYPE, ...KEY }, body: '' }), 400, 'left'],
    ['a query string', '/getgameurl?x=1', (p) => ({ headers: { ...JSON_TYPE, ...KEY }, body: launchBody(p) }), 200, 'left'],
  ];
  it.each(refused)('leaves a launch with %s to Hono, which answers it', async (name, path, make, status, how) => {
    const { headers, body } = make(pair);
    const before = pair.launched.length;
    const handedOff = pair.state.handedOff;
    const { fast, hono, took } = await both(pair, path, { method: 'POST', headers, body });
    expect(took, name).toBe(false);
    // 'read': the fast path read the body, found the refusal and handed the bytes to Hono.
    expect(pair.state.handedOff - handedOff, name).toBe(how === 'read' ? 1 : 0);
    expect(fast.status).toBe(status);
    if (status === 200) {
      expect(withoutSessionId(fast)).toEqual(withoutSessionId(hono));
      expect(pair.launched.length).toBe(before + 2);
    } else {
      expect(fast).toEqual(hono);
      expect(pair.launched.length).toBe(before);
    }
  });

  it('leaves a body past limits.bodyBytes to Hono (413)', async () => {
    const small = await startPair({ limits: { bodyBytes: 64 } });
    try {
      const body = launchBody(small);
      const { fast, hono, took } = await both(small, '/getgameurl', { method: 'POST', headers: { ...JSON_TYPE, ...KEY }, body });
      expect(took).toBe(false);
      expect(fast.status).toBe(413);
      expect(fast).toEqual(hono);
      expect(small.launched).toHaveLength(0);
    } finally {
      await small.server.close();
    }
  });

  it('leaves a chunked body (no Content-Length) to Hono, which launches from it', async () => {
    const body = launchBody(pair);
    const options = { method: 'POST', headers: { ...JSON_TYPE, ...KEY }, pieces: [body.slice(0, 10), body.slice(10)], gapMs: 20 };
    const { fast, hono, took } = await both(pair, '/getgameurl', options);
    expect(took).toBe(false);
    expect(fast.status).toBe(200);
    expect(withoutSessionId(fast)).toEqual(withoutSessionId(hono));
  });

  it('reads a body that arrives in pieces, and answers once it is whole', async () => {
    const body = launchBody(pair);
    const headers = { ...JSON_TYPE, ...KEY, 'content-length': String(Buffer.byteLength(body)) };
    const { fast, hono, took } = await both(pair, '/getgameurl', {
      method: 'POST',
      headers,
      pieces: [body.slice(0, 20), body.slice(20, 40), body.slice(40)],
      gapMs: 30,
    });
    expect(took).toBe(true);
    expect(fast.status).toBe(200);
    expect(withoutSessionId(fast)).toEqual(withoutSessionId(hono));
  });

  it('creates nothing when the client goes away before the body is whole, and keeps serving', async () => {
    const body = launchBody(pair);
    const before = pair.launched.length;
    await new Promise<void>((resolve) => {
      const req = http.request(`${pair.server.url}/getgameurl`, {
        method: 'POST',
        headers: { ...JSON_TYPE, ...KEY, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.flushHeaders();
      req.write(body.slice(0, 20));
      setTimeout(() => req.destroy(), 50);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(pair.launched.length).toBe(before);
    const next = launchBody(pair);
    const { fast, took } = await both(pair, '/getgameurl', { method: 'POST', headers: { ...JSON_TYPE, ...KEY }, body: next });
    expect(took).toBe(true);
    expect(fast.status).toBe(200);
  });

  it('answers without credentials when auth mode is none, and refuses an API key in hmac mode (Hono answers)', async () => {
    const open = await startPair({ auth: { mode: 'none' } });
    const strict = await startPair({ auth: { mode: 'hmac' } });
    try {
      const body = launchBody(open);
      const none = await both(open, '/getgameurl', { method: 'POST', headers: JSON_TYPE, body });
      expect(none.took).toBe(true);
      expect(withoutSessionId(none.fast)).toEqual(withoutSessionId(none.hono));
      const keyed = await both(strict, '/getgameurl', {
        method: 'POST',
        headers: { ...JSON_TYPE, ...KEY },
        body: launchBody(strict),
      });
      expect(keyed.took).toBe(false);
      expect(keyed.fast.status).toBe(401);
      expect(keyed.fast).toEqual(keyed.hono);
    } finally {
      await open.server.close();
      await strict.server.close();
    }
  });

  it('puts the configured public URL in the launch link (published: the launch goes through Hono, where its rate limit counts)', async () => {
    const pub = await startPair({ publicUrl: 'https://games.example.test/', auth: { apiKeys: ['own-key-1'] } });
    try {
      const { fast, hono, took } = await both(pub, '/getgameurl', {
        method: 'POST',
        headers: { ...JSON_TYPE, 'x-betnex-key': 'own-key-1' },
        body: launchBody(pub),
      });
      expect(took).toBe(false);
      expect(JSON.parse(fast.body).payload.game_launch_url).toMatch(/^https:\/\/games\.example\.test\/play\/[0-9a-f]{32}$/);
      expect(JSON.parse(hono.body).payload.game_launch_url).toMatch(/^https:\/\/games\.example\.test\/play\/[0-9a-f]{32}$/);
    } finally {
      await pub.server.close();
    }
  });
});
