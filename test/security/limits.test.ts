import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH, MAX_URL_LENGTH } from '../../src/http/limits.ts';
import { DiscrepancyStore } from '../../src/ledger/store.ts';
import type { Aggmock } from '../../src/runtime.ts';
import { openDatabase } from '../../src/storage/index.ts';
import { DEV_KEY_HEADERS, startSmallAggmock, testApp } from '../api/helpers.ts';

/** Memory and disk stay bounded whatever clients send: field limits, a session cap, retention. */
describe('bounded memory and storage', () => {
  const huge = 'x'.repeat(300_000);

  describe('launches', () => {
    const { app, catalog, sessions } = testApp({ launch: { maxSessions: 5 } });
    const launch = (extra: Record<string, unknown>) =>
      app.request('/getgameurl', {
        method: 'POST',
        headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify({
          username: 'p1',
          gameId: catalog.games[0]!.id,
          money: 10,
          platform: 1,
          home_url: 'https://casino.example',
          ...extra,
        }),
      });

    it.each([
      ['callback_url', { callback_url: `http://127.0.0.1:4001/${huge}` }, MAX_URL_LENGTH],
      ['home_url', { home_url: `https://casino.example/${huge}` }, MAX_URL_LENGTH],
      ['username', { username: huge }, MAX_ID_LENGTH],
    ])('refuses a 300 KB %s with a 400 naming the field and its limit, and stores nothing', async (field, extra, limit) => {
      const before = sessions.size;
      const res = await launch(extra);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: Array<{ field: string; message: string }> };
      expect(body.errors[0]).toMatchObject({ field, message: `expected at most ${limit} characters` });
      expect(sessions.size).toBe(before);
    });

    it('keeps at most launch.maxSessions sessions: the oldest link is forgotten (404), the newest works', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await launch({ username: `p${i}` });
        ids.push(((await res.json()) as { payload: { session_id: string } }).payload.session_id);
      }
      expect(sessions.size).toBe(5);
      expect((await app.request(`/play/${ids[0]}`)).status).toBe(404);
      expect((await app.request(`/play/${ids[7]}`)).status).toBe(200);
    });
  });

  describe('admin API', () => {
    let aggmock: Aggmock;
    beforeAll(async () => {
      aggmock = await startSmallAggmock({ webhookUrl: 'http://127.0.0.1:9/' });
    });
    afterAll(() => aggmock?.close());

    it.each([
      ['playerId', { playerId: huge }],
      ['transactionId', { playerId: 'p1', transactionId: huge }],
      ['amount', { playerId: 'p1', amount: '1'.repeat(100) }],
    ])('refuses an oversized %s with a 400 and enqueues nothing', async (field, body) => {
      const res = await fetch(`${aggmock.url}/__admin/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'debit', amount: 1, ...body }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe(field);
      expect(aggmock.engine.outbox.list({ limit: 10 })).toHaveLength(0);
    });
  });

  it('discrepancies follow the deliveries’ retention (callbacks.retention)', () => {
    const db = openDatabase(':memory:');
    const store = new DiscrepancyStore(db);
    const draft = (createdAt: number) => ({
      playerId: 'p1',
      kind: 'balance-drift' as const,
      expectedMinor: 1,
      actualMinor: 2,
      eventIds: [1],
      message: 'm',
      createdAt,
    });
    store.insert(Array.from({ length: 150 }, (_, i) => draft(1_000 + i)));
    expect(store.prune(2_000, { maxEvents: 100, maxAge: 10_000 })).toBe(50);
    expect(store.count()).toBe(100);
    expect(store.prune(1_000 + 10_000 + 120, { maxEvents: 100, maxAge: 10_000 })).toBe(70);
    db.close();
  });
});
