import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../callbacks/db.ts';
import { MASKED } from './describe.ts';
import { type NewJournaledRequest, RequestJournal } from './journal.ts';

describe('RequestJournal', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const entry = (overrides: Partial<NewJournaledRequest> = {}): NewJournaledRequest => ({
    at: new Date(1_700_000_000_000).toISOString(),
    method: 'POST',
    path: '/getgameurl',
    query: {},
    headers: {},
    body: JSON.stringify({ currency: 'EUR' }),
    bodyBytes: 18,
    auth: { ok: true, method: 'api-key' },
    status: 200,
    reply: '{}',
    replyBytes: 2,
    complete: true,
    latencyMs: 1,
    fault: null,
    hint: null,
    ...overrides,
  });

  it('survives a restart: a journal reopened on the same file lists what the first wrote', () => {
    dir = mkdtempSync(join(tmpdir(), 'aggmock-journal-'));
    const file = join(dir, 'aggmock.db');
    const retention = { maxEvents: 100, maxAge: 86_400_000 * 365 * 100 };
    const db = openDatabase(file);
    const first = new RequestJournal(db, { retention });
    first.append(entry());
    first.append(entry({ path: '/casino/getgameurl', body: JSON.stringify({ currency: 'USD' }) }));
    first.close();
    db.close();
    const reopened = new RequestJournal(openDatabase(file), { retention });
    expect(reopened.list().map((e) => e.path)).toEqual(['/casino/getgameurl', '/getgameurl']);
    expect(reopened.count({ path: '/getgameurl', body: { currency: 'EUR' } })).toBe(1);
    expect(reopened.count({ path: '/getgameurl' })).toBe(2);
    reopened.db.close();
  });

  it('is pruned by the retention: the newest maxEvents are kept and older-than-maxAge removed', () => {
    let now = 1_700_000_000_000;
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 3, maxAge: 60_000 }, now: () => now });
    for (let i = 0; i < 5; i++) journal.append(entry({ at: new Date(now).toISOString(), status: 200 + i }));
    journal.flush();
    expect(journal.prune()).toBe(2);
    expect(journal.list().map((e) => e.status)).toEqual([204, 203, 202]);
    now += 120_000;
    journal.append(entry({ at: new Date(now).toISOString(), status: 299 }));
    journal.flush();
    journal.prune();
    expect(journal.list().map((e) => e.status)).toEqual([299]);
  });

  it('prunes rows past maxAge when reopened, and while a quiet client writes a row now and then', () => {
    dir = mkdtempSync(join(tmpdir(), 'aggmock-journal-'));
    const file = join(dir, 'aggmock.db');
    let now = 1_700_000_000_000;
    const retention = { maxEvents: 1000, maxAge: 3_600_000 };
    const db = openDatabase(file);
    const first = new RequestJournal(db, { retention, now: () => now });
    first.append(entry({ at: now, status: 201 }));
    first.close();
    db.close();
    now += 2 * 3_600_000;
    const reopened = new RequestJournal(openDatabase(file), { retention, now: () => now });
    expect(reopened.list()).toEqual([]);
    // Two requests two hours apart, far fewer than the rows between two prunes by count.
    reopened.append(entry({ at: now, status: 202 }));
    expect(reopened.list().map((e) => e.status)).toEqual([202]);
    now += 2 * 3_600_000;
    reopened.append(entry({ at: now, status: 203 }));
    expect(reopened.list().map((e) => e.status)).toEqual([203]);
    reopened.db.close();
  });

  /** One client's repeated call: the same nested objects each time, as the intercept hands them. */
  const repeated = (() => {
    const headers = { host: '127.0.0.1', 'x-betnex-key': MASKED };
    const query = { provider: 'PGSOFT' };
    const auth = { ok: true, method: 'api-key', header: 'x-betnex-key' } as const;
    return (at: number, latencyMs: number): NewJournaledRequest =>
      entry({
        at,
        method: 'GET',
        path: '/getallgamesandprovider',
        query,
        headers,
        body: null,
        bodyBytes: 0,
        auth,
        reply: '[]',
        latencyMs,
      });
  })();
  const rowCount = (journal: RequestJournal) =>
    (journal.db.prepare('SELECT count(*) AS n FROM api_requests').get() as { n: number }).n;

  it('stores a run of repeated calls in one row, and lists, gets, counts and pages each call with its own id, time and latency', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 10_000, maxAge: 1e12 } });
    const t0 = 1_700_000_000_000;
    journal.append(entry({ at: t0 }));
    for (let i = 0; i < 250; i++) journal.append(repeated(t0 + 1 + i, i / 8));
    journal.append(entry({ at: t0 + 500, status: 400, path: '/casino/getgameurl' }));
    journal.flush();
    expect(rowCount(journal)).toBe(3);
    expect(journal.count()).toBe(252);
    expect(journal.count({ path: '/getallgamesandprovider' })).toBe(250);
    expect(journal.count({ query: { provider: 'PGSOFT' }, authOk: true })).toBe(250);

    const newest = journal.list({ limit: 5 });
    expect(newest.map((e) => e.id)).toEqual([252, 251, 250, 249, 248]);
    expect(newest[0]?.status).toBe(400);
    expect(newest[1]).toMatchObject({ path: '/getallgamesandprovider', query: { provider: 'PGSOFT' }, latencyMs: 249 / 8 });
    expect(newest[1]?.at).toBe(new Date(t0 + 250).toISOString());

    const all = journal.list({ path: '/getallgamesandprovider', limit: 1000 });
    expect(all).toHaveLength(250);
    expect(all.map((e) => e.latencyMs)).toEqual(Array.from({ length: 250 }, (_, i) => (249 - i) / 8));
    expect(new Set(all.map((e) => e.id)).size).toBe(250);

    // A page that starts inside the run, and one across its first call into the row before it.
    expect(journal.list({ beforeId: 100, limit: 3 }).map((e) => e.id)).toEqual([99, 98, 97]);
    expect(journal.list({ beforeId: 3, limit: 5 }).map((e) => [e.id, e.method])).toEqual([
      [2, 'GET'],
      [1, 'POST'],
    ]);
    expect(journal.get(101)).toMatchObject({ id: 101, latencyMs: 99 / 8, at: new Date(t0 + 100).toISOString() });
    expect(journal.get(1)?.method).toBe('POST');
    expect(journal.get(253)).toBeUndefined();
  });

  it('gives a call a fault rule fired on, or any other difference, a row of its own', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 10_000, maxAge: 1e15 } });
    const fault = { ruleId: 'r1', kind: 'delay', delayMs: 5 };
    journal.append(repeated(1, 1));
    journal.append({ ...repeated(2, 1), fault });
    journal.append({ ...repeated(3, 1), fault });
    journal.append({ ...repeated(4, 1), status: 304 });
    journal.append(repeated(5, 1));
    journal.append(repeated(6, 1));
    journal.flush();
    expect(rowCount(journal)).toBe(5);
    expect(journal.list().map((e) => [e.id, e.status, e.fault?.ruleId ?? null])).toEqual([
      [6, 200, null],
      [5, 200, null],
      [4, 304, null],
      [3, 200, 'r1'],
      [2, 200, 'r1'],
      [1, 200, null],
    ]);
    expect(journal.count({ faultRule: 'r1' })).toBe(2);
  });

  it('prunes runs by the retention: whole rows past the newest maxEvents, counting the calls removed', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 10, maxAge: 1e15 } });
    for (let i = 0; i < 8; i++) journal.append(repeated(i, 1));
    journal.append(entry({ at: 8 }));
    for (let i = 0; i < 8; i++) journal.append(repeated(9 + i, 2));
    journal.flush();
    // Ids 1–8 (one row), 9, 10–17 (one row): the newest 10 are 8–17, so the first row straddles and stays.
    expect(journal.prune()).toBe(0);
    expect(journal.count()).toBe(17);
    for (let i = 0; i < 3; i++) journal.append(entry({ at: 20 + i, status: 201 + i }));
    journal.flush();
    // Newest 10 are now 11–20: the first run and the lone entry leave; the second run straddles.
    expect(journal.prune()).toBe(9);
    expect(journal.list({ limit: 1000 }).map((e) => e.id)).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
  });

  it('lists a held call at once as it stands, and then as it ended, whether or not its row was written in between', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 100, maxAge: 1e15 } });
    const fault = { ruleId: 'f1', kind: 'timeout' };
    const holding = { ...repeated(1, 0.2), status: null, reply: null, complete: false, fault };
    // Settled before any flush: written once, as it ended.
    const early = journal.appendHeld(holding);
    journal.settle(early, { ...holding, latencyMs: 300 });
    // Written while held (a read flushes), then settled: its row is updated, its id kept.
    const late = journal.appendHeld({ ...holding, at: 2 });
    expect(journal.list().map((e) => [e.id, e.status, e.latencyMs, e.complete])).toEqual([
      [2, null, 0.2, false],
      [1, null, 300, false],
    ]);
    expect(journal.count({ path: '/getallgamesandprovider', faultRule: 'f1' })).toBe(2);
    // A call like the held one that comes after it has a row of its own.
    journal.append(repeated(3, 1));
    journal.append(repeated(4, 1));
    journal.settle(late, { ...holding, at: 2, status: 200, reply: '[]', complete: true, latencyMs: 450 });
    expect(journal.list().map((e) => [e.id, e.status, e.latencyMs, e.complete, e.fault?.ruleId ?? null])).toEqual([
      [4, 200, 1, true, null],
      [3, 200, 1, true, null],
      [2, 200, 450, true, 'f1'],
      [1, null, 300, false, 'f1'],
    ]);
    expect(rowCount(journal)).toBe(3);
  });

  it('reads a journal an earlier version wrote (no run columns) and goes on after its last id', () => {
    const db = openDatabase(':memory:');
    db.exec(`CREATE TABLE api_requests (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
      route TEXT NOT NULL, query TEXT, headers TEXT NOT NULL, body TEXT, body_bytes INTEGER NOT NULL, auth TEXT NOT NULL,
      status INTEGER, reply TEXT, reply_bytes INTEGER NOT NULL, complete INTEGER NOT NULL, latency_ms REAL NOT NULL, fault TEXT, hint TEXT)`);
    db.prepare(
      `INSERT INTO api_requests (at, method, path, route, query, headers, body, body_bytes, auth, status, reply, reply_bytes, complete, latency_ms)
       VALUES (?, 'GET', '/getallproviders', '/getallproviders', NULL, '{}', NULL, 0, '{"ok":true,"method":"none"}', 200, '[]', 2, 1, 0.5)`,
    ).run(Date.now());
    const journal = new RequestJournal(db, { retention: { maxEvents: 100, maxAge: 1e12 } });
    journal.append(repeated(Date.now(), 1));
    journal.append(repeated(Date.now(), 1));
    expect(journal.list().map((e) => [e.id, e.path])).toEqual([
      [3, '/getallgamesandprovider'],
      [2, '/getallgamesandprovider'],
      [1, '/getallproviders'],
    ]);
    expect(journal.get(1)).toMatchObject({ method: 'GET', latencyMs: 0.5, auth: { ok: true, method: 'none' } });
  });

  it('writes nothing until a flush, and every read flushes first', () => {
    const journal = new RequestJournal(openDatabase(':memory:'), { retention: { maxEvents: 100, maxAge: 1e12 } });
    journal.append(entry());
    expect((journal.db.prepare('SELECT count(*) AS n FROM api_requests').get() as { n: number }).n).toBe(0);
    expect(journal.count()).toBe(1);
    expect((journal.db.prepare('SELECT count(*) AS n FROM api_requests').get() as { n: number }).n).toBe(1);
  });
});
