import { createHash } from 'node:crypto';
import { writeAmount } from './amounts.ts';
import type { Dialect, Encoding, Fact, Field, Fields, Operation, Scalar } from './schema.ts';
import { FACTS, MONEY_OPERATIONS } from './schema.ts';

/** The bonus an event belongs to. */
/** What a bonus event is: a free spin, a jackpot or a promotion. */
export const BONUS_KINDS = ['free-spins', 'jackpot', 'promotion'] as const;
export type BonusKind = (typeof BONUS_KINDS)[number];

/** The facts of one call, before a dialect turns them into an HTTP request. Money is integer minor units. */
export interface CallFacts {
  operation: Operation;
  playerId: string;
  currency: string;
  /** The call's own transaction id (absent on authenticate, balance, end-round). */
  transactionId?: string | undefined;
  /** The bet a win settles or a rollback reverses. */
  betTransactionId?: string | undefined;
  /** The amount of the call in minor units of `currency` (a bet-and-win: the bet). */
  amountMinor?: number | undefined;
  /** A bet-and-win: the win. */
  winMinor?: number | undefined;
  roundId?: string | undefined;
  roundClosed?: boolean | undefined;
  gameId?: string | undefined;
  gameName?: string | undefined;
  provider?: string | undefined;
  bonus?: { kind: BonusKind; id: string } | undefined;
  sessionToken?: string | undefined;
  /** One id per call, the same on each retry of it. */
  requestId?: string | undefined;
  /**
   * A string used once, new on every attempt (retries included). Absent: derived from the call's
   * id and the attempt's time (`sentAt`), which a retry renews (32 hex characters).
   */
  nonce?: string | undefined;
  /** ms epoch of the call. */
  createdAt: number;
  /** ms epoch of this attempt (a retry's own time); absent: `createdAt`. */
  sentAt?: number | undefined;
}

/** A credential by the vendor's name → its value (a secret, a PEM private key, an id). */
export type Credentials = Readonly<Record<string, string>>;

export type Rendered = Scalar | { [key: string]: Rendered } | Rendered[];

/** A request before it is signed: its parts kept apart, so a signature can be placed in any of them. */
export interface UnsignedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under the base URL, placeholders filled and escaped; no query. */
  path: string;
  encoding: Encoding;
  headers: Record<string, string>;
  /** The rendered fields: the JSON body, the form body or the query. */
  fields: Record<string, Rendered>;
  /** Parameters every call carries in its query string, before the fields of a query-string call. */
  query: Record<string, Rendered>;
}

/** Thrown when a dialect asks for something the call cannot give (a missing credential, an operation it has not). */
export class DialectRequestError extends Error {
  override name = 'DialectRequestError';
}

/** The value of one fact for one call, written as the dialect writes it, or undefined when the call has none. */
export function factValue(dialect: Dialect, facts: CallFacts, fact: Fact): Scalar | undefined {
  const amount = (minor: number) => writeAmount(dialect, facts.currency, minor);
  const money = MONEY_OPERATIONS[facts.operation];
  switch (fact) {
    case 'operation':
      return facts.operation;
    case 'type':
      return money === 'debit' ? 'DEBIT' : money === 'credit' ? 'CREDIT' : money === 'reverse' ? 'ROLLBACK' : undefined;
    case 'amount':
      return facts.amountMinor === undefined ? undefined : amount(facts.amountMinor);
    case 'betAmount':
      return facts.amountMinor === undefined ? undefined : amount(money === 'credit' ? 0 : facts.amountMinor);
    case 'winAmount':
      if (money === 'credit') return facts.amountMinor === undefined ? undefined : amount(facts.amountMinor);
      return amount(facts.winMinor ?? 0);
    case 'timestamp':
      return new Date(facts.createdAt).toISOString();
    case 'timestampSeconds':
      return Math.floor(facts.createdAt / 1000);
    case 'timestampMs':
      return facts.createdAt;
    case 'sentTimestamp':
      return new Date(facts.sentAt ?? facts.createdAt).toISOString();
    case 'sentTimestampSeconds':
      return Math.floor((facts.sentAt ?? facts.createdAt) / 1000);
    case 'sentTimestampMs':
      return facts.sentAt ?? facts.createdAt;
    case 'bonusKind':
      return facts.bonus?.kind;
    case 'bonusId':
      return facts.bonus?.id;
    case 'roundClosed':
      return facts.roundClosed;
    case 'nonce':
      return facts.nonce ?? derivedNonce(facts);
    default:
      return facts[fact];
  }
}

/** The facts whose value is the attempt's own (its time, a nonce derived from it); every other fact is the same on each attempt of a call. */
const ATTEMPT_FACTS: ReadonlySet<string> = new Set<Fact>(['sentTimestamp', 'sentTimestampSeconds', 'sentTimestampMs', 'nonce']);

/** Operations whose request reads an attempt's own facts, per dialect (see {@link readsAttemptFacts}). */
const attemptFactReaders = new WeakMap<Dialect, ReadonlySet<Operation>>();

/**
 * Whether a call of `operation` is rendered differently on each attempt because a field, a header
 * or its path reads a fact that is the attempt's own (`sentTimestamp…`, `nonce`). When it is not,
 * every attempt of the call renders the same unsigned request. Worked out once per dialect.
 *
 * @example readsAttemptFacts(slotegrator, 'bet') // true (X-Timestamp and X-Nonce)
 */
export function readsAttemptFacts(dialect: Dialect, operation: Operation): boolean {
  let readers = attemptFactReaders.get(dialect);
  if (!readers) {
    const found = new Set<Operation>();
    for (const [name, op] of Object.entries(dialect.operations) as [Operation, Dialect['operations'][Operation]][]) {
      if (!op) continue;
      const fieldSets = [dialect.request.headers, op.headers, dialect.request.query, op.fields];
      if (templateReadsAttemptFacts(op.path) || fieldSets.some((fields) => Object.values(fields).some(fieldReadsAttemptFacts)))
        found.add(name);
    }
    readers = found;
    attemptFactReaders.set(dialect, readers);
  }
  return readers.has(operation);
}

/**
 * Whether the dialect sends a whole round (a bet and its win) in one call: it has a `betWin` call,
 * or its bet's fields carry the win (Betnex's `win_amount`).
 *
 * @example takesWholeRounds(builtinDialect('betnex')) // true
 */
export function takesWholeRounds(dialect: Dialect): boolean {
  const bet = dialect.operations.bet;
  return dialect.operations.betWin !== undefined || (bet !== undefined && Object.values(bet.fields).some(readsWin));
}

function readsWin(field: Field): boolean {
  if ('from' in field) return (typeof field.from === 'string' ? [field.from] : field.from).includes('winAmount');
  if ('object' in field) return Object.values(field.object).some(readsWin);
  if ('list' in field) return field.list.some(readsWin);
  if ('json' in field) return readsWin(field.json);
  return false;
}

function fieldReadsAttemptFacts(field: Field): boolean {
  if ('from' in field) return (typeof field.from === 'string' ? [field.from] : field.from).some((f) => ATTEMPT_FACTS.has(f));
  if ('template' in field) return templateReadsAttemptFacts(field.template);
  if ('object' in field) return Object.values(field.object).some(fieldReadsAttemptFacts);
  if ('list' in field) return field.list.some(fieldReadsAttemptFacts);
  if ('json' in field) return fieldReadsAttemptFacts(field.json);
  return false;
}

function templateReadsAttemptFacts(template: string): boolean {
  for (const m of template.matchAll(/\{([A-Za-z][A-Za-z0-9_.]*)\}/g)) if (ATTEMPT_FACTS.has(m[1] as string)) return true;
  return false;
}

/** A nonce from what a call already has: its id and the attempt's time, hashed (deterministic: a replay of a run is the same run). */
function derivedNonce(facts: CallFacts): string {
  const id = facts.requestId ?? facts.transactionId ?? `${facts.operation}:${facts.playerId}`;
  return createHash('sha256')
    .update(`${id}|${facts.sentAt ?? facts.createdAt}`)
    .digest('hex')
    .slice(0, 32);
}

function renderField(dialect: Dialect, facts: CallFacts, credentials: Credentials, field: Field): Rendered | undefined {
  if ('const' in field) return field.const;
  if ('credential' in field) return credentialValue(credentials, field.credential);
  if ('template' in field) return fillTemplate(field.template, (name) => placeholder(dialect, facts, credentials, name));
  if ('list' in field) {
    return field.list
      .map((inner) => renderField(dialect, facts, credentials, inner))
      .filter((v): v is Rendered => v !== undefined);
  }
  if ('object' in field) {
    const out = renderFields(dialect, facts, credentials, field.object);
    return field.omitWhenEmpty && Object.keys(out).length === 0 ? undefined : out;
  }
  if ('json' in field) {
    const inner = renderField(dialect, facts, credentials, field.json);
    return inner === undefined ? undefined : JSON.stringify(inner);
  }
  const list = typeof field.from === 'string' ? [field.from] : field.from;
  let value: Scalar | undefined;
  for (const fact of list) {
    value = factValue(dialect, facts, fact);
    if (value !== undefined) break;
  }
  if (value !== undefined && field.map) {
    const key = String(value);
    value = Object.hasOwn(field.map, key) ? field.map[key] : field.default;
  }
  if (value === undefined) return field.default;
  if (field.as === 'string') return String(value);
  if (field.as === 'number') return typeof value === 'number' ? value : Number(value);
  if (field.as === 'negate') return negate(value);
  return value;
}

/** A debit written as a negative amount (Habanero): "10.50" → "-10.50", 10.5 → -10.5, 0 stays 0. */
function negate(value: Scalar): Scalar {
  if (typeof value === 'number') return value === 0 ? 0 : -value;
  if (typeof value === 'string' && /^\d/.test(value) && !/^0(\.0+)?$/.test(value)) return `-${value}`;
  return value;
}

/** The fields of a template object, in the order written; a field with no value is left out. */
export function renderFields(
  dialect: Dialect,
  facts: CallFacts,
  credentials: Credentials,
  fields: Fields,
): Record<string, Rendered> {
  const out: Record<string, Rendered> = Object.create(null);
  for (const [name, field] of Object.entries(fields)) {
    const value = renderField(dialect, facts, credentials, field);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function credentialValue(credentials: Credentials, name: string): string {
  const value = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
  if (value === undefined || value === '')
    throw new DialectRequestError(
      `the credential "${name}" is not set: pass --credential ${name}=<value> or set callbacks.credentials.${name}`,
    );
  return value;
}

/** `{fact}` or `{credential.name}` in a field template. */
function placeholder(dialect: Dialect, facts: CallFacts, credentials: Credentials, name: string): string {
  if (name.startsWith('credential.')) return credentialValue(credentials, name.slice('credential.'.length));
  const value = FACT_NAMES.includes(name) ? factValue(dialect, facts, name as Fact) : undefined;
  return value === undefined ? '' : String(value);
}

const FACT_NAMES: readonly string[] = FACTS;

/** Fills `{name}` placeholders; `{{` and `}}` stand for literal braces. */
export function fillTemplate(template: string, value: (name: string) => string): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z][A-Za-z0-9_.]*)\}/g, (match, name: string | undefined) =>
    name === undefined ? (match[0] as string) : value(name),
  );
}

/**
 * The request of one call under a dialect, before signing: the operation's method and path (its
 * placeholders filled and escaped), its headers and its fields.
 */
export function unsignedRequest(dialect: Dialect, facts: CallFacts, credentials: Credentials): UnsignedRequest {
  const op = dialect.operations[facts.operation];
  if (!op) throw new DialectRequestError(`the "${dialect.name}" dialect has no ${facts.operation} call`);
  const headers: Record<string, string> = {};
  for (const [name, field] of [...Object.entries(dialect.request.headers), ...Object.entries(op.headers)]) {
    const value = renderField(dialect, facts, credentials, field);
    if (value !== undefined && typeof value !== 'object') headers[name.toLowerCase()] = String(value);
  }
  const path = fillTemplate(op.path, (name) => encodeURIComponent(placeholder(dialect, facts, credentials, name)));
  return {
    method: op.method,
    path,
    encoding: op.encoding ?? dialect.request.encoding,
    headers,
    fields: renderFields(dialect, facts, credentials, op.fields),
    query: renderFields(dialect, facts, credentials, dialect.request.query),
  };
}

/**
 * Flat `name=value` pairs of rendered fields, the way form bodies and query strings carry them:
 * nested members as `a[b]`, list items as `a[0]` (PHP's and Rails' convention, which the form
 * wires use). Booleans are written `true`/`false`.
 */
export function flatParams(fields: Record<string, Rendered>): [string, string][] {
  const out: [string, string][] = [];
  const visit = (prefix: string, value: Rendered) => {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(`${prefix}[${i}]`, v);
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(`${prefix}[${k}]`, v);
    else out.push([prefix, String(value)]);
  };
  for (const [k, v] of Object.entries(fields)) visit(k, v);
  return out;
}

/** `application/x-www-form-urlencoded` text of pairs (spaces as `+`, as browsers and PHP write them). */
export function formText(pairs: readonly (readonly [string, string])[]): string {
  // Most calls have no query at all: no URLSearchParams for nothing.
  if (pairs.length === 0) return '';
  return new URLSearchParams(pairs as [string, string][]).toString();
}
