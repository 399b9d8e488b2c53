/**
 * Test YOUR client of the aggregator API (the code that lists games and launches them) against
 * an aggregator that misbehaves on demand, and assert on what your client sent.
 *
 * `launchGame` below stands in for your client: it retries a 5xx once. Replace it with yours:
 *   npx vitest run examples/client-faults.test.ts
 */
import { type Aggmock, defaultConfig, startAggmock } from 'aggmock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/** Your client: POST /getgameurl, one retry on a 5xx or a network error, a 2 s timeout per try. */
async function launchGame(baseUrl: string, username: string, gameId: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${baseUrl}/getgameurl`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-betnex-key': 'aggmock-dev-key' },
        body: JSON.stringify({ username, gameId, money: 100, platform: 1, home_url: 'https://casino.example/', currency: 'EUR' }),
        signal: AbortSignal.timeout(2_000),
      });
      if (res.status >= 500 && attempt < 2) continue;
      const body = (await res.json()) as { success: boolean; message?: string; payload?: { game_launch_url: string } };
      if (!body.success || !body.payload) throw new Error(`launch refused: ${res.status} ${body.message}`);
      return body.payload.game_launch_url;
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}

describe('our game-launch client', () => {
  let aggmock: Aggmock;
  let gameId: string;
  beforeAll(async () => {
    aggmock = await startAggmock({ ...defaultConfig(), port: 0, db: ':memory:' });
    gameId = aggmock.catalog.games[0]?.id as string;
  });
  afterAll(() => aggmock.close());
  afterEach(() => {
    aggmock.faults.clear();
    aggmock.requests.clear();
  });

  it('retries once when the aggregator answers 503, and sends the same launch again', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 503 }, times: 1 });
    const url = await launchGame(aggmock.url, 'p1', gameId);
    expect(url).toContain('/play/');
    expect(aggmock.requests.count({ method: 'POST', path: '/getgameurl', body: { username: 'p1', currency: 'EUR' } })).toBe(2);
    const [second, first] = aggmock.requests.list({ path: '/getgameurl' });
    expect(first).toMatchObject({ status: 503, fault: { kind: 'status' } });
    expect(second).toMatchObject({ status: 200, fault: null, auth: { ok: true } });
  });

  it('retries once when the connection is reset', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'reset' }, nth: 1 });
    await launchGame(aggmock.url, 'p2', gameId);
    expect(aggmock.requests.count({ path: '/getgameurl', body: { username: 'p2' } })).toBe(2);
  });

  it('gives up with an error, not a hang, when the aggregator never answers', async () => {
    aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'timeout' } });
    await expect(launchGame(aggmock.url, 'p3', gameId)).rejects.toThrow(/timeout|aborted/i);
    // Both tries are on record at once (a held call is journaled when its fault fires), unanswered.
    expect(aggmock.requests.count({ path: '/getgameurl', body: { username: 'p3' } })).toBe(2);
    expect(aggmock.requests.list({ path: '/getgameurl' }).map((r) => r.status)).toEqual([null, null]);
  }, 10_000);
});
