import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { MAX_JOURNALED_ROW_BYTES, MAX_LIST_BYTES, type NewJournaledRequest, RequestJournal } from '../../src/requests/journal.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { openDatabase } from '../../src/storage/index.ts';

/**
 * H-1 (review 2026-11-27): the request journal stored the whole raw body of any request with a
 * signature header (auth.signedString), from anyone, before authentication: ~1 MB a request on
 * disk, reads of GBs, a 500 at limit=1000. Now the journal keeps the signed prefix and the body's
 * digest and length, every row is capped over all its columns, retention has a byte budget, and
 * admin reads page by bytes and offer summaries.
 */
describe('H-1: the request journal stays bounded whatever anonymous clients send', () => {
  let aggmock: Aggmock;
  const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
  /** Stored bytes of every row, all columns together, as SQLite holds them. */
  const storedRowBytes = () =>
    aggmock.db
      .prepare(
        `SELECT max(length(CAST(path AS BLOB)) + ifnull(length(CAST(query AS BLOB)), 0) + length(CAST(headers AS BLOB))
             + ifnull(length(CAST(body AS BLOB)), 0) + length(CAST(auth AS BLOB)) + ifnull(length(CAST(reply AS BLOB)), 0)
             + ifnull(length(CAST(hint AS BLOB)), 0)) AS biggest, total(length(CAST(auth AS BLOB))) AS auth
           FROM api_requests`,
      )
      .get() as { biggest: number; auth: number };

  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 } }));
  });
  afterAll(async () => {
    await aggmock?.close();
  });

  it('journals an anonymous 1 MB signed request as its signed prefix and the body’s digest, in one capped row', async () => {
    aggmock.requests.clear();
    const body = 'a'.repeat(1_000_000);
    const res = await fetch(`${aggmock.url}/no-such-path?r=1&api_key=QUERY-KEY-1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-signature': 't=1,v1=00' },
      body,
    });
    expect(res.status).toBe(404); // not a route: journaled all the same, before routing and authentication
    const [entry] = aggmock.requests.list({ limit: 1 });
    expect(entry?.auth).toEqual({
      ok: false,
      error: 'INVALID_SIGNATURE',
      message: expect.any(String),
      reason: expect.any(String),
      signedPrefix: '1.POST./no-such-path?r=1&api_key=[masked].',
      bodySha256: sha(body),
      bodyBytes: 1_000_000,
    });
    expect(entry?.auth).not.toHaveProperty('signedString');
    expect(JSON.stringify(entry).length).toBeLessThan(MAX_JOURNALED_ROW_BYTES);
    const stored = storedRowBytes();
    expect(stored.biggest).toBeLessThanOrEqual(MAX_JOURNALED_ROW_BYTES);
    expect(stored.auth).toBeLessThan(2000);
  });

  it('the signed prefix and digest let a client find its own mistake: hashing its body gives the digest', async () => {
    aggmock.requests.clear();
    const body = '{"gameId":"g","username":"p1"}';
    await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': 't=1700000000,v1=00' },
      body,
    });
    const [entry] = aggmock.requests.list({ limit: 1 });
    expect(entry?.auth).toMatchObject({
      signedPrefix: '1700000000.POST./getgameurl.',
      bodySha256: sha(body),
      bodyBytes: body.length,
    });
    // A different body has a different digest: the client sees it is not what aggmock received.
    expect(sha(`${body} `)).not.toBe((entry as { auth: { bodySha256: string } }).auth.bodySha256);
  });

  it('answers limit=1000 with a 200 of at most a few MiB over big rows, and says where the next page starts', async () => {
    aggmock.requests.clear();
    const body = 'b'.repeat(20_000);
    for (let i = 0; i < 20; i++) {
      await fetch(`${aggmock.url}/no-such-path?i=${i}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-signature': 't=1,v1=00' },
        body,
      });
    }
    // Faster than 300 more requests: rows as big as the intercept writes (a 16 KiB body, a 2 KiB reply).
    const writer = new RequestJournal(aggmock.db, { retention: { maxEvents: 100_000, maxAge: 1e12 } });
    for (let i = 20; i < 300; i++) {
      writer.append({
        ...(aggmock.requests.list({ limit: 1 })[0] as NewJournaledRequest),
        path: `/no-such-path-${i}`,
        reply: 'r'.repeat(2048),
      });
    }
    writer.flush();
    const res = await fetch(`${aggmock.url}/__admin/requests?limit=1000`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(MAX_LIST_BYTES + 64 * 1024);
    const page = JSON.parse(text) as { requests: { id: number }[]; nextBefore: number | null };
    expect(page.requests.length).toBeGreaterThan(50);
    expect(page.requests.length).toBeLessThan(300);
    expect(page.nextBefore).toBe(page.requests.at(-1)?.id);
    // The next page carries on where this one ended.
    const next = (await (await fetch(`${aggmock.url}/__admin/requests?limit=1000&before=${page.nextBefore}`)).json()) as {
      requests: { id: number }[];
    };
    expect(next.requests[0]?.id).toBe((page.nextBefore as number) - 1);
    // A small page is still a plain count-limited page.
    const small = (await (await fetch(`${aggmock.url}/__admin/requests?limit=3`)).json()) as { requests: unknown[] };
    expect(small.requests).toHaveLength(3);
  });

  it('lists summaries without headers, body and reply, and gives a row’s details on demand', async () => {
    aggmock.requests.clear();
    await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-betnex-key': 'aggmock-dev-key' },
      body: '{"gameId":"nope","username":"p1"}',
    });
    const summary = (await (await fetch(`${aggmock.url}/__admin/requests?view=summary`)).json()) as {
      requests: { id: number; body: unknown; reply: unknown; headers: unknown; bodyBytes: number; status: number }[];
    };
    const [row] = summary.requests;
    expect(row).toMatchObject({ body: null, reply: null, headers: {}, status: 400, bodyBytes: 33 });
    const detail = (await (await fetch(`${aggmock.url}/__admin/requests/${row?.id}`)).json()) as {
      request: { body: string; reply: string; headers: Record<string, string> };
    };
    expect(detail.request.body).toBe('{"gameId":"nope","username":"p1"}');
    expect(detail.request.reply).toContain('gameId');
    expect(detail.request.headers['x-betnex-key']).toBe('[masked]');
    // A view that is not one: a 400 naming the field.
    const bad = await fetch(`${aggmock.url}/__admin/requests?view=everything`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('view');
  });
});

describe('H-1: every row is capped, and retention has a byte budget', () => {
  const entry = (over: Partial<NewJournaledRequest> = {}): NewJournaledRequest => ({
    at: Date.now(),
    method: 'POST',
    path: '/getgameurl',
    query: {},
    headers: { 'content-type': 'application/json' },
    body: 'x'.repeat(16 * 1024),
    bodyBytes: 16 * 1024,
    auth: { ok: true, method: 'none' },
    status: 400,
    reply: 'r'.repeat(2048),
    replyBytes: 2048,
    complete: true,
    latencyMs: 1,
    fault: null,
    hint: null,
    ...over,
  });

  it('cuts a row whose headers, query and path together pass the cap, and keeps a small row as it is', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 1000, maxAge: 1e12 } });
    const headers: Record<string, string> = {};
    for (let i = 0; i < 100; i++) headers[`x-h${i}`] = 'v'.repeat(1000);
    journal.append(entry({ headers, query: { q: 'q'.repeat(20_000) }, path: `/p/${'p'.repeat(20_000)}` }));
    journal.append(entry({ body: '{"small":true}', reply: null }));
    const [small, big] = journal.list();
    expect(small?.body).toBe('{"small":true}');
    const bytes = Buffer.byteLength(JSON.stringify(big));
    expect(bytes).toBeLessThanOrEqual(MAX_JOURNALED_ROW_BYTES + 1024);
    expect(big?.method).toBe('POST');
  });

  it('keeps the journal within its byte budget: the oldest rows leave, the newest stay', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), {
      retention: { maxEvents: 100_000, maxAge: 1e12, maxBytes: 200_000 },
    });
    for (let i = 0; i < 100; i++) {
      journal.append(entry({ path: `/n${i}` }));
      if (i % 10 === 9) journal.flush();
    }
    journal.flush();
    journal.prune();
    expect(journal.bytes).toBeLessThanOrEqual(200_000);
    const kept = journal.list({ limit: 1000 });
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.length).toBeLessThan(20);
    expect(kept[0]?.path).toBe('/n99');
    // Within the budget nothing leaves.
    const roomy = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 100_000, maxAge: 1e12 } });
    for (let i = 0; i < 100; i++) roomy.append(entry({ path: `/n${i}` }));
    roomy.flush();
    roomy.prune();
    expect(roomy.list({ limit: 1000 })).toHaveLength(100);
  });
});
