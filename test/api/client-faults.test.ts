import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { requestPayload, signPayload } from '../../src/signing/index.ts';

/*
 * Every fault kind against real HTTP clients on loopback (Node's fetch and undici), and the
 * journal of what the client sent. The server is one aggmock on a free port; each test sets its
 * own rules and clears them after.
 */

const KEY = 'aggmock-dev-key';
const HEADERS = { 'x-betnex-key': KEY };

let aggmock: Aggmock;
let gameId: string;
let provider: string;

beforeAll(async () => {
  aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 3, games: 12 } }));
  const game = aggmock.catalog.games[0];
  if (!game) throw new Error('empty catalog');
  gameId = game.id;
  provider = game.provider;
});
afterAll(() => aggmock.close());
afterEach(() => {
  aggmock.faults.clear();
  aggmock.requests.clear();
});

function launchBody(overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    username: 'p1',
    gameId,
    money: 100,
    platform: 1,
    home_url: 'http://127.0.0.1/home',
    currency: 'EUR',
    ...overrides,
  });
}

function launch(overrides: Record<string, unknown> = {}, init: RequestInit = {}) {
  return fetch(`${aggmock.url}/getgameurl`, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: launchBody(overrides),
    ...init,
  });
}

describe('fault rules on the aggregator API, from a real client', () => {
  it('answers the next matching call with the injected status and the API error body, then behaves again', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 503, retryAfter: 2 }, times: 1 });
    const first = await launch();
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('2');
    const body = (await first.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: false, code: 503, error: 'UNAVAILABLE' });
    expect(body.message).toBe(body.msg);
    expect((await launch()).status).toBe(200);
  });

  it('leaves other routes alone when a rule names one route', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 500 } });
    expect((await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS })).status).toBe(200);
    expect((await launch()).status).toBe(500);
  });

  it('matches a rule on /casino paths, the player, the game and a body field', async () => {
    aggmock.faults.add({ match: { player: 'p2', body: { currency: 'USD' } }, fault: { kind: 'status', status: 502 } });
    expect((await launch({ username: 'p2', currency: 'EUR' })).status).toBe(200);
    expect((await launch({ username: 'p1', currency: 'USD' })).status).toBe(200);
    const hit = await fetch(`${aggmock.url}/casino/getgameurl`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: launchBody({ username: 'p2', currency: 'USD' }),
    });
    expect(hit.status).toBe(502);
    aggmock.faults.clear();
    aggmock.faults.add({ match: { game: gameId }, fault: { kind: 'status', status: 429 } });
    expect((await launch()).status).toBe(429);
  });

  it('fires an nth rule on exactly the Nth matching call', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'status', status: 500 }, nth: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS })).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200]);
  });

  it('delays a reply by the fixed delay and still answers it in full', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'delay', ms: 150 } });
    const started = performance.now();
    const res = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { success: boolean }).success).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const [entry] = aggmock.requests.list({ path: '/getallproviders' });
    expect(entry?.fault).toMatchObject({ kind: 'delay', delayMs: 150 });
  });

  it('closes the connection without a byte for an empty reply (fetch and undici both fail)', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'empty' } });
    await expect(fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS })).rejects.toThrow(/fetch failed/);
    await expect(undiciRequest(`${aggmock.url}/getallproviders`, { headers: HEADERS })).rejects.toMatchObject({
      code: 'UND_ERR_SOCKET',
    });
  });

  it('resets the connection (ECONNRESET) for a reset fault', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'reset' } });
    const error = await undiciRequest(`${aggmock.url}/getallproviders`, { headers: HEADERS }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('ECONNRESET');
    const failed = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS }).then(
      () => undefined,
      (e: { cause?: { code?: string } }) => e,
    );
    expect(failed?.cause?.code).toBe('ECONNRESET');
  });

  it('cuts the body mid-way: the headers promise more than arrives', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'cut', afterBytes: 100 } });
    const res = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(100);
    await expect(res.text()).rejects.toThrow(/terminated/);
    const viaUndici = await undiciRequest(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    await expect(viaUndici.body.text()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it('answers malformed JSON with a matching length, so only the parser fails', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'malformed' } });
    const res = await launch();
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(() => JSON.parse(text)).toThrow();
  });

  it('sends a malformed listing without its ETag and as no-store, so a caching client keeps none of it', async () => {
    const real = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(real.headers.get('etag')).toBeTruthy();
    await real.arrayBuffer();
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'malformed' }, times: 1 });
    const broken = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(broken.headers.get('etag')).toBeNull();
    expect(broken.headers.get('cache-control')).toBe('no-store');
    await expect(broken.json()).rejects.toThrow();
  });

  it('drips the real reply a few bytes at a time, complete in the end', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'drip', chunkBytes: 64, intervalMs: 5 } });
    const res = await undiciRequest(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: launchBody(),
    });
    let chunks = 0;
    const parts: Buffer[] = [];
    for await (const chunk of res.body) {
      chunks++;
      parts.push(chunk as Buffer);
    }
    const body = JSON.parse(Buffer.concat(parts).toString()) as { success: boolean; payload: { game_launch_url: string } };
    expect(body.success).toBe(true);
    expect(chunks).toBeGreaterThan(2);
  });

  it('never answers a timeout fault: the client gives up through its own AbortSignal', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'timeout' }, times: 1 });
    const error = await launch({}, { signal: AbortSignal.timeout(300) }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    const viaUndici = await undiciRequest(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: launchBody(),
      headersTimeout: 300,
    });
    // The rule was for one call: the next one is answered.
    expect(viaUndici.statusCode).toBe(200);
    await viaUndici.body.dump();
    // And a timeout rule set for good holds undici too, until its headers timeout.
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'timeout' } });
    await expect(
      undiciRequest(`${aggmock.url}/getallproviders`, { headers: HEADERS, headersTimeout: 300 }),
    ).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
    await new Promise((r) => setTimeout(r, 50));
    const held = aggmock.requests.list({ path: '/getgameurl' }).at(-1);
    expect(held).toMatchObject({ status: null, fault: { kind: 'timeout' } });
  });

  it('has a held call on record the moment the client gives up, and its latency once aggmock sees the close', async () => {
    const rule = aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'timeout' }, times: 1 });
    await expect(launch({}, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    // No wait: counted and listed as it stands (no reply), before the server has seen the connection close.
    expect(aggmock.requests.count({ path: '/getgameurl', faultRule: rule.id })).toBe(1);
    expect(aggmock.requests.list({ path: '/getgameurl' })[0]).toMatchObject({
      status: null,
      complete: false,
      fault: { kind: 'timeout' },
    });
    await new Promise((r) => setTimeout(r, 100));
    const [ended] = aggmock.requests.list({ path: '/getgameurl' });
    expect(ended).toMatchObject({ status: null, complete: false, fault: { ruleId: rule.id, kind: 'timeout' } });
    expect(ended?.latencyMs).toBeGreaterThanOrEqual(150);
    expect(aggmock.requests.count({ path: '/getgameurl' })).toBe(1);
  });

  it('journals a delayed call while it waits and settles it with its reply', async () => {
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'delay', ms: 300 }, times: 1 });
    const pending = fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    await new Promise((r) => setTimeout(r, 100));
    expect(aggmock.requests.list({ path: '/getallproviders' })[0]).toMatchObject({ status: null, fault: { kind: 'delay' } });
    expect((await pending).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const [done] = aggmock.requests.list({ path: '/getallproviders' });
    expect(done).toMatchObject({
      status: 200,
      complete: true,
      auth: { ok: true, method: 'api-key' },
      fault: { kind: 'delay', delayMs: 300 },
    });
    expect(done?.latencyMs).toBeGreaterThanOrEqual(290);
    expect(aggmock.requests.count({ path: '/getallproviders' })).toBe(1);
  });

  it('gives a launch link that has already expired when the client opens it', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'expired-link' }, times: 1 });
    const res = await launch();
    expect(res.status).toBe(200);
    const { payload } = (await res.json()) as { payload: { game_launch_url: string } };
    const page = await fetch(payload.game_launch_url);
    expect(page.status).toBe(410);
  });

  it('gives a launch link that was already used: the play page refuses it with 410 and says so, and the next launch is fine', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'used-link' }, times: 1 });
    const res = await launch();
    expect(res.status).toBe(200);
    const { payload } = (await res.json()) as { payload: { game_launch_url: string } };
    const page = await fetch(payload.game_launch_url);
    expect(page.status).toBe(410);
    expect(await page.json()).toMatchObject({ message: expect.stringContaining('already used') });
    const html = await fetch(payload.game_launch_url, { headers: { accept: 'text/html' } });
    expect(await html.text()).toContain('Launch link already used');
    const next = (await (await launch()).json()) as { payload: { game_launch_url: string } };
    expect((await fetch(next.payload.game_launch_url)).status).toBe(200);
    expect(aggmock.requests.count({ path: '/getgameurl', faultRule: aggmock.faults.list()[0]?.id ?? '' })).toBe(1);
  });

  it('refuses a used-link rule on a listing route, naming the field', () => {
    expect(() => aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'used-link' } })).toThrow(
      /match\.path: a "used-link" fault applies to \/getgameurl only/,
    );
  });

  it('answers a maintenance 503 for one provider only, on its listing and on a launch of its game', async () => {
    aggmock.faults.add({ match: { provider: provider.toLowerCase() }, fault: { kind: 'maintenance', retryAfter: 30 } });
    const listing = await fetch(`${aggmock.url}/getallgamesandprovider?provider=${encodeURIComponent(provider)}`, {
      headers: HEADERS,
    });
    expect(listing.status).toBe(503);
    expect(listing.headers.get('retry-after')).toBe('30');
    expect(await listing.json()).toMatchObject({ success: false, code: 503, error: 'PROVIDER_MAINTENANCE', provider });
    expect((await launch()).status).toBe(503);
    // The launch route takes a game id in any case and with spaces around it: so does the rule's match.
    expect((await launch({ gameId: ` ${gameId.toUpperCase()} ` })).status).toBe(503);
    const other = aggmock.catalog.providers.find((p) => p.code !== provider);
    const fine = await fetch(`${aggmock.url}/getallgamesandprovider?provider=${encodeURIComponent(other?.code ?? '')}`, {
      headers: HEADERS,
    });
    expect(fine.status).toBe(200);
  });

  it('keeps an expired-link or used-link rule without a path for the launch: a listing neither fires nor spends it', async () => {
    const rule = aggmock.faults.add({ fault: { kind: 'expired-link' }, times: 1 });
    const listing = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(listing.status).toBe(200);
    expect(aggmock.faults.list()).toEqual([expect.objectContaining({ id: rule.id, matched: 0, fired: 0, spent: false })]);
    const res = await launch();
    const { payload } = (await res.json()) as { payload: { game_launch_url: string } };
    expect((await fetch(payload.game_launch_url)).status).toBe(410);
    expect(aggmock.faults.list()).toEqual([expect.objectContaining({ id: rule.id, matched: 1, fired: 1, spent: true })]);
  });

  it('answers a maintenance rule without a provider as the whole API down, or the provider a request names down', async () => {
    aggmock.faults.add({ fault: { kind: 'maintenance' } });
    const all = await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(all.status).toBe(503);
    const body = (await all.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: false, code: 503, error: 'MAINTENANCE' });
    expect(body.message).toBe('The aggregator is under maintenance; try again later.');
    expect(body).not.toHaveProperty('provider');
    const listing = await fetch(`${aggmock.url}/getallgamesandprovider?provider=${encodeURIComponent(provider.toLowerCase())}`, {
      headers: HEADERS,
    });
    expect(await listing.json()).toMatchObject({
      error: 'PROVIDER_MAINTENANCE',
      provider,
      message: `Provider ${provider} is under maintenance; try again later.`,
    });
    expect(await (await launch()).json()).toMatchObject({ error: 'PROVIDER_MAINTENANCE', provider });
  });

  it('matches a rule naming a provider by its display name, as the listing query takes it', async () => {
    const named = aggmock.catalog.providers.find((p) => p.code === provider);
    if (!named || named.name.toUpperCase() === named.code) throw new Error('a provider whose name is not its code');
    const rule = aggmock.faults.add({
      match: { provider: ` ${named.name.toLowerCase()} ` },
      fault: { kind: 'status', status: 502 },
    });
    expect(rule.match.provider).toBe(provider);
    for (const query of [provider, named.name]) {
      const res = await fetch(`${aggmock.url}/getallgamesandprovider?provider=${encodeURIComponent(query)}`, {
        headers: HEADERS,
      });
      expect(res.status, query).toBe(502);
    }
    expect((await launch()).status).toBe(502);
    const other = aggmock.catalog.providers.find((p) => p.code !== provider);
    const fine = await fetch(`${aggmock.url}/getallgamesandprovider?provider=${encodeURIComponent(other?.code ?? '')}`, {
      headers: HEADERS,
    });
    expect(fine.status).toBe(200);
  });

  it('draws a probability rule without id or seed the same each time it is set', async () => {
    const run = async () => {
      aggmock.faults.clear();
      aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'status', status: 500 }, probability: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS })).status);
      return statuses;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    expect(a).toContain(500);
  });

  it('draws a probability rule from its seed: the same seed gives the same sequence of faults', async () => {
    const run = async (seed: string) => {
      aggmock.faults.clear();
      aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'status', status: 500 }, probability: 0.5, seed });
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS })).status);
      return statuses;
    };
    const a = await run('s1');
    expect(await run('s1')).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await run('another seed')).not.toEqual(a);
  });
});

describe('the admin API for fault rules', () => {
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${aggmock.url}/__admin${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });

  it('creates a rule (201 with its id), lists it, deletes it, and clears all', async () => {
    const created = await admin('/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { method: 'post', path: '/casino/getgameurl' },
        fault: { kind: 'status', status: 500 },
        times: 2,
      }),
    });
    expect(created.status).toBe(201);
    const { fault } = (await created.json()) as { fault: { id: string; match: { method: string; path: string } } };
    expect(fault.match).toEqual({ method: 'POST', path: '/getgameurl' });
    expect((await launch()).status).toBe(500);
    const listed = (await (await admin('/faults')).json()) as { faults: { id: string; fired: number }[] };
    expect(listed.faults).toEqual([expect.objectContaining({ id: fault.id, fired: 1 })]);
    expect((await admin(`/faults/${fault.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await admin(`/faults/${fault.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await launch()).status).toBe(200);
    await admin('/faults', { method: 'POST', body: JSON.stringify({ fault: { kind: 'empty' } }) });
    expect(await (await admin('/faults', { method: 'DELETE' })).json()).toEqual({ removed: 1 });
  });

  it('refuses a bad rule with a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ fault: { kind: 'explode' } }, 'fault.kind'],
      [{ fault: { kind: 'delay', ms: 600_000 } }, 'fault.ms'],
      [{ fault: { kind: 'delay' } }, 'fault'],
      [{ fault: { kind: 'status', status: 200 } }, 'fault.status'],
      [{ fault: { kind: 'empty' }, times: 1, nth: 2 }, 'nth'],
      [{ fault: { kind: 'empty' }, probability: 1.5 }, 'probability'],
      [{ fault: { kind: 'drip', chunkBytes: 0 } }, 'fault.chunkBytes'],
      [{ match: { path: 'getgameurl' }, fault: { kind: 'empty' } }, 'match.path'],
      [{ match: { colour: 'red' }, fault: { kind: 'empty' } }, 'match'],
    ];
    for (const [rule, field] of cases) {
      const res = await admin('/faults', { method: 'POST', body: JSON.stringify(rule) });
      expect(res.status, JSON.stringify(rule)).toBe(400);
      const body = (await res.json()) as { errors: { field: string }[]; message: string };
      expect(
        body.errors.map((e) => e.field),
        JSON.stringify(rule),
      ).toContain(field);
    }
    expect(aggmock.faults.list()).toEqual([]);
  });
});

describe('fault rules that could never fire', () => {
  const post = (rule: unknown) =>
    fetch(`${aggmock.url}/__admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rule),
    });

  it('are refused through the admin API with a 400 naming the field and what was expected', async () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { match: { provider: 'NOSUCHPROV' }, fault: { kind: 'maintenance' } },
        'match.provider',
        /expected a provider code or name/,
      ],
      [{ match: { path: '/nosuch' }, fault: { kind: 'empty' } }, 'match.path', /expected an API route: \/getallproviders/],
      [{ match: { path: '/getalproviders' }, fault: { kind: 'empty' } }, 'match.path', /did you mean \/getallproviders\?/],
      [{ match: { method: 'FETCH' }, fault: { kind: 'empty' } }, 'match.method', /expected an HTTP method: GET, POST, HEAD/],
      [{ match: { method: 'GET' }, fault: { kind: 'expired-link' } }, 'match.method', /applies to POST \/getgameurl only/],
    ];
    for (const [rule, field, message] of cases) {
      const res = await post(rule);
      expect(res.status, JSON.stringify(rule)).toBe(400);
      const body = (await res.json()) as { errors: { field: string; message: string }[] };
      expect(body.errors, JSON.stringify(rule)).toEqual([
        expect.objectContaining({ field, message: expect.stringMatching(message) }),
      ]);
    }
    expect(aggmock.faults.list()).toEqual([]);
    // What can fire is still taken.
    const name = aggmock.catalog.providers[0]?.name ?? '';
    for (const rule of [
      { match: { provider: name.toUpperCase() }, fault: { kind: 'maintenance' } },
      { match: { method: 'options', path: '/casino/getallgamesandprovider' }, fault: { kind: 'empty' } },
      { match: { method: 'post', path: '/getgameurl' }, fault: { kind: 'used-link' } },
    ])
      expect((await post(rule)).status, JSON.stringify(rule)).toBe(201);
  });

  it('are refused in the config: at load for a path or method, at start for a provider, naming the key', async () => {
    expect(() => validateConfig({ api: { faults: [{ match: { path: '/nosuch' }, fault: { kind: 'empty' } }] } })).toThrow(
      /api\.faults\.0\.match\.path: no API route \/nosuch/,
    );
    const config = (provider: string) =>
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 3, games: 12 },
        api: {
          faults: [
            { fault: { kind: 'empty' }, times: 1 },
            { match: { provider }, fault: { kind: 'maintenance' } },
          ],
        },
      });
    await expect(startAggmock(config('NOSUCHPROV'))).rejects.toThrow(
      /api\.faults\.1\.match\.provider: no such provider in the catalog; expected a provider code or name .* \(got "NOSUCHPROV"\)/,
    );
    const name = aggmock.catalog.providers[0]?.name ?? '';
    const local = await startAggmock(config(name.toLowerCase()));
    try {
      expect(local.faults.list()[1]?.match.provider).toBe(aggmock.catalog.providers[0]?.code);
    } finally {
      await local.close();
    }
  });
});

describe('the fault and journal admin routes on a token-protected instance', () => {
  it('want the admin bearer token, like every admin route', async () => {
    const local = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 }, admin: { token: 't0ken-x' } }),
    );
    try {
      const rule = JSON.stringify({ fault: { kind: 'reset' } });
      const json = { 'content-type': 'application/json' };
      expect((await fetch(`${local.url}/__admin/faults`, { method: 'POST', headers: json, body: rule })).status).toBe(401);
      expect((await fetch(`${local.url}/__admin/faults`, { method: 'DELETE' })).status).toBe(401);
      expect((await fetch(`${local.url}/__admin/requests`)).status).toBe(401);
      expect((await fetch(`${local.url}/__admin/requests/count`, { method: 'POST', headers: json, body: '{}' })).status).toBe(
        401,
      );
      expect(local.faults.list()).toEqual([]);
      const auth = { ...json, authorization: 'Bearer t0ken-x' };
      expect((await fetch(`${local.url}/__admin/faults`, { method: 'POST', headers: auth, body: rule })).status).toBe(201);
      expect((await fetch(`${local.url}/__admin/requests`, { headers: auth })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe('the journal of the client requests', () => {
  it('survives a restart of aggmock on the same database file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aggmock-requests-'));
    const config = validateConfig({ port: 0, db: join(dir, 'aggmock.db'), catalog: { providers: 2, games: 4 } });
    try {
      const first = await startAggmock(config);
      await fetch(`${first.url}/getallproviders`, { headers: HEADERS });
      await first.close();
      const second = await startAggmock(config);
      expect(second.requests.list()).toEqual([expect.objectContaining({ path: '/getallproviders', status: 200 })]);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loses no row on a clean stop: a burst answered just before close() and a delayed call still in flight are all on file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aggmock-requests-'));
    const config = validateConfig({ port: 0, db: join(dir, 'aggmock.db'), catalog: { providers: 2, games: 4 } });
    try {
      const first = await startAggmock(config);
      first.faults.add({ id: 'slow', match: { path: '/getallgamesandprovider' }, fault: { kind: 'delay', ms: 300 } });
      const slow = fetch(`${first.url}/getallgamesandprovider`, { headers: HEADERS });
      const burst = await Promise.all(
        Array.from({ length: 200 }, () => fetch(`${first.url}/getallproviders`, { headers: HEADERS }).then((r) => r.status)),
      );
      expect(burst.every((status) => status === 200)).toBe(true);
      const closed = first.close(); // within the journal's batch delay of the last reply
      expect((await slow).status).toBe(200);
      await closed;
      const second = await startAggmock(config);
      expect(second.requests.count({ path: '/getallproviders', status: 200 })).toBe(200);
      expect(second.requests.count({ path: '/getallgamesandprovider', faultRule: 'slow', status: 200 })).toBe(1);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('records method, path, query, masked headers, body, auth verdict, reply, latency and the fault', async () => {
    aggmock.faults.add({ id: 'slow', match: { path: '/getgameurl' }, fault: { kind: 'delay', ms: 1 } });
    expect((await launch()).status).toBe(200);
    await fetch(`${aggmock.url}/getallgamesandprovider?provider=${provider}`, { headers: HEADERS });
    const [games, launched] = aggmock.requests.list();
    expect(games).toMatchObject({
      method: 'GET',
      path: '/getallgamesandprovider',
      query: { provider },
      status: 200,
      fault: null,
    });
    expect(launched).toMatchObject({
      method: 'POST',
      path: '/getgameurl',
      status: 200,
      complete: true,
      auth: { ok: true, method: 'api-key', header: 'x-betnex-key' },
      fault: { ruleId: 'slow', kind: 'delay', delayMs: 1 },
    });
    expect(JSON.parse(launched?.body ?? '')).toMatchObject({ username: 'p1', currency: 'EUR' });
    expect(JSON.parse(launched?.reply ?? '')).toMatchObject({ success: true });
    expect(launched?.latencyMs).toBeGreaterThan(0);
    expect(launched?.headers['x-betnex-key']).toBe('[masked]');
  });

  it('counts requests by a matcher: exactly one /getgameurl with currency EUR', async () => {
    await launch({ currency: 'EUR' });
    await launch({ currency: 'USD' });
    await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    expect(aggmock.requests.count({ method: 'POST', path: '/getgameurl', body: { currency: 'EUR' } })).toBe(1);
    expect(aggmock.requests.count({ path: '/getgameurl' })).toBe(2);
    const res = await fetch(`${aggmock.url}/__admin/requests/count`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'POST', path: '/getgameurl', body: { currency: 'EUR' } }),
    });
    expect(await res.json()).toEqual({ count: 1 });
    // A nested object is no field value: the 400 says to name the field by its dotted path.
    const nested = await fetch(`${aggmock.url}/__admin/requests/count`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: { extras: { vip: true } } }),
    });
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as { errors: { field: string; message: string }[] }).errors[0]).toMatchObject({
      field: 'body.extras',
      message: expect.stringContaining('dotted path ("extras.vip": true)'),
    });
    const listed = (await (await fetch(`${aggmock.url}/__admin/requests?path=/getgameurl&limit=1`)).json()) as {
      requests: { body: string }[];
      nextBefore: number | null;
    };
    expect(listed.requests).toHaveLength(1);
    expect(JSON.parse(listed.requests[0]?.body ?? '')).toMatchObject({ currency: 'USD' });
    expect(listed.nextBefore).not.toBeNull();
  });

  it('masks a launch’s session token in the journaled body, while rules and counts still match its other fields', async () => {
    const token = 'opsession-SECRET-7f3a';
    const rule = aggmock.faults.add({
      match: { path: '/getgameurl', body: { token } },
      fault: { kind: 'status', status: 502 },
      times: 1,
    });
    expect((await launch({ token })).status).toBe(502);
    expect((await launch({ token })).status).toBe(200);
    const entries = aggmock.requests.list({ path: '/getgameurl' });
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.body).not.toContain(token);
      expect(JSON.parse(e.body ?? '{}')).toMatchObject({ username: 'p1', token: '[masked]', currency: 'EUR' });
    }
    expect(entries[1]?.fault?.ruleId).toBe(rule.id);
    expect(aggmock.requests.count({ path: '/getgameurl', body: { username: 'p1', currency: 'EUR' } })).toBe(2);
  });

  it('names the nearest route for a typo and the failed field for a refused launch', async () => {
    await fetch(`${aggmock.url}/getgameurls`, { method: 'POST', headers: HEADERS, body: '{}' });
    await fetch(`${aggmock.url}/getgameurl`, { headers: HEADERS });
    await launch({ platform: 7 });
    const [badField, wrongMethod, typo] = aggmock.requests.list();
    expect(typo?.hint).toContain('did you mean POST /getgameurl');
    expect(wrongMethod?.hint).toContain('did you mean POST /getgameurl');
    expect(badField?.status).toBe(400);
    expect(badField?.hint).toMatch(/^platform: /);
  });

  it('never stores a real API key, secret or signature, and shows the string it expected signed on a mismatch', async () => {
    const key = 'k-real-key-7f3a9c2e1b';
    const secret = 's-real-secret-0d8e4b6a';
    const local = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 4 },
        auth: { apiKeys: [key], signing: { secrets: [secret] } },
      }),
    );
    try {
      await fetch(`${local.url}/getallproviders`, { headers: { 'x-betnex-key': key, authorization: `Bearer ${key}` } });
      const body = launchBody({ gameId: local.catalog.games[0]?.id });
      const t = Math.floor(Date.now() / 1000);
      const good = signPayload({
        scheme: 'timestamped',
        secrets: [secret],
        payload: requestPayload('POST', '/getgameurl', body),
        timestamp: t,
      });
      const signed = await fetch(`${local.url}/getgameurl`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...good },
        body,
      });
      expect(signed.status).toBe(200);
      // Signed over another path: refused, and the journal shows what should have been signed.
      const wrong = signPayload({
        scheme: 'timestamped',
        secrets: [secret],
        payload: requestPayload('POST', '/other', body),
        timestamp: t,
      });
      expect(
        (
          await fetch(`${local.url}/getgameurl?x=1`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...wrong },
            body,
          })
        ).status,
      ).toBe(401);
      const entries = local.requests.list();
      const stored = JSON.stringify(entries) + JSON.stringify(local.db.prepare('SELECT * FROM api_requests').all());
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(secret);
      for (const headers of [good, wrong]) for (const value of Object.values(headers)) expect(stored).not.toContain(value);
      const refused = entries[0];
      expect(refused?.auth).toMatchObject({ ok: false, error: 'INVALID_SIGNATURE' });
      expect(refused?.auth).toMatchObject({
        signedPrefix: `${t}.POST./getgameurl?x=1.`,
        bodySha256: createHash('sha256').update(body).digest('hex'),
        bodyBytes: Buffer.byteLength(body),
      });
      expect(JSON.stringify(refused?.auth)).not.toContain(body);
      expect(entries[1]?.auth).toMatchObject({ ok: true, method: 'hmac' });
    } finally {
      await local.close();
    }
  });

  it('keeps each request’s own auth verdict, headers and query when clients alternate on the listings fast path', async () => {
    const key = 'k-real-key-2b7d';
    const secret = 's-real-secret-9e1f';
    const local = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 4 },
        auth: { apiKeys: [key], signing: { secrets: [secret] } },
      }),
    );
    try {
      const code = local.catalog.providers[0]?.code ?? '';
      const hmac = (target: string) =>
        signPayload({
          scheme: 'timestamped',
          secrets: [secret],
          payload: requestPayload('GET', target, ''),
          timestamp: Math.floor(Date.now() / 1000),
        });
      const calls: [string, Record<string, string>][] = [
        ['/getallproviders', { 'x-betnex-key': key, 'x-client': 'a' }],
        ['/getallproviders', { ...hmac('/getallproviders'), 'x-client': 'b' }],
        [`/getallgamesandprovider?provider=${code}`, { 'x-betnex-key': key, 'x-client': 'a' }],
        ['/getallproviders', { 'x-betnex-key': 'wrong', 'x-client': 'c' }],
        ['/getallproviders', { 'x-betnex-key': key, 'x-client': 'a' }],
      ];
      for (const [target, headers] of calls) await fetch(`${local.url}${target}`, { headers });
      const entries = local.requests.list().reverse();
      expect(entries.map((e) => [e.status, e.auth.ok && e.auth.method, e.headers['x-client'], e.query.provider ?? null])).toEqual(
        [
          [200, 'api-key', 'a', null],
          [200, 'hmac', 'b', null],
          [200, 'api-key', 'a', code],
          [401, false, 'c', null],
          [200, 'api-key', 'a', null],
        ],
      );
      expect(entries[3]?.auth).toMatchObject({ ok: false, error: 'INVALID_API_KEY' });
    } finally {
      await local.close();
    }
  });

  it('journals each call that repeats the last as its own request, and the first one that differs as what it was', async () => {
    const plain = { ...HEADERS, 'x-client': 'a' };
    const calls: Record<string, string>[] = [
      plain,
      plain,
      plain,
      { ...plain, 'x-trace': '1' },
      plain,
      { ...HEADERS, 'x-client': 'b' },
    ];
    for (const headers of calls) await (await fetch(`${aggmock.url}/getallproviders`, { headers })).arrayBuffer();
    aggmock.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'status', status: 503 }, times: 1 });
    for (let i = 0; i < 3; i++) await (await fetch(`${aggmock.url}/getallproviders`, { headers: plain })).arrayBuffer();
    const entries = aggmock.requests.list({ path: '/getallproviders' }).reverse();
    expect(entries.map((e) => [e.status, e.headers['x-client'], e.headers['x-trace'] ?? null, e.fault?.kind ?? null])).toEqual([
      [200, 'a', null, null],
      [200, 'a', null, null],
      [200, 'a', null, null],
      [200, 'a', '1', null],
      [200, 'a', null, null],
      [200, 'b', null, null],
      [503, 'a', null, 'status'],
      [200, 'a', null, null],
      [200, 'a', null, null],
    ]);
    // Each has its own id, arrival and latency, and the same masked credentials and reply as the first.
    expect(new Set(entries.map((e) => e.id)).size).toBe(9);
    for (const e of entries) {
      expect(e.latencyMs).toBeGreaterThan(0);
      expect(e.headers['x-betnex-key']).toBe('[masked]');
      expect(Date.parse(e.at)).toBeGreaterThanOrEqual(Date.parse(entries[0]?.at ?? ''));
    }
    expect(new Set(entries.map((e) => e.latencyMs)).size).toBeGreaterThan(1);
    expect(entries[2]).toMatchObject({
      auth: { ok: true, method: 'api-key' },
      replyBytes: entries[0]?.replyBytes,
      reply: entries[0]?.reply,
    });
    expect(aggmock.requests.count({ path: '/getallproviders', headers: { 'x-client': 'a' }, status: 200 })).toBe(7);
  });

  it('with api.journal off records nothing, and fault rules still apply', async () => {
    const local = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 }, api: { journal: false } }),
    );
    try {
      expect((await fetch(`${local.url}/getallproviders`, { headers: HEADERS })).status).toBe(200);
      local.faults.add({ match: { path: '/getallproviders' }, fault: { kind: 'status', status: 502 }, times: 1 });
      expect((await fetch(`${local.url}/getallproviders`, { headers: HEADERS })).status).toBe(502);
      expect((await fetch(`${local.url}/getallproviders`, { headers: HEADERS })).status).toBe(200);
      expect(local.requests.count()).toBe(0);
      expect(validateConfig({}).api.journal).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('refuses a list query with an unknown parameter or a bad limit, naming it and what is taken', async () => {
    await fetch(`${aggmock.url}/getallproviders`, { headers: HEADERS });
    const player = await fetch(`${aggmock.url}/__admin/requests?player=p1`);
    expect(player.status).toBe(400);
    expect(await player.json()).toMatchObject({
      errors: [
        {
          field: 'player',
          message: 'unknown query parameter; expected one of path, method, status, limit, before, view',
          received: 'p1',
        },
      ],
    });
    for (const limit of ['abc', '0', '1001', '2.5']) {
      const res = await fetch(`${aggmock.url}/__admin/requests?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(await res.json(), limit).toMatchObject({
        message: 'Invalid request: limit: expected an integer 1–1000.',
        errors: [{ field: 'limit', message: 'expected an integer 1–1000' }],
      });
    }
    const fine = await fetch(`${aggmock.url}/__admin/requests?path=/getallproviders&method=GET&status=200&limit=1000`);
    expect(fine.status).toBe(200);
    expect(((await fine.json()) as { requests: unknown[] }).requests).toHaveLength(1);
  });

  it('does not journal aggmock’s own pages and admin API', async () => {
    await fetch(`${aggmock.url}/health`);
    await fetch(`${aggmock.url}/__admin/faults`);
    await fetch(`${aggmock.url}/ui/deliveries`);
    expect(aggmock.requests.count()).toBe(0);
  });
});
