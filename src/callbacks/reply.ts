import { z } from 'zod';
import { type Dialect, type Operation, outcomesOf, readReply } from '../dialects/index.ts';
import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import { type AmountCodec, decodeAmount, isExactAmountLiteral } from '../money/index.ts';
import { type ReplyReading, WIRE_REPLY_CODES } from '../profiles/index.ts';
import { cached, jsonEqual, parseJsonOr, valueAt } from '../shared/index.ts';

/**
 * The wallet's reply to a callback, defined once: its zod shapes (for OpenAPI and the contracts)
 * and {@link judgeReply}, the ONE place that decides whether a reply is an acceptance, a
 * business rejection, worth a retry, or garbage. The dispatcher, the shadow ledger, the play
 * page, the demo and `aggmock verify` all ask it, so `{"balance":10,"error":0}` means the same
 * thing everywhere.
 */

export const walletRejectionSchema = z.object({
  error: z.enum(WIRE_REPLY_CODES),
  message: z.string().optional(),
  balance: z.number().optional(),
});
export const walletBalanceSchema = z.object({ balance: z.number() });

/** The wallet's answer: `{balance}` after the event, or a business rejection `{error, message?, balance?}`. */
export const walletReplySchema = z.union([walletRejectionSchema, walletBalanceSchema]);
export type ParsedWalletReply = z.infer<typeof walletReplySchema>;

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
 * The documented reply: `{balance}`, or `{error, message?, balance?}`, amounts in major units with
 * two decimals. Every other wire's reading comes from its profile (`wireOf(…).reading(currency)`).
 */
export const DEFAULT_READING: ReplyReading = {
  rules: {
    balance: 'balance',
    error: 'error',
    message: ['message', 'msg', 'description'],
    duplicates: 'same-reply',
    balanceOnRejection: true,
  },
  codec: { format: 'decimal', as: 'number', exponent: 2 },
};

/**
 * How a vendor dialect's replies read: the dialect's own rules (`readReply`: status classes, the
 * code path with its success, retry and refusal codes, cash + bonus balances), for a call of
 * `operation` (default a bet) in `currency`.
 */
export interface DialectReading {
  dialect: Dialect;
  currency: string;
  operation?: Operation | undefined;
}

/** A profile's reading or a dialect's. */
export type Reading = ReplyReading | DialectReading;

function isDialectReading(reading: Reading): reading is DialectReading {
  return Object.hasOwn(reading, 'dialect');
}

/** Whether replies read this way carry a balance at all (Pragmatic's refund reply has none by its documentation). */
export function replyCarriesBalance(reading: Reading): boolean {
  if (!isDialectReading(reading) || reading.operation === undefined) return true;
  return reading.dialect.operations[reading.operation]?.reply?.balance !== false;
}

/** A reply judged under a dialect, in judgeReply's terms: `error` is the wallet's code (with aggmock's name for it). */
function judgeUnderDialect(input: ReplyInput, reading: DialectReading): JudgedReply {
  const text = input.text ?? (typeof input.body === 'string' ? input.body : JSON.stringify(input.body ?? ''));
  const read = readReply(
    reading.dialect,
    { operation: reading.operation ?? 'bet', currency: reading.currency },
    { status: input.status, text },
  );
  // A code several refusals share is shown with every name it may mean (Groove's 110).
  const names = outcomesOf(reading.dialect, read.code).filter((name) => name !== read.code);
  const error =
    read.verdict === 'accepted' || read.code === undefined
      ? undefined
      : names.length > 0
        ? `${read.code} (${names.join(' or ')})`
        : read.code;
  return {
    verdict: read.verdict,
    status: input.status,
    ...(error === undefined ? {} : { error }),
    ...(read.message === undefined ? {} : { message: read.message }),
    balance: read.balance,
  };
}

/** The value at a dotted path of a reply ("balance", "data.money"). */
function at(object: Record<string, unknown>, path: string): unknown {
  return valueAt(object, cached(pathKeys, path, splitPath, MAX_CACHED_PATHS));
}

/** Reply paths split once: a profile has a handful, read on every reply. */
const pathKeys = new Map<string, readonly string[]>();
const MAX_CACHED_PATHS = 256;
const splitPath = (path: string) => path.split('.');

/**
 * Judges one reply under a wire's reading (where the balance, the error and a success flag are;
 * how amounts are written). The rules, in order:
 * 1. 408, 429 and 5xx → `retry`, whatever the body says.
 * 2. 2xx → `invalid` unless the body is a JSON object; `rejected` when it signals an error (or its
 *    success flag, when the profile has one, is not the success value); otherwise `accepted`.
 * 3. Any other status (3xx, 4xx) → `rejected`.
 *
 * An error is signalled by an `error` field that is a non-empty string, a non-zero number or
 * `true`. `error: null`, `false`, `0` and `""` mean "no error" (several wallet APIs answer
 * `{"error":0, …}` on success).
 *
 * @example judgeReply({ status: 200, text: '{"balance":10,"error":0}' }) // verdict 'accepted', balance 1000
 * @example judgeReply({ status: 200, text: '{"error":"INSUFFICIENT_FUNDS","balance":5}' }) // verdict 'rejected'
 */
export function judgeReply(input: ReplyInput, reading: Reading = DEFAULT_READING): JudgedReply {
  if (isDialectReading(reading)) return judgeUnderDialect(input, reading);
  const { status } = input;
  const { rules, codec } = reading;
  const body = input.body !== undefined || input.text === undefined ? input.body : parseReplyBody(input.text);
  const object = isJsonObject(body) ? body : undefined;
  const error = object ? signalledError(at(object, rules.error)) : undefined;
  const unsuccessful =
    object !== undefined && rules.success !== undefined && at(object, rules.success.path) !== rules.success.equals;
  const message = object ? firstText(...rules.message.map((path) => at(object, path))) : undefined;
  const verdict: ReplyVerdict =
    status === 408 || status === 429 || status >= 500
      ? 'retry'
      : status >= 200 && status < 300
        ? object === undefined
          ? 'invalid'
          : error === undefined && !unsuccessful
            ? 'accepted'
            : 'rejected'
        : 'rejected';
  const balance: ReplyBalance =
    verdict === 'rejected' && !rules.balanceOnRejection ? { kind: 'none' } : readBalance(object, reading);
  const exact =
    balance.kind === 'ok' && input.text !== undefined && !rules.balance.includes('.')
      ? isExactAmountLiteral(rawTopLevelValue(input.text, rules.balance), balanceCodec(codec))
      : undefined;
  return {
    verdict,
    status,
    ...(error === undefined ? {} : { error }),
    ...(message === undefined ? {} : { message }),
    balance,
    ...(exact === undefined ? {} : { balanceExact: exact }),
  };
}

/**
 * Whether a repeated transaction got "the same reply" as the first time, by the wire's rule
 * (`reply.duplicates`): equal status and JSON (members in any order), or, for `same-outcome`, the
 * same verdict, error code and balance with any message. The shadow ledger and verify both ask here.
 */
export function repliesAgree(first: ReplyInput, again: ReplyInput, reading: Reading = DEFAULT_READING): boolean {
  const duplicates = isDialectReading(reading) ? reading.dialect.reply.duplicates : reading.rules.duplicates;
  if (duplicates === 'same-outcome') {
    const a = judgeReply(first, reading);
    const b = judgeReply(again, reading);
    const balanceOf = (j: JudgedReply) => (j.balance.kind === 'ok' ? j.balance.minor : j.balance.kind);
    return a.verdict === b.verdict && a.error === b.error && balanceOf(a) === balanceOf(b);
  }
  // What a reply echoes of its own request (Hub88's request_uuid) differs between two requests by design.
  const echoes = isDialectReading(reading) ? Object.values(reading.dialect.reply.echo) : [];
  return first.status === again.status && jsonEqual(withoutPaths(bodyOf(first), echoes), withoutPaths(bodyOf(again), echoes));
}

/** A copy of a JSON body without the members at these dotted paths. */
function withoutPaths(body: unknown, paths: readonly string[]): unknown {
  if (paths.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const path of paths) {
    const [head, ...rest] = path.split('.');
    if (head === undefined || !Object.hasOwn(copy, head)) continue;
    if (rest.length === 0) delete copy[head];
    else copy[head] = withoutPaths(copy[head], [rest.join('.')]);
  }
  return copy;
}

function bodyOf(input: ReplyInput): unknown {
  return input.body !== undefined || input.text === undefined ? input.body : parseReplyBody(input.text);
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

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function signalledError(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (typeof value === 'number') return value !== 0 ? String(value) : undefined;
  if (value === true) return 'true';
  return undefined;
}

function firstText(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.length > 0);
}

function readBalance(object: Record<string, unknown> | undefined, reading: ReplyReading): ReplyBalance {
  if (!object) return { kind: 'none' };
  const raw = at(object, reading.rules.balance);
  if (raw === undefined || raw === null) return { kind: 'none' };
  const minor = decodeAmount(raw, balanceCodec(reading.codec));
  return minor === undefined ? { kind: 'invalid', raw } : { kind: 'ok', minor };
}

/**
 * A reply's balance is read as a JSON number or as a decimal string (`"995.29"`, as Red Tiger,
 * Blue Ocean, 100HP and St8 answer), whatever the wire writes in its callbacks. A string is judged
 * exactly as the same digits written as a number: `"995.29"` is exact, `"995.291"` has a decimal
 * too many for the currency (a wrong balance, never rounded), `"995.2900000001"` is float noise
 * (read, but not exact); anything that is not plain decimal digits (`"1e3"`, `" 995.29"`, `"+5"`)
 * is not a balance.
 */
function balanceCodec(codec: AmountCodec): AmountCodec {
  return codec.as === 'string' ? codec : { ...codec, as: 'string' };
}

/**
 * The raw text of a top-level member's value in a JSON object, e.g. `109.71000000000001` for
 * `balance`, so precision is judged on what the wallet wrote, not on the double it parses to.
 * Undefined when the text is not a JSON object or has no such member.
 */
export function rawTopLevelValue(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = endOfString(text, i);
    if (keyEnd < 0) return undefined;
    const name = parseJsonOr(text.slice(i, keyEnd), undefined);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const start = skipSpace(text, i + 1);
    const end = endOfValue(text, start);
    if (end < 0) return undefined;
    if (name === key) return text.slice(start, end);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return undefined;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  return i;
}

/** Index just past the string starting at `from` (which must be a quote), or -1. */
function endOfString(text: string, from: number): number {
  if (text[from] !== '"') return -1;
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `from`, or -1. */
function endOfValue(text: string, from: number): number {
  const c = text[from];
  if (c === '"') return endOfString(text, from);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        i = endOfString(text, i) - 1;
        if (i < 0) return -1;
      } else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = from;
  while (i < text.length && !',}] \t\n\r'.includes(text[i] as string)) i++;
  return i > from ? i : -1;
}
