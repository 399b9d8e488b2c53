import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type AggmockConfig, configSchema } from '../config/index.ts';
import { type SigningScheme, toWhsec, verifySignature } from '../signing/index.ts';
import { FakeClock } from './clock.ts';
import { openDatabase } from './db.ts';
import { type CallbackEngine, CallbackRequestError, createCallbackEngine, USER_AGENT } from './engine.ts';
import type { StoredEvent } from './events.ts';
import { transactionIdAt } from './ids.ts';
import { seededRandom } from './random.ts';
import { type ReceivedRequest, type ReceiverAction, startTestReceiver, type TestReceiver } from './test-receiver.ts';

// ---- harness: real receivers on 127.0.0.1, engines over real SQLite, fake time for schedules ----

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function receiver(respond?: (req: ReceivedRequest) => ReceiverAction | Promise<ReceiverAction>): Promise<TestReceiver> {
  const rx = await startTestReceiver(respond);
  cleanups.push(() => rx.close());
  return rx;
}

function configFor(url: string, callbacks: Record<string, unknown> = {}): AggmockConfig {
  return configSchema.parse({
    seed: 'engine-test',
    callbacks: { webhookUrl: url, jitter: 0, retrySchedule: [0, 1_000, 5_000], ...callbacks },
  });
}

function engineFor(config: AggmockConfig, options: { clock?: FakeClock; dbPath?: string } = {}): CallbackEngine {
  const db = openDatabase(options.dbPath ?? ':memory:');
  const engine = createCallbackEngine({ config, db, clock: options.clock ?? new FakeClock(), random: seededRandom(1) });
  cleanups.push(async () => {
    await engine.stop({ deadlineMs: 0 });
    db.close();
  });
  return engine;
}

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-callbacks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'outbox.db');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets real I/O run and, whenever nothing is on the wire, jumps the fake clock to the next timer,
 * until `until` settles: a whole retry schedule (minutes of fake time) in milliseconds.
 */
async function drive<T>(engine: CallbackEngine, clock: FakeClock, until: Promise<T>): Promise<T> {
  let done = false;
  let value: T | undefined;
  until.then((v) => {
    done = true;
    value = v;
  });
  for (let step = 0; step < 5_000 && !done; step++) {
    await sleep(2);
    if (!done && engine.inFlight() === 0 && clock.pending() > 0) await clock.advanceToNext();
  }
  if (!done) throw new Error('the engine did not settle');
  return value as T;
}

function verify(req: ReceivedRequest, config: AggmockConfig, clock: FakeClock) {
  const { scheme, secrets, headers } = config.callbacks.signing;
  return verifySignature({
    scheme,
    secrets,
    headerNames: headers,
    payload: req.body,
    headers: req.headers,
    now: Math.floor(clock.now() / 1000),
  });
}

// ---- signing ----

describe('signing every callback', () => {
  it.each<SigningScheme>(['timestamped', 'hmac-hex', 'standard-webhooks'])(
    'signs with %s so the receiver verifies the raw body with verifySignature',
    async (scheme) => {
      const rx = await receiver();
      const secrets = scheme === 'standard-webhooks' ? [toWhsec('first-secret')] : ['first-secret'];
      const config = configFor(rx.url, { signing: { scheme, secrets } });
      const clock = new FakeClock();
      const engine = engineFor(config, { clock });
      engine.start();
      const event = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1050 }).settled;
      expect(event.status).toBe('delivered');
      const [req] = rx.requests;
      expect(req?.body).toBe(event.body);
      expect(verify(req as ReceivedRequest, config, clock).secretIndex).toBe(0);
      expect(req?.headers['content-type']).toBe('application/json');
      expect(req?.headers['user-agent']).toBe(USER_AGENT);
      expect(USER_AGENT).toMatch(/^aggmock\/\d+\.\d+\.\d+/);
    },
  );

  it('signs with every active secret, so a receiver holding either one during rotation verifies', async () => {
    const rx = await receiver();
    const config = configFor(rx.url, { signing: { scheme: 'timestamped', secrets: ['new-secret', 'old-secret'] } });
    const clock = new FakeClock();
    const engine = engineFor(config, { clock });
    engine.start();
    await engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).settled;
    const req = rx.requests[0] as ReceivedRequest;
    const now = Math.floor(clock.now() / 1000);
    for (const secret of ['new-secret', 'old-secret']) {
      expect(
        verifySignature({ scheme: 'timestamped', secrets: [secret], payload: req.body, headers: req.headers, now }).scheme,
      ).toBe('timestamped');
    }
    expect(() =>
      verifySignature({ scheme: 'timestamped', secrets: ['other'], payload: req.body, headers: req.headers, now }),
    ).toThrow(/No signature matches/);
  });
});

// ---- retries ----

describe('delivery and retries', () => {
  it('retries a 500 and re-signs each attempt with a fresh timestamp over the same bytes', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls < 3 ? { status: 500, body: 'oops' } : { status: 200, body: { balance: 5 } }));
    const config = configFor(rx.url);
    const clock = new FakeClock();
    const engine = engineFor(config, { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500 }).settled);
    expect(event).toMatchObject({ status: 'delivered', attemptCount: 3, reply: { status: 200, body: { balance: 5 } } });
    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.body))).toEqual(new Set([event.body]));
    const signatures = rx.requests.map((r) => r.headers['x-signature']);
    expect(new Set(signatures).size).toBe(3);
    const timestamps = signatures.map((s) => Number(/t=(\d+)/.exec(String(s))?.[1]));
    expect(timestamps[1]! - timestamps[0]!).toBe(1); // 1 s schedule step
    expect(timestamps[2]! - timestamps[1]!).toBe(5); // then 5 s
    const attempts = engine.outbox.attempts(event.id);
    expect(attempts.map((a) => [a.n, a.responseStatus, a.outcome])).toEqual([
      [1, 500, 'retry'],
      [2, 500, 'retry'],
      [3, 200, 'delivered'],
    ]);
    expect(attempts[0]).toMatchObject({ requestBody: event.body, responseBody: 'oops' });
    expect(attempts[0]?.requestHeaders['X-Signature']).toBe(signatures[0]);
    expect(attempts.every((a) => a.latencyMs >= 0)).toBe(true);
  });

  it('retries an attempt that times out', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? { hang: true } : { status: 200, body: { balance: 1 } }));
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url, { timeout: 150 }), { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled);
    expect(event.status).toBe('delivered');
    const [first, second] = engine.outbox.attempts(event.id);
    expect(first).toMatchObject({ outcome: 'retry', error: expect.stringMatching(/no answer within 150 ms/) });
    expect(first?.responseStatus).toBeUndefined();
    expect(second?.outcome).toBe('delivered');
  });

  it('retries when the receiver resets the connection', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? { destroy: true } : { status: 200, body: { balance: 1 } }));
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url), { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).settled);
    expect(event.status).toBe('delivered');
    const [first] = engine.outbox.attempts(event.id);
    expect(first).toMatchObject({ outcome: 'retry', error: expect.stringMatching(/ECONNRESET|closed the connection/) });
    expect(rx.requests).toHaveLength(2);
  });

  it('retries when nothing listens, and gives up as failed when the schedule is exhausted', async () => {
    const rx = await receiver();
    const url = rx.url;
    await rx.close(); // nothing listens on that port any more
    const clock = new FakeClock();
    const engine = engineFor(configFor(url, { rollbackFailedDebits: false }), { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).settled);
    expect(event).toMatchObject({ status: 'failed', attemptCount: 3 });
    expect(event.error).toMatch(/ECONNREFUSED[\s\S]*gave up after 3 attempt/);
    expect(engine.outbox.attempts(event.id).map((a) => a.outcome)).toEqual(['retry', 'retry', 'failed']);
  });

  it('waits at least Retry-After before retrying a 429', async () => {
    const arrivals: number[] = [];
    const clock = new FakeClock();
    const rx = await receiver(() => {
      arrivals.push(clock.now());
      return arrivals.length === 1
        ? { status: 429, headers: { 'retry-after': '120' }, body: '' }
        : { status: 200, body: { balance: 1 } };
    });
    const engine = engineFor(configFor(rx.url), { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled);
    expect(event.status).toBe('delivered');
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(120_000);
  });

  it('never retries a 400: one attempt, rejected, with the reply kept', async () => {
    const rx = await receiver(() => ({ status: 400, body: { error: 'INVALID_REQUEST', message: 'amount must be positive' } }));
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url), { clock });
    engine.start();
    const event = await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: -5 }).settled);
    expect(event).toMatchObject({
      status: 'rejected',
      attemptCount: 1,
      reply: { status: 400, body: { error: 'INVALID_REQUEST', message: 'amount must be positive' } },
    });
    expect(event.error).toContain('INVALID_REQUEST: amount must be positive');
    await sleep(20);
    expect(clock.pending()).toBe(0);
    expect(rx.requests).toHaveLength(1);
  });

  it('treats a 200 carrying {error} as a rejection', async () => {
    const rx = await receiver(() => ({ status: 200, body: { error: 'INSUFFICIENT_FUNDS', balance: 1 } }));
    const engine = engineFor(configFor(rx.url));
    engine.start();
    const event = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100_000 }).settled;
    expect(event).toMatchObject({ status: 'rejected', reply: { status: 200, body: { error: 'INSUFFICIENT_FUNDS' } } });
  });

  it('keeps the Standard Webhooks message id stable across retries', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? { status: 503 } : { status: 200 }));
    const clock = new FakeClock();
    const config = configFor(rx.url, { signing: { scheme: 'standard-webhooks', secrets: [toWhsec('s')] } });
    const engine = engineFor(config, { clock });
    engine.start();
    await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled);
    const ids = rx.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(rx.requests[1]?.headers['webhook-timestamp']).not.toBe(rx.requests[0]?.headers['webhook-timestamp']);
  });
});

// ---- rollback of a failed debit ----

describe('rollback of a finally failed DEBIT', () => {
  it('follows a failed DEBIT with a ROLLBACK of it, ahead of the player’s later events', async () => {
    const clock = new FakeClock();
    const rx = await receiver((req) => {
      const body = JSON.parse(req.body) as { type: string };
      return body.type === 'DEBIT' ? { status: 502 } : { status: 200, body: { balance: 10 } };
    });
    const engine = engineFor(configFor(rx.url), { clock });
    const settledOrder: StoredEvent[] = [];
    engine.onSettled((e) => settledOrder.push(e));
    engine.start();
    const debit = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 250, roundId: 'r1', group: 'run-1' });
    const credit = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100, roundId: 'r1' });
    expect((await drive(engine, clock, debit.settled)).status).toBe('failed');
    await drive(engine, clock, credit.settled);
    expect(settledOrder.map((e) => [e.kind, e.status, e.source])).toEqual([
      ['debit', 'failed', 'manual'],
      ['rollback', 'delivered', 'rollback-of-failed-debit'],
      ['credit', 'delivered', 'manual'],
    ]);
    const rollback = settledOrder[1] as StoredEvent;
    expect(rollback).toMatchObject({ referenceTransactionId: debit.event.transactionId, group: 'run-1', playerId: 'p1' });
    expect(rollback.body).toBe(`{"type":"ROLLBACK","transactionId":"${debit.event.transactionId}","amount":2.5,"playerId":"p1"}`);
    expect(rx.requests.map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual([
      'DEBIT',
      'DEBIT',
      'DEBIT',
      'ROLLBACK',
      'CREDIT',
    ]);
  });

  it('sends no rollback when rollbackFailedDebits is off', async () => {
    const clock = new FakeClock();
    const rx = await receiver(() => ({ status: 500 }));
    const engine = engineFor(configFor(rx.url, { rollbackFailedDebits: false, retrySchedule: [0] }), { clock });
    engine.start();
    await drive(engine, clock, engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1 }).settled);
    await sleep(20);
    expect(engine.outbox.list({ kind: 'rollback' })).toEqual([]);
  });
});

// ---- ordering ----

describe('ordering', () => {
  it('keeps each player’s events in enqueue order while different players overlap', async () => {
    const random = seededRandom('latency');
    let inFlight = 0;
    let maxInFlight = 0;
    const busyPlayers = new Set<string>();
    let samePlayerOverlap = 0;
    const rx = await receiver(async (req) => {
      const { playerId } = JSON.parse(req.body) as { playerId: string };
      if (busyPlayers.has(playerId)) samePlayerOverlap++;
      busyPlayers.add(playerId);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await sleep(random.int(0, 4));
      inFlight--;
      busyPlayers.delete(playerId);
      return { status: 200, body: { balance: 1 } };
    });
    const engine = engineFor(configFor(rx.url, { concurrency: 8 }));
    engine.start();
    const players = Array.from({ length: 16 }, (_, i) => `p${i}`);
    const enqueued: { playerId: string; transactionId: string }[] = [];
    const settled: Promise<StoredEvent>[] = [];
    for (let i = 0; i < 160; i++) {
      const playerId = players[random.int(0, players.length - 1)] as string;
      const e = engine.enqueue({ kind: i % 2 ? 'credit' : 'debit', playerId, amountMinor: i + 1 });
      enqueued.push({ playerId, transactionId: e.event.transactionId });
      settled.push(e.settled);
    }
    const results = await Promise.all(settled);
    expect(results.every((e) => e.status === 'delivered')).toBe(true);
    const arrived = rx.requests.map((r) => JSON.parse(r.body) as { playerId: string; transactionId: string });
    for (const p of players) {
      expect(arrived.filter((a) => a.playerId === p).map((a) => a.transactionId)).toEqual(
        enqueued.filter((e) => e.playerId === p).map((e) => e.transactionId),
      );
    }
    expect(samePlayerOverlap).toBe(0);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(8);
  });
});

// ---- durability ----

describe('durability', () => {
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
    cleanups.push(async () => {
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
    let db: Database.Database | undefined;
    cleanups.push(() => {
      db?.close();
    });
    return {
      ids: () => {
        db ??= new Database(dbPath, { readonly: true });
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
