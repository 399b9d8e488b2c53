import type { CallbacksConfig } from '../callbacks/events.ts';
import { dialectOf, isVendorDialect } from '../config/dialect.ts';
import {
  codecOf,
  type Dialect,
  type Fact,
  type Field,
  type Operation,
  OUTCOME_CODES,
  type OutcomeCode,
} from '../dialects/index.ts';
import type { AmountCodec } from '../money/index.ts';
import { type ValueSource, WIRE_REPLY_CODES, type Wire, type WireReplyCode, wireOf } from '../profiles/index.ts';
import { cached } from '../shared/index.ts';

/*
 * What verify's checks ask of the wire under test, for a profile (default, betnex, a profile
 * file) and for a vendor dialect alike: which calls exist, how rollbacks refer to their bet,
 * whether requests are signed, which outcome names a refusal can carry, how repeats are answered.
 * A profile answers from its Wire, so its verify results stay what they were; a vendor dialect
 * answers from its definition.
 */

/** How a repeated transaction is answered: the first reply, the same outcome, or success with the balance as it is now. */
export type Duplicates = 'same-reply' | 'same-outcome' | 'current-balance';

export interface VerifyWire {
  name: string;
  /** The vendor dialect under test; undefined for a profile (its requests go through the profile's own renderer). */
  vendor: Dialect | undefined;
  /** The dialect of the wire (a profile as its dialect, for the operations it has). */
  dialect: Dialect;
  hasRollback: boolean;
  rollbackStyle: 'original' | 'reference';
  /** A profile's header scheme, "none", or the vendor recipe's algorithm. */
  signingScheme: string;
  currency: string;
  codec(currency?: string): AmountCodec;
  /** The wallet's code for one of aggmock's refusals; undefined when the wire has none of its own (any refusal will do). */
  code(name: OutcomeCode): string | undefined;
  /**
   * The wallet codes a refusal for any of these reasons may carry (a reply's `code`), whether or not
   * other refusals share them (Blue Ocean's "403"); undefined when one of them has no code (any refusal will do).
   */
  codesOf(names: readonly OutcomeCode[]): string[] | undefined;
  /** Whether a refusal must name its code (a wire with codes). */
  codedReplies: boolean;
  carries(source: ValueSource): boolean;
  fieldOf: Wire['fieldOf'];
  roundBody: boolean;
  duplicates: Duplicates;
  /** Whether an operation exists on this wire. */
  has(operation: Operation): boolean;
}

const views = new WeakMap<CallbacksConfig, VerifyWire>();

/** The wire verify judges, resolved once per callbacks settings. */
export function verifyWireOf(callbacks: CallbacksConfig): VerifyWire {
  return cached(views, callbacks, (c) => (isVendorDialect(c) ? dialectWire(c) : profileWire(c)));
}

function profileWire(callbacks: CallbacksConfig): VerifyWire {
  const wire = wireOf(callbacks);
  return {
    name: wire.name,
    vendor: undefined,
    dialect: dialectOf(callbacks),
    hasRollback: wire.hasRollback,
    rollbackStyle: wire.rollbackStyle,
    signingScheme: wire.signingScheme,
    currency: wire.currency,
    codec: (currency) => wire.codec(currency),
    code: (name) => ((WIRE_REPLY_CODES as readonly string[]).includes(name) ? wire.code(name as WireReplyCode) : undefined),
    codesOf(names) {
      const codes = names.map((name) => this.code(name));
      return codes.includes(undefined) ? undefined : (codes as string[]);
    },
    codedReplies: wire.definition.reply.codes !== undefined,
    carries: (source) => wire.carries(source),
    fieldOf: (kind, source) => wire.fieldOf(kind, source),
    roundBody: wire.roundBody,
    duplicates: wire.reading().rules.duplicates,
    has: (op) => op === 'bet' || op === 'win' || (op === 'rollback' && wire.hasRollback),
  };
}

/** A ValueSource of a profile check → the dialect fact that carries it (none for the profile-only API key). */
const FACT_OF_SOURCE: Partial<Record<ValueSource, Fact>> = { currency: 'currency', bonusId: 'bonusId', roundId: 'roundId' };

function dialectWire(callbacks: CallbacksConfig): VerifyWire {
  const dialect = dialectOf(callbacks);
  const carried = factsOf(dialect);
  return {
    name: dialect.name,
    vendor: dialect,
    dialect,
    hasRollback: dialect.operations.rollback !== undefined,
    // A dialect's rollback always carries its own id and the bet's (betTransactionId).
    rollbackStyle: 'reference',
    signingScheme: dialect.signing.algorithm === 'scheme' ? (dialect.signing.scheme ?? 'timestamped') : dialect.signing.algorithm,
    currency: callbacks.currency,
    codec: (currency = callbacks.currency) => {
      const codec = codecOf(dialect, currency, callbacks.currencies);
      // Inside verify, amounts are minor units of the currency: shown with its decimals, not the wire's scale.
      return { format: codec.format, as: codec.as, exponent: codec.currencyExponent };
    },
    code: (name) => (distinctCode(dialect, name) ? name : undefined),
    codesOf: (names) => {
      const lists = names.map((name) => codeList(dialect, name));
      return lists.some((l) => l.length === 0) ? undefined : [...new Set(lists.flat())];
    },
    codedReplies: dialect.reply.code !== undefined,
    carries: (source) => {
      const fact = FACT_OF_SOURCE[source];
      return fact !== undefined && carried.has(fact);
    },
    fieldOf: () => undefined,
    roundBody: dialect.operations.betWin !== undefined,
    duplicates: dialect.reply.duplicates,
    has: (op) => dialect.operations[op] !== undefined,
  };
}

/**
 * Whether the dialect has a code for this outcome that no other outcome shares: only then can a
 * refusal be told apart by its code (Blue Ocean answers "403" to a bad key and to a lack of funds).
 */
export function distinctCode(dialect: Dialect, outcome: OutcomeCode): boolean {
  const mine = codeList(dialect, outcome);
  const others = OUTCOME_CODES.filter((name) => name !== outcome).flatMap((name) => codeList(dialect, name));
  return mine.length > 0 && mine.every((code) => !others.includes(code));
}

/** The dialect's codes for one outcome, as text (how a reply's code is read). */
function codeList(dialect: Dialect, outcome: OutcomeCode): string[] {
  const value = dialect.reply.codes[outcome];
  return (value === undefined ? [] : Array.isArray(value) ? value : [value]).map(String);
}

/** The facts a dialect's money calls write somewhere (fields, headers, paths). */
function factsOf(dialect: Dialect): Set<Fact> {
  const out = new Set<Fact>();
  const visit = (field: Field) => {
    if ('from' in field) for (const f of typeof field.from === 'string' ? [field.from] : field.from) out.add(f);
    else if ('object' in field) for (const inner of Object.values(field.object)) visit(inner);
    else if ('list' in field) for (const inner of field.list) visit(inner);
    else if ('template' in field) for (const m of field.template.matchAll(/\{([A-Za-z]+)\}/g)) out.add(m[1] as Fact);
    else if ('json' in field) visit(field.json);
  };
  for (const op of ['bet', 'win'] as const) {
    const def = dialect.operations[op];
    if (!def) continue;
    for (const field of [...Object.values(def.fields), ...Object.values(def.headers)]) visit(field);
    for (const m of def.path.matchAll(/\{([A-Za-z]+)\}/g)) out.add(m[1] as Fact);
  }
  return out;
}
