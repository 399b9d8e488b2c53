import { afterEach, describe, expect, it } from 'vitest';
import { type Database, defaultDriver, openDatabase as openSqlite } from '../storage/index.ts';
import { FakeClock } from './clock.ts';
import { openDatabase } from './db.ts';
import { type CallbackEngine, CallbackRequestError, createCallbackEngine } from './engine.ts';
import type { StoredEvent } from './events.ts';
import { transactionIdAt } from './ids.ts';
import { seededRandom } from './random.ts';
import { configFor, drive, engineFor, onCleanup, receiver, runCleanups, sleep, tempDbPath } from './test-engine.ts';

afterEach(runCleanups);

// The driver this runtime opens: better-sqlite3 under `npm test` (Node 20), node:sqlite under
// `npm run test:node24`; each run names it, and both must pass.
describe(`durability (SQLite through ${defaultDriver()})`, () => {
  it('sends nothing for an attempt the outbox was reset under between its journal row and its send', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    engine.start();
    engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100 });
    // The store commit and the first attempt's journal row run in microtasks; the send waits for the next turn.
    await Promise.resolve();
    expect(engine.outbox.counts().delivering).toBe(1);
    engine.outbox.reset();
    await sleep(50);
    expect(rx.requests).toHaveLength(0);
    expect(engine.outbox.list()).toEqual([]);
    await engine.stop({ deadlineMs: 1_000 });
  });

  it('sends no attempt whose journal row could not be committed: it ends unsent and is retried, then sent once', async () => {
    const rx = await receiver();
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url), { clock });
    // The first commit that carries an attempt about to go out fails, as a full disk would.
    const outbox = engine.outbox as unknown as { journal(a: { error?: string }): void; flush(): void };
    const journal = outbox.journal.bind(outbox);
    const flush = outbox.flush.bind(outbox);
    let unsentRowPending = false;
    let failures = 1;
    outbox.journal = (attempt) => {
      if (attempt.error?.startsWith('no reply recorded')) unsentRowPending = true;
      journal(attempt);
    };
    outbox.flush = () => {
      if (unsentRowPending && failures > 0) {
        failures--;
        throw new Error('SQLITE_FULL: database or disk is full');
      }
      unsentRowPending = false;
      flush();
    };
    engine.start();
    const settled = await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100 }).settled);
    expect(failures).toBe(0);
    expect(settled).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(rx.requests).toHaveLength(1);
    const attempts = engine.outbox.attempts(settled.id);
    expect(attempts[0]).toMatchObject({
      outcome: 'retry',
      error: expect.stringContaining('not sent: its journal row could not be committed'),
    });
    expect(attempts[0]?.responseStatus).toBeUndefined();
    expect(attempts[1]).toMatchObject({ outcome: 'delivered', responseStatus: 200 });
  });

  it('resumes after a stop: every event is delivered exactly once to an idempotent receiver, none lost', async () => {
    const seen = new Map<string, number>();
    const rx = await receiver(async (req) => {
      const { transactionId } = JSON.parse(req.body) as { transactionId: string };
      seen.set(transactionId, (seen.get(transactionId) ?? 0) + 1);
      await sleep(3);
      return { status: 200, body: { balance: 1 } };
    });
    const dbPath = tempDbPath();
    const config = configFor(rx.url, { concurrency: 4 });
    const firstDb = openDatabase(dbPath);
    const first = createCallbackEngine({ config, db: firstDb, random: seededRandom(1) });
    first.start();
    const total = 120;
    const ids = Array.from(
      { length: total },
      (_, i) => first.enqueue({ kind: 'debit', playerId: `p${i % 6}`, amountMinor: 100 + i }).event.transactionId,
    );
    let settledFirst = 0;
    await new Promise<void>((resolve) =>
      first.onSettled(() => {
        if (++settledFirst === 30) resolve();
      }),
    );
    await first.stop({ deadlineMs: 0 });
    const midway = first.outbox.counts();
    expect(midway.delivered).toBeGreaterThanOrEqual(30);
    expect(midway.pending).toBeGreaterThan(0);
    expect(midway.delivering).toBe(0);
    firstDb.close();

    const secondDb = openDatabase(dbPath);
    const second = createCallbackEngine({ config, db: secondDb, random: seededRandom(2) });
    onCleanup(async () => {
      await second.stop({ deadlineMs: 0 });
      secondDb.close();
    });
    let settledSecond = 0;
    const allDone = new Promise<void>((resolve) =>
      second.onSettled(() => {
        if (++settledSecond === midway.pending) resolve();
      }),
    );
    second.start();
    await allDone;
    expect(second.outbox.counts()).toMatchObject({ delivered: total, pending: 0, delivering: 0, failed: 0, rejected: 0 });
    expect(new Set(second.outbox.list({ limit: 1000 }).map((e) => e.transactionId))).toEqual(new Set(ids));
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    // At-least-once: only an attempt cut off by the stop may have reached the receiver twice.
    expect([...seen.values()].filter((n) => n > 1).length).toBeLessThanOrEqual(4);
  });

  it('puts an event left "delivering" by a crash back in line on start', async () => {
    const rx = await receiver();
    const dbPath = tempDbPath();
    const config = configFor(rx.url);
    const db = openDatabase(dbPath);
    const crashed = createCallbackEngine({ config, db });
    const { event } = crashed.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }); // stored, never started
    await Promise.resolve(); // the end of the turn: the enqueue's commit has run
    db.prepare("UPDATE callback_events SET status = 'delivering', attempt_count = 1 WHERE id = ?").run(event.id);
    db.close();

    const engine = engineFor(config, { dbPath });
    const settled = new Promise<StoredEvent>((resolve) => engine.onSettled(resolve));
    engine.start();
    expect(await settled).toMatchObject({ id: event.id, status: 'delivered', attemptCount: 2 });
    expect(rx.requests).toHaveLength(1);
  });

  it('keeps the attempts of a stopped engine’s retry waiting in the outbox, and a new engine finishes them', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? { status: 500 } : { status: 200 }));
    const dbPath = tempDbPath();
    const config = configFor(rx.url);
    const clock = new FakeClock();
    const engine = engineFor(config, { clock, dbPath });
    engine.start();
    const { event } = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 });
    await new Promise<void>((resolve) => engine.onAttempt(() => resolve()));
    await engine.stop();
    expect(engine.outbox.get(event.id)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: clock.now() + 1_000 });

    const next = engineFor(config, { clock, dbPath });
    const settled = new Promise<StoredEvent>((resolve) => next.onSettled(resolve));
    next.start();
    expect(await drive(next, clock, settled)).toMatchObject({ status: 'delivered', attemptCount: 2 });
  });
});

// ---- journal, retention, ids, replay ----

describe('the outbox', () => {
  it('stores the event, committed, before the first attempt', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    const { event } = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1050, roundId: 'r1', gameId: 'g1' });
    expect(engine.outbox.get(event.id)).toEqual(event);
    expect(event).toMatchObject({ status: 'pending', attemptCount: 0, orderingKey: 'p1', source: 'manual', url: rx.url });
    expect(rx.requests).toHaveLength(0);
  });

  it('prunes settled events beyond retention.maxEvents, never pending ones', async () => {
    const rx = await receiver();
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url, { retention: { maxEvents: 100 } }), { clock });
    engine.start();
    const settled = Array.from(
      { length: 250 },
      (_, i) => engine.enqueue({ kind: 'debit', playerId: `p${i % 7}`, amountMinor: 1 }).settled,
    );
    await Promise.all(settled);
    await sleep(10);
    // Pruning ran on its own during the run (every 100 settlements) ...
    expect(engine.outbox.counts().delivered).toBeLessThan(250);
    await engine.stop();
    // ... and an explicit prune leaves exactly the newest 100; a pending event is never touched.
    const pending = engine.enqueue({ kind: 'debit', playerId: 'late', amountMinor: 1 }).event;
    engine.outbox.prune(clock.now(), { maxEvents: 100, maxAge: 86_400_000 });
    const left = engine.outbox.list({ limit: 1000 });
    expect(left.filter((e) => e.status === 'delivered')).toHaveLength(100);
    expect(left.find((e) => e.id === pending.id)?.status).toBe('pending');
    expect(engine.outbox.attempts(left.at(-1)!.id)).toHaveLength(1);
    expect(engine.outbox.attempts(1)).toEqual([]); // the pruned event's attempts went with it
  });

  it('prunes settled events older than retention.maxAge', async () => {
    const rx = await receiver();
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url), { clock });
    engine.start();
    const old = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled;
    await clock.advance(3_600_000);
    const recent = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled;
    const removed = engine.outbox.prune(clock.now(), { maxEvents: 1_000, maxAge: 60_000 });
    expect(removed).toBe(1);
    expect(engine.outbox.get(old.id)).toBeUndefined();
    expect(engine.outbox.get(recent.id)?.status).toBe('delivered');
  });

  it('lists newest first with filters and pages', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    const a = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1, group: 'g' }).event;
    const b = engine.enqueue({ kind: 'credit', playerId: 'p2', amountMinor: 1, group: 'g' }).event;
    const c = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).event;
    expect(engine.outbox.list().map((e) => e.id)).toEqual([c.id, b.id, a.id]);
    expect(engine.outbox.list({ playerId: 'p1' }).map((e) => e.id)).toEqual([c.id, a.id]);
    expect(engine.outbox.list({ group: 'g', kind: 'credit' }).map((e) => e.id)).toEqual([b.id]);
    expect(engine.outbox.list({ beforeId: c.id, limit: 1 }).map((e) => e.id)).toEqual([b.id]);
    expect(engine.outbox.list({ transactionId: a.transactionId }).map((e) => e.id)).toEqual([a.id]);
    expect(engine.outbox.counts()).toMatchObject({ pending: 3, delivered: 0 });
    engine.outbox.reset();
    expect(engine.outbox.list()).toEqual([]);
  });

  it('hands out the same transactionIds for the same seed and id namespace, and continues them after a restart', async () => {
    const rx = await receiver();
    const config = configFor(rx.url, { idNamespace: '' });
    const idsOf = (engine: CallbackEngine) =>
      Array.from({ length: 3 }, () => engine.enqueue({ kind: 'debit', playerId: 'p', amountMinor: 1 }).event.transactionId);
    const one = idsOf(engineFor(config));
    const two = idsOf(engineFor(config));
    expect(two).toEqual(one);
    expect(one).toEqual([0, 1, 2].map((n) => transactionIdAt('engine-test', n)));

    const dbPath = tempDbPath();
    const before = engineFor(config, { dbPath });
    const firstRun = idsOf(before);
    await before.stop();
    const afterRestart = idsOf(engineFor(config, { dbPath }));
    expect(afterRestart).toEqual([3, 4, 5].map((n) => transactionIdAt('engine-test', n)));
    expect(firstRun).toEqual(one);
  });

  it('gives each fresh database its own id namespace, so a persistent wallet never sees an id twice', async () => {
    const rx = await receiver();
    const config = configFor(rx.url);
    const idOf = (engine: CallbackEngine) => engine.enqueue({ kind: 'debit', playerId: 'p', amountMinor: 1 }).event.transactionId;
    const a = idOf(engineFor(config));
    const b = idOf(engineFor(config));
    expect(a).toMatch(/^tx_[a-z0-9]{6}_[0-9a-f]{24}$/);
    expect(b).not.toBe(a);
    expect(a.slice(10)).toBe(b.slice(10)); // the same seeded stream, in two namespaces
  });

  it('replays an event as a new outbox event with the same body bytes', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    engine.start();
    const original = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 700 }).settled;
    const replayed = await engine.replay(original.id).settled;
    expect(replayed).toMatchObject({
      status: 'delivered',
      source: `replay:${original.id}`,
      body: original.body,
      transactionId: original.transactionId,
    });
    expect(replayed.id).not.toBe(original.id);
    expect(rx.requests.map((r) => r.body)).toEqual([original.body, original.body]);
    expect(() => engine.replay(99_999)).toThrow(/no callback event with id 99999/);
  });

  it('refuses a bad request naming the field, and stores nothing', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    let error: unknown;
    try {
      engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 10.5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CallbackRequestError);
    expect((error as CallbackRequestError).message).toMatch(/amountMinor: expected an integer number of minor units/);
    expect(() =>
      engine.enqueueMany([
        { kind: 'debit', playerId: 'p1', amountMinor: 1 },
        { kind: 'rollback', playerId: 'p1', amountMinor: 1 },
      ]),
    ).toThrow(/referenceTransactionId/);
    expect(engine.outbox.list()).toEqual([]);
  });

  it('reports each attempt to onAttempt after it is journaled', async () => {
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url));
    const seen: number[] = [];
    engine.onAttempt((attempt, event) => {
      expect(engine.outbox.attempts(event.id)).toHaveLength(attempt.n);
      seen.push(attempt.eventId);
    });
    engine.start();
    const e = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled;
    expect(seen).toEqual([e.id]);
  });
});

// ---- group commit: one transaction per synchronous turn ----

describe('storing the events of one turn in one commit', () => {
  /** A second connection to the same file (opened once the engine created it): sees only what is committed. */
  function reader(dbPath: string) {
    let db: Database | undefined;
    onCleanup(() => {
      db?.close();
    });
    return {
      ids: () => {
        db ??= openSqlite(dbPath, { readonly: true });
        return (db.prepare('SELECT id FROM callback_events ORDER BY id').all() as { id: number }[]).map((r) => r.id);
      },
    };
  }

  it('commits a burst of enqueues at the end of the turn, before the first attempt reaches the receiver', async () => {
    const dbPath = tempDbPath();
    const other = reader(dbPath);
    let seenAtFirstRequest: number[] | undefined;
    const rx = await receiver(() => {
      seenAtFirstRequest ??= other.ids();
      return { status: 200, body: { balance: 1 } };
    });
    const engine = engineFor(configFor(rx.url, { concurrency: 4 }), { dbPath });
    engine.start();
    const burst = Array.from({ length: 50 }, (_, i) =>
      engine.enqueue({ kind: 'debit', playerId: `p${i % 5}`, amountMinor: i + 1 }),
    );
    const ids = burst.map((e) => e.event.id);
    // Nothing is written row by row, and nothing is attempted before it is written ...
    expect(other.ids()).toEqual([]);
    expect(engine.inFlight()).toBe(0);
    await Promise.resolve();
    // ... all of it is committed once the turn is over, in one commit, and the attempts begin.
    expect(other.ids()).toEqual(ids);
    expect(engine.inFlight()).toBe(4);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await Promise.all(burst.map((e) => e.settled));
    expect(seenAtFirstRequest).toEqual(ids);
    expect(rx.requests).toHaveLength(50);
  });

  it('finds an event enqueued in the same turn: a read commits what is buffered first', async () => {
    const dbPath = tempDbPath();
    const other = reader(dbPath);
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url), { dbPath });
    const a = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).event;
    expect(engine.outbox.get(a.id)).toEqual(a);
    expect(other.ids()).toEqual([a.id]);
    const b = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 2 }).event;
    expect(engine.outbox.counts().pending).toBe(2);
    expect(engine.outbox.list().map((e) => e.id)).toEqual([b.id, a.id]);
    expect(engine.outbox.list({ transactionId: b.transactionId })).toEqual([b]);
  });

  it('refuses a bad request synchronously and buffers nothing, using up no id', async () => {
    const dbPath = tempDbPath();
    const other = reader(dbPath);
    const rx = await receiver();
    const engine = engineFor(configFor(rx.url, { idNamespace: 'ns1' }), { dbPath });
    engine.start();
    expect(() => engine.enqueue({ kind: 'credit', playerId: '', amountMinor: 1 })).toThrow(CallbackRequestError);
    expect(() => engine.enqueue({ kind: 'rollback', playerId: 'p1', amountMinor: 1 })).toThrow(/referenceTransactionId/);
    await Promise.resolve();
    expect(other.ids()).toEqual([]);
    const good = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 });
    expect(good.event).toMatchObject({ id: 1, transactionId: transactionIdAt('engine-test', 0, 'ns1') });
    expect((await good.settled).status).toBe('delivered');
    expect(rx.requests).toHaveLength(1);
  });

  it('finds every event after enqueue, stop and restart, and continues the ids without reusing one', async () => {
    const dbPath = tempDbPath();
    const config = configFor('http://127.0.0.1:9/never-started');
    const firstDb = openDatabase(dbPath);
    const first = createCallbackEngine({ config, db: firstDb, clock: new FakeClock() });
    const before = Array.from(
      { length: 5 },
      (_, i) => first.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: i + 1 }).event,
    );
    await first.stop(); // never started: stop alone must write them
    firstDb.close();

    const second = engineFor(config, { dbPath });
    expect(second.outbox.list().map((e) => e.id)).toEqual([5, 4, 3, 2, 1]);
    expect(second.outbox.list().reverse()).toEqual(before);
    const next = second.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).event;
    expect(next.id).toBe(6); // a clean stop leaves no gap
  });

  it('shows an attempt on the wire as delivering to a reader, and counts it once', async () => {
    const rx = await receiver(() => ({ hang: true }));
    const engine = engineFor(configFor(rx.url, { timeout: 60_000 }));
    engine.start();
    const { event } = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 });
    for (let i = 0; i < 500 && rx.requests.length === 0; i++) await sleep(2);
    expect(engine.inFlight()).toBe(1);
    expect(engine.outbox.get(event.id)).toMatchObject({ status: 'delivering', attemptCount: 1 });
    expect(engine.outbox.counts()).toMatchObject({ delivering: 1, pending: 0 });
    await engine.stop({ deadlineMs: 0 });
    // Cut off by the stop: pending again, the interrupted attempt journaled.
    expect(engine.outbox.get(event.id)).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(engine.outbox.attempts(event.id)).toHaveLength(1);
  });
});
