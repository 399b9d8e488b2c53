import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase as openSqlite } from '../storage/index.ts';
import { openDatabase } from './db.ts';
import type { StoredEvent } from './events.ts';
import { EVENT_ID_BLOCK, Outbox } from './outbox.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-outbox-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'outbox.db');
}

function open(path: string): Outbox {
  const db = openDatabase(path);
  cleanups.push(() => {
    db.close();
  });
  return new Outbox(db);
}

function newEvent(n: number): Omit<StoredEvent, 'id'> {
  return {
    kind: 'debit',
    transactionId: `tx_${n}`,
    playerId: 'p1',
    amountMinor: n,
    source: 'manual',
    orderingKey: 'p1',
    url: 'http://127.0.0.1:9/callback',
    body: `{"n":${n}}`,
    status: 'pending',
    attemptCount: 0,
    createdAt: 1_000 + n,
  };
}

const addSome = (outbox: Outbox, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => outbox.insert(newEvent(from + i)).id);

describe('Outbox event ids', () => {
  it('hands out the id at insert and writes the row at flush', () => {
    const path = tempDbPath();
    const outbox = open(path);
    const ids = addSome(outbox, 3);
    expect(ids).toEqual([1, 2, 3]);
    expect(outbox.hasBuffered()).toBe(true);
    const other = openSqlite(path, { readonly: true });
    cleanups.push(() => other.close());
    const count = () => (other.prepare('SELECT count(*) AS n FROM callback_events').get() as { n: number }).n;
    expect(count()).toBe(0);
    outbox.flush();
    expect(count()).toBe(3);
    expect(outbox.hasBuffered()).toBe(false);
  });

  it('continues after a clean restart without a gap', () => {
    const path = tempDbPath();
    const first = open(path);
    addSome(first, 3);
    first.checkpoint();
    first.db.close();
    expect(addSome(open(path), 2)).toEqual([4, 5]);
  });

  it('never reuses an id after a crash, a reset or a prune that emptied the table', () => {
    const path = tempDbPath();
    const crashed = open(path);
    addSome(crashed, 3);
    crashed.flush();
    crashed.db.close(); // no checkpoint: the rest of the reserved block is skipped, not reused
    const afterCrash = open(path);
    const [next] = addSome(afterCrash, 1);
    expect(next).toBeGreaterThan(3);
    expect(next).toBeLessThanOrEqual(3 + EVENT_ID_BLOCK + 1);

    afterCrash.reset();
    const [afterReset] = addSome(afterCrash, 1);
    expect(afterReset).toBe((next as number) + 1);
    afterCrash.flush();
    afterCrash.db.prepare("UPDATE callback_events SET status = 'delivered'").run();
    expect(afterCrash.prune(10_000, { maxEvents: 0, maxAge: 1 })).toBe(1);
    expect(afterCrash.counts().delivered).toBe(0);
    afterCrash.checkpoint();
    afterCrash.db.close();
    expect(addSome(open(path), 1)).toEqual([(afterReset as number) + 1]);
  });

  it('keeps ids unique when two connections insert into the same file', () => {
    const path = tempDbPath();
    const a = open(path);
    const b = open(path);
    const ids = [...addSome(a, 2), ...addSome(b, 2), ...addSome(a, 2)];
    a.flush();
    b.flush();
    expect(new Set(ids).size).toBe(6);
    expect(a.list({ limit: 10 }).map((e) => e.id)).toEqual([...ids].sort((x, y) => y - x));
  });

  it('reserves ids, prunes and gives ids back while another process writes the same file (no SQLITE_BUSY)', async () => {
    const path = tempDbPath();
    const outbox = open(path);
    // Another writer (a second aggmock on the same --db) committing as fast as it can: a transaction
    // that reads before it writes must take the write lock first, or a commit between its read and
    // its write fails it at once with SQLITE_BUSY (no busy timeout applies to that).
    const writer = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const db = workerData.driver === 'node'
         ? new (process.getBuiltinModule('node:sqlite').DatabaseSync)(workerData.path)
         : new (require(workerData.betterSqlite))(workerData.path);
       db.exec('PRAGMA busy_timeout = 5000');
       const write = db.prepare("INSERT INTO callback_meta (key, value) VALUES ('other-writer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
       parentPort.postMessage('writing');
       const until = Date.now() + workerData.ms;
       let n = 0;
       while (Date.now() < until) write.run(String(n++));
       db.close();
       parentPort.postMessage(n);`,
      {
        eval: true,
        workerData: {
          path,
          ms: 1_500,
          driver: outbox.db.driver,
          betterSqlite: createRequire(import.meta.url).resolve('better-sqlite3'),
        },
      },
    );
    const writes = new Promise<number>((resolve, reject) => {
      writer.on('message', (m: string | number) => typeof m === 'number' && resolve(m));
      writer.on('error', reject);
    });
    await new Promise<void>((resolve) => writer.once('message', () => resolve()));
    const ids: number[] = [];
    const until = Date.now() + 1_000;
    while (Date.now() < until) {
      for (let i = 0; i < EVENT_ID_BLOCK; i++) ids.push(outbox.insert(newEvent(i)).id);
      outbox.flush();
      outbox.prune(Date.now(), { maxEvents: 10, maxAge: 3_600_000 });
      outbox.checkpoint();
    }
    expect(await writes).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps everything buffered when a commit fails, and writes it at the next flush', () => {
    const path = tempDbPath();
    const outbox = open(path);
    addSome(outbox, 1);
    outbox.flush();
    // Another writer that ignores the reservation takes the next id: the commit fails.
    const intruder = openSqlite(path);
    intruder
      .prepare(`INSERT INTO callback_events (id, kind, transaction_id, player_id, amount_minor, source, ordering_key, url, body,
        status, created_at) VALUES (2, 'credit', 'tx_x', 'px', 1, 'manual', 'px', 'http://x', '{}', 'pending', 1)`)
      .run();
    const [id] = addSome(outbox, 1, 7);
    expect(id).toBe(2);
    expect(() => outbox.flush()).toThrow(/UNIQUE/);
    expect(outbox.hasBuffered()).toBe(true);
    intruder.prepare('DELETE FROM callback_events WHERE id = 2').run();
    intruder.close();
    outbox.flush();
    expect(outbox.get(2)).toMatchObject({ transactionId: 'tx_7', amountMinor: 7 });
  });
});

describe('Outbox attempt journal', () => {
  const headers = { 'Content-Type': 'application/json', 'X-Signature': 't=1,v1=ab' };
  const sent = (event: StoredEvent) => ({
    eventId: event.id,
    n: event.attemptCount,
    startedAt: 5_000,
    latencyMs: 0,
    requestHeaders: headers,
    requestBody: event.body,
    outcome: 'retry' as const,
    error: 'no reply recorded',
  });

  it('keeps one row per attempt: the outcome replaces what was journaled before the send', () => {
    const outbox = open(tempDbPath());
    const event = outbox.insert(newEvent(1));
    outbox.flush();
    event.attemptCount = 1;
    outbox.journal(sent(event));
    outbox.markDirty(event);
    outbox.markDelivering(event);
    outbox.flush();
    event.status = 'delivered';
    outbox.journal({
      ...sent(event),
      latencyMs: 2.5,
      responseStatus: 200,
      responseBody: '{"balance":1}',
      outcome: 'delivered',
      error: undefined,
    });
    outbox.markDirty(event);
    outbox.flush();
    const [only, ...rest] = outbox.attempts(event.id);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ n: 1, latencyMs: 2.5, responseStatus: 200, outcome: 'delivered', requestHeaders: headers });
    expect(only?.error).toBeUndefined();
  });

  it('restores the attempt count of an event cut off mid-attempt from the journal on resume', () => {
    const path = tempDbPath();
    const first = open(path);
    const event = first.insert(newEvent(1));
    first.flush();
    event.status = 'delivering';
    event.attemptCount = 1;
    first.journal(sent(event));
    first.markDirty(event);
    first.markDelivering(event);
    first.flush(); // the "crash": the attempt is journaled, the process never records its outcome
    first.db.close();
    const [resumed] = open(path).takeUnsettled();
    expect(resumed).toMatchObject({ id: event.id, status: 'pending', attemptCount: 1 });
  });
});
