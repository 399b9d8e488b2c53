import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import { type ExtraCurrencies, isExactAmountLiteral } from '../money/index.ts';
import { cached, setAt, valueAt } from '../shared/index.ts';
import { codecOf, readAmount } from './amounts.ts';
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
 * it (JSON.stringify, a deep compare) could overflow the stack.
 */
function parseObject(text: string): Record<string, unknown> | undefined {
  let i = 0;
  while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  if (text[i] !== '{' || jsonDepth(text) > MAX_JSON_DEPTH) return undefined;
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
 */
export function readReply(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  reply: ReplyText,
  options: ReadOptions = {},
): ReadReply {
  const own = dialect.operations[facts.operation as Operation]?.reply;
  const object = within(parseObject(reply.text), own?.root);
  // A reply that need carry no code (Caleta's check answers {token}) is still read by its code when
  // it carries one: {status: "RS_ERROR_INVALID_TOKEN"} is a refusal, not an acceptance.
  const uncoded = own?.code === false && !(object && dialect.reply.code && at(object, dialect.reply.code) !== undefined);
  const rules = uncoded ? { ...dialect.reply, code: undefined, ok: undefined, success: undefined } : dialect.reply;
  const rawCode = rules.code && object ? at(object, rules.code) : undefined;
  // Without success values, a code that signals no error ({"error":0}) is no code, unless the
  // dialect names a refusal by it (Habanero's nofunds false).
  const code =
    rules.ok === undefined && !signalsError(rawCode) && outcomeOf(dialect, codeText(rawCode)) === undefined
      ? undefined
      : codeText(rawCode);
  let message: string | undefined;
  for (const path of object ? rules.message : []) {
    const value = at(object, path);
    if (typeof value === 'string' && value !== '') {
      message = value;
      break;
    }
  }
  let verdict: DialectVerdict;
  if (statusIn(reply.status, rules.status.retry)) verdict = 'retry';
  else if (!statusIn(reply.status, rules.status.answer)) verdict = 'rejected';
  else if (!object) verdict = 'invalid';
  else if (code !== undefined && (own?.retryCodes ?? rules.retryCodes).some((c) => String(c) === code)) verdict = 'retry';
  else {
    const flag = rules.success ? at(object, rules.success.path) === rules.success.equals : true;
    const ok = rules.ok === undefined ? !signalsError(rawCode) : code !== undefined && listOf(rules.ok).includes(code);
    verdict =
      rules.ok !== undefined && code === undefined && rules.success === undefined
        ? 'invalid'
        : ok && flag
          ? 'accepted'
          : 'rejected';
  }
  const paths =
    verdict === 'rejected' && rules.balanceOnRejection === false
      ? undefined
      : balancePaths(dialect, facts.operation as Operation);
  const balance: DialectBalance =
    object && paths
      ? balanceAt(dialect, facts.currency, object, paths, options.currencies ?? facts.currencies)
      : { kind: 'none' };
  const exact =
    balance.kind === 'ok' && paths?.length === 1 && own?.root === undefined && !(paths[0] as string).includes('.')
      ? isExactAmountLiteral(rawTopLevelValue(reply.text, paths[0] as string), {
          ...codecOf(dialect, facts.currency, options.currencies ?? facts.currencies),
          as: 'string',
        })
      : undefined;
  const echoMismatches: string[] = [];
  if (object && verdict === 'accepted') {
    for (const fact in rules.echo) {
      const path = rules.echo[fact as keyof typeof rules.echo] as string;
      const sent = facts[fact as keyof CallFacts];
      const echoed = at(object, path as string);
      if (sent !== undefined && echoed !== undefined && String(echoed) !== String(sent))
        echoMismatches.push(`${path}: sent ${String(sent)}, echoed ${String(echoed)}`);
    }
  }
  const outcome = verdict === 'rejected' ? outcomeOf(dialect, code) : undefined;
  const token = own?.token && object && verdict === 'accepted' ? at(object, own.token) : undefined;
  return {
    ...(typeof token === 'string' && token !== '' ? { token } : {}),
    verdict,
    status: reply.status,
    ...(code === undefined ? {} : { code }),
    ...(outcome === undefined ? {} : { outcome }),
    ...(message === undefined ? {} : { message }),
    balance,
    ...(exact === undefined ? {} : { balanceExact: exact }),
    echoMismatches,
  };
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
function balanceAt(
  dialect: Dialect,
  currency: string,
  object: Record<string, unknown>,
  paths: string[],
  currencies?: ExtraCurrencies,
): DialectBalance {
  let total: number | undefined;
  for (const path of paths) {
    const raw = at(object, path);
    if (raw === undefined || raw === null) continue;
    const minor = readAmount(dialect, currency, raw, currencies);
    if (minor === undefined) return { kind: 'invalid', raw };
    total = (total ?? 0) + minor;
  }
  return total === undefined ? { kind: 'none' } : { kind: 'ok', minor: total };
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
