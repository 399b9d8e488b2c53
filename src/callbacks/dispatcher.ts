import { appliedEarlier, resentAfter, rolledBackAfter } from '../dialects/index.ts';
import type { CallbacksConfig } from './events.ts';
import type { Random } from './random.ts';
import { DEFAULT_READING, type DialectReading, describeError, type JudgedReply, judgeReply, parseReplyBody } from './reply.ts';

/**
 * The delivery rules of SPEC §3 as pure functions: what an HTTP answer means, and how long to
 * wait before the next attempt. No I/O here, so every rule is tested without a socket.
 */

/** An HTTP answer as the transport hands it over. */
export interface HttpAnswer {
  status: number;
  /** The body text, cut at the journal limit. */
  body: string;
  retryAfter?: string;
  /** Every header of the answer, names in lower case (repeated ones joined by ", "): only for a transport made with `keepHeaders`. */
  headers?: Record<string, string>;
  /** The body was longer than the limit and `body` is its start: only with `keepHeaders`. */
  truncated?: true;
}

export type Verdict =
  | {
      outcome: 'delivered';
      reply: { status: number; body: unknown };
      /** Why a reply that reads as a refusal still settles the event as delivered (an "already processed" code on a retry). */
      note?: string;
    }
  | { outcome: 'rejected'; reply: { status: number; body: unknown }; error: string }
  | {
      outcome: 'retry';
      reply?: { status: number; body: unknown };
      error: string;
      retryAfterMs?: number;
      interrupted?: boolean;
      /** No retry after this attempt, whatever the schedule says (a `timeout` fault rule with `giveUp`). */
      final?: boolean;
    };

/**
 * What an HTTP answer means for delivery, as {@link judgeReply} judges it: accepted → delivered;
 * a business rejection (a 2xx with `{error}`, or a 3xx/4xx) → rejected, never retried; 408, 429
 * and 5xx → retry (honouring Retry-After); a 2xx that is not a JSON object → retry, because
 * nobody can tell whether the wallet applied the event (callbacks are idempotent, so a retry is safe).
 *
 * A retry (`retried`) refused with the dialect's "already processed" code is delivered: the earlier
 * attempt was applied (`appliedEarlier`, the one rule the load generator asks too).
 */
export function classifyAnswer(
  answer: HttpAnswer,
  nowMs: number,
  reading: DialectReading = DEFAULT_READING,
  retried = false,
): Verdict {
  const { status } = answer;
  const body = parseReplyBody(answer.body);
  const reply = { status, body };
  const judged = judgeReply({ status, body, text: answer.body }, reading);
  const rejection = judged.error === undefined ? '' : ` ${describeRejection(judged)}`;
  switch (judged.verdict) {
    case 'accepted':
      return { outcome: 'delivered', reply };
    case 'rejected': {
      if (appliedEarlier(reading.dialect, { verdict: 'rejected', code: judged.error }, reading.operation, retried))
        return { outcome: 'delivered', reply, note: `an earlier attempt was applied: the wallet answered${rejection}` };
      if (rolledBackAfter(reading.dialect, { verdict: 'rejected', code: judged.error }, reading.operation))
        return { outcome: 'retry', reply, final: true, error: `HTTP ${status}${rejection}${ROLLED_BACK}` };
      if (resentAfter(reading.dialect, { verdict: 'rejected', status, code: judged.error }, reading.operation))
        return {
          outcome: 'retry',
          reply,
          error: `HTTP ${status}${rejection}: will retry (the vendor sends this ${reading.operation} again on every code but ${finalCodesOf(reading)})`,
        };
      if (status >= 200 && status < 300)
        return { outcome: 'rejected', reply, error: `HTTP ${status} with business rejection${rejection}` };
      const hint = status >= 300 && status < 400 ? ' (redirects are not followed: check the webhook URL)' : '';
      return { outcome: 'rejected', reply, error: `HTTP ${status}${rejection}${hint}` };
    }
    case 'invalid':
      if (rolledBackAfter(reading.dialect, { verdict: 'invalid' }, reading.operation))
        return {
          outcome: 'retry',
          reply,
          final: true,
          error: `HTTP ${status} but the body is not a JSON object (${describeBody(answer.body)})${ROLLED_BACK}`,
        };
      return {
        outcome: 'retry',
        reply,
        error: `HTTP ${status} but the body is not a JSON object (${describeBody(answer.body)}): will retry`,
      };
    case 'retry': {
      const retryAfterMs = answer.retryAfter === undefined ? undefined : parseRetryAfter(answer.retryAfter, nowMs);
      const error = `HTTP ${status}${rejection}: will retry`;
      return retryAfterMs === undefined ? { outcome: 'retry', reply, error } : { outcome: 'retry', reply, error, retryAfterMs };
    }
  }
}

/** A bet that ends `failed` is followed by its ROLLBACK (the engine's rollback of an unconfirmed DEBIT). */
const ROLLED_BACK = ': the vendor cannot tell whether the wallet applied it, so it is not sent again and its ROLLBACK follows';

/** The codes that end a call of this operation, for a message. */
function finalCodesOf(reading: DialectReading): string {
  const final = reading.operation && reading.dialect.operations[reading.operation]?.reply?.finalCodes;
  return final && final.length > 0 ? `success, ${final.join(', ')}` : 'success';
}

/** A network failure (refused, reset, timeout) is always worth another try. */
export function classifyFailure(error: unknown): Verdict & { outcome: 'retry' } {
  return { outcome: 'retry', error: describeNetworkError(error) };
}

export function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * `Retry-After` as delta seconds or an HTTP date, in ms from now; undefined when unreadable.
 *
 * @example parseRetryAfter('120', now) // 120000
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * The wait before attempt number `attemptIndex` (0 = the first), or undefined when the schedule
 * has no such attempt. The scheduled delay gets ±jitter and is multiplied by timeScale; a
 * Retry-After asks for at least its own wait (capped at retryAfterMax), which timeScale does not shrink.
 */
export function retryDelayMs(
  attemptIndex: number,
  config: Pick<CallbacksConfig, 'retrySchedule' | 'jitter' | 'timeScale' | 'retryAfterMax'>,
  random: Random,
  retryAfterMs?: number,
): number | undefined {
  const base = config.retrySchedule[attemptIndex];
  if (base === undefined) return undefined;
  const jittered = base > 0 && config.jitter > 0 ? base * (1 + config.jitter * (2 * random.next() - 1)) : base;
  const scheduled = Math.round(jittered * config.timeScale);
  if (retryAfterMs === undefined) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, config.retryAfterMax));
}

function describeRejection(judged: JudgedReply): string {
  return judged.message === undefined ? `${describeError(judged)}` : `${describeError(judged)}: ${judged.message}`;
}

function describeBody(text: string): string {
  if (text.length === 0) return 'empty';
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
