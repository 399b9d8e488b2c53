import type { Logger } from 'pino';
import { dialectOf } from '../config/index.ts';
import {
  type AttemptInFlight,
  answeredAttempt,
  applyVerdict,
  attemptInFlight,
  lateReplyAttempt,
  sentRequest,
  unansweredAttempt,
} from './attempt.ts';
import { attemptRequest, capabilitiesOf, replyReadingOf } from './call.ts';
import { type Clock, systemClock } from './clock.ts';
import { classifyAnswer, classifyFailure, type HttpAnswer, type Verdict } from './dispatcher.ts';
import type { CallbackEngine, CallbackEngineOptions, Enqueued } from './engine-api.ts';
import { postUnderFault } from './engine-faults.ts';
import { EngineListeners } from './engine-listeners.ts';
import { SendsAfterCommit } from './engine-sends.ts';
import { CallbackRequestError } from './enqueue-request.ts';
import type { Attempt, CallbacksConfig, EnqueueRequest, StoredEvent } from './events.ts';
import { CallbackFaults, duplicateSource, FaultTimeoutError, type FiredCallbackFault } from './faults.ts';
import { TransactionIdSequence } from './ids.ts';
import { type NewEvent, NewEvents } from './new-events.ts';
import { OrderingLines } from './ordering.ts';
import { OriginSlots } from './origin-slots.ts';
import { Outbox } from './outbox.ts';
import { type TransportFactory, transportFor } from './proxy.ts';
import { type Random, seededRandom } from './random.ts';
import { SessionTokens } from './session-tokens.ts';
import { InterruptedError, type Transport } from './transport.ts';

export { UNANSWERED_ATTEMPT, USER_AGENT } from './attempt.ts';
export type { CallbackEngine, CallbackEngineOptions, Enqueued } from './engine-api.ts';
export { CallbackRequestError };

/** How long journal writes may gather before they are committed together, while attempts are in flight. */
export const GROUP_COMMIT_MS = 5;

/** How long stop() waits for attempts in flight when no deadline is given. */
export const DEFAULT_STOP_DEADLINE_MS = 5_000;

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
  readonly faults: CallbackFaults;
  private readonly cfg: CallbacksConfig;
  private readonly clock: Clock;
  private readonly random: Random;
  private readonly logger: Logger | undefined;
  private readonly ids: TransactionIdSequence;
  private readonly newEvents: NewEvents;
  /** The session tokens wallets handed over, in the outbox's file. */
  private readonly sessions: SessionTokens;
  private readonly lines: OrderingLines;
  private readonly pruneEvery: number;
  private readonly slots: OriginSlots;
  private readonly webhookUrl: string;
  private readonly urlRefusal: ((url: string) => string | undefined) | undefined;

  private running = false;
  private transport: Transport | undefined;
  private readonly makeTransport: TransportFactory;
  private inFlightCount = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly resolvers = new Map<number, (event: StoredEvent) => void>();
  private readonly listeners: EngineListeners;
  private readonly sends: SendsAfterCommit;
  /** Work that must wait until the batched journal writes are committed. */
  private afterCommit: (() => void)[] = [];
  private tickScheduled = false;
  /** A commit is queued for the end of this synchronous turn (new events are waiting for it). */
  private storeScheduled = false;
  private settledSincePrune = 0;
  /** Bumped by an outbox reset, so answers to attempts started before it are ignored. */
  private generation = 0;

  constructor(options: CallbackEngineOptions) {
    this.cfg = options.config.callbacks;
    this.makeTransport = options.transport ?? transportFor();
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? seededRandom(`${options.config.seed}:callbacks`);
    this.logger = options.logger;
    this.listeners = new EngineListeners(options.logger);
    this.sends = new SendsAfterCommit({
      logger: options.logger,
      commit: () => this.outbox.flush(),
      generation: () => this.generation,
      post: ({ transport, sending }) => this.post(transport, sending),
      unsent: ({ sending }, why) => this.finishAttempt(attemptInFlight(sending), { outcome: 'retry', error: why }),
      // That commit also carried every outcome journaled before it: settle them now, not at the
      // group-commit tick (which then usually finds nothing left to write).
      committed: () => {
        if (this.afterCommit.length > 0) this.tick();
      },
    });
    this.outbox = new Outbox(options.db);
    this.faults = new CallbackFaults({ seed: options.config.seed, rules: this.cfg.faults });
    this.ids = new TransactionIdSequence(options.db, options.config.seed, {
      ...(options.config.callbacks.idNamespace === undefined ? {} : { namespace: options.config.callbacks.idNamespace }),
      // The dialect says how long (Red Tiger caps ids at 32 characters: tx_ + a 6-character namespace + _ + 22 hex digits fits).
      hexDigits: dialectOf(options.config.callbacks).calls.idHexDigits,
      maxLength: dialectOf(options.config.callbacks).calls.idMaxLength,
    });
    const url = options.webhookUrl ?? this.cfg.webhookUrl;
    this.sessions = new SessionTokens(options.db);
    this.newEvents = new NewEvents({
      sessions: this.sessions,
      cfg: this.cfg,
      clock: this.clock,
      random: this.random,
      ids: this.ids,
      url,
      seed: options.config.seed,
    });
    this.slots = new OriginSlots({ concurrency: this.cfg.concurrency, webhookUrl: url });
    this.webhookUrl = url;
    this.urlRefusal = options.urlRefusal;
    this.lines = new OrderingLines({
      clock: this.clock,
      isRunning: () => this.running,
      isStored: (event) => this.outbox.isStored(event),
      onDue: () => this.pump(),
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
    return this.store(this.newEvents.fromRequest(req), false);
  }

  enqueueMany(reqs: readonly EnqueueRequest[]): Enqueued[] {
    // Every request is checked before any is stored: a bad one stores none.
    const events = reqs.map((req) => this.newEvents.fromRequest(req));
    return events.map((event) => this.store(event, false));
  }

  /**
   * Buffers the new event in the outbox and queues it. Its row is committed by a microtask at the
   * end of this synchronous turn, with every other event of the turn: one commit for a burst of
   * enqueues, and still before anything else (an HTTP reply, a timer, an attempt) can happen.
   */
  private store(event: NewEvent, atFront: boolean): Enqueued {
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

  replay(eventId: number): Enqueued {
    const original = this.outbox.get(eventId);
    if (!original)
      throw new CallbackRequestError([{ field: 'eventId', message: `no callback event with id ${eventId}`, received: eventId }]);
    return this.store(this.newEvents.replayOf(original), false);
  }

  onEnqueued(listener: (event: StoredEvent) => void): () => void {
    return this.listeners.onEnqueued(listener);
  }

  onSettled(listener: (event: StoredEvent) => void): () => void {
    return this.listeners.onSettled(listener);
  }

  onAttempt(listener: (attempt: Attempt, event: StoredEvent) => void): () => void {
    return this.listeners.onAttempt(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.transport ??= this.makeTransport({ maxSockets: this.cfg.concurrency, timeoutMs: this.cfg.timeout });
    // The outbox is the truth: pending events of an earlier run (or enqueued while stopped), and
    // any left 'delivering' by a crash, go out again in their original order.
    const unsettled = this.outbox.takeUnsettled();
    for (const event of unsettled) this.listeners.enqueuedEvent({ ...event });
    this.lines.resume(unsettled);
    this.prune();
    this.pump();
  }

  async stop(options: { deadlineMs?: number } = {}): Promise<void> {
    const deadlineMs = options.deadlineMs ?? DEFAULT_STOP_DEADLINE_MS;
    this.running = false;
    this.lines.stopTimers();
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

  private track(event: StoredEvent, atFront: boolean): Enqueued {
    const settled = new Promise<StoredEvent>((resolve) => this.resolvers.set(event.id, resolve));
    const snapshot = { ...event };
    this.listeners.enqueuedEvent(snapshot);
    if (this.running && this.lines.add(event, atFront)) this.pump();
    return { event: snapshot, settled };
  }

  private pump(): void {
    while (this.running && this.inFlightCount < this.cfg.concurrency) {
      // A launch-level callback_url's origin gets only its share of the pool (OriginSlots).
      const head = this.lines.nextReady((event) => this.slots.mayStart(event.url));
      if (!head) break;
      this.deliverCallback(head);
    }
    this.lines.compact();
  }

  // ---- delivery ----

  private deliverCallback(event: StoredEvent): void {
    const transport = this.transport;
    if (!transport) return;
    const refusal = event.url === this.webhookUrl ? undefined : this.urlRefusal?.(event.url);
    if (refusal !== undefined) {
      this.failUnsent(event, refusal);
      return;
    }
    const startedAt = this.clock.now();
    let request: AttemptInFlight['request'];
    try {
      // A call queued before its session's wallet handed a new token over goes out with the new one.
      this.newEvents.withCurrentToken(event);
      request = attemptRequest(event, this.cfg, startedAt);
    } catch (error) {
      // The call cannot be rendered (a credential missing since it was stored): nothing can go out.
      this.failUnsent(event, `not sent: its request cannot be built (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    this.inFlightCount++;
    this.slots.started(event.url);
    const generation = this.generation;
    event.status = 'delivering';
    event.attemptCount += 1;
    delete event.nextAttemptAt;
    // The event shows the request its last attempt sent, signature included (as a read of its row does).
    if (event.request !== undefined) event.request = sentRequest(request, event.attemptCount);

    // Journaled before it is sent, committed with the other sends of this turn: after a crash
    // mid-attempt the row is still there, so every request a receiver saw is in the journal. The
    // outcome replaces it.
    this.outbox.journal(unansweredAttempt(event, startedAt, request));
    this.outbox.markDirty(event);
    this.outbox.markDelivering(event);
    // Sent once this turn's journal rows are committed (SendsAfterCommit).
    this.sends.add({ transport, sending: { event, generation, startedAt, request } });
  }

  private post(transport: Transport, sending: Omit<AttemptInFlight, 't0'>): void {
    const attempt = attemptInFlight(sending);
    const { event, request } = sending;
    const fired = this.faults.size === 0 ? undefined : this.faults.fire(event);
    // The row a timeout fault rule's give-up journaled: a late reply is added to it.
    let gaveUp: Attempt | undefined;
    (fired
      ? postUnderFault(transport, attempt, fired, {
          late: (late) => {
            if (gaveUp) this.journalLateReply(attempt, gaveUp, late);
          },
          duplicate: this.duplicateOf(event, fired),
        })
      : transport.post(request.url, request.headers, request.body, request.method)
    ).then(
      (answer) => {
        const verdict = classifyAnswer(answer, this.clock.now(), replyReadingOf(this.cfg, event), event.attemptCount > 1);
        this.finishAttempt(attempt, verdict, answer);
      },
      (error: unknown) => {
        const verdict = classifyFailure(error);
        if (error instanceof FaultTimeoutError)
          gaveUp = this.finishAttempt(attempt, error.final ? { ...verdict, final: true } : verdict, error.answer);
        else this.finishAttempt(attempt, error instanceof InterruptedError ? { ...verdict, interrupted: true } : verdict);
      },
    );
  }

  /**
   * The wallet answered an attempt a `timeout` fault rule had given up on: its journal row gets the
   * reply (the inspector shows "late reply after timeout: 200 …"); the event's state is not changed.
   */
  private journalLateReply(inFlight: AttemptInFlight, gaveUp: Attempt, late: HttpAnswer): void {
    const latencyMs = performance.now() - inFlight.t0;
    this.logger?.info(
      { eventId: gaveUp.eventId, attempt: gaveUp.n, status: late.status, latencyMs: Math.round(latencyMs) },
      'a callback reply came after a timeout fault rule gave up on it',
    );
    if (inFlight.generation !== this.generation) return; // the outbox was reset meanwhile
    this.outbox.journal(lateReplyAttempt(gaveUp, late, latencyMs));
    this.scheduleTick();
  }

  /** A copy of an event a `duplicate` fault rule fired on, stored as a new event on a line of its own. */
  private duplicateOf(event: StoredEvent, fired: FiredCallbackFault): () => void {
    const generation = this.generation;
    return () => {
      // Not after a stop, nor a copy of an event an outbox reset has since forgotten.
      if (!this.running || generation !== this.generation) return;
      const source = duplicateSource(fired.ruleId, event.id);
      this.store({ ...this.newEvents.replayOf(event), source, orderingKey: `${event.orderingKey}#${source}` }, false);
    };
  }

  /** Records one attempt's outcome and returns its journal row: `answer` is what came back, absent when nothing did. */
  private finishAttempt(
    inFlight: AttemptInFlight,
    verdict: Verdict,
    answer?: { status: number; body: string },
  ): Attempt | undefined {
    const { event, generation } = inFlight;
    this.inFlightCount--;
    if (this.slots.finished(event.url)) this.lines.unpark();
    if (this.inFlightCount === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    if (generation !== this.generation) return; // the outbox was reset meanwhile
    const now = this.clock.now();
    const attempt = answeredAttempt(inFlight, verdict, answer);
    const settled = applyVerdict(event, attempt, verdict, { cfg: this.cfg, random: this.random, now });
    this.outbox.journal(attempt);
    this.outbox.markDirty(event);
    this.afterCommit.push(() => this.afterAttemptCommitted(attempt, event, settled));
    this.scheduleTick();
    // The freed slot goes to another key at once; this key's next event waits for the commit.
    this.pump();
    return attempt;
  }

  /**
   * The event's URL is not allowed now (the policy changed since it was stored: a replay, a resume
   * after a restart): it ends failed, saying why, and nothing is sent or journaled as an attempt.
   */
  private failUnsent(event: StoredEvent, refusal: string): void {
    event.status = 'failed';
    event.settledAt = this.clock.now();
    event.error = refusal.startsWith('not sent:') ? refusal : `not sent: its URL ${event.url} is not allowed now (${refusal})`;
    delete event.nextAttemptAt;
    this.outbox.markDirty(event);
    this.afterCommit.push(() => this.afterAttemptCommitted(undefined, event, true));
    this.scheduleTick();
  }

  /** Runs once the attempt (none when nothing was sent) and the event's new state are committed. */
  private afterAttemptCommitted(attempt: Attempt | undefined, event: StoredEvent, settled: boolean): void {
    if (attempt) this.listeners.attempted(attempt, event);
    const key = event.orderingKey;
    if (!settled) {
      this.lines.activate(key);
      return;
    }
    this.lines.settle(event);
    this.settledSincePrune++;
    // Before anyone hears of it: a call that waits for this one is made with the token it gave.
    this.newEvents.noteSettled(event);
    const snapshot = { ...event };
    const resolve = this.resolvers.get(event.id);
    if (resolve) {
      this.resolvers.delete(event.id);
      resolve(snapshot);
    }
    this.listeners.settledEvent(snapshot);
    if (
      event.kind === 'debit' &&
      event.status === 'failed' &&
      this.cfg.rollbackFailedDebits &&
      capabilitiesOf(this.cfg).hasRollback
    ) {
      this.rollbackFailedDebit(event);
    }
    if (this.lines.has(key)) this.lines.activate(key);
  }

  /** A DEBIT nobody confirmed may still have moved money: reverse it, next in its player's line. */
  private rollbackFailedDebit(debit: StoredEvent): void {
    try {
      this.store(this.newEvents.rollbackOf(debit), true);
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
      if (!this.outbox.db.isOpen) {
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
    this.lines.activateCommitted();
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
    this.lines.forget();
    this.afterCommit = [];
    this.resolvers.clear();
    this.sessions.clear();
  }
}
