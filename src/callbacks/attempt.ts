import { performance } from 'node:perf_hooks';
import type { AttemptRequest } from './call.ts';
import { retryDelayMs, type Verdict } from './dispatcher.ts';
import type { Attempt, CallbacksConfig, StoredEvent } from './events.ts';
import { storedBody } from './outbox.ts';
import type { Random } from './random.ts';

export { USER_AGENT } from './call.ts';

/**
 * The request an event shows once attempt `n` is sent: that attempt's, as its journal row keeps it
 * (credentials masked, the signature included).
 */
export function sentRequest(request: AttemptRequest, n: number): NonNullable<StoredEvent['request']> {
  return { method: request.method, path: request.shown.path, headers: request.shown.headers, attempt: n };
}

/** The journal's word for an attempt sent without a recorded reply (in flight, or cut off by a crash). */
export const UNANSWERED_ATTEMPT =
  'no reply recorded: in flight, or aggmock stopped before the reply came (the receiver may have applied it)';

/** One attempt between its send and its answer. */
export interface AttemptInFlight {
  event: StoredEvent;
  /** The outbox generation it was sent in: a reset meanwhile makes its outcome moot. */
  generation: number;
  /** Clock time of the send (the attempt's `startedAt`). */
  startedAt: number;
  /** performance.now() at the send, for the latency. */
  t0: number;
  request: AttemptRequest;
}

/**
 * A journal row's first columns, with the request credentials masked: method and path only when
 * they say more than "POST to the base URL". Assigned one by one, not spread: Node 20's V8 copies
 * a spread followed by more fields on a slow path, twice a callback here.
 */
function attemptRow(
  event: StoredEvent,
  startedAt: number,
  latencyMs: number,
  request: AttemptRequest,
  outcome: Attempt['outcome'],
): Attempt {
  const { shown } = request;
  // The members in the order they always came: the request, then the outcome.
  const attempt = {
    eventId: event.id,
    n: event.attemptCount,
    startedAt,
    latencyMs,
    requestHeaders: shown.headers,
    requestBody: shown.body,
  } as Attempt;
  if (request.method !== 'POST') attempt.requestMethod = request.method;
  if (shown.path !== '') attempt.requestPath = shown.path;
  attempt.outcome = outcome;
  return attempt;
}

/**
 * The journal row of an attempt about to be sent. Its outcome replaces it; until then (and after a
 * crash mid-attempt) it says the receiver may have seen the request.
 */
export function unansweredAttempt(event: StoredEvent, startedAt: number, request: AttemptRequest): Attempt {
  const attempt = attemptRow(event, startedAt, 0, request, 'retry');
  attempt.error = UNANSWERED_ATTEMPT;
  return attempt;
}

/** The journal row of an answered (or failed) attempt: `answer` is what came back, absent when nothing did. */
export function answeredAttempt(
  inFlight: AttemptInFlight,
  verdict: Verdict,
  answer: { status: number; body: string } | undefined,
): Attempt {
  const { event, startedAt, t0, request } = inFlight;
  const latencyMs = Math.round((performance.now() - t0) * 1000) / 1000;
  const attempt = attemptRow(event, startedAt, latencyMs, request, verdict.outcome);
  if (answer) {
    attempt.responseStatus = answer.status;
    const stored = storedBody(answer.body);
    attempt.responseBody = stored.text;
    if (stored.bytes !== undefined) attempt.responseBytes = stored.bytes;
    if (stored.sha256 !== undefined) attempt.responseSha256 = stored.sha256;
  }
  if (verdict.outcome !== 'delivered') attempt.error = verdict.error;
  else if (verdict.note !== undefined) attempt.error = verdict.note;
  return attempt;
}

/** The words an attempt's journal row adds for a reply that came after a `timeout` fault rule gave up on it. */
export const LATE_REPLY = 'late reply after timeout';

/**
 * The journal row of an attempt a `timeout` fault rule gave up on, once the wallet's late reply is
 * in: the reply and when it came, beside the error that gave up (the outcome stays what it was).
 */
export function lateReplyAttempt(given: Attempt, late: { status: number; body: string }, latencyMs: number): Attempt {
  const stored = storedBody(late.body);
  const ms = Math.round(latencyMs);
  const { responseBytes: _bytes, responseSha256: _sha, ...rest } = given;
  return {
    ...rest,
    responseStatus: late.status,
    responseBody: stored.text,
    ...(stored.bytes === undefined ? {} : { responseBytes: stored.bytes }),
    ...(stored.sha256 === undefined ? {} : { responseSha256: stored.sha256 }),
    error: `${given.error ?? 'timed out'}; ${LATE_REPLY}: ${late.status} after ${ms} ms (ignored)`,
  };
}

/** What decides the retry delay after a failed attempt. */
export interface RetryPolicy {
  cfg: CallbacksConfig;
  random: Random;
  now: number;
}

/**
 * Moves the event to its state after the attempt — settled, or pending its retry — and marks the
 * attempt 'failed' when the retries are used up. Returns whether the event is settled.
 */
export function applyVerdict(event: StoredEvent, attempt: Attempt, verdict: Verdict, retry: RetryPolicy): boolean {
  if (verdict.reply) {
    event.reply = verdict.reply;
    event.replyAttempt = attempt.n;
  }
  if (verdict.outcome === 'delivered' || verdict.outcome === 'rejected') {
    event.status = verdict.outcome;
    event.settledAt = retry.now;
    if (verdict.outcome === 'rejected') event.error = verdict.error;
    else delete event.error;
    return true;
  }
  // Cut off by stop(): not the receiver's fault, so it goes again as soon as an engine runs.
  const delay = verdict.interrupted
    ? 0
    : verdict.final
      ? undefined
      : retryDelayMs(event.attemptCount, retry.cfg, retry.random, verdict.retryAfterMs);
  event.error = verdict.error;
  if (delay === undefined) {
    attempt.outcome = 'failed';
    event.status = 'failed';
    event.settledAt = retry.now;
    event.error = verdict.final
      ? `${verdict.error} — gave up after attempt ${event.attemptCount}`
      : `${verdict.error} — gave up after ${event.attemptCount} attempt(s) (callbacks.retrySchedule)`;
    return true;
  }
  event.status = 'pending';
  if (delay > 0) event.nextAttemptAt = retry.now + delay;
  return false;
}

/**
 * The attempt as it goes out: its fields and the send time. `t0` comes before the spread: Node 20's
 * V8 copies `{ ...sending, t0 }` on a slow path (about 1 µs per added field, per callback).
 */
export function attemptInFlight(sending: Omit<AttemptInFlight, 't0'>): AttemptInFlight {
  return { t0: performance.now(), ...sending };
}
