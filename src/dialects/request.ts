import { createHash } from 'node:crypto';
import type { ExtraCurrencies } from '../money/index.ts';
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
  bonus?: { kind: BonusKind; id: string; left?: number | undefined } | undefined;
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
  /**
   * The configured currencies ISO 4217 does not list (`callbacks.currencies`, code → decimals), so an
   * amount in one of them is written with its own decimals (BTC: 8). Set by whoever makes the facts
   * from a config; never stored with an event.
   */
  currencies?: ExtraCurrencies | undefined;
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
  // No closure for the amount: this runs for every field of every call.
  const money = MONEY_OPERATIONS[facts.operation];
  switch (fact) {
    case 'operation':
      return facts.operation;
    case 'type':
      return money === 'debit' ? 'DEBIT' : money === 'credit' ? 'CREDIT' : money === 'reverse' ? 'ROLLBACK' : undefined;
    case 'amount':
      return facts.amountMinor === undefined
        ? undefined
        : writeAmount(dialect, facts.currency, facts.amountMinor, facts.currencies);
    case 'betAmount':
      return facts.amountMinor === undefined
        ? undefined
        : writeAmount(dialect, facts.currency, money === 'credit' ? 0 : facts.amountMinor, facts.currencies);
    case 'winAmount':
      if (money === 'credit')
        return facts.amountMinor === undefined
          ? undefined
          : writeAmount(dialect, facts.currency, facts.amountMinor, facts.currencies);
      return writeAmount(dialect, facts.currency, facts.winMinor ?? 0, facts.currencies);
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
    case 'freeRoundId':
      return facts.bonus?.kind === 'free-spins' ? facts.bonus.id : undefined;
    case 'freeRoundsLeft':
      return facts.bonus?.kind === 'free-spins' ? facts.bonus.left : undefined;
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

/**
 * Rendering is compiled: each field, template and operation of a dialect is turned once into a
 * small function (cached by the dialect's own objects, which do not change), so a call renders
 * without walking the dialect's definition, parsing its templates or listing its members again.
 * The output is the same as the definition read field by field (a property test in
 * test/dialects/render-compiled.test.ts compares both for every built-in dialect).
 */
type FieldRenderer = (dialect: Dialect, facts: CallFacts, credentials: Credentials) => Rendered | undefined;
type FieldsRenderer = (dialect: Dialect, facts: CallFacts, credentials: Credentials) => Record<string, Rendered>;

const fieldRenderers = new WeakMap<Field, FieldRenderer>();
const fieldsRenderers = new WeakMap<Fields, FieldsRenderer>();

function fieldRenderer(field: Field): FieldRenderer {
  let renderer = fieldRenderers.get(field);
  if (!renderer) {
    renderer = compileField(field);
    fieldRenderers.set(field, renderer);
  }
  return renderer;
}

function compileField(field: Field): FieldRenderer {
  if ('const' in field) {
    const value = field.const;
    return () => value;
  }
  if ('credential' in field) {
    const name = field.credential;
    return (_dialect, _facts, credentials) => credentialValue(credentials, name);
  }
  if ('template' in field) return compileTemplate(field.template, identity);
  if ('list' in field) {
    const items = field.list.map(fieldRenderer);
    return (dialect, facts, credentials) => {
      const out: Rendered[] = [];
      for (const item of items) {
        const value = item(dialect, facts, credentials);
        if (value !== undefined) out.push(value);
      }
      return out;
    };
  }
  if ('object' in field) {
    const inner = fieldsRenderer(field.object);
    if (!field.omitWhenEmpty) return inner;
    return (dialect, facts, credentials) => {
      const out = inner(dialect, facts, credentials);
      for (const _ in out) return out;
      return undefined;
    };
  }
  if ('json' in field) {
    const inner = fieldRenderer(field.json);
    return (dialect, facts, credentials) => {
      const value = inner(dialect, facts, credentials);
      return value === undefined ? undefined : JSON.stringify(value);
    };
  }
  const list: readonly Fact[] = typeof field.from === 'string' ? [field.from] : field.from;
  const { map, as } = field;
  const fallback = field.default;
  return (dialect, facts) => {
    let value: Scalar | undefined;
    for (const fact of list) {
      value = factValue(dialect, facts, fact);
      if (value !== undefined) break;
    }
    if (value !== undefined && map) {
      const key = String(value);
      value = Object.hasOwn(map, key) ? map[key] : fallback;
    }
    if (value === undefined) return fallback;
    if (as === 'string') return String(value);
    if (as === 'number') return typeof value === 'number' ? value : Number(value);
    if (as === 'negate') return negate(value);
    return value;
  };
}

function fieldsRenderer(fields: Fields): FieldsRenderer {
  let renderer = fieldsRenderers.get(fields);
  if (!renderer) {
    renderer = compileFields(fields);
    fieldsRenderers.set(fields, renderer);
  }
  return renderer;
}

function compileFields(fields: Fields): FieldsRenderer {
  const names = Object.keys(fields);
  const renderers = names.map((name) => fieldRenderer(fields[name] as Field));
  const count = names.length;
  // A plain object (JSON.stringify writes it about twice as fast as a null-prototype one), unless a
  // member is named `__proto__`, which only a null-prototype object keeps as a member.
  const plain = !names.includes('__proto__');
  return (dialect, facts, credentials) => {
    const out: Record<string, Rendered> = plain ? {} : Object.create(null);
    for (let i = 0; i < count; i++) {
      const value = (renderers[i] as FieldRenderer)(dialect, facts, credentials);
      if (value !== undefined) out[names[i] as string] = value;
    }
    return out;
  };
}

const identity = (text: string) => text;

/**
 * A template compiled into its literal parts and placeholders: the same text as {@link fillTemplate}
 * with {@link placeholder} (each placeholder's value passed through `escapeValue`), filled left to right.
 */
function compileTemplate(template: string, escapeValue: (text: string) => string): FieldRenderer {
  const parts: string[] = [];
  const names: string[] = [];
  let literal = '';
  let last = 0;
  const re = /\{\{|\}\}|\{([A-Za-z][A-Za-z0-9_.]*)\}/g;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    literal += template.slice(last, m.index);
    if (m[1] === undefined) literal += (m[0] as string)[0] as string;
    else {
      parts.push(literal);
      names.push(m[1]);
      literal = '';
    }
    last = m.index + m[0].length;
  }
  literal += template.slice(last);
  if (names.length === 0) return () => literal;
  return (dialect, facts, credentials) => {
    let out = parts[0] as string;
    for (let i = 0; i < names.length; i++)
      out +=
        escapeValue(placeholder(dialect, facts, credentials, names[i] as string)) +
        (i + 1 < names.length ? parts[i + 1] : literal);
    return out;
  };
}

/** A debit written as a negative amount (Habanero): "10.50" → "-10.50", 10.5 → -10.5, 0 stays 0. */
function negate(value: Scalar): Scalar {
  if (typeof value === 'number') return value === 0 ? 0 : -value;
  if (typeof value === 'string' && /^\d/.test(value) && !/^0(\.0+)?$/.test(value)) return `-${value}`;
  return value;
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
  const value = FACT_NAMES.has(name) ? factValue(dialect, facts, name as Fact) : undefined;
  return value === undefined ? '' : String(value);
}

const FACT_NAMES: ReadonlySet<string> = new Set(FACTS);

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
  const call = compiledCall(dialect, facts.operation);
  const headers: Record<string, string> = {};
  for (const [name, render] of call.headers) {
    const value = render(dialect, facts, credentials);
    if (value !== undefined && typeof value !== 'object') headers[name] = String(value);
  }
  return {
    method: call.method,
    path: call.path(dialect, facts, credentials) as string,
    encoding: call.encoding,
    headers,
    fields: call.fields(dialect, facts, credentials),
    query: call.query(dialect, facts, credentials),
  };
}

/** One operation of a dialect, compiled: its headers (names in lower case), path, fields and query. */
interface CompiledCall {
  method: UnsignedRequest['method'];
  encoding: Encoding;
  headers: readonly (readonly [string, FieldRenderer])[];
  path: FieldRenderer;
  fields: FieldsRenderer;
  query: FieldsRenderer;
}

const compiledCalls = new WeakMap<Dialect, Map<Operation, CompiledCall>>();

function compiledCall(dialect: Dialect, operation: Operation): CompiledCall {
  let calls = compiledCalls.get(dialect);
  if (!calls) {
    calls = new Map();
    compiledCalls.set(dialect, calls);
  }
  let call = calls.get(operation);
  if (!call) {
    const op = dialect.operations[operation];
    if (!op) throw new DialectRequestError(`the "${dialect.name}" dialect has no ${operation} call`);
    call = {
      method: op.method,
      encoding: op.encoding ?? dialect.request.encoding,
      headers: [...Object.entries(dialect.request.headers), ...Object.entries(op.headers)].map(
        ([name, field]) => [name.toLowerCase(), fieldRenderer(field)] as const,
      ),
      path: compileTemplate(op.path, encodeURIComponent),
      fields: fieldsRenderer(op.fields),
      query: fieldsRenderer(dialect.request.query),
    };
    calls.set(operation, call);
  }
  return call;
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
