import type { ExtraCurrencies } from '../money/index.ts';
import { valueAt } from '../shared/index.ts';
import { describeAmounts, readAmount } from './amounts.ts';
import { bare, credentialsCarried, namedFieldCount, operationsAt, pathPattern, templatePattern } from './call-routes.ts';
import type { BonusKind, CallFacts } from './request.ts';
import {
  type Dialect,
  type Encoding,
  FACTS,
  type Fact,
  type Field,
  type Fields,
  MONEY_OPERATIONS,
  type Operation,
} from './schema.ts';
import type { ReceivedRequest } from './sign.ts';

/*
 * The inverse of a dialect's fields: a wallet reads the facts of a call back out of the request it
 * received (the operation from the method, the path and the constants; the player, the ids, the
 * amount in minor units, the token…), and the credentials the request carries in its fields, query
 * or headers (an API key, a caller password), for the wallet to compare. Rendering the facts read
 * here gives the same request again (a test proves it for every built-in dialect).
 *
 * A field filled from several facts (`round: roundId, else transactionId`) is read as the first of
 * them that no other field gives with that value, so a round id equal to the transaction id is
 * read as "no round id": rendering it again writes the same bytes.
 */

export { credentialsCarried, operationsAt };

/** The facts a request carries; what it does not carry is absent (a wire without a timestamp has no `createdAt`). */
export type ReadFacts = Partial<CallFacts> & { operation: Operation };

export type FactsReading =
  | {
      ok: true;
      facts: ReadFacts;
      /** Credentials the request carries by the vendor's names (a static key, a caller password), to compare with the wallet's. */
      credentials: Record<string, string>;
    }
  | { ok: false; message: string };

export type CallReading =
  | (FactsReading & { ok: true; operation: Operation })
  | { ok: false; reason: 'no-route' | 'invalid'; message: string };

export interface ReadFactsOptions {
  /** The currency of a player, for a wire whose amounts carry none. */
  currencyOf?: ((playerId: string | undefined) => string | undefined) | undefined;
  /**
   * Constants must be present and equal (telling calls on one path apart: SoftSwiss's actions,
   * a profile's type). Otherwise a constant is not checked: a wallet accepts any providerId.
   */
  strictConstants?: boolean | undefined;
  /** Extra currencies (crypto, say): code → decimals. */
  currencies?: ExtraCurrencies | undefined;
  /**
   * The JSON body already parsed from exactly `received.body` (the wallet's strict parse), so a
   * JSON call is not parsed again; absent: parsed here.
   */
  parsedBody?: { value: unknown } | undefined;
}

/** A received request decoded: its fields (JSON tree or flat form/query pairs), its query, its headers. */
interface Decoded {
  encoding: Encoding;
  /** JSON: the body's object. Form/query: flat `name → value` pairs (`a[b]`, `a[0]`). */
  fields: unknown;
  flat: boolean;
  query: Map<string, string>;
  headers: Readonly<Record<string, string | undefined>>;
}

type Key = string | number;

/** The value at a path of keys, JSON or flat. */
function lookup(decoded: Pick<Decoded, 'fields' | 'flat'>, path: readonly Key[]): unknown {
  if (!decoded.flat) return valueAt(decoded.fields, path.map(String));
  const map = decoded.fields as Map<string, string>;
  const name = flatName(path);
  if (map.has(name)) return map.get(name);
  // A nested member or list: present when any of its pairs is.
  for (const key of map.keys()) if (key.startsWith(`${name}[`)) return FLAT_NODE;
  return undefined;
}

/** Marks a nested member of flat pairs that exists (its own pairs are read by their names). */
const FLAT_NODE = Symbol('flat node');

function flatName(path: readonly Key[]): string {
  return path.map((k, i) => (i === 0 ? String(k) : `[${String(k)}]`)).join('');
}

/** How many items a list at this path has. */
function listLength(decoded: Pick<Decoded, 'fields' | 'flat'>, path: readonly Key[]): number | undefined {
  const value = lookup(decoded, path);
  if (value === undefined) return undefined;
  if (!decoded.flat) return Array.isArray(value) ? value.length : -1;
  let n = 0;
  while (lookup(decoded, [...path, n]) !== undefined) n++;
  return n;
}

/** What the inversion of one operation's fields collects. */
interface Collected {
  strict: boolean;
  single: Map<Fact, unknown>;
  multi: [Fact[], unknown][];
  credentials: Record<string, string>;
  problems: string[];
}

const same = (a: unknown, b: unknown) => String(a) === String(b);

function assign(into: Collected, fact: Fact, value: unknown, where: string): void {
  if (into.single.has(fact)) {
    if (!same(into.single.get(fact), value))
      into.problems.push(
        `${where}: ${JSON.stringify(value)} contradicts ${JSON.stringify(into.single.get(fact))} given for ${fact}`,
      );
    return;
  }
  into.single.set(fact, value);
}

/** The inverse of a `{from, map, as}` field: the fact's own value, or undefined when it was the default. */
function unformat(field: Extract<Field, { from: unknown }>, value: unknown): unknown {
  let v: unknown = value;
  if (field.as === 'negate') {
    if (typeof v === 'number') v = v === 0 ? 0 : -v;
    else if (typeof v === 'string' && v.startsWith('-')) v = v.slice(1);
  }
  if (field.map) {
    const keys = Object.entries(field.map)
      .filter(([, mapped]) => same(mapped, v))
      .map(([k]) => k);
    if (keys.length > 0) return keys[0];
    return undefined; // unmapped facts are written as the default: nothing to read back
  }
  return v;
}

const FACT_NAMES: ReadonlySet<string> = new Set(FACTS);

function readTemplate(into: Collected, template: string, value: unknown, where: string): void {
  const { pattern, names } = templatePattern(template);
  const match = pattern.exec(String(value));
  if (!match) {
    into.problems.push(`${where}: ${JSON.stringify(value)} does not have the form "${template}"`);
    return;
  }
  names.forEach((name, i) => {
    const part = match[i + 1] as string;
    if (name.startsWith('credential.')) into.credentials[name.slice('credential.'.length)] = part;
    else if (FACT_NAMES.has(name) && part !== '') assign(into, name as Fact, part, where);
  });
}

/** Walks one field's template against the received value at `path`, collecting facts and credentials. */
function invertField(decoded: Pick<Decoded, 'fields' | 'flat'>, field: Field, path: Key[], into: Collected, where: string): void {
  const value = lookup(decoded, path);
  // A field of one value (a fact, constant, credential or template) refuses an object (`{"toString": 0}`) before reading it as text.
  const scalar = !('object' in field || 'list' in field || 'json' in field) && (!('const' in field) || into.strict);
  if (scalar && (value === FLAT_NODE || (value !== null && typeof value === 'object'))) {
    into.problems.push(`${where}: expected a value, got an object`);
    return;
  }
  if ('const' in field) {
    if (!into.strict) return;
    if (value === undefined) into.problems.push(`${where}: missing (expected ${JSON.stringify(field.const)})`);
    else if (!same(value, field.const))
      into.problems.push(`${where}: expected ${JSON.stringify(field.const)}, got ${JSON.stringify(value)}`);
    return;
  }
  if (value === undefined) return;
  if ('credential' in field) {
    into.credentials[field.credential] = String(value);
    return;
  }
  if ('template' in field) {
    readTemplate(into, field.template, value, where);
    return;
  }
  if ('object' in field) {
    if (!decoded.flat && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      into.problems.push(`${where}: expected an object, got ${JSON.stringify(value)}`);
      return;
    }
    invertFields(decoded, field.object, path, into, where);
    return;
  }
  if ('json' in field) {
    let parsed: unknown;
    try {
      parsed = typeof value === 'string' ? JSON.parse(value) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      into.problems.push(`${where}: expected JSON text, got ${JSON.stringify(value).slice(0, 80)}`);
      return;
    }
    invertField({ fields: { json: parsed }, flat: false }, field.json, ['json'], into, where);
    return;
  }
  if ('list' in field) {
    const length = listLength(decoded, path);
    if (length === undefined || length < 0) {
      into.problems.push(`${where}: expected a list`);
      return;
    }
    if (length > field.list.length) into.problems.push(`${where}: ${length} items, expected at most ${field.list.length}`);
    field.list.forEach((item, i) => {
      if (i >= length) {
        // An item the sender always writes (a constant inside it) is missing.
        if (!('from' in item)) into.problems.push(`${where}[${i}]: missing`);
        return;
      }
      invertField(decoded, item, [...path, i], into, `${where}[${i}]`);
    });
    return;
  }
  const own = unformat(field, value);
  if (own === undefined) return;
  const facts = typeof field.from === 'string' ? [field.from] : field.from;
  if (facts.length === 1) assign(into, facts[0] as Fact, own, where);
  else into.multi.push([facts, own]);
}

function invertFields(
  decoded: Pick<Decoded, 'fields' | 'flat'>,
  fields: Fields,
  path: Key[],
  into: Collected,
  where: string,
): void {
  for (const [name, field] of Object.entries(fields))
    invertField(decoded, field, [...path, name], into, where ? `${where}.${name}` : name);
}

/**
 * A field filled from several facts holds the first of them that has a value. Each such value is
 * given to the first fact of its list that keeps every such field consistent (the fact each would
 * be rendered from holds the value it carries), so a round id equal to the transaction id is read
 * as no round id, and Evolution's refId equal to its win's own id as no bet id.
 */
function resolveMulti(into: Collected): void {
  const known = into.single;
  // Only the fields a fact renders can contradict giving it a value.
  const consistent = (fact: Fact) =>
    into.multi.every(([facts, value]) => {
      if (!facts.includes(fact)) return true;
      const first = facts.find((f) => known.has(f));
      return first === undefined || same(known.get(first), value);
    });
  for (const [facts, value] of into.multi) {
    // The value of a fact read elsewhere, with no earlier fact of the list read: rendered from that fact, nothing new to read.
    const readFirst = facts.findIndex((f) => known.has(f));
    if (readFirst > 0 && known.get(facts[readFirst] as Fact) === value) continue;
    for (const fact of facts) {
      if (known.has(fact)) break; // already given: equal (nothing to read) or contradicted (nothing to fix)
      known.set(fact, value);
      if (consistent(fact)) break;
      known.delete(fact);
    }
  }
}

/** Decodes a request's body (JSON or form), query and headers; undefined with why when it cannot. */
function decode(
  encoding: Encoding,
  received: ReceivedRequest,
  signatureField: string | undefined,
  parsed?: { value: unknown },
): Decoded | { error: string } {
  const q = received.path.indexOf('?');
  const query = new Map<string, string>(new URLSearchParams(q < 0 ? '' : received.path.slice(q + 1)));
  const headers = received.headers;
  if (encoding === 'query') return { encoding, fields: query, flat: true, query, headers };
  if (encoding === 'form') {
    const pairs = new Map(new URLSearchParams(received.body));
    if (signatureField) pairs.delete(signatureField);
    return { encoding, fields: pairs, flat: true, query, headers };
  }
  let body: unknown;
  if (parsed) body = parsed.value;
  else
    try {
      body = JSON.parse(received.body);
    } catch (error) {
      return { error: `the body is not JSON (${(error as Error).message})` };
    }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { error: 'the body is not a JSON object' };
  return { encoding, fields: body, flat: false, query, headers };
}

/** The name of the body field or query parameter the signature travels in, left out of the facts. */
function signatureParameter(dialect: Dialect): string | undefined {
  const recipe = dialect.signing;
  if (!('place' in recipe)) return undefined;
  return 'field' in recipe.place ? recipe.place.field : 'query' in recipe.place ? recipe.place.query : undefined;
}

/**
 * Which call a request is and its facts: the operations at its method and path, the first whose
 * constants, lists and mapped operation match the request.
 *
 * @example recogniseCall(pragmatic, { method: 'POST', path: '/bet.html', headers, body: 'userId=p1&…' })
 * // { ok: true, operation: 'bet', facts: { operation: 'bet', playerId: 'p1', amountMinor: 1050, … }, credentials: {} }
 */
export function recogniseCall(dialect: Dialect, received: ReceivedRequest, options: ReadFactsOptions = {}): CallReading {
  const candidates = operationsAt(dialect, received.method, received.path);
  if (candidates.length === 0)
    return {
      ok: false,
      reason: 'no-route',
      message: `no ${dialect.name} call is ${received.method} ${bare(received.path) || '/'}; expected one of ${Object.entries(
        dialect.operations,
      )
        .map(([, def]) => `${def?.method} ${def?.path || '/'}`)
        .join(', ')}`,
    };
  let first: string | undefined;
  // The candidates at one address share their decoding (decoded once per encoding, not once per candidate).
  const decodings = new Map<Encoding, Decoded | { error: string }>();
  const strictConstants = candidates.length > 1;
  let best: { reading: CallReading & { ok: true }; named: number } | undefined;
  for (const operation of candidates) {
    const reading = readDecodedFacts(dialect, operation, received, options, strictConstants, decodings);
    if (!reading.ok) {
      first ??= reading.message;
      continue;
    }
    const found = { ok: true as const, facts: reading.facts, credentials: reading.credentials, operation };
    if (candidates.length === 1) return found;
    // Two calls at one address that a wallet tells apart by a field only one of them carries (Groove's
    // result with frbid is a free-round win, without it a win): the call whose fields the request names most.
    const def = dialect.operations[operation];
    const decoded = def && decodings.get(def.encoding ?? dialect.request.encoding);
    const named = def && decoded && !('error' in decoded) ? namedFieldCount(def.fields, decoded.fields) : 0;
    if (best === undefined || named > best.named) best = { reading: found, named };
  }
  return best?.reading ?? { ok: false, reason: 'invalid', message: first as string };
}

/**
 * The facts of one call read back from the request a wallet received: the inverse of
 * `buildRequest`'s fields, path, headers and query. Amounts are minor units of the request's
 * currency (or the player's, from `options.currencyOf`).
 *
 * @example readFacts(hub88, 'bet', received) // { ok: true, facts: { operation: 'bet', playerId: 'p1', transactionId: 'tx1', amountMinor: 1050, currency: 'EUR', … }, credentials: {} }
 */
export function readFacts(
  dialect: Dialect,
  operation: Operation,
  received: ReceivedRequest,
  options: ReadFactsOptions = {},
): FactsReading {
  return readDecodedFacts(dialect, operation, received, options, options.strictConstants === true, new Map());
}

function readDecodedFacts(
  dialect: Dialect,
  operation: Operation,
  received: ReceivedRequest,
  options: ReadFactsOptions,
  strict: boolean,
  decodings: Map<Encoding, Decoded | { error: string }>,
): FactsReading {
  const def = dialect.operations[operation];
  if (!def) return { ok: false, message: `the "${dialect.name}" dialect has no ${operation} call` };
  const encoding = def.encoding ?? dialect.request.encoding;
  let decoded = decodings.get(encoding);
  if (!decoded) {
    decoded = decode(encoding, received, signatureParameter(dialect), options.parsedBody);
    decodings.set(encoding, decoded);
  }
  if ('error' in decoded) return { ok: false, message: decoded.error };
  const into: Collected = {
    strict,
    single: new Map(),
    multi: [],
    credentials: {},
    problems: [],
  };

  const { pattern, names } = pathPattern(def.path === '/' ? '' : def.path);
  const match = pattern.exec(bare(received.path));
  if (!match) return { ok: false, message: `the path ${bare(received.path)} is not ${def.path}` };
  names.forEach((name, i) => {
    const part = decodeURIComponent(match[i + 1] as string);
    if (name.startsWith('credential.')) into.credentials[name.slice('credential.'.length)] = part;
    else if (FACT_NAMES.has(name) && part !== '') assign(into, name as Fact, part, `path {${name}}`);
  });

  const headerTree = { flat: false, fields: lowerKeys(decoded.headers) };
  for (const [name, field] of [...Object.entries(dialect.request.headers), ...Object.entries(def.headers)])
    invertField(headerTree, field, [name.toLowerCase()], into, `header ${name}`);
  const queryTree = { flat: true, fields: decoded.query };
  invertFields(queryTree, dialect.request.query, [], into, '');
  invertFields(decoded, def.fields, [], into, '');

  resolveMulti(into);
  const read = into.single;
  if (read.has('operation') && read.get('operation') !== operation)
    into.problems.push(`the request is a ${String(read.get('operation'))} call, not ${operation}`);
  const kind = MONEY_OPERATIONS[operation];
  const type = kind === 'debit' ? 'DEBIT' : kind === 'credit' ? 'CREDIT' : kind === 'reverse' ? 'ROLLBACK' : undefined;
  if (read.has('type') && read.get('type') !== type) into.problems.push(`type: ${String(read.get('type'))} is not ${operation}`);
  if (into.problems.length > 0) return { ok: false, message: into.problems.join('; ') };

  const facts: ReadFacts = { operation };
  const text = (fact: Fact): string | undefined => {
    const v = read.get(fact);
    return v === undefined || v === null ? undefined : String(v);
  };
  for (const fact of [
    'playerId',
    'currency',
    'transactionId',
    'betTransactionId',
    'roundId',
    'gameId',
    'gameName',
    'provider',
    'sessionToken',
    'requestId',
    'nonce',
  ] as const) {
    const v = text(fact);
    if (v !== undefined) facts[fact] = v;
  }
  if (read.has('roundClosed')) {
    const v = read.get('roundClosed');
    facts.roundClosed = v === true || v === 'true' || v === 1 || v === '1';
  }
  const createdAt = timeOf(read);
  if (createdAt !== undefined) facts.createdAt = createdAt;
  const bonusKind = text('bonusKind');
  const freeRoundId = text('freeRoundId');
  const bonusId = text('bonusId') ?? freeRoundId;
  if (bonusKind !== undefined || bonusId !== undefined)
    facts.bonus = {
      kind: (bonusKind ?? (freeRoundId === undefined ? 'promotion' : 'free-spins')) as BonusKind,
      id: bonusId ?? '',
    };
  const left = text('freeRoundsLeft');
  if (facts.bonus && left !== undefined && /^\d{1,9}$/.test(left)) facts.bonus.left = Number(left);

  const currency = facts.currency ?? options.currencyOf?.(facts.playerId);
  const amounts: [Fact, 'amountMinor' | 'winMinor'][] =
    kind === 'credit'
      ? [
          ['amount', 'amountMinor'],
          ['winAmount', 'amountMinor'],
        ]
      : [
          ['amount', 'amountMinor'],
          ['betAmount', 'amountMinor'],
          ['winAmount', 'winMinor'],
        ];
  for (const [fact, member] of amounts) {
    if (!read.has(fact) || facts[member] !== undefined) continue;
    const raw = read.get(fact);
    if (currency === undefined) return { ok: false, message: `${fact}: no currency to read ${JSON.stringify(raw)} in` };
    const minor = readAmount(dialect, currency, raw, options.currencies);
    if (minor === undefined)
      return {
        ok: false,
        message: `amount: ${JSON.stringify(raw)} is not an amount of ${currency} as ${dialect.name} writes them (${describeAmounts(dialect)})`,
      };
    facts[member] = minor;
  }
  // A bet-and-win with no win written has won nothing.
  if (operation === 'betWin' && facts.winMinor === 0) delete facts.winMinor;
  return { ok: true, facts, credentials: into.credentials };
}

/** When the call was made, from the time it carries (the call's own, else the attempt's). */
function timeOf(read: Map<Fact, unknown>): number | undefined {
  for (const [ms, seconds, iso] of [
    ['timestampMs', 'timestampSeconds', 'timestamp'],
    ['sentTimestampMs', 'sentTimestampSeconds', 'sentTimestamp'],
  ] as const) {
    const m = read.get(ms);
    if (m !== undefined && Number.isFinite(Number(m))) return Number(m);
    const s = read.get(seconds);
    if (s !== undefined && Number.isFinite(Number(s))) return Number(s) * 1000;
    const i = read.get(iso);
    if (typeof i === 'string' && !Number.isNaN(Date.parse(i))) return Date.parse(i);
  }
  return undefined;
}

function lowerKeys(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}
