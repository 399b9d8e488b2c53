import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureRefusal, secureExposure } from '../../src/admin/exposure.ts';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { exposureOf } from '../../src/http/exposure.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { DEV_KEY_HEADERS } from '../api/helpers.ts';

/**
 * An EXPOSED instance (bound beyond loopback, or published at a `publicUrl` that is not loopback,
 * or reached through a proxy) wants credentials on every surface that changes state or moves
 * money. Reproductions from the 2026-11-25 security review (H1, H3); each failed before the fix.
 */

const PUBLIC = 'https://demo.example.test';
const base = { db: ':memory:', port: 0, host: '127.0.0.1', catalog: { providers: 2, games: 20 } } as const;

async function start(input: AggmockConfigInput): Promise<Aggmock> {
  // The way `serve` and `demo` start: secureExposure first (token and warning), then startAggmock.
  return startAggmock(secureExposure(validateConfig({ ...base, ...input })).config);
}

const form = (fields: Record<string, string>) =>
  new URLSearchParams({ username: 'p1', money: '100', platform: '1', ...fields }).toString();

function gameFor(aggmock: Aggmock, betMinor = 100) {
  return aggmock.catalog.games.find(
    (g) => g.minBetMinor <= betMinor && g.maxBetMinor >= betMinor && g.currencies.includes('EUR'),
  )!;
}

describe('H1: published through a proxy or tunnel (loopback bind, public publicUrl)', () => {
  it('counts as exposed: a token is generated and a warning names the public URL', () => {
    const config = validateConfig({ ...base, publicUrl: PUBLIC });
    expect(exposureOf(config)).toContain('demo.example.test');
    const { config: secured, warnings } = secureExposure(config);
    expect(secured.admin.token).toMatch(/^[\w-]{32}$/);
    expect(warnings.join('\n')).toMatch(/WARNING: aggmock is published at https:\/\/demo\.example\.test/);
    expect(warnings.join('\n')).toContain(secured.admin.token);
  });

  it('startAggmock (the embedded API) will not start it without a token', async () => {
    const config = validateConfig({ ...base, publicUrl: PUBLIC });
    expect(exposureRefusal(config)).toContain('admin.token');
    await expect(startAggmock(config)).rejects.toThrow(/exposed \(published at https:\/\/demo\.example\.test/);
  });

  it('stays token-free on loopback, with a loopback publicUrl too', () => {
    expect(exposureOf(validateConfig({ ...base }))).toBeUndefined();
    expect(exposureOf(validateConfig({ ...base, publicUrl: 'http://localhost:4000' }))).toBeUndefined();
    expect(secureExposure(validateConfig({ ...base, publicUrl: 'http://127.0.0.1:4000' })).warnings).toEqual([]);
  });

  it('counts every wildcard binding as exposed', () => {
    for (const host of ['0.0.0.0', '::', '[::]']) expect(exposureOf({ host })).toContain('not loopback');
  });

  describe('the reproduction: Host demo.example.test on the loopback port', () => {
    let aggmock: Aggmock;
    let wallet: TestReceiver;
    beforeAll(async () => {
      wallet = await startTestReceiver();
      aggmock = await start({ publicUrl: PUBLIC, callbacks: { webhookUrl: wallet.url } });
    });
    afterAll(async () => {
      await aggmock?.close();
      await wallet?.close();
    });
    const host = { host: 'demo.example.test' };

    it('refuses to read the ledger, trigger a signed CREDIT or reset without the token', async () => {
      expect((await fetch(`${aggmock.url}/__admin/ledger`, { headers: host })).status).toBe(401);
      const credit = await fetch(`${aggmock.url}/__admin/events`, {
        method: 'POST',
        headers: { ...host, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'credit', playerId: 'p1', amount: 500 }),
      });
      expect(credit.status).toBe(401);
      expect((await fetch(`${aggmock.url}/__admin/reset`, { method: 'POST', headers: host })).status).toBe(401);
      expect(aggmock.engine.outbox.list({ limit: 10 })).toHaveLength(0);
      expect(wallet.requests).toHaveLength(0);
    });

    it('answers with the token', async () => {
      const res = await fetch(`${aggmock.url}/__admin/ledger`, {
        headers: { ...host, authorization: `Bearer ${aggmock.config.admin.token}` },
      });
      expect(res.status).toBe(200);
    });
  });
});

describe('H1: a request that came through a proxy, on a loopback instance with no token', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await start({ callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0, 3_600_000] } });
  });
  afterAll(() => aggmock?.close());

  it.each([
    ['X-Forwarded-For', { 'x-forwarded-for': '203.0.113.9' }],
    ['X-Forwarded-Host', { 'x-forwarded-host': 'demo.example.test' }],
    ['Forwarded', { forwarded: 'for=203.0.113.9;proto=https' }],
    ['X-Real-IP', { 'x-real-ip': '203.0.113.9' }],
  ])('refuses the admin API and the launch form (%s): nothing could prove who asks', async (_name, proxy) => {
    const read = await fetch(`${aggmock.url}/__admin/deliveries`, { headers: proxy });
    expect(read.status).toBe(403);
    expect(((await read.json()) as { message: string }).message).toMatch(/came through a proxy[\s\S]*admin\.token/);
    const reset = await fetch(`${aggmock.url}/__admin/reset`, { method: 'POST', headers: proxy });
    expect(reset.status).toBe(403);
    const before = aggmock.sessions.size;
    const launch = await fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { ...proxy, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ gameId: gameFor(aggmock).id }),
      redirect: 'manual',
    });
    expect(launch.status).toBe(403);
    expect(aggmock.sessions.size).toBe(before);
  });

  it('keeps local use without a token working (no proxy headers)', async () => {
    expect((await fetch(`${aggmock.url}/__admin/deliveries`)).status).toBe(200);
    const launch = await fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ gameId: gameFor(aggmock).id }),
      redirect: 'manual',
    });
    expect(launch.status).toBe(303);
  });
});

describe('H3: the launch form and spins of an exposed instance', () => {
  let aggmock: Aggmock;
  let wallet: TestReceiver;
  let sink: TestReceiver;
  const token = 'AdminTok777';
  beforeAll(async () => {
    wallet = await startTestReceiver();
    // An "internal service" on another loopback port that answers with data of its own.
    sink = await startTestReceiver(() => ({
      status: 200,
      body: { balance: 1, internal: 'INTERNAL-SERVICE-DATA: db_password=hunter2' },
    }));
    aggmock = await start({
      publicUrl: PUBLIC,
      admin: { token },
      auth: { apiKeys: ['PrivateKey-NotDefault'] },
      callbacks: { webhookUrl: wallet.url, signing: { secrets: ['PrivateSecret-NotDefault'] } },
    });
  });
  afterAll(async () => {
    await aggmock?.close();
    await Promise.all([wallet?.close(), sink?.close()]);
  });

  const uiLaunch = (fields: Record<string, string>) =>
    fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ gameId: gameFor(aggmock).id, ...fields }),
      redirect: 'manual',
    });

  it('refuses an anonymous launch from the form, and keeps no session', async () => {
    const before = aggmock.sessions.size;
    const res = await uiLaunch({ callback_url: `${sink.url}/from-ui-form` });
    expect(res.status).toBe(401);
    expect(aggmock.sessions.size).toBe(before);
    expect(sink.requests).toHaveLength(0);
  });

  it('asks for the token on the form page, and takes it from the form', async () => {
    const page = await (await fetch(`${aggmock.url}/ui/launch?gameId=${gameFor(aggmock).id}`)).text();
    expect(page).toContain('name="admin_token"');
    const res = await uiLaunch({ admin_token: token });
    expect(res.status).toBe(303);
  });

  it('refuses a launch-level callback_url off the allow-list (default when exposed: only the webhook origin)', async () => {
    const form = await uiLaunch({ admin_token: token, callback_url: `${sink.url}/from-ui-form` });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain('default on an exposed instance: only the webhook');
    const api = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'PrivateKey-NotDefault', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p1',
        gameId: gameFor(aggmock).id,
        money: 100,
        platform: 1,
        home_url: 'https://casino.example',
        callback_url: `${sink.url}/x`,
      }),
    });
    expect(api.status).toBe(400);
    expect(sink.requests).toHaveLength(0);
  });

  it('refuses an anonymous spin, and spins with the token', async () => {
    const launched = await uiLaunch({ admin_token: token });
    const session = (launched.headers.get('location') ?? '').replace('/play/', '');
    const spin = (headers: Record<string, string>) =>
      fetch(`${aggmock.url}/play/${session}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"bet":1}',
      });
    const before = wallet.requests.length;
    expect((await spin({})).status).toBe(401);
    expect(wallet.requests).toHaveLength(before);
    const ok = await spin({ authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(wallet.requests.length).toBeGreaterThan(before);
  });

  it('the play page carries the token prompt', async () => {
    const launched = await uiLaunch({ admin_token: token });
    const html = await (await fetch(`${aggmock.url}${launched.headers.get('location')}`)).text();
    expect(html).toContain('data-testid="auth-prompt"');
    expect(html).toContain('"tokenRequired":true');
  });
});

describe('H3: what a spin returns from a launch-level callback_url (loopback, no token)', () => {
  let aggmock: Aggmock;
  let wallet: TestReceiver;
  let sink: TestReceiver;
  beforeAll(async () => {
    wallet = await startTestReceiver(() => ({ status: 200, body: { balance: 99, note: 'the-webhook-says' } }));
    sink = await startTestReceiver((req) =>
      req.path.endsWith('/html')
        ? { status: 403, body: '<html><body>Internal Jenkins: build secrets token=abc123</body></html>' }
        : { status: 200, body: { balance: 1, internal: 'INTERNAL-SERVICE-DATA: db_password=hunter2' } },
    );
    aggmock = await start({ callbacks: { webhookUrl: wallet.url } });
  });
  afterAll(async () => {
    await aggmock?.close();
    await Promise.all([wallet?.close(), sink?.close()]);
  });

  async function spinWith(callbackUrl: string | undefined) {
    const launched = await fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ gameId: gameFor(aggmock).id, ...(callbackUrl ? { callback_url: callbackUrl } : {}) }),
      redirect: 'manual',
    });
    expect(launched.status).toBe(303);
    const res = await fetch(`${aggmock.url}${launched.headers.get('location')}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"bet":1}',
    });
    return { status: res.status, text: await res.text() };
  }

  it('returns the verdict and balance of another service, never its reply body', async () => {
    const { status, text } = await spinWith(`${sink.url}/from-ui-form`);
    expect(status).toBe(200);
    expect(sink.requests.length).toBeGreaterThan(0);
    expect(text).not.toContain('INTERNAL-SERVICE-DATA');
    expect(JSON.parse(text)).toMatchObject({ balance: 1 });
  });

  it('does not read back a refusal page either', async () => {
    const { text } = await spinWith(`${sink.url}/html`);
    expect(text).not.toContain('Jenkins');
    expect(JSON.parse(text)).toMatchObject({ outcome: 'refused', steps: [{ status: 'rejected', httpStatus: 403 }] });
  });

  it('still shows the configured webhook its own replies (the play page log)', async () => {
    const { text } = await spinWith(undefined);
    expect(text).toContain('the-webhook-says');
  });
});

describe("H3: aggmock's callbacks cannot drive another local aggmock's admin API", () => {
  let a: Aggmock;
  let b: Aggmock;
  beforeAll(async () => {
    b = await start({ callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0, 3_600_000] } });
    a = await start({ callbacks: { webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0, 3_600_000] } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it.each(['/__admin/reset', '/__admin/scenarios/burst/run', '/__admin/events'])(
    'a spin whose callback_url is %s of instance B changes nothing on B',
    async (path) => {
      await fetch(`${b.url}/__admin/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'debit', playerId: 'p9', amount: 1 }),
      });
      const before = b.engine.outbox.list({ limit: 1000 }).length;
      const launched = await fetch(`${a.url}/ui/launch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ gameId: gameFor(a).id, callback_url: `${b.url}${path}` }),
        redirect: 'manual',
      });
      expect(launched.status).toBe(303);
      const spin = await fetch(`${a.url}${launched.headers.get('location')}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"bet":1}',
      });
      const body = (await spin.json()) as { steps: { httpStatus?: number }[] };
      expect(body.steps[0]?.httpStatus).toBe(403);
      expect(b.engine.outbox.list({ limit: 1000 })).toHaveLength(before);
    },
  );
});

describe('H3: UI launches have their own rate-limit key', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await start({
      limits: { rateLimit: { requests: 3, window: '30s' } },
      callbacks: { webhookUrl: 'http://127.0.0.1:9/hook' },
    });
  });
  afterAll(() => aggmock?.close());

  it("launching from the form until it is limited leaves the API key's clients unaffected", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${aggmock.url}/ui/launch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ gameId: gameFor(aggmock).id }),
        redirect: 'manual',
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([303, 303, 303, 429]);
    const client = await fetch(`${aggmock.url}/getallproviders`, { headers: DEV_KEY_HEADERS });
    expect(client.status).toBe(200);
  });
});
