import { hash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import type { AggmockConfig } from '../config/index.ts';
import { signPayload } from '../signing/index.ts';
import { VERSION } from '../version.ts';
import { type Clock, systemClock, type TimerHandle } from './clock.ts';
import { classifyAnswer, classifyFailure, retryDelayMs, type Verdict } from './dispatcher.ts';
import { CallbackRequestError, validEnqueueRequest } from './enqueue-request.ts';
import { type Attempt, buildCallbackBody, type CallbacksConfig, type EnqueueRequest, type StoredEvent } from './events.ts';
import { TransactionIdSequence } from './ids.ts';
import { Outbox } from './outbox.ts';
import { type TransportFactory, transportFor } from './proxy.ts';
import { type Random, seededRandom } from './random.ts';
import { InterruptedError, type Transport } from './transport.ts';

export { CallbackRequestError };

/** `User-Agent` of every callback. */
export const USER_AGENT = `aggmock/${VERSION}`;

/** How long journal writes may gather before they are committed together, while attempts are in flight. */
export const GROUP_COMMIT_MS = 5;

/** The journal's word for an attempt sent without a recorded reply (in flight, or cut off by a crash). */
export const UNANSWERED_ATTEMPT =
  'no reply recorded: in flight, or aggmock stopped before the reply came (the receiver may have applied it)';

/** How long stop() waits for attempts in flight when no deadline is given. */
export const DEFAULT_STOP_DEADLINE_MS = 5_000;

export interface Enqueued {
  /**
   * The event with its final id. Its row is committed at the end of the current synchronous turn
   * (one transaction for every event enqueued in that turn), before its first attempt and before
   * any I/O callback or timer runs; every read of the outbox sees it at once.
   */
  event: StoredEvent;
  /** Resolves when the event ends delivered, rejected or failed. Stays pending if the engine stops first. */
  settled: Promise<StoredEvent>;
}

export interface CallbackEngine {
  /**
   * Stores the event in the outbox and queues it; returns before the first attempt. A bad request
   * throws a {@link CallbackRequestError} and stores nothing.
   */
  enqueue(req: EnqueueRequest): Enqueued;
  /** Like enqueue for several events; a bad one stores none. */
  enqueueMany(reqs: readonly EnqueueRequest[]): Enqueued[];
  /** Sends the same body again as a NEW outbox event (source 'replay:<id>'). */
  replay(eventId: number): Enqueued;
  /** Called once per event when it ends delivered|rejected|failed, in settle order. */
  onSettled(listener: (event: StoredEvent) => void): () => void;
  onAttempt(listener: (attempt: Attempt, event: StoredEvent) => void): () => void;
  outbox: Outbox;
  /** Resumes the undelivered events in the outbox and starts delivering. */
  start(): void;
  /** Waits for attempts in flight up to the deadline, then aborts them; everything unsettled stays in the outbox. */
  stop(options?: { deadlineMs?: number }): Promise<void>;
  /** The next id of the seeded, reproducible sequence (persisted, so a restart continues it). */
  nextTransactionId(): string;
  /** Attempts on the wire right now (tests use it to know when only timers are left). */
  inFlight(): number;
}

/** One attempt between its send and its answer. */
interface AttemptInFlight {
  event: StoredEvent;
  /** The outbox generation it was sent in: a reset meanwhile makes its outcome moot. */
  generation: number;
  /** Clock time of the send (the attempt's `startedAt`). */
  startedAt: number;
  /** performance.now() at the send, for the latency. */
  t0: number;
  headers: Record<string, string>;
}

export interface CallbackEngineOptions {
  config: AggmockConfig;
  db: Database;
  clock?: Clock;
  /** Jitter; default seeded from config.seed. */
  random?: Random;
  /** Default config.callbacks.webhookUrl. */
  webhookUrl?: string;
  logger?: Logger;
  /** How callbacks are sent; default: through HTTPS_PROXY/HTTP_PROXY when set (see proxy.ts), else direct. */
  transport?: TransportFactory;
}

/**
 * The callback engine of SPEC §3: a durable outbox in SQLite, a dispatcher that signs each
 * attempt afresh over the same body bytes, retries on the configured schedule, keeps strict order
 * per ordering key (the player by default) while different keys go out concurrently, and rolls
 * back DEBITs whose delivery finally failed.
 *
 * @example
 * const engine = createCallbackEngine({ config, db: openDatabase(config.db) });
 * engine.start();
 * const { settled } = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500 });
 * console.log((await settled).status); // 'delivered'
 */
export function createCallbackEngine(options: CallbackEngineOptions): CallbackEngine {
  return new Engine(options);
}

class Engine implements CallbackEngine {
  readonly outbox: Outbox;
  private readonly cfg: CallbacksConfig;
  private readonly clock: Clock;
  private readonly random: Random;
  private readonly url: string;
  private readonly logger: Logger | undefined;
  private readonly ids: TransactionIdSequence;
  private readonly pruneEvery: number;

  private running = false;
  private transport: Transport | undefined;
  private readonly makeTransport: TransportFactory;
  /** Unsettled events per ordering key, in send order; the head is the only one that may be on the wire. */
  private readonly queues = new Map<string, StoredEvent[]>();
  /** Keys whose head is due now, first come first served. */
  private ready: string[] = [];
  private readyHead = 0;
  private readonly readyKeys = new Set<string>();
  private readonly timers = new Map<string, TimerHandle>();
  private inFlightCount = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly resolvers = new Map<number, (event: StoredEvent) => void>();
  private readonly settledListeners = new Set<(event: StoredEvent) => void>();
  private readonly attemptListeners = new Set<(attempt: Attempt, event: StoredEvent) => void>();
  /** Work that must wait until the batched journal writes are committed. */
  private afterCommit: (() => void)[] = [];
  private tickScheduled = false;
  /** A commit is queued for the end of this synchronous turn (new events are waiting for it). */
  private storeScheduled = false;
  /** Keys whose head could not start because its row was not committed yet. */
  private awaitingStore = new Set<string>();
  private settledSincePrune = 0;
  /** Bumped by an outbox reset, so answers to attempts started before it are ignored. */
  private generation = 0;

  constructor(options: CallbackEngineOptions) {
    this.cfg = options.config.callbacks;
    this.makeTransport = options.transport ?? transportFor();
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? seededRandom(`${options.config.seed}:callbacks`);
    this.url = options.webhookUrl ?? this.cfg.webhookUrl;
    this.logger = options.logger;
    this.outbox = new Outbox(options.db);
    this.ids = new TransactionIdSequence(options.db, options.config.seed, {
      ...(options.config.callbacks.idNamespace === undefined ? {} : { namespace: options.config.callbacks.idNamespace }),
    });
    // Retention runs every so many settlements: often enough that the excess stays small, rarely
    // enough that its index scan is noise next to the deliveries.
    this.pruneEvery = Math.max(100, Math.floor(this.cfg.retention.maxEvents / 10));
    this.outbox.onReset(() => this.forgetEverything());
  }

  nextTransactionId(): string {
    return this.ids.next();
  }

  inFlight(): number {
    return this.inFlightCount;
  }

  enqueue(req: EnqueueRequest): Enqueued {
    return this.store(this.newEvent(req), false);
  }

  enqueueMany(reqs: readonly EnqueueRequest[]): Enqueued[] {
    // Every request is checked before any is stored: a bad one stores none.
    const events = reqs.map((req) => this.newEvent(req));
    return events.map((event) => this.store(event, false));
  }

  /**
   * Buffers the new event in the outbox and queues it. Its row is committed by a microtask at the
   * end of this synchronous turn, with every other event of the turn: one commit for a burst of
   * enqueues, and still before anything else (an HTTP reply, a timer, an attempt) can happen.
   */
  private store(event: Omit<StoredEvent, 'id'>, atFront: boolean): Enqueued {
    const stored = this.outbox.insert(event);
    if (!this.storeScheduled) {
      this.storeScheduled = true;
      queueMicrotask(this.commitStored);
    }
    return this.track(stored, atFront);
  }

  private readonly commitStored = (): void => {
    this.storeScheduled = false;
    this.tick();
  };

  /** Validates a request and builds its row, body bytes included. */
  private newEvent(req: EnqueueRequest): Omit<StoredEvent, 'id'> {
    const r = validEnqueueRequest(req);
    const createdAt = this.clock.now();
    const byReference = r.kind === 'rollback' && this.cfg.rollbackStyle === 'reference';
    // An 'original'-style ROLLBACK carries the reversed DEBIT's id as its own.
    const transactionId =
      r.kind === 'rollback' && !byReference ? (r.referenceTransactionId as string) : (r.transactionId ?? this.ids.next());
    const event: Omit<StoredEvent, 'id'> = {
      kind: r.kind,
      transactionId,
      playerId: r.playerId,
      amountMinor: r.amountMinor,
      source: r.source ?? 'manual',
      orderingKey: r.orderingKey ?? r.playerId,
      url: r.url ?? this.url,
      body: buildCallbackBody({ ...r, transactionId, createdAt }, this.cfg),
      ...this.unsent(createdAt),
    };
    if (r.referenceTransactionId !== undefined) event.referenceTransactionId = r.referenceTransactionId;
    if (r.roundId !== undefined) event.roundId = r.roundId;
    if (r.gameId !== undefined) event.gameId = r.gameId;
    if (r.currency !== undefined) event.currency = r.currency;
    if (r.group !== undefined) event.group = r.group;
    return event;
  }

  /** The state every new event starts in (a fresh one, a replay, a rollback): not yet sent. */
  private unsent(createdAt: number): Pick<StoredEvent, 'status' | 'attemptCount' | 'createdAt' | 'nextAttemptAt'> {
    const nextAttemptAt = this.firstAttemptAt(createdAt);
    return { ...(nextAttemptAt === undefined ? {} : { nextAttemptAt }), status: 'pending', attemptCount: 0, createdAt };
  }

  replay(eventId: number): Enqueued {
    const original = this.outbox.get(eventId);
    if (!original)
      throw new CallbackRequestError([{ field: 'eventId', message: `no callback event with id ${eventId}`, received: eventId }]);
    const createdAt = this.clock.now();
    const { id: _id, reply: _reply, error: _error, settledAt: _settledAt, nextAttemptAt: _next, ...copy } = original;
    return this.store(
      {
        ...copy,
        source: `replay:${eventId}`,
        // The same receiver as the original (a launch's callback_url, or the webhook it had).
        url: original.url,
        ...this.unsent(createdAt),
      },
      false,
    );
  }

  onSettled(listener: (event: StoredEvent) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  onAttempt(listener: (attempt: Attempt, event: StoredEvent) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.transport ??= this.makeTransport({ maxSockets: this.cfg.concurrency, timeoutMs: this.cfg.timeout });
    this.queues.clear();
    this.ready = [];
    this.readyHead = 0;
    this.readyKeys.clear();
    // The outbox is the truth: pending events of an earlier run (or enqueued while stopped), and
    // any left 'delivering' by a crash, go out again in their original order.
    for (const event of this.outbox.takeUnsettled()) this.append(event);
    for (const key of this.queues.keys()) this.activate(key);
    this.prune();
    this.pump();
  }

  async stop(options: { deadlineMs?: number } = {}): Promise<void> {
    const deadlineMs = options.deadlineMs ?? DEFAULT_STOP_DEADLINE_MS;
    this.running = false;
    for (const timer of this.timers.values()) this.clock.clearTimer(timer);
    this.timers.clear();
    if (this.inFlightCount > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.whenIdle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, deadlineMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (this.inFlightCount > 0) {
      // Past the deadline: cut the rest off. Each is journaled as interrupted and stays pending.
      this.transport?.abortAll('aborted: the callback engine stopped before the answer came');
      await this.whenIdle();
    }
    this.tick();
    this.ids.checkpoint();
    this.outbox.checkpoint();
    this.transport?.close();
    this.transport = undefined;
  }

  // ---- queueing ----

  /** When the first attempt is due, if the schedule's first delay is not 0. */
  private firstAttemptAt(createdAt: number): number | undefined {
    const delay = retryDelayMs(0, this.cfg, this.random) ?? 0;
    return delay > 0 ? createdAt + delay : undefined;
  }

  private track(event: StoredEvent, atFront: boolean): Enqueued {
    const settled = new Promise<StoredEvent>((resolve) => this.resolvers.set(event.id, resolve));
    const snapshot = { ...event };
    if (this.running) {
      const queue = this.queues.get(event.orderingKey);
      if (!queue) {
        this.queues.set(event.orderingKey, [event]);
        this.activate(event.orderingKey);
        this.pump();
      } else if (atFront) {
        queue.unshift(event);
      } else {
        queue.push(event);
      }
    }
    return { event: snapshot, settled };
  }

  private append(event: StoredEvent): void {
    const queue = this.queues.get(event.orderingKey);
    if (queue) queue.push(event);
    else this.queues.set(event.orderingKey, [event]);
  }

  /** The key's head becomes ready now, or when its retry falls due. */
  private activate(key: string): void {
    if (!this.running) return;
    const head = this.queues.get(key)?.[0];
    if (head?.status !== 'pending' || this.timers.has(key) || this.readyKeys.has(key)) return;
    if (!this.outbox.isStored(head)) {
      // Stored before its first attempt: the commit at the end of this turn activates it.
      this.awaitingStore.add(key);
      return;
    }
    const wait = head.nextAttemptAt === undefined ? 0 : head.nextAttemptAt - this.clock.now();
    if (wait <= 0) {
      this.markReady(key);
      return;
    }
    this.timers.set(
      key,
      this.clock.setTimer(() => {
        this.timers.delete(key);
        if (!this.running) return;
        this.markReady(key);
        this.pump();
      }, wait),
    );
  }

  private markReady(key: string): void {
    this.readyKeys.add(key);
    this.ready.push(key);
  }

  private pump(): void {
    while (this.running && this.inFlightCount < this.cfg.concurrency && this.readyHead < this.ready.length) {
      const key = this.ready[this.readyHead++] as string;
      this.readyKeys.delete(key);
      const head = this.queues.get(key)?.[0];
      if (head?.status !== 'pending') continue;
      if (this.outbox.isStored(head)) this.deliverCallback(head);
      else this.awaitingStore.add(key);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  // ---- delivery ----

  private deliverCallback(event: StoredEvent): void {
    const transport = this.transport;
    if (!transport) return;
    this.inFlightCount++;
    const generation = this.generation;
    event.status = 'delivering';
    event.attemptCount += 1;
    delete event.nextAttemptAt;

    const startedAt = this.clock.now();
    const signing = this.cfg.signing;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      ...signPayload({
        scheme: signing.scheme,
        secrets: signing.secrets,
        headerNames: signing.headers,
        payload: event.body,
        timestamp: Math.floor(startedAt / 1000),
        ...(signing.scheme === 'standard-webhooks' ? { id: webhookMessageId(event) } : {}),
      }),
    };
    // Journaled before it is sent, committed with the other sends of this turn: after a crash
    // mid-attempt the row is still there, so every request a receiver saw is in the journal. The
    // outcome replaces it.
    this.outbox.journal({
      eventId: event.id,
      n: event.attemptCount,
      startedAt,
      latencyMs: 0,
      requestHeaders: headers,
      requestBody: event.body,
      outcome: 'retry',
      error: UNANSWERED_ATTEMPT,
    });
    this.outbox.markDirty(event);
    this.outbox.markDelivering(event);
    this.sendAfterCommit(() => this.post(transport, { event, generation, startedAt, headers }));
  }

  private sendQueue: (() => void)[] = [];

  /**
   * Runs `send` once the journal rows of this loop iteration's attempts are committed: setImmediate
   * runs after every reply the poll phase brought in, so one commit covers the attempts they freed
   * slots for (a microtask would commit once per reply).
   */
  private sendAfterCommit(send: () => void): void {
    this.sendQueue.push(send);
    if (this.sendQueue.length === 1) setImmediate(this.sendJournaled);
  }

  private readonly sendJournaled = (): void => {
    const sends = this.sendQueue;
    this.sendQueue = [];
    try {
      this.outbox.flush();
    } catch (error) {
      this.logger?.error({ err: error }, 'could not journal attempts before sending them');
    }
    for (const send of sends) send();
  };

  private post(transport: Transport, sending: Omit<AttemptInFlight, 't0'>): void {
    const attempt: AttemptInFlight = { ...sending, t0: performance.now() };
    const { event, headers } = sending;
    transport.post(event.url, headers, event.body).then(
      (answer) => {
        const verdict = classifyAnswer(answer, this.clock.now());
        this.finishAttempt(attempt, verdict, answer);
      },
      (error: unknown) => {
        const verdict = classifyFailure(error);
        this.finishAttempt(attempt, error instanceof InterruptedError ? { ...verdict, interrupted: true } : verdict);
      },
    );
  }

  /** Records one attempt's outcome: `answer` is what came back, absent when nothing did. */
  private finishAttempt(inFlight: AttemptInFlight, verdict: Verdict, answer?: { status: number; body: string }): void {
    const { event, generation, startedAt, t0, headers: requestHeaders } = inFlight;
    this.inFlightCount--;
    if (this.inFlightCount === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    if (generation !== this.generation) return; // the outbox was reset meanwhile
    const now = this.clock.now();
    const attempt: Attempt = {
      eventId: event.id,
      n: event.attemptCount,
      startedAt,
      latencyMs: Math.round((performance.now() - t0) * 1000) / 1000,
      requestHeaders,
      requestBody: event.body,
      outcome: verdict.outcome,
    };
    if (answer) {
      attempt.responseStatus = answer.status;
      attempt.responseBody = answer.body;
    }
    if (verdict.outcome !== 'delivered') attempt.error = verdict.error;
    if (verdict.reply) event.reply = verdict.reply;

    let settled = false;
    if (verdict.outcome === 'delivered' || verdict.outcome === 'rejected') {
      event.status = verdict.outcome;
      event.settledAt = now;
      if (verdict.outcome === 'rejected') event.error = verdict.error;
      else delete event.error;
      settled = true;
    } else {
      // Cut off by stop(): not the receiver's fault, so it goes again as soon as an engine runs.
      const delay = verdict.interrupted ? 0 : retryDelayMs(event.attemptCount, this.cfg, this.random, verdict.retryAfterMs);
      event.error = verdict.error;
      if (delay === undefined) {
        attempt.outcome = 'failed';
        event.status = 'failed';
        event.settledAt = now;
        event.error = `${verdict.error} — gave up after ${event.attemptCount} attempt(s) (callbacks.retrySchedule)`;
        settled = true;
      } else {
        event.status = 'pending';
        if (delay > 0) event.nextAttemptAt = now + delay;
      }
    }
    this.outbox.journal(attempt);
    this.outbox.markDirty(event);
    this.afterCommit.push(() => this.afterAttemptCommitted(attempt, event, settled));
    this.scheduleTick();
    // The freed slot goes to another key at once; this key's next event waits for the commit.
    this.pump();
  }

  /** Runs once the attempt and the event's new state are committed. */
  private afterAttemptCommitted(attempt: Attempt, event: StoredEvent, settled: boolean): void {
    if (this.attemptListeners.size > 0) {
      const snapshot = { ...event };
      for (const listener of this.attemptListeners) this.safely(() => listener(attempt, snapshot));
    }
    const key = event.orderingKey;
    if (!settled) {
      this.activate(key);
      return;
    }
    const queue = this.queues.get(key);
    if (queue && queue[0] === event) queue.shift();
    if (queue && queue.length === 0) this.queues.delete(key);
    this.settledSincePrune++;
    const snapshot = { ...event };
    const resolve = this.resolvers.get(event.id);
    if (resolve) {
      this.resolvers.delete(event.id);
      resolve(snapshot);
    }
    for (const listener of this.settledListeners) this.safely(() => listener(snapshot));
    if (event.kind === 'debit' && event.status === 'failed' && this.cfg.rollbackFailedDebits) {
      this.rollbackFailedDebit(event);
    }
    if (this.queues.has(key)) this.activate(key);
  }

  /** A DEBIT nobody confirmed may still have moved money: reverse it, next in its player's line. */
  private rollbackFailedDebit(debit: StoredEvent): void {
    try {
      const createdAt = this.clock.now();
      const byReference = this.cfg.rollbackStyle === 'reference';
      const store = () => {
        const transactionId = byReference ? this.ids.next() : debit.transactionId;
        const fields = {
          kind: 'rollback' as const,
          transactionId,
          referenceTransactionId: debit.transactionId,
          playerId: debit.playerId,
          amountMinor: debit.amountMinor,
          ...(debit.roundId === undefined ? {} : { roundId: debit.roundId }),
          ...(debit.gameId === undefined ? {} : { gameId: debit.gameId }),
          ...(debit.currency === undefined ? {} : { currency: debit.currency }),
        };
        return {
          ...fields,
          source: 'rollback-of-failed-debit',
          ...(debit.group === undefined ? {} : { group: debit.group }),
          orderingKey: debit.orderingKey,
          url: debit.url,
          body: buildCallbackBody({ ...fields, createdAt }, this.cfg),
          ...this.unsent(createdAt),
        };
      };
      this.store(store(), true);
    } catch (error) {
      this.logger?.error({ err: error, eventId: debit.id }, 'could not store the rollback of a failed DEBIT');
    }
  }

  // ---- batching ----

  /**
   * Group commit: while attempts are in flight, journal writes gather for GROUP_COMMIT_MS so one
   * transaction carries many of them (a commit costs as much as a dozen row writes). When the
   * engine is idle there is nothing to gather and the commit happens on the next turn.
   */
  private scheduleTick(): void {
    if (this.tickScheduled) return;
    this.tickScheduled = true;
    if (this.inFlightCount === 0) setImmediate(this.runTick);
    else setTimeout(this.runTick, GROUP_COMMIT_MS);
  }

  private readonly runTick = (): void => {
    if (this.tickScheduled) this.tick();
  };

  /** Commits the buffered events and journal writes in one transaction, then runs what waited for them. */
  private tick(): void {
    this.tickScheduled = false;
    try {
      this.outbox.flush();
    } catch (error) {
      if (!this.outbox.db.open) {
        this.logger?.error(
          { err: error },
          'the database was closed before the callback outbox was written (stop the engine first)',
        );
        return;
      }
      // Nothing is acknowledged or attempted before it is committed: keep the work and try again shortly.
      this.logger?.error({ err: error }, 'could not write the callback outbox; retrying');
      setTimeout(() => this.scheduleTick(), 100).unref();
      return;
    }
    const work = this.afterCommit;
    this.afterCommit = [];
    for (const fn of work) fn();
    if (this.awaitingStore.size > 0) {
      const keys = this.awaitingStore;
      this.awaitingStore = new Set();
      for (const key of keys) this.activate(key);
    }
    if (this.settledSincePrune >= this.pruneEvery) this.prune();
    this.pump();
    if (this.afterCommit.length > 0) this.scheduleTick();
  }

  private prune(): void {
    this.settledSincePrune = 0;
    try {
      this.outbox.prune(this.clock.now(), this.cfg.retention);
    } catch (error) {
      this.logger?.warn({ err: error }, 'could not prune old callback events');
    }
  }

  private whenIdle(): Promise<void> {
    if (this.inFlightCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private forgetEverything(): void {
    this.generation++;
    for (const timer of this.timers.values()) this.clock.clearTimer(timer);
    this.timers.clear();
    this.queues.clear();
    this.ready = [];
    this.readyHead = 0;
    this.readyKeys.clear();
    this.afterCommit = [];
    this.awaitingStore.clear();
    this.resolvers.clear();
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.logger?.error({ err: error }, 'a callback engine listener threw');
    }
  }
}

/** The Standard Webhooks message id: stable for an event across retries and restarts. */
function webhookMessageId(event: StoredEvent): string {
  return `msg_${hash('sha256', `${event.id}:${event.createdAt}:${event.transactionId}`, 'hex').slice(0, 24)}`;
}
