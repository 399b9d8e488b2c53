import { builtinDialect, type Dialect, type Operation, type OutcomeCode, outcomesOf, readReply } from '../dialects/index.ts';
import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import type { ExtraCurrencies } from '../money/index.ts';
import { parseJsonOr } from '../shared/index.ts';

/**
 * The wallet's reply to a callback: {@link judgeReply}, the ONE place that decides whether a reply
 * is an acceptance, a business rejection, worth a retry, or garbage. The dispatcher, the shadow
 * ledger, the play page, the demo and `aggmock verify` all ask it, so `{"balance":10,"error":0}`
 * means the same thing everywhere.
 */

/**
 * - `accepted`: 2xx, a JSON object, no error signalled;
 * - `rejected`: a final "no": a 2xx with an error signalled, or any 3xx/4xx except 408 and 429;
 * - `retry`: 408, 429 or 5xx, worth another attempt;
 * - `invalid`: a 2xx whose body is not a JSON object (HTML, text, nothing), so nobody can tell
 *   whether the wallet applied the event; the sender retries it like a timeout.
 */
export type ReplyVerdict = 'accepted' | 'rejected' | 'retry' | 'invalid';

/** What a reply says about the balance: nothing, something unreadable, or an amount in minor units. */
export type ReplyBalance = { kind: 'none' } | { kind: 'invalid'; raw: unknown } | { kind: 'ok'; minor: number };

export interface JudgedReply {
  verdict: ReplyVerdict;
  status: number;
  /** The `error` the reply signalled, as text (`"INSUFFICIENT_FUNDS"`, or `"1001"` from a numeric code). */
  error?: string;
  /** aggmock's names for that code under the dialect, when it maps it (Groove's 110: PLAYER_NOT_FOUND or ALREADY_SETTLED). */
  outcomes?: OutcomeCode[];
  /** Its `message` (or `msg`/`description`), when there is one. */
  message?: string;
  /** Read from ANY reply that carries one, acceptance or rejection. */
  balance: ReplyBalance;
  /**
   * Whether `balance` is written exactly as the wire's format demands: in `decimal`, a number (or
   * decimal string) with at most the currency's decimals as written in the raw JSON text
   * (109.71000000000001 is not); in `minor`, a whole number. Absent when there is no balance or no raw text to judge.
   */
  balanceExact?: boolean;
  /** The session token to use from then on, when the call's reply hands one over (Caleta's authenticate). */
  token?: string;
}

/** An HTTP answer: status and body, as raw text (preferred: precision is judged on it) or parsed JSON. */
export interface ReplyInput {
  status: number;
  /** The raw body text. */
  text?: string;
  /** The parsed body (a stored reply, or text the caller parsed already). */
  body?: unknown;
}

/**
 * How a wire's replies read: its dialect's rules (`readReply`: status classes, the code path with
 * its success, retry and refusal codes, cash + bonus balances), for a call of `operation` (default
 * a bet) in `currency`. A profile (`default`, `betnex`, a profile file) reads through its dialect
 * (dialects/profile.ts): there is one reading, the dialect's.
 */
export interface DialectReading {
  dialect: Dialect;
  currency: string;
  operation?: Operation | undefined;
  /** Configured extra currencies (code → decimals), read like ISO ones. */
  currencies?: ExtraCurrencies | undefined;
}

/** The documented reply (`default`): `{balance}`, or `{error, message?, balance?}`, amounts in major units with two decimals, EUR. */
export const DEFAULT_READING: DialectReading = Object.freeze({ dialect: builtinDialect('default'), currency: 'EUR' });

/**
 * Judges one reply under a wire's dialect. The rules (`readReply`), in order:
 * 1. a retry status (408, 429 and 5xx by default) → `retry`, whatever the body says;
 * 2. an answer status (2xx by default) → `invalid` unless the body is a JSON object; `retry` for a
 *    retry code; `rejected` when it signals an error (or its success flag is not the success
 *    value); otherwise `accepted`;
 * 3. any other status (3xx, 4xx) → `rejected`.
 *
 * On a wire without success values an error is signalled by a code that is a non-empty string, a
 * non-zero number or `true`: `error: null`, `false`, `0` and `""` mean "no error" (several wallet
 * APIs answer `{"error":0, …}` on success). `error` is the wallet's code, `outcomes` aggmock's names for it.
 *
 * @example judgeReply({ status: 200, text: '{"balance":10,"error":0}' }) // verdict 'accepted', balance 1000
 * @example judgeReply({ status: 200, text: '{"error":"INSUFFICIENT_FUNDS","balance":5}' }) // verdict 'rejected'
 */
export function judgeReply(input: ReplyInput, reading: DialectReading = DEFAULT_READING): JudgedReply {
  const read = readReply(
    reading.dialect,
    { operation: reading.operation ?? 'bet', currency: reading.currency },
    { status: input.status, text: replyText(input) },
    { currencies: reading.currencies },
  );
  const error = read.verdict === 'accepted' ? undefined : read.code;
  const outcomes = outcomesOf(reading.dialect, error).filter((name) => name !== error);
  return {
    verdict: read.verdict,
    status: input.status,
    ...(error === undefined ? {} : { error }),
    ...(outcomes.length === 0 ? {} : { outcomes }),
    ...(read.message === undefined ? {} : { message: read.message }),
    balance: read.balance,
    // Precision is judged on the text the wallet wrote, never on a body parsed and written again.
    ...(read.balanceExact === undefined || input.text === undefined ? {} : { balanceExact: read.balanceExact }),
    ...(read.token === undefined ? {} : { token: read.token }),
  };
}

/** A judged reply's code as shown to a person: with the names it may mean (`110 (PLAYER_NOT_FOUND or ALREADY_SETTLED)`). */
export function describeError(judged: Pick<JudgedReply, 'error' | 'outcomes'>): string | undefined {
  if (judged.error === undefined || !judged.outcomes?.length) return judged.error;
  return `${judged.error} (${judged.outcomes.join(' or ')})`;
}

/** A stored or received reply as the text the dialect reads: the raw text, or the parsed body written back. */
export function replyText(input: ReplyInput): string {
  return input.text ?? (typeof input.body === 'string' ? input.body : JSON.stringify(input.body ?? ''));
}

/**
 * A reply body as the engine holds it: parsed JSON when it is JSON, else the text itself. JSON
 * nested deeper than MAX_JSON_DEPTH (the limit on requests too) stays text, so a 2xx with it is
 * `invalid`: a reply 5,000 arrays deep parses, but every later walk of it (JSON.stringify,
 * jsonEqual) would overflow the stack.
 */
export function parseReplyBody(text: string): unknown {
  if (text.length === 0) return '';
  const first = text.charCodeAt(0);
  // Only try JSON for what can start a JSON value; an HTML error page is kept as text.
  if (first === 0x7b /* { */ || first === 0x5b /* [ */ || first === 0x22 || (first >= 0x30 && first <= 0x39) || first === 0x2d) {
    return jsonDepth(text) > MAX_JSON_DEPTH ? text : parseJsonOr(text, text);
  }
  return text === 'true' || text === 'false' || text === 'null' ? JSON.parse(text) : text;
}

/** A reply's text as JSON, or undefined when it is not JSON or nests deeper than MAX_JSON_DEPTH (see {@link parseReplyBody}). */
export function replyJson(text: string): unknown {
  return jsonDepth(text) > MAX_JSON_DEPTH ? undefined : parseJsonOr(text, undefined);
}
