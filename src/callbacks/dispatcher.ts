import type { CallbacksConfig } from './events.ts';
import { parseReplyBody } from './outbox.ts';
import type { Random } from './random.ts';

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
}

export type Verdict =
  | { outcome: 'delivered'; reply: { status: number; body: unknown } }
  | { outcome: 'rejected'; reply: { status: number; body: unknown }; error: string }
  | { outcome: 'retry'; reply?: { status: number; body: unknown }; error: string; retryAfterMs?: number; interrupted?: boolean };

/**
 * 2xx → delivered, unless the body is a business rejection `{error: …}` (some wallets answer 200);
 * 408, 429 and 5xx → retry (honouring Retry-After); every other status → rejected, never retried.
 */
export function classifyAnswer(answer: HttpAnswer, nowMs: number): Verdict {
  const { status } = answer;
  const body = parseReplyBody(answer.body);
  const reply = { status, body };
  const code = businessError(body);
  if (status >= 200 && status < 300) {
    if (code === undefined) return { outcome: 'delivered', reply };
    return { outcome: 'rejected', reply, error: `HTTP ${status} with business rejection ${describeRejection(body, code)}` };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = answer.retryAfter === undefined ? undefined : parseRetryAfter(answer.retryAfter, nowMs);
    const error = `HTTP ${status}${code === undefined ? '' : ` ${describeRejection(body, code)}`}: will retry`;
    return retryAfterMs === undefined ? { outcome: 'retry', reply, error } : { outcome: 'retry', reply, error, retryAfterMs };
  }
  const what = code === undefined ? `HTTP ${status}` : `HTTP ${status} ${describeRejection(body, code)}`;
  const hint = status >= 300 && status < 400 ? ' (redirects are not followed: check the webhook URL)' : '';
  return { outcome: 'rejected', reply, error: `${what}${hint}` };
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

function businessError(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'string' && error.length > 0 ? error : undefined;
}

function describeRejection(body: unknown, code: string): string {
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' && message.length > 0 ? `${code}: ${message}` : code;
}
