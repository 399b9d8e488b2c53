import type { Logger } from 'pino';
import type { AggmockConfig } from '../config/index.ts';
import type { Database } from '../storage/index.ts';
import type { Clock } from './clock.ts';
import type { CallbackRequestError } from './enqueue-request.ts';
import type { Attempt, EnqueueRequest, StoredEvent } from './events.ts';
import type { CallbackFaults } from './faults.ts';
import type { Outbox } from './outbox.ts';
import type { TransportFactory } from './proxy.ts';
import type { Random } from './random.ts';

/** What the callback engine promises its callers (the admin API, scenarios, the ledger, the CLI); engine.ts keeps it. */

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
  /**
   * Called once per event when it is stored and queued (enqueue, replay, the rollback of a failed
   * DEBIT, and unsettled events resumed by start()), before its first attempt: the shadow ledger
   * learns which events may overlap in time.
   */
  onEnqueued(listener: (event: StoredEvent) => void): () => void;
  /** Called once per event when it ends delivered|rejected|failed, in settle order. */
  onSettled(listener: (event: StoredEvent) => void): () => void;
  onAttempt(listener: (attempt: Attempt, event: StoredEvent) => void): () => void;
  outbox: Outbox;
  /** Resumes the undelivered events in the outbox and starts delivering. */
  start(): void;
  /** Waits for attempts in flight up to the deadline, then aborts them; everything unsettled stays in the outbox. */
  stop(options?: { deadlineMs?: number }): Promise<void>;
  /** The fault rules on the callbacks it sends (config `callbacks.faults`, `/__admin/callback-faults`). */
  faults: CallbackFaults;
  /** The next id of the seeded, reproducible sequence (persisted, so a restart continues it). */
  nextTransactionId(): string;
  /** Attempts on the wire right now (tests use it to know when only timers are left). */
  inFlight(): number;
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
  /**
   * Why an event's URL other than the webhook may not be sent to now (the launch `callback_url`
   * policy, `callbacks.allowedUrls`), or undefined. Asked before every send, so an event stored
   * under an older policy (a replay, or one resumed after a restart) ends failed, never sent.
   */
  urlRefusal?: (url: string) => string | undefined;
}
