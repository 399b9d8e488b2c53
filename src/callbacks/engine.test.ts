import { afterEach, describe, expect, it } from 'vitest';
import { type SigningScheme, toWhsec, verifySignature } from '../signing/index.ts';
import { FakeClock } from './clock.ts';
import { USER_AGENT } from './engine.ts';
import type { StoredEvent } from './events.ts';
import { seededRandom } from './random.ts';
import { configFor, drive, engineFor, receiver, runCleanups, sleep, tempDbPath, verify } from './test-engine.ts';
import type { ReceivedRequest } from './test-receiver.ts';

afterEach(runCleanups);

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

  it('signs each attempt when it is sent: a call sent in its second and one sent later each carry their own time', async () => {
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? { status: 500, body: 'oops' } : { status: 200, body: { balance: 5 } }));
    const config = configFor(rx.url);
    const clock = new FakeClock();
    const engine = engineFor(config, { clock });
    engine.start();
    // One player: the second call waits in line while the first is retried a second later.
    const first = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500 });
    const second = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 700 });
    await drive(engine, clock, second.settled);
    const t = (signature: string | string[] | undefined) => Number(/t=(\d+)/.exec(String(signature))?.[1]);
    const [tried, retried, next] = rx.requests as ReceivedRequest[];
    // Stored unsigned: the enqueued events say nothing was signed yet.
    expect(first.event.request?.headers['X-Signature']).toBeUndefined();
    expect(second.event.request).toMatchObject({ method: 'POST', path: '' });
    expect(second.event.request?.attempt).toBeUndefined();
    // Sent in the second it was stored, signed with that second; its retry a second later with its own.
    expect(t(tried?.headers['x-signature'])).toBe(Math.floor(first.event.createdAt / 1000));
    expect(t(retried?.headers['x-signature'])).toBe(t(tried?.headers['x-signature']) + 1);
    // Stored with the first, sent after its retry: signed when it is sent, over the stored bytes.
    expect(next?.body).toBe(second.event.body);
    expect(t(next?.headers['x-signature'])).toBe(t(retried?.headers['x-signature']));
    expect(verify(next as ReceivedRequest, config, clock).timestamp).toBe(Math.floor(clock.now() / 1000));
    // Once sent, an event shows its last attempt's request, signature included, in memory and read back alike.
    const settled = await first.settled;
    const attempts = engine.outbox.attempts(first.event.id);
    expect(settled.request).toEqual({ method: 'POST', path: '', headers: attempts[1]?.requestHeaders, attempt: 2 });
    expect(settled.request?.headers['X-Signature']).toBe(retried?.headers['x-signature']);
    expect(engine.outbox.get(first.event.id)?.request).toEqual(settled.request);
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

  it('says in the ROLLBACK what the DEBIT said (game, provider, bonus) on a wire whose ROLLBACK carries them, also after a restart', async () => {
    const common = {
      type: { from: 'type' },
      tx: { from: 'transactionId' },
      player: { from: 'playerId' },
      amount: { from: 'amount' },
      game: { from: 'gameName' },
      studio: { from: 'provider' },
      promo: { object: { kind: { from: 'bonusKind' }, id: { from: 'bonusId' } }, omitWhenEmpty: true },
    };
    const profile = {
      name: 'rich-rollback',
      events: {
        debit: { type: 'BET', body: common },
        credit: { type: 'WIN', body: common },
        rollback: { type: 'CANCEL', body: { ...common, ref: { from: 'referenceTransactionId' } } },
      },
    };
    const clock = new FakeClock();
    const rx = await receiver((req) => {
      const body = JSON.parse(req.body) as { type: string };
      return body.type === 'BET' ? { status: 502 } : { status: 200, body: { balance: 10 } };
    });
    const dbPath = tempDbPath();
    const config = configFor(rx.url, { profile, retrySchedule: [0, 1_000] });
    const first = engineFor(config, { clock, dbPath });
    first.start();
    const debit = first.enqueue({
      kind: 'debit',
      playerId: 'p1',
      amountMinor: 0,
      gameName: 'Sweet Bonanza',
      provider: 'PRAGMATIC',
      bonus: { kind: 'free-spins', id: 'fs-1' },
    });
    // The first attempt fails; aggmock stops before the second is due, and a new engine on the same
    // outbox (a restart, which keeps no game name, provider or bonus) makes it and fails finally.
    while (rx.requests.length < 1 || first.inFlight() > 0) await sleep(2);
    await first.stop({ deadlineMs: 0 });
    const second = engineFor(config, { clock, dbPath });
    const rolledBack = new Promise<StoredEvent>((resolve) => {
      second.onSettled((e) => {
        if (e.kind === 'rollback') resolve(e);
      });
    });
    second.start();
    const rollback = await drive(second, clock, rolledBack);
    expect(JSON.parse(rollback.body)).toEqual({
      type: 'CANCEL',
      tx: expect.any(String),
      player: 'p1',
      amount: 0,
      game: 'Sweet Bonanza',
      studio: 'PRAGMATIC',
      promo: { kind: 'free-spins', id: 'fs-1' },
      ref: debit.event.transactionId,
    });
    const sent = rx.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(sent.filter((b) => b.type === 'BET').length).toBeGreaterThanOrEqual(2);
    expect(sent.at(-1)).toMatchObject({ type: 'CANCEL', game: 'Sweet Bonanza', promo: { kind: 'free-spins', id: 'fs-1' } });
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
