import type { CallbacksConfig } from '../callbacks/events.ts';
import { dialectOf, signOptionsOf } from '../config/dialect.ts';
import {
  carriesFact,
  codesRefusals,
  has,
  playsWholeRounds,
  rollbackReusesBetId,
  signingSchemeOf,
} from '../dialects/capabilities.ts';
import {
  codecOf,
  codesFor,
  type Dialect,
  type Fact,
  type Operation,
  OUTCOME_CODES,
  type OutcomeCode,
} from '../dialects/index.ts';
import type { AmountCodec } from '../money/index.ts';
import { cached } from '../shared/index.ts';

/*
 * What verify's checks ask of the wire under test, answered by its dialect alone: `default`,
 * `betnex`, a profile file and every vendor are dialects (dialectOf), so one view serves them all.
 * Which calls exist, how a rollback refers to its bet, how requests are signed, which codes a
 * refusal may carry, how repeats are answered. A check that needs more asks src/dialects/capabilities.ts.
 */

/** The wire verify judges: `wireView`'s answers, each said below. */
export type VerifyWire = ReturnType<typeof wireView>;

const views = new WeakMap<CallbacksConfig, VerifyWire>();

/** The wire verify judges, resolved once per callbacks settings. */
export function verifyWireOf(callbacks: CallbacksConfig): VerifyWire {
  return cached(views, callbacks, wireView);
}

function wireView(callbacks: CallbacksConfig) {
  const dialect = dialectOf(callbacks);
  const configured = signOptionsOf(callbacks).scheme?.scheme ?? callbacks.signing.scheme;
  return {
    name: dialect.name,
    dialect,
    hasRollback: has(dialect, 'rollback'),
    /** 'original': a rollback carries the reversed bet's id as its own; 'reference': an id of its own besides the bet's. */
    rollbackStyle: rollbackReusesBetId(dialect) ? ('original' as const) : ('reference' as const),
    /** "none", aggmock's header scheme (callbacks.signing's when the dialect names none), or the recipe's algorithm. */
    signingScheme: signingSchemeOf(dialect, configured),
    currency: callbacks.currency,
    codec: (currency = callbacks.currency): AmountCodec => {
      const codec = codecOf(dialect, currency, callbacks.currencies);
      // Inside verify, amounts are minor units of the currency: shown with its decimals, not the wire's scale.
      return { format: codec.format, as: codec.as, exponent: codec.currencyExponent };
    },
    /** aggmock's name for one of its refusals when the wire has a code of its own for it; undefined when not (any refusal will do). */
    code: (name: OutcomeCode) => (distinctCode(dialect, name) ? name : undefined),
    /**
     * The wallet codes a refusal for any of these reasons may carry (a reply's `code`), whether or not
     * other refusals share them (Blue Ocean's "403"); undefined when one of them has no code (any refusal will do).
     */
    codesOf: (names: readonly OutcomeCode[]) => {
      const lists = names.map((name) => codesFor(dialect, name));
      return lists.some((l) => l.length === 0) ? undefined : [...new Set(lists.flat())];
    },
    /** Whether a refusal must name its code (a wire with codes). */
    codedReplies: codesRefusals(dialect),
    /** Whether a bet or a win writes this fact (a currency, a bonus id, a round id). */
    carries: (fact: Fact) => carriesFact(dialect, fact),
    /** Whether one call can carry a bet and its win (a whole round). */
    roundBody: playsWholeRounds(dialect),
    /** How a repeated transaction is answered: the first reply, the same outcome, or success with the balance as it is now. */
    duplicates: dialect.reply.duplicates,
    /** How aggmock's safer reading answers a repeat (`reply.safer.duplicates`), else as `duplicates`. */
    saferDuplicates: dialect.reply.safer.duplicates ?? dialect.reply.duplicates,
    /** Whether the code of any of these refusals is aggmock's guess (`reply.guessed`): any refusal passes, with a warning. */
    guessed: (names: readonly OutcomeCode[]) => names.some((name) => dialect.reply.guessed.includes(name)),
    has: (op: Operation) => has(dialect, op),
  };
}

/**
 * Whether the dialect has a code for this outcome that no other outcome shares: only then can a
 * refusal be told apart by its code (Blue Ocean answers "403" to a bad key and to a lack of funds).
 */
export function distinctCode(dialect: Dialect, outcome: OutcomeCode): boolean {
  const mine = codesFor(dialect, outcome);
  const others = OUTCOME_CODES.filter((name) => name !== outcome).flatMap((name) => codesFor(dialect, name));
  return mine.length > 0 && mine.every((code) => !others.includes(code));
}
