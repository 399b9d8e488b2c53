import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import { type ExtraCurrencies, isExactAmountLiteral } from '../money/index.ts';
import { cached, setAt, valueAt } from '../shared/index.ts';
import { codecOf, readAmountIn, type WireCodec } from './amounts.ts';
import { rawTopLevelValue } from './reply-text.ts';
import type { CallFacts } from './request.ts';
import { type Dialect, type Operation, OUTCOME_CODES, type OutcomeCode, type Scalar } from './schema.ts';

/*
 * Reading a wallet's reply under a dialect: what the HTTP status means (which retry, which carry an
 * answer), where the outcome code is and which values mean success, "try again" or each refusal,
 * where the balance is (one member, or cash + bonus), which request facts it must echo. And the
 * inverse, the reply a correct wallet writes, for the reference wallet and the contracts.
 */

export type DialectVerdict = 'accepted' | 'rejected' | 'retry' | 'invalid';
export type DialectBalance = { kind: 'none' } | { kind: 'invalid'; raw: unknown } | { kind: 'ok'; minor: number };

export interface ReadReply {
  verdict: DialectVerdict;
  status: number;
  /** The wallet's own code, as text ("RS_ERROR_NOT_ENOUGH_MONEY", "1"). */
  code?: string;
  /** aggmock's name for it, when the dialect maps it. */
  outcome?: OutcomeCode;
  message?: string;
  balance: DialectBalance;
  /**
   * Whether the balance is written exactly as the wire's format demands, judged on the raw JSON
   * text: in `decimal`, at most the wire's decimals (109.71000000000001 is not exact); in `minor`,
   * a whole number. Absent when there is no balance, or it is not one top-level member (a nested
   * path, cash + bonus, a wrapped reply).
   */
  balanceExact?: boolean;
  /** Echoed facts that differ from the request's (a reply to another request, say). */
  echoMismatches: string[];
  /** The session token to use from then on, when the call's reply gives one. */
  token?: string;
}

export interface ReplyText {
  status: number;
  /** The body as text. */
  text: string;
}

/** How amounts read beyond the dialect: the configured extra currencies (crypto, say: code → decimals). */
export interface ReadOptions {
  currencies?: ExtraCurrencies | undefined;
}

/** Whether a status is in a list of classes: "2xx", "412", "600-799". */
export function statusIn(status: number, classes: readonly string[]): boolean {
  for (const c of classes) {
    const [from, to] = cached(statusRanges, c, statusRange, 1024);
    if (status >= from && status <= to) return true;
  }
  return false;
}

/** A status class as the range it covers: "2xx" → 200–299, "412" → 412–412, "600-799". */
const statusRanges = new Map<string, readonly [number, number]>();
function statusRange(c: string): readonly [number, number] {
  if (c.endsWith('xx')) return [Number(c[0]) * 100, Number(c[0]) * 100 + 99];
  const [from, to] = c.split('-').map(Number) as [number, number | undefined];
  return [from, to ?? from];
}

/** Reply paths split once: a dialect has a handful, read on every reply (bounded: dialect files name them). */
const pathKeys = new Map<string, readonly string[]>();
const splitPath = (path: string) => path.split('.');
const at = (object: unknown, path: string) => valueAt(object, cached(pathKeys, path, splitPath, 1024));
const codeText = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
const listOf = (value: Scalar | Scalar[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

/** The dialect's codes for one outcome, as text (how a reply's code is read and compared). */
export function codesFor(dialect: Dialect, outcome: OutcomeCode): string[] {
  return listOf(dialect.reply.codes[outcome]);
}

/** Every name of aggmock's a wallet code stands for under the dialect (Blue Ocean's "403": a bad key, an unknown player, no funds). */
export function outcomesOf(dialect: Dialect, code: string | undefined): OutcomeCode[] {
  if (code === undefined) return [];
  return OUTCOME_CODES.filter((name) => listOf(dialect.reply.codes[name]).includes(code));
}

/** aggmock's name for a wallet code under the dialect, when it maps one. */
export function outcomeOf(dialect: Dialect, code: string | undefined): OutcomeCode | undefined {
  if (code === undefined) return undefined;
  return OUTCOME_CODES.find((name) => listOf(dialect.reply.codes[name]).includes(code));
}

/**
 * A reply's JSON object, or undefined when the text is none. JSON nested deeper than
 * MAX_JSON_DEPTH (the limit on requests too) counts as none: it parses, but every later walk of
 * it (JSON.stringify, a deep compare) could overflow the stack. (A text no longer than the limit
 * cannot nest deeper than it: its depth is not counted.)
 */
function parseObject(text: string): Record<string, unknown> | undefined {
  let i = 0;
  while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  if (text[i] !== '{' || (text.length > MAX_JSON_DEPTH && jsonDepth(text) > MAX_JSON_DEPTH)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Judges one reply to one call under the dialect. The rules, in order:
 * 1. a status in `reply.status.retry` (408, 429, 5xx by default) → `retry`;
 * 2. a status in `reply.status.answer` (2xx by default) → `invalid` unless the body is a JSON
 *    object; `retry` when its code is a retry code; `accepted` when the code is a success value
 *    (or, without success values, when no error is signalled) and the success flag holds;
 *    `rejected` otherwise;
 * 3. any other status → `rejected`.
 *
 * The code is the one at the code path; on a wire without success values it is there only when it
 * signals an error or names a refusal (`{"error":0}` carries none). A refusal's balance is read unless the wire says
 * its refusals carry none that counts (`reply.balanceOnRejection: false`: Betnex writes 0 there).
 *
 * The rules of each operation are worked out once per dialect ({@link readerOf}: paths split, code
 * lists as sets, statuses as ranges, the codec of each currency), so a reply is JSON.parse and a few
 * property reads. test/dialects/reply-compiled.test.ts holds the reader as it was, rule by rule on
 * every reply, and compares both over replies of every built-in dialect.
 */
export function readReply(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  reply: ReplyText,
  options: ReadOptions = {},
): ReadReply {
  const r = readerOf(dialect, facts.operation as Operation);
  const object = within(parseObject(reply.text), r.root);
  // A reply that need carry no code (Caleta's check answers {token}) is still read by its code when
  // it carries one: {status: "RS_ERROR_INVALID_TOKEN"} is a refusal, not an acceptance.
  const rules =
    r.uncoded !== undefined && !(object && r.coded.code !== undefined && valueAt(object, r.coded.code) !== undefined)
      ? r.uncoded
      : r.coded;
  const rawCode = rules.code !== undefined && object ? valueAt(object, rules.code) : undefined;
  // Without success values, a code that signals no error ({"error":0}) is no code, unless the
  // dialect names a refusal by it (Habanero's nofunds false).
  const text = codeText(rawCode);
  const code = !rules.hasOk && !signalsError(rawCode) && (text === undefined || !r.outcomes.has(text)) ? undefined : text;
  let message: string | undefined;
  if (object)
    for (const path of r.messages) {
      const value = valueAt(object, path);
      if (typeof value === 'string' && value !== '') {
        message = value;
        break;
      }
    }
  const status = reply.status;
  let verdict: DialectVerdict;
  if (inRanges(status, r.retryStatus)) verdict = 'retry';
  else if (!inRanges(status, r.answerStatus)) verdict = 'rejected';
  else if (!object) verdict = 'invalid';
  else if (code !== undefined && r.retryCodes.has(code)) verdict = 'retry';
  else {
    const flag = rules.success ? valueAt(object, rules.success.path) === rules.success.equals : true;
    const ok = !rules.hasOk ? !signalsError(rawCode) : code !== undefined && rules.ok.has(code);
    verdict = rules.hasOk && code === undefined && rules.success === undefined ? 'invalid' : ok && flag ? 'accepted' : 'rejected';
  }
  const paths = verdict === 'rejected' && !r.balanceOnRejection ? undefined : r.balance;
  const currencies = options.currencies ?? facts.currencies;
  const codec = object && paths ? codecIn(dialect, facts.currency, currencies) : undefined;
  const balance: DialectBalance = object && paths && codec ? balanceAt(codec.wire, object, paths) : NO_BALANCE;
  const exact =
    balance.kind === 'ok' && r.exactKey !== undefined && codec
      ? isExactAmountLiteral(rawTopLevelValue(reply.text, r.exactKey), codec.exact)
      : undefined;
  const echoMismatches: string[] = [];
  if (object && verdict === 'accepted') {
    for (const [fact, path, keys] of r.echo) {
      const sent = facts[fact];
      const echoed = valueAt(object, keys);
      if (sent !== undefined && echoed !== undefined && String(echoed) !== String(sent))
        echoMismatches.push(`${path}: sent ${String(sent)}, echoed ${String(echoed)}`);
    }
  }
  const outcome = verdict === 'rejected' && code !== undefined ? r.outcomes.get(code) : undefined;
  const token = r.token !== undefined && object && verdict === 'accepted' ? valueAt(object, r.token) : undefined;
  // The members in one order, the absent ones left out (not set to undefined).
  const out = {} as ReadReply;
  if (typeof token === 'string' && token !== '') out.token = token;
  out.verdict = verdict;
  out.status = status;
  if (code !== undefined) out.code = code;
  if (outcome !== undefined) out.outcome = outcome;
  if (message !== undefined) out.message = message;
  out.balance = balance === NO_BALANCE ? { kind: 'none' } : balance;
  if (exact !== undefined) out.balanceExact = exact;
  out.echoMismatches = echoMismatches;
  return out;
}

const NO_BALANCE: DialectBalance = Object.freeze({ kind: 'none' });

/** The rules that decide a reply's code and verdict: the dialect's, or an uncoded call's (no code, no success values, no flag). */
interface CodeRules {
  code: readonly string[] | undefined;
  hasOk: boolean;
  ok: ReadonlySet<string>;
  success: { path: readonly string[]; equals: Scalar } | undefined;
}

/** One operation's reply rules under one dialect, worked out once. */
interface Reader {
  /** The dialect objects it was made from: a dialect whose reply or operation was replaced is read afresh. */
  from: readonly [unknown, unknown];
  root: string | undefined;
  coded: CodeRules;
  /** Set when the call need carry no code (`reply.code: false`). */
  uncoded: CodeRules | undefined;
  /** aggmock's name for each wallet code the dialect maps (the first outcome that lists it). */
  outcomes: ReadonlyMap<string, OutcomeCode>;
  messages: readonly (readonly string[])[];
  retryStatus: readonly (readonly [number, number])[];
  answerStatus: readonly (readonly [number, number])[];
  retryCodes: ReadonlySet<string>;
  balanceOnRejection: boolean;
  balance: readonly (readonly string[])[] | undefined;
  /** The one top-level member the balance is, when it is one (its literal is judged for exactness). */
  exactKey: string | undefined;
  echo: readonly (readonly [keyof CallFacts, string, readonly string[]])[];
  token: readonly string[] | undefined;
}

const readers = new WeakMap<Dialect, Map<Operation, Reader>>();

/** The reader of one operation's replies under a dialect, made once. */
function readerOf(dialect: Dialect, operation: Operation): Reader {
  let byOperation = readers.get(dialect);
  if (!byOperation) {
    byOperation = new Map();
    readers.set(dialect, byOperation);
  }
  const def = dialect.operations[operation];
  let reader = byOperation.get(operation);
  if (!reader || reader.from[0] !== dialect.reply || reader.from[1] !== def) {
    reader = compileReader(dialect, operation);
    if (byOperation.size < 64) byOperation.set(operation, reader);
  }
  return reader;
}

const keysOf = (path: string): readonly string[] => path.split('.');

function compileReader(dialect: Dialect, operation: Operation): Reader {
  const rules = dialect.reply;
  const own = dialect.operations[operation]?.reply;
  const outcomes = new Map<string, OutcomeCode>();
  for (const name of OUTCOME_CODES)
    for (const code of listOf(rules.codes[name])) if (!outcomes.has(code)) outcomes.set(code, name);
  const balance = balancePaths(dialect, operation);
  const only = balance?.length === 1 ? (balance[0] as string) : undefined;
  const echo: [keyof CallFacts, string, readonly string[]][] = [];
  for (const fact in rules.echo) {
    const path = rules.echo[fact as keyof typeof rules.echo] as string;
    echo.push([fact as keyof CallFacts, path, keysOf(path)]);
  }
  const coded: CodeRules = {
    code: rules.code ? keysOf(rules.code) : undefined,
    hasOk: rules.ok !== undefined,
    ok: new Set(listOf(rules.ok)),
    success: rules.success ? { path: keysOf(rules.success.path), equals: rules.success.equals } : undefined,
  };
  return {
    from: [rules, dialect.operations[operation]],
    root: own?.root,
    coded,
    uncoded: own?.code === false ? { code: undefined, hasOk: false, ok: new Set(), success: undefined } : undefined,
    outcomes,
    messages: rules.message.map(keysOf),
    retryStatus: rules.status.retry.map(statusRange),
    answerStatus: rules.status.answer.map(statusRange),
    retryCodes: new Set((own?.retryCodes ?? rules.retryCodes ?? []).map(String)),
    balanceOnRejection: rules.balanceOnRejection !== false,
    balance: balance?.map(keysOf),
    exactKey: only !== undefined && own?.root === undefined && !only.includes('.') ? only : undefined,
    echo,
    token: own?.token ? keysOf(own.token) : undefined,
  };
}

function inRanges(status: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [from, to] of ranges) if (status >= from && status <= to) return true;
  return false;
}

/** A currency's codec under a dialect, and the same reading every literal as text (for exactness), kept per dialect's amounts. */
interface CurrencyCodec {
  wire: WireCodec;
  exact: WireCodec;
}
const codecs = new WeakMap<Dialect['amounts'], Map<string, CurrencyCodec>>();
function codecIn(dialect: Dialect, currency: string, extra: ExtraCurrencies | undefined): CurrencyCodec {
  const make = (): CurrencyCodec => {
    const wire = codecOf(dialect, currency, extra);
    return { wire, exact: { ...wire, as: 'string' } };
  };
  // Configured extra currencies may say anything of a code: worked out each time (a rare setting).
  if (extra !== undefined) for (const _ in extra) return make();
  let byCurrency = codecs.get(dialect.amounts);
  if (!byCurrency) {
    byCurrency = new Map();
    codecs.set(dialect.amounts, byCurrency);
  }
  let codec = byCurrency.get(currency);
  if (!codec) {
    codec = make();
    if (byCurrency.size < 256) byCurrency.set(currency, codec);
  }
  return codec;
}

/** The member a reply is wrapped in (Habanero's `fundtransferresponse`), or the reply itself; undefined when it is not an object. */
function within(object: Record<string, unknown> | undefined, root: string | undefined): Record<string, unknown> | undefined {
  if (!object || root === undefined) return object;
  const inner = at(object, root);
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
}

/** An error signalled the plain way: a non-empty string, a non-zero number or `true`. */
function signalsError(value: unknown): boolean {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  return value === true;
}

/**
 * Where an operation's reply has its balance: the dialect's paths, or the operation's own (Red
 * Tiger's refund puts it beside `result`); undefined when that reply carries none (Pragmatic's refund).
 */
export function balancePaths(dialect: Dialect, operation: Operation): string[] | undefined {
  const own = dialect.operations[operation]?.reply?.balance;
  if (own === false) return undefined;
  const spec = own === undefined || own === true ? dialect.reply.balance : own;
  return typeof spec === 'string' ? [spec] : spec.sum;
}

/** The balance at these paths of a reply: one member, or the sum of the members present (cash + bonus). */
function balanceAt(codec: WireCodec, object: Record<string, unknown>, paths: readonly (readonly string[])[]): DialectBalance {
  let total: number | undefined;
  for (const path of paths) {
    const raw = valueAt(object, path);
    if (raw === undefined || raw === null) continue;
    const minor = readAmountIn(codec, raw);
    if (minor === undefined) return { kind: 'invalid', raw };
    total = (total ?? 0) + minor;
  }
  return total === undefined ? NO_BALANCE : { kind: 'ok', minor: total };
}

/** What a correct wallet answers: acceptance with the balance, or a refusal with aggmock's name for it. */
export type WalletAnswer =
  | { accepted: true; balanceMinor: number }
  | { accepted: false; refusal: OutcomeCode; balanceMinor?: number | undefined };

/**
 * The reply a correct wallet writes under the dialect: the success value or the refusal's code at
 * the code path, the balance (all of it in the first member of a cash + bonus pair, the rest 0),
 * the facts the wire echoes, wrapped in the operation's root member when it has one. The
 * reference wallet answers with it.
 */
export function writeReply(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  answer: WalletAnswer,
  write: (minor: number) => number | string,
): { status: number; body: Record<string, unknown> } {
  const rules = dialect.reply;
  const body: Record<string, unknown> = {};
  const set = (path: string, value: unknown) => setAt(body, path, value);
  if (rules.success)
    set(
      rules.success.path,
      answer.accepted
        ? rules.success.equals
        : (rules.success.otherwise ?? (typeof rules.success.equals === 'boolean' ? !rules.success.equals : false)),
    );
  if (rules.code) {
    const value = answer.accepted ? firstOf(rules.ok) : firstOf(rules.codes[answer.refusal]);
    if (value !== undefined) set(rules.code, value);
    else if (!answer.accepted) set(rules.code, answer.refusal);
  }
  for (const [path, value] of Object.entries(rules.writes?.[answer.accepted ? 'accepted' : 'rejected'] ?? {})) set(path, value);
  const paths = balancePaths(dialect, facts.operation as Operation);
  if (paths && answer.balanceMinor !== undefined) {
    paths.forEach((path, i) => {
      set(path, write(i === 0 ? (answer.balanceMinor as number) : 0));
    });
  }
  for (const [fact, path] of Object.entries(rules.echo)) {
    const value = facts[fact as keyof CallFacts];
    if (value !== undefined) set(path as string, value);
  }
  const status = answer.accepted ? 200 : (rules.statuses[answer.refusal] ?? 200);
  const root = dialect.operations[facts.operation as Operation]?.reply?.root;
  if (root === undefined) return { status, body };
  const wrapped: Record<string, unknown> = {};
  setAt(wrapped, root, body);
  return { status, body: wrapped };
}

function firstOf(value: Scalar | Scalar[] | undefined): Scalar | undefined {
  return Array.isArray(value) ? value[0] : value;
}
