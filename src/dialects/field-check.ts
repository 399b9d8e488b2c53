import { currencyExponent, type ExtraCurrencies } from '../money/index.ts';
import { cached } from '../shared/index.ts';
import { codecOf, readAmount } from './amounts.ts';
import { BONUS_KINDS } from './request.ts';
import type { Dialect, Fact, Field, Fields, Operation } from './schema.ts';

/*
 * What is wrong with a JSON call's fields, named field by field, for a wallet to answer with: ids
 * that are not non-empty strings, amounts the wire does not write that way, an unknown currency, a
 * bonus without its id. The facts reader (facts.ts) reads what a call says; this says why a call
 * cannot be read, in the words a developer fixing the sender needs ("amount: expected a JSON number
 * in major units…"). Only plain fields are checked (a fact as it is, no value map, no `as`): a
 * field the wire writes its own way is the reader's business.
 */

/** One wrong field: its dotted name in the body, what was expected, what came. */
export interface FieldProblem {
  field: string;
  message: string;
  received?: unknown;
}

export interface FieldCheckOptions {
  /** The currency of a player, for a body that names none (its amounts are in that currency's decimals). */
  currencyOf?: (playerId: string) => string | undefined;
  /** The currency when neither the body nor the player names one. */
  currency: string;
  currencies?: ExtraCurrencies | undefined;
  /** Lets negative amounts through (only the `negative-amounts` faulty wallet wants them). */
  allowNegative?: boolean;
  /** The longest id accepted. */
  maxIdLength?: number;
}

/** The optional ids, in the order their problems are listed (after the transaction's and the player's). */
const OPTIONAL_IDS = ['betTransactionId', 'currency', 'roundId', 'gameId'] as const;
const AMOUNTS = ['amount', 'betAmount', 'winAmount'] as const;
const NO_FIELDS: Fields = {};

/** `locate` of each operation's fields, worked out once (a dialect's fields do not change). */
const located = new WeakMap<Fields, ReadonlyMap<string, string[]>>();

function locationsOf(fields: Fields): ReadonlyMap<string, string[]> {
  return cached(located, fields, locate);
}

/** Where each plain fact (and each credential, as `credential.<name>`) sits in a body: single-fact fields first. */
function locate(fields: Fields): Map<string, string[]> {
  const single: [string, string[]][] = [];
  const multi: [readonly Fact[], string[]][] = [];
  const visit = (field: Field, path: string[]) => {
    if ('object' in field) for (const [name, inner] of Object.entries(field.object)) visit(inner, [...path, name]);
    else if ('credential' in field) single.push([`credential.${field.credential}`, path]);
    else if ('from' in field && field.map === undefined && field.as === undefined) {
      const from = typeof field.from === 'string' ? [field.from] : field.from;
      if (from.length > 1) multi.push([from, path]);
      else single.push([from[0] as Fact, path]);
    }
  };
  for (const [name, field] of Object.entries(fields)) visit(field, [name]);
  const out = new Map<string, string[]>();
  for (const [fact, path] of single) if (!out.has(fact)) out.set(fact, path);
  // A field of several facts ("game_round": roundId, else transactionId) reads back as the first one not found elsewhere.
  for (const [list, path] of multi) {
    const first = list.find((f) => !out.has(f));
    if (first) out.set(first, path);
  }
  return out;
}

function valueAtPath(json: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = json;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

const received = (value: unknown): { received?: unknown } => (value === undefined ? {} : { received: value });

/** What a valid amount looks like, for the error message. */
export function describeAmount(codec: { format: 'decimal' | 'minor'; as: 'number' | 'string'; exponent: number }): string {
  const { format, as, exponent } = codec;
  const written = as === 'string' ? 'a JSON string' : 'a JSON number';
  if (format === 'minor')
    return `a whole number of minor units, 0 or more, e.g. ${as === 'string' ? '"1050"' : '1050'} for 10.50`;
  const decimals = exponent === 0 ? 'with no decimals, e.g. 1050' : `with at most ${exponent} decimals, e.g. 10.5`;
  return `${written} in major units, 0 or more, ${decimals}`;
}

/**
 * Every wrong field of a JSON call of `operation`: the ids (transaction and player required when
 * the call has them), the currency, the amounts in the wire's format, the bonus. Extra fields are
 * ignored, so a sender that adds fields never breaks a wallet. Empty when the fields are right.
 *
 * @example fieldProblems(dialect, 'bet', { type: 'DEBIT', amount: -1, playerId: 'p1' }, { currency: 'EUR' })
 * // [{ field: 'transactionId', message: 'expected a non-empty string' }, { field: 'amount', message: 'expected a JSON number …, got -1', received: -1 }]
 */
export function fieldProblems(
  dialect: Dialect,
  operation: Operation,
  body: Record<string, unknown>,
  options: FieldCheckOptions,
): FieldProblem[] {
  const where = locationsOf(dialect.operations[operation]?.fields ?? NO_FIELDS);
  const problems: FieldProblem[] = [];
  const name = (fact: string) => (where.get(fact) ?? [fact]).join('.');
  const raw = (fact: string) => {
    const path = where.get(fact);
    return path ? valueAtPath(body, path) : undefined;
  };
  const fail = (fact: string, message: string): undefined => {
    problems.push({ field: name(fact), message, ...received(raw(fact)) });
    return undefined;
  };
  const maxIdLength = options.maxIdLength ?? 256;
  const id = (fact: string, required: boolean): string | undefined => {
    const value = raw(fact);
    if (value === undefined || value === null)
      return required && where.has(fact) ? fail(fact, 'expected a non-empty string') : undefined;
    if (typeof value !== 'string' || value.length === 0) return fail(fact, 'expected a non-empty string');
    if (value.length > maxIdLength) return fail(fact, `expected at most ${maxIdLength} characters`);
    return value;
  };
  id('transactionId', true);
  const playerId = id('playerId', true);
  const ids: Record<string, string | undefined> = {};
  for (const fact of OPTIONAL_IDS) ids[fact] = id(fact, false);
  for (const fact of where.keys()) if (fact.startsWith('credential.')) id(fact, false);
  const currency = ids.currency ?? (playerId === undefined ? undefined : options.currencyOf?.(playerId)) ?? options.currency;
  if (ids.currency !== undefined && currencyExponent(ids.currency, options.currencies) === undefined) {
    fail('currency', 'expected a known currency code such as "EUR", "JPY" or a configured one');
  } else {
    const codec = codecOf(dialect, currency, options.currencies);
    for (const fact of AMOUNTS) {
      if (!where.has(fact)) continue;
      const value = raw(fact);
      // A string where the wire writes numbers (or the other way round) is not the wire's amount.
      const written = typeof value === (codec.as === 'string' ? 'string' : 'number');
      const minor = written ? readAmount(dialect, currency, value, options.currencies) : undefined;
      if (minor === undefined || (minor < 0 && options.allowNegative !== true))
        fail(fact, `expected ${describeAmount(codec)}, got ${JSON.stringify(value) ?? 'nothing'}`);
    }
  }
  const bonusId = id('bonusId', false);
  const bonusKind = raw('bonusKind');
  if (bonusKind !== undefined && bonusKind !== null) {
    if (!(BONUS_KINDS as readonly unknown[]).includes(bonusKind))
      fail('bonusKind', `expected one of ${BONUS_KINDS.map((k) => JSON.stringify(k)).join(', ')}`);
    else if (bonusId === undefined) fail('bonusId', 'expected the bonus id as a non-empty string');
  }
  return problems;
}

/**
 * Why a JSON body is none of the calls at its address: the constant member that tells them apart
 * (default's `type`) with the values it may have; undefined when no constant tells them apart.
 *
 * @example callProblem(dialect, ['bet', 'win', 'rollback'], { type: 'BONUS' })
 * // { field: 'type', message: 'expected one of "DEBIT", "CREDIT", "ROLLBACK"', received: 'BONUS' }
 */
export function callProblem(
  dialect: Dialect,
  operations: readonly Operation[],
  body: Record<string, unknown>,
): FieldProblem | undefined {
  const first = dialect.operations[operations[0] as Operation]?.fields ?? {};
  for (const [name, field] of Object.entries(first)) {
    if (!('const' in field)) continue;
    const values = operations.map((op) => {
      const own = dialect.operations[op]?.fields[name];
      return own && 'const' in own ? own.const : undefined;
    });
    if (values.some((v) => v === undefined) || new Set(values).size < 2) continue;
    const value = Object.hasOwn(body, name) ? body[name] : undefined;
    if (values.includes(value as never)) continue;
    return {
      field: name,
      message: `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
      ...received(value),
    };
  }
  return undefined;
}

/** The first of `operations` whose constant members are the body's, or undefined. */
export function operationOfBody(
  dialect: Dialect,
  operations: readonly Operation[],
  body: Record<string, unknown>,
): Operation | undefined {
  const matches = (fields: Fields, json: Record<string, unknown>): boolean =>
    Object.entries(fields).every(([name, field]) => {
      const value = Object.hasOwn(json, name) ? json[name] : undefined;
      if ('const' in field) return value === field.const;
      if ('object' in field)
        return value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)
          ? true
          : matches(field.object, value as Record<string, unknown>);
      return true;
    });
  return operations.find((op) => matches(dialect.operations[op]?.fields ?? {}, body));
}
