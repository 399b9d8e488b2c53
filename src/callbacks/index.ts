/**
 * The callback engine (SPEC §3): durable outbox, signed delivery with retries, strict per-player order.
 *
 * An engine: it imports only the foundation (config, http's error helpers, money, signing,
 * shared, version); it must not import the ledger, scenarios, any surface or the CLI.
 */

export {
  type CallCapabilities,
  callFactsOf,
  callNameOf,
  capabilitiesOf,
  exponentOf,
  readingOf,
  replyReadingOf,
  urlUnder,
} from './call.ts';
export { type Clock, FakeClock, systemClock, type TimerHandle } from './clock.ts';
export { openDatabase } from './db.ts';
export { classifyAnswer, parseRetryAfter, retryDelayMs } from './dispatcher.ts';
export {
  type CallbackEngine,
  type CallbackEngineOptions,
  CallbackRequestError,
  createCallbackEngine,
  type Enqueued,
  USER_AGENT,
} from './engine.ts';
export * from './events.ts';
export {
  type CallbackFaultRuleState,
  CallbackFaults,
  duplicateSource,
  FaultTimeoutError,
  type FiredCallbackFault,
} from './faults.ts';
export { TransactionIdSequence, transactionIdAt } from './ids.ts';
export { MAX_JOURNALED_BODY, Outbox, type OutboxFilter, type RetentionPolicy } from './outbox.ts';
export { type Random, seededRandom } from './random.ts';
export { DEFAULT_READING, type DialectReading, describeError, type JudgedReply, judgeReply, type ReplyVerdict } from './reply.ts';
