import { afterEach, describe, expect, it } from 'vitest';
import { EXPOSED_LAUNCH_LIMIT } from '../../src/aggregator/routes.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { requestPayload, signPayload } from '../../src/signing/index.ts';

/**
 * M-4 (review 2026-11-27, tools/repro-session-evict.sh): exposed, the aggregator API took the
 * public development API key, and 10,000 anonymous launches evicted every live session (a tester's
 * open game answered 404). Exposed now: the development key and secret are refused, launches are
 * limited per address, and at the session cap a new launch is refused instead of ending live games.
 */
let aggmock: Aggmock | undefined;
afterEach(async () => {
  await aggmock?.close();
  aggmock = undefined;
});

const OWN_KEY = 'own-key-5c1e9a77';
async function start(extra: AggmockConfigInput = {}, exposed = true): Promise<Aggmock> {
  aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 2, games: 4 },
      ...(exposed ? { publicUrl: 'https://demo.example.test', admin: { token: 'admin-tok-7f3e' } } : {}),
      ...extra,
    }),
  );
  return aggmock;
}

async function launch(a: Aggmock, headers: Record<string, string>, username = 'p1') {
  const gameId = a.catalog.games[0]?.id;
  const body = JSON.stringify({ gameId, username, money: 100, platform: 1, home_url: 'https://c.example' });
  return fetch(`${a.url}/getgameurl`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
}

describe('M-4: an exposed aggregator API', () => {
  it('refuses the public development API key and signing secret with a 401 saying why, and takes the user’s own key', async () => {
    const a = await start({ auth: { apiKeys: ['aggmock-dev-key', OWN_KEY] } });
    const dev = await fetch(`${a.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
    expect(dev.status).toBe(401);
    const body = (await dev.json()) as { error: string; message: string };
    expect(body.error).toBe('DEV_CREDENTIALS_REFUSED');
    expect(body.message).toContain('exposed');
    expect(body.message).toContain('auth.apiKeys');
    const t = Math.floor(Date.now() / 1000);
    const signed = signPayload({
      scheme: 'timestamped',
      secrets: ['aggmock-dev-secret'],
      payload: requestPayload('GET', '/getallproviders', ''),
      timestamp: t,
    });
    const hmac = await fetch(`${a.url}/getallproviders`, { headers: signed });
    expect(hmac.status).toBe(401);
    expect(((await hmac.json()) as { error: string }).error).toBe('DEV_CREDENTIALS_REFUSED');
    expect((await fetch(`${a.url}/getallproviders`, { headers: { 'x-betnex-key': OWN_KEY } })).status).toBe(200);
    expect((await launch(a, { 'x-betnex-key': 'aggmock-dev-key' })).status).toBe(401);
  });

  it('local (not exposed), the development key works as always', async () => {
    const a = await start({}, false);
    expect((await fetch(`${a.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } })).status).toBe(200);
  });

  it('at the session cap refuses a new launch (503 naming launch.maxSessions) and every live game stays open', async () => {
    const a = await start({ auth: { apiKeys: [OWN_KEY] }, launch: { maxSessions: 3 } });
    const key = { 'x-betnex-key': OWN_KEY };
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await launch(a, key, `p${i}`);
      expect(res.status, await res.clone().text()).toBe(200);
      urls.push(((await res.json()) as { payload: { game_launch_url: string } }).payload.game_launch_url);
    }
    const full = await launch(a, key, 'p9');
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('60');
    const body = (await full.json()) as { error: string; message: string };
    expect(body.error).toBe('SESSIONS_FULL');
    expect(body.message).toContain('launch.maxSessions 3');
    for (const url of urls) {
      const play = await fetch(`${a.url}${new URL(url).pathname}`);
      expect(play.status, url).not.toBe(404);
    }
  });

  it('limits launches per address', async () => {
    const a = await start({ auth: { apiKeys: [OWN_KEY] } });
    const key = { 'x-betnex-key': OWN_KEY };
    const statuses: number[] = [];
    for (let i = 0; i <= EXPOSED_LAUNCH_LIMIT.requests; i++) statuses.push((await launch(a, key, `p${i}`)).status);
    expect(statuses.slice(0, EXPOSED_LAUNCH_LIMIT.requests).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});
