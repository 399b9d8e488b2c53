import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, nextBefore, pageSize } from '../../src/http/paging.ts';
import type { NewJournaledRequest } from '../../src/requests/index.ts';
import { closeInstances, instance } from './instance.ts';

/**
 * One paging shape for every list of the admin API: `limit` (1–1000, 100 by default), the cursor
 * `before` (an earlier page's `nextBefore`), and `nextBefore` in the answer, null on the last page.
 */

afterAll(closeInstances);

const LISTS = ['/__admin/deliveries', '/__admin/discrepancies', '/__admin/requests'] as const;

const journaled = (n: number): NewJournaledRequest => ({
  at: 1_700_000_000_000 + n,
  method: 'GET',
  // Each differs from the one before, so each is its own row.
  path: `/getallproviders${n % 2 ? '' : 'x'}`,
  query: { n: String(n) },
  headers: {},
  body: null,
  bodyBytes: 0,
  auth: { ok: true, method: 'api-key' },
  status: 200,
  reply: '{}',
  replyBytes: 2,
  complete: true,
  latencyMs: 1,
  fault: null,
  hint: null,
});

async function get(app: ReturnType<typeof instance>['app'], path: string) {
  const res = await app.request(path);
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON replies
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('bad paging input: a 400 naming the field, on every list', () => {
  const { app } = instance();

  it.each(LISTS)('%s refuses a limit outside 1–1000 or not a whole number', async (list) => {
    for (const limit of ['0', '-1', '1001', '2.5', 'abc', '', '1e400']) {
      const res = await get(app, `${list}?limit=${limit}`);
      expect(res.status, `limit=${limit}`).toBe(400);
      expect(res.body.errors, `limit=${limit}`).toEqual([
        expect.objectContaining({ field: 'limit', message: 'expected an integer 1–1000' }),
      ]);
    }
  });

  it.each(LISTS)('%s refuses a cursor no page gave (forged, negative, fractional, past 2^53)', async (list) => {
    for (const before of ['abc', '0', '-3', '1.5', '99999999999999999999', 'Infinity', '%00']) {
      const res = await get(app, `${list}?before=${before}`);
      expect(res.status, `before=${before}`).toBe(400);
      expect(res.body.errors, `before=${before}`).toEqual([
        expect.objectContaining({ field: 'before', message: 'expected the nextBefore of an earlier page (a positive integer)' }),
      ]);
      expect(res.body.message).toContain('before:');
    }
  });

  it.each(LISTS)('%s takes a limit and a cursor in the forms a client sends them', async (list) => {
    for (const query of ['', '?limit=1', '?limit=1000', `?limit=${DEFAULT_PAGE_SIZE}&before=1`, '?before=9007199254740991']) {
      const res = await get(app, `${list}${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body.nextBefore, query).toBeNull();
    }
  });
});

describe('walking the pages', () => {
  it('deliveries: each page starts below the last, the last page says null, and no delivery is seen twice', async () => {
    const { app } = instance();
    for (let i = 1; i <= 5; i++) {
      const res = await app.request('/__admin/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'debit', playerId: 'p1', amount: i }),
      });
      expect(res.status).toBe(202);
    }
    const seen: number[] = [];
    let cursor: number | null | undefined;
    for (let pages = 0; cursor !== null; pages++) {
      expect(pages).toBeLessThan(5);
      const page = await get(app, `/__admin/deliveries?limit=2${cursor ? `&before=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.deliveries.map((d: { amount: number }) => d.amount));
      cursor = page.body.nextBefore;
    }
    expect(seen).toEqual([5, 4, 3, 2, 1]);
  });

  it('requests: the same cursor walks the journal, newest first', async () => {
    const { app, journal } = instance();
    for (let n = 1; n <= 5; n++) journal.append(journaled(n));
    const first = await get(app, '/__admin/requests?limit=3');
    expect(first.body.requests.map((r: { query: { n: string } }) => r.query.n)).toEqual(['5', '4', '3']);
    expect(first.body.nextBefore).toBe(first.body.requests[2].id);
    const second = await get(app, `/__admin/requests?limit=3&before=${first.body.nextBefore}`);
    expect(second.body.requests.map((r: { query: { n: string } }) => r.query.n)).toEqual(['2', '1']);
    expect(second.body.nextBefore).toBeNull();
  });
});

describe('the paging rules themselves', () => {
  it('nextBefore: the last id of a full or cut page, null for a short one or none', () => {
    const page = (ids: number[], truncated?: boolean) =>
      Object.assign(
        ids.map((id) => ({ id })),
        truncated === undefined ? {} : { truncated },
      );
    expect(nextBefore(page([9, 7, 4]), 3)).toBe(4);
    expect(nextBefore(page([9, 7]), 3)).toBeNull();
    expect(nextBefore(page([9, 7], true), 3)).toBe(7);
    expect(nextBefore(page([9, 7], false), 3)).toBeNull();
    expect(nextBefore(page([]), 3)).toBeNull();
    expect(nextBefore(page([], true), 3)).toBeNull();
  });

  it('pageSize: the default when absent, else kept in 1–1000', () => {
    expect(pageSize(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect([pageSize(0), pageSize(-5), pageSize(1), pageSize(250), pageSize(5000), pageSize(2.7)]).toEqual([
      1,
      1,
      1,
      250,
      MAX_PAGE_SIZE,
      2,
    ]);
  });
});
