import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregatorFastPath } from '../../src/aggregator/fast-path.ts';
import { createApp, launchCallbackUrls } from '../../src/app.ts';
import { type CallbackEngine, seededRandom } from '../../src/callbacks/index.ts';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { type Aggmock, loadCatalog, startAggmock } from '../../src/runtime.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { DEV_KEY_HEADERS, testApp } from '../api/helpers.ts';

/**
 * Attacks on a running aggmock, each found by probing it and each refused since its fix. Every
 * forbidden target here never resolves (.invalid) or is aggmock's own loopback port; numeric forms
 * decode to 127.0.0.1.
 */

const launchBody = (gameId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ username: 'p1', gameId, money: 100, platform: 1, home_url: 'https://casino.example', ...extra });

/**
 * aggmock embedded the documented way (`createApp` from the package, served on port 0): the policy
 * cannot know the port from config, so it must take it from the request. Before the fix a launch
 * could name `http://127.0.0.1:<own port>/__admin/reset` and each spin then POSTed a signed JSON
 * callback there, which the admin API (no Origin, JSON, loopback Host) accepted.
 */
describe("aggmock's own port, when the policy was made before the server listened", () => {
  const config = validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 10 } });
  const catalog = loadCatalog(config);
  const game = catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
  const sessions = new LaunchSessions();
  const enqueued: unknown[] = [];
  const engine = {
    enqueue: (request: unknown) => {
      enqueued.push(request);
      throw new Error('a refused spin must not reach the engine');
    },
  } as unknown as Pick<CallbackEngine, 'enqueue' | 'nextTransactionId'>;
  let hono: RunningServer;
  let fast: RunningServer;

  beforeAll(async () => {
    // Both without listenUrl: config.port is 0, so only the request knows the port.
    hono = await listen(createApp({ config, catalog, sessions, engine, random: seededRandom('x') }), {
      port: 0,
      host: '127.0.0.1',
    });
    const callbackUrls = launchCallbackUrls(config);
    const fastPath = aggregatorFastPath({ config, catalog, sessions, callbackUrls, baseUrl: () => 'http://127.0.0.1' });
    fast = await listen(createApp({ config, catalog, sessions, callbackUrls }), { port: 0, host: '127.0.0.1', fastPath });
  });
  afterAll(async () => {
    await hono?.close();
    await fast?.close();
  });

  const launch = (server: RunningServer, callbackUrl: string) =>
    fetch(`${server.url}/getgameurl`, {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(game.id, { callback_url: callbackUrl }),
    });

  it.each([
    ['the Hono route', () => hono, (port: number) => `http://127.0.0.1:${port}/__admin/reset`],
    ['the fast path', () => fast, (port: number) => `http://127.0.0.1:${port}/__admin/reset`],
    ['the Hono route (decimal IPv4)', () => hono, (port: number) => `http://2130706433:${port}/__admin/reset`],
    ['the fast path ([::1])', () => fast, (port: number) => `http://[::1]:${port}/__admin/reset`],
    ['the fast path (localhost.)', () => fast, (port: number) => `http://localhost.:${port}/__admin/reset`],
  ])('%s refuses a callback_url on its own port, and keeps no session', async (_what, server, target) => {
    const before = sessions.size;
    const res = await launch(server(), target(server().port));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('not aggmock itself');
    expect(sessions.size).toBe(before);
  });

  it.each([
    ['its own admin API', (s: RunningServer) => `${s.url}/__admin/reset`],
    ['a name that never resolves', () => 'http://x.invalid/hook'],
  ])('a spin judges the session callback_url again: a session naming %s sends nothing (409)', async (_what, target) => {
    // A session made some other way (LaunchSessions is public API), not through a launch.
    const session = sessions.create(
      {
        playerId: 'p1',
        gameId: game.id,
        gameName: game.name,
        provider: game.provider,
        currency: 'EUR',
        lang: 'en',
        platform: 1,
        homeUrl: 'https://casino.example',
        callbackUrl: target(hono),
        balanceAtLaunchMinor: 10_000,
      },
      { expiresInSeconds: 60 },
    );
    const res = await fetch(`${hono.url}/play/${session.id}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: hono.url },
      body: '{"bet":1}',
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('callback_url');
    expect(enqueued).toHaveLength(0);
  });
});

describe('a local proxy in front of aggmock (publicUrl on another loopback port)', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    // Nothing listens on the proxy port in this test: only the launch is judged.
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        publicUrl: 'http://127.0.0.1:9/',
        catalog: { providers: 2, games: 10 },
        callbacks: { webhookUrl: 'http://127.0.0.1:4001/hook' },
      }),
    );
  });
  afterAll(() => aggmock?.close());

  it.each(['/getgameurl', '/getgameurl?via=hono'])(
    '%s refuses a callback_url at publicUrl (it reaches aggmock)',
    async (path) => {
      const res = await fetch(`${aggmock.url}${path}`, {
        method: 'POST',
        headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
        body: launchBody(aggmock.catalog.games[0]!.id, { callback_url: 'http://127.0.0.1:9/__admin/reset' }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('not aggmock itself');
    },
  );
});

describe('callback_url forms: the fast path and the Hono route decide alike, and store what they judged', () => {
  let receiver: TestReceiver;
  let aggmock: Aggmock;
  beforeAll(async () => {
    receiver = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 10 },
        callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0] },
      }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await receiver?.close();
  });

  const game = () => aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
  // `/getgameurl` is taken by the fast path; with a query it goes to the Hono route.
  const launch = (path: string, callbackUrl: string) =>
    fetch(`${aggmock.url}${path}`, {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(game().id, { callback_url: callbackUrl }),
    });

  const own = () => aggmock.port;
  it.each([
    ['userinfo', () => 'http://127.0.0.1@x.invalid/', 400],
    ['userinfo hiding loopback', () => 'http://x.invalid@127.0.0.1/', 400],
    ['a loopback-looking name', () => 'http://localhost.x.invalid/', 400],
    ['a loopback-looking IP name', () => 'http://127.0.0.1.x.invalid/', 400],
    ['a tab in the host', () => 'http://127.0.0.1\t.x.invalid/', 400],
    ['a backslash', () => 'http:\\\\x.invalid\\', 400],
    ['percent-encoded own port', () => `http://%31%32%37.0.0.1:${own()}/__admin/reset`, 400],
    ['uppercase scheme, own port', () => `HTTP://127.0.0.1:${own()}/__admin/reset`, 400],
    ['octal own port', () => `http://0177.0.0.1:${own()}/__admin/reset`, 400],
    ['hex own port', () => `http://0x7f000001:${own()}/__admin/reset`, 400],
    ['0.0.0.0 own port', () => `http://0:${own()}/__admin/reset`, 400],
    ['[::] own port', () => `http://[::]:${own()}/__admin/reset`, 400],
    ['a trailing-dot own port', () => `http://127.0.0.1.:${own()}/__admin/reset`, 400],
    ['a space in the URL', () => `http://127.0.0.1:${own()} /`, 400],
    ['IPv4-mapped IPv6 (not on the default list)', () => 'http://[::ffff:127.0.0.1]:9/', 400],
    // Node asks DNS for these (glibc "files dns"): they are names, not loopback.
    ['a .localhost subdomain', () => `http://wallet.localhost:${new URL(receiver.url).port}/hook`, 400],
    ['localhost with a trailing dot', () => `http://localhost.:${new URL(receiver.url).port}/hook`, 400],
    ['a loopback receiver', () => `${receiver.url}/hook`, 200],
    ['a loopback receiver by localhost', () => `http://localhost:${new URL(receiver.url).port}/hook`, 200],
    ['a loopback receiver by decimal IPv4', () => `http://2130706433:${new URL(receiver.url).port}/hook`, 200],
  ])('%s: fast path and route answer alike', async (_what, target, status) => {
    const fast = await launch('/getgameurl', target());
    const route = await launch('/getgameurl?via=hono', target());
    expect([fast.status, route.status]).toEqual([status, status]);
  });

  it('stores the callback_url as parsed, so the URL judged is the URL dialled', async () => {
    const port = new URL(receiver.url).port;
    const res = await launch('/getgameurl', `http://2130706433:${port}/hook`);
    const id = ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
    const found = aggmock.sessions.lookup(id);
    expect(found.status === 'active' && found.session.callbackUrl).toBe(`http://127.0.0.1:${port}/hook`);

    const spin = await fetch(`${aggmock.url}/play/${id}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: aggmock.url },
      body: '{"bet":1}',
    });
    expect(spin.status).toBe(200);
    expect(receiver.requests.some((r) => r.path === '/hook')).toBe(true);
  });
});

describe('the admin API cannot be made to name a callback URL', () => {
  let webhook: TestReceiver;
  let outsider: TestReceiver;
  let open: Aggmock;
  let locked: Aggmock;
  beforeAll(async () => {
    webhook = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    outsider = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    const base = { port: 0, db: ':memory:', catalog: { providers: 2, games: 10 } };
    open = await startAggmock(validateConfig({ ...base, callbacks: { webhookUrl: `${webhook.url}/hook`, retrySchedule: [0] } }));
    locked = await startAggmock(
      validateConfig({ ...base, admin: { token: 'tok' }, callbacks: { webhookUrl: `${webhook.url}/hook`, retrySchedule: [0] } }),
    );
  });
  afterAll(async () => {
    await open?.close();
    await locked?.close();
    await Promise.all([webhook?.close(), outsider?.close()]);
  });

  const admin = (server: Aggmock, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/__admin${path}?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('an event or a replay with a "url" (or "callback_url") goes to the configured webhook only', async () => {
    const trick = { url: `${outsider.url}/x`, callback_url: `${outsider.url}/x`, webhookUrl: `${outsider.url}/x` };
    const sent = await admin(open, '/events', { type: 'debit', playerId: 'p1', amount: 1, ...trick });
    expect(sent.status).toBe(200);
    const { event } = (await sent.json()) as { event: { id: number; url: string } };
    expect(event.url).toBe(`${webhook.url}/hook`);
    expect((await admin(open, `/deliveries/${event.id}/replay`, trick)).status).toBe(200);
    expect((await admin(open, `/deliveries/${event.id}/rollback`, trick)).status).toBe(200);
    expect(outsider.requests).toHaveLength(0);
  });

  it('with admin.token set, enqueue and replay without it send nothing (401)', async () => {
    const before = webhook.requests.length;
    expect((await admin(locked, '/events', { type: 'debit', playerId: 'p1', amount: 1 })).status).toBe(401);
    expect((await admin(locked, '/deliveries/1/replay', {}, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await admin(locked, '/scenarios/happy-path/run', {})).status).toBe(401);
    expect(locked.engine.outbox.list({ limit: 10 })).toHaveLength(0);
    expect(webhook.requests.length).toBe(before);
    const allowed = await admin(locked, '/events', { type: 'debit', playerId: 'p1', amount: 1 }, { authorization: 'Bearer tok' });
    expect(allowed.status).toBe(200);
  });
});

describe('a wallet that answers with a redirect', () => {
  let target: TestReceiver;
  let redirector: TestReceiver;
  let aggmock: Aggmock;
  beforeAll(async () => {
    target = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    // 307 keeps the method and the body: followed, it would re-send the signed DEBIT wherever it says.
    redirector = await startTestReceiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` }, body: {} }));
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 10 },
        callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0], rollbackFailedDebits: false },
      }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await Promise.all([target?.close(), redirector?.close()]);
  });

  it('is not followed: the DEBIT is rejected and nothing reaches the Location', async () => {
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
    const launched = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(game.id, { callback_url: `${redirector.url}/hook` }),
    });
    const id = ((await launched.json()) as { payload: { session_id: string } }).payload.session_id;
    const spin = await fetch(`${aggmock.url}/play/${id}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: aggmock.url },
      body: '{"bet":1}',
    });
    const body = (await spin.json()) as { outcome: string; steps: Array<{ status: string; error?: string }> };
    expect(body.outcome).toBe('refused');
    expect(body.steps[0]).toMatchObject({ status: 'rejected', error: expect.stringContaining('redirects are not followed') });
    expect(redirector.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });
});

describe('script in what a page shows', () => {
  const { app, catalog } = testApp();
  const X = `"'></script><script>alert(1)</script><img src=x onerror=alert(1)>`;

  it('a launch full of markup renders as text, and every script on the play page is its own (nonce)', async () => {
    const res = await app.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(catalog.games[0]!.id, {
        username: X,
        home_url: `https://casino.example/${X}`,
        callback_url: `http://127.0.0.1:4001/${X}`,
      }),
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
    const page = await app.request(`/play/${id}`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    const nonce = /'nonce-([^']+)'/.exec(page.headers.get('content-security-policy') ?? '')?.[1];
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toHaveLength(2); // the page data and browser/play.js
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it('a refused launch form echoes the fields as text', async () => {
    const form = new URLSearchParams({ gameId: catalog.games[0]!.id, username: X, money: X, platform: X, currency: X, lang: X });
    form.set('callback_url', X);
    const res = await app.request('http://127.0.0.1/ui/launch', {
      method: 'POST',
      headers: { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*nonce=)/);
    expect(html).not.toContain('<img src=x');
  });
});

describe('an explicit allow-list path cannot be left through encoded slashes or dot segments', () => {
  const { app, catalog, sessions } = testApp({
    callbacks: { webhookUrl: 'http://127.0.0.1:4001/callback/webhook', allowedUrls: ['http://127.0.0.1:4001/callback/'] },
  });
  const launch = (callbackUrl: string) =>
    app.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(catalog.games[0]!.id, { callback_url: callbackUrl }),
    });

  it.each([
    'http://127.0.0.1:4001/callback/..%2f__state',
    'http://127.0.0.1:4001/callback/..%2F__state',
    'http://127.0.0.1:4001/callback/%2e%2e%2f__state',
    'http://127.0.0.1:4001/callback/..%5c__state',
    'http://127.0.0.1:4001/callback/..;/__state',
    'http://127.0.0.1:4001/callback/.;/x',
  ])('refuses %s', async (target) => {
    const before = sessions.size;
    const res = await launch(target);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('callback_url');
    expect(sessions.size).toBe(before);
  });

  it('the default list still takes the webhook origin, even when it is a name', async () => {
    const { app: named, catalog: games } = testApp({ callbacks: { webhookUrl: 'http://wallet.x.invalid:4001/hook' } });
    const res = await named.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: launchBody(games.games[0]!.id, { callback_url: 'http://wallet.x.invalid:4001/session-hook' }),
    });
    expect(res.status).toBe(200);
  });

  it.each(['http://127.0.0.1:4001/callback/webhook', 'http://127.0.0.1:4001/callback/a/../webhook?x=%2f'])(
    'still takes %s',
    async (target) => {
      expect((await launch(target)).status).toBe(200);
    },
  );
});

describe('cross-site requests that carry no Origin', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 10 },
        callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0, 3_600_000] },
      }),
    );
  });
  afterAll(() => aggmock?.close());

  const post = (path: string, headers: Record<string, string>, body: string) =>
    fetch(`${aggmock.url}${path}`, { method: 'POST', headers, body, redirect: 'manual' });

  it('refuses an admin POST whose Referer is another site, and changes nothing', async () => {
    const before = aggmock.engine.outbox.list({ limit: 10 }).length;
    const res = await post(
      '/__admin/events',
      { 'content-type': 'application/json', referer: 'http://evil.x.invalid/page' },
      JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 }),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('referer');
    expect(aggmock.engine.outbox.list({ limit: 10 })).toHaveLength(before);
  });

  it('refuses a UI launch form posted from another site without Origin', async () => {
    const before = aggmock.sessions.size;
    const res = await post(
      '/ui/launch',
      { 'content-type': 'application/x-www-form-urlencoded', referer: 'http://evil.x.invalid/' },
      new URLSearchParams({ gameId: aggmock.catalog.games[0]!.id, username: 'p1', money: '10', platform: '1' }).toString(),
    );
    expect(res.status).toBe(403);
    expect(aggmock.sessions.size).toBe(before);
  });

  it('takes the same requests from its own pages (same-origin Referer), and from scripts that send neither', async () => {
    const events = await post(
      '/__admin/events',
      { 'content-type': 'application/json', referer: `${aggmock.url}/ui/deliveries` },
      JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 }),
    );
    expect(events.status).toBe(202);
    const form = await post(
      '/ui/launch',
      { 'content-type': 'application/x-www-form-urlencoded', origin: aggmock.url, referer: `${aggmock.url}/ui/launch` },
      new URLSearchParams({ gameId: aggmock.catalog.games[0]!.id, username: 'p1', money: '10', platform: '1' }).toString(),
    );
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toMatch(/^\/play\/[0-9a-f]{32}$/);
    const script = await post('/__admin/reset', { 'content-type': 'application/json' }, '{}');
    expect(script.status).toBe(200);
  });
});

describe('DNS rebinding against a wildcard binding (host 0.0.0.0)', () => {
  const overrides: AggmockConfigInput = { host: '0.0.0.0', admin: { token: 't' } };
  const { app, catalog, sessions } = testApp(overrides);
  // Exposed (0.0.0.0): the form carries the admin token.
  const form = () =>
    new URLSearchParams({
      gameId: catalog.games[0]!.id,
      username: 'p1',
      money: '10',
      platform: '1',
      admin_token: 't',
    }).toString();
  const launchFrom = (host: string) =>
    app.request(`http://${host}/ui/launch`, {
      method: 'POST',
      // A rebound page is same-origin to its own name: Origin and Host agree.
      headers: { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form(),
    });

  it('refuses a page on an attacker name that resolves to this machine (Origin and Host agree)', async () => {
    const before = sessions.size;
    const res = await launchFrom('evil.x.invalid:4000');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('not this server');
    expect(sessions.size).toBe(before);
  });

  it.each(['127.0.0.1:4000', 'localhost:4000', '[::ffff:7f00:1]:4000', '0.0.0.0:4000'])(
    'still takes the form on an address of this machine (%s)',
    async (host) => {
      expect((await launchFrom(host)).status).toBe(303);
    },
  );

  it('still takes the publicUrl name', async () => {
    const { app: named } = testApp({ ...overrides, publicUrl: 'http://aggmock.x.invalid:4000' });
    const res = await named.request('http://aggmock.x.invalid:4000/ui/launch', {
      method: 'POST',
      headers: {
        host: 'aggmock.x.invalid:4000',
        origin: 'http://aggmock.x.invalid:4000',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form(),
    });
    expect(res.status).toBe(303);
  });
});
