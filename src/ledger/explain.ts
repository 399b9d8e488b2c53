import { formatMinor } from '../money/index.ts';
import type { HistoryOp, StepFacts } from './wallet-model.ts';

/*
 * The diagnostics of the history checker, apart from its model: when no order explains a reply,
 * why, in the model's terms (`explain`, from where the search placed the blamed op and the facts
 * the model's step reported there), and in the integrator's words (`describeExplanation`).
 */

/** Every balance listed as possible, at most. */
export const MAX_LISTED = 12;

/** Why the reply no order explains is wrong, in the model's terms. */
export type HistoryCause =
  | 'overdraft'
  | 'moved-on-duplicate'
  | 'rollback-not-restored'
  | 'rollback-moved-money'
  | 'rejected-moved-money'
  | 'drift';

export interface HistoryExplanation {
  /** The reply no order explains (given the replies answered before it). */
  op: HistoryOp;
  cause: HistoryCause;
  /** What the model would have had the balance be, nearest to the reported one first (the balance before, for an overdraft). */
  expected: number;
  /** The balance just before it, in the order that comes closest (undefined when unknown). */
  before: number | undefined;
  /**
   * What `possible` assumes: every other reply right (`others`), or, when they cannot all be, the
   * replies answered before this one (`earlier`).
   */
  basis: 'others' | 'earlier';
  /** Every balance some order could have given this reply (sorted, at most {@link MAX_LISTED}). */
  possible: number[];
  /** The ops that overlap in time with it (itself included): the events involved. */
  involved: HistoryOp[];
}

/** Where the watched op was placed: the state before it and what the model would make of it. */
export interface Placement extends StepFacts {
  pre: number | undefined;
  /** Balances the model allows after it, overdraft allowed. */
  posts: number[];
  /** The balance after it on the path taken. */
  post?: number | undefined;
}

/** What the describer may say of an op beyond its label. */
export interface OpWords {
  /** Its transaction id (a repeat's). */
  transactionId?: string | undefined;
  /** The id of the transaction it reverses (a rollback's). */
  reversedId?: string | undefined;
  /** What its transaction's first reply said, against this one's. */
  firstSaid?: string | undefined;
}

export interface ExplainWords {
  /** How many ops the history had: with one, nothing is said of orders. */
  windowSize: number;
  money?: (minor: number) => string;
  /** What is known of an op beyond its label (the ledger's events; verify knows only labels). */
  about?: (op: HistoryOp) => OpWords;
}

/** Why the blamed op's reply is wrong, from where the search placed it. */
export function explain(
  op: HistoryOp,
  placements: readonly Placement[],
  ops: readonly HistoryOp[],
  basis: HistoryExplanation['basis'],
): HistoryExplanation {
  const actual = op.balanceMinor as number;
  const possible = [...new Set(placements.flatMap((p) => (p.post === undefined ? [] : [p.post])))].sort((a, b) => a - b);
  const involved = ops.filter((o) => o === op || (o.sentAt < op.answeredAt && op.sentAt < o.answeredAt));
  const nearest = (values: readonly number[]) =>
    values.reduce((best, v) => (Math.abs(v - actual) < Math.abs(best - actual) ? v : best), values[0] ?? actual);
  const found = (cause: HistoryCause, expected: number, before?: number): HistoryExplanation => ({
    op,
    cause,
    expected,
    basis,
    before: before ?? placements.find((p) => p.posts.includes(expected))?.pre,
    possible: possible.slice(0, MAX_LISTED),
    involved,
  });
  const at = (test: (p: Placement & { pre: number }) => boolean) =>
    placements.find((p): p is Placement & { pre: number } => p.pre !== undefined && test(p as Placement & { pre: number }));

  const over = at((p) => p.overdraft && (op.balanceMinor === undefined || p.posts.includes(actual)));
  if (over && op.outcome !== 'rejected') return found('overdraft', over.pre, over.pre);
  if (op.outcome === 'rejected') {
    const moved = at((p) => actual !== p.pre);
    if (moved) return found('rejected-moved-money', moved.pre, moved.pre);
  }
  const twice = at((p) => p.duplicate && p.movement !== 0 && actual - p.pre === p.movement);
  if (twice) return found('moved-on-duplicate', twice.pre, twice.pre);
  if (op.kind === 'rollback' && op.outcome === 'accepted') {
    const kept = at((p) => p.restoring && actual === p.pre);
    if (kept) return found('rollback-not-restored', nearest(kept.posts), kept.pre);
    const stray = at((p) => !p.restoring && !p.duplicate && actual !== p.pre);
    if (stray) return found('rollback-moved-money', stray.pre, stray.pre);
  }
  return found('drift', nearest(possible));
}

/**
 * The explanation in the integrator's words: what the reply said, what the model would have it
 * say, and, when events overlapped, that no order of them explains it and which balances one could.
 */
export function describeExplanation(explanation: HistoryExplanation, words: ExplainWords): string {
  const { op, expected, before } = explanation;
  const { windowSize, money = formatMinor } = words;
  const about = words.about?.(op) ?? {};
  const ref = about.reversedId ? ` ${about.reversedId}` : '';
  const actual = op.balanceMinor;
  const was = before === undefined ? 'the balance' : `the balance ${money(before)}`;
  const reports = actual === undefined ? 'the reply carried no balance' : `the wallet reports ${money(actual)}`;
  let sentence: string;
  switch (explanation.cause) {
    case 'overdraft':
      sentence = `${op.label}: a bet of ${money(op.amountMinor)} was accepted with a balance of only ${money(expected)}`;
      break;
    case 'moved-on-duplicate':
      sentence = `${op.label} repeats ${about.transactionId ? `transactionId ${about.transactionId}` : 'a transaction already applied'} and must move no money, but ${was} became ${actual === undefined ? '?' : money(actual)}${about.firstSaid ? `; ${about.firstSaid}` : ''}`;
      break;
    case 'rollback-not-restored':
      sentence = op.reversesCredit
        ? `${op.label} was accepted but ${was} stayed: the CREDIT${ref} of ${money((before ?? expected) - expected)} was not taken back (expected ${money(expected)})`
        : `${op.label} was accepted but ${was} stayed: the DEBIT${ref} of ${money(expected - (before ?? expected))} was not given back (expected ${money(expected)})`;
      break;
    case 'rollback-moved-money':
      sentence = `${op.label} reverses a ${op.reversesCredit ? 'CREDIT' : 'DEBIT'}${ref}, which was never accepted or was already ${op.reversesCredit ? 'taken' : 'given'} back, yet ${was} moved to ${actual === undefined ? '?' : money(actual)}`;
      break;
    case 'rejected-moved-money':
      sentence = `${op.label} was rejected but ${was} moved to ${actual === undefined ? '?' : money(actual)}`;
      break;
    case 'drift':
      sentence = `${op.label} of ${money(op.amountMinor)}: expected ${before === undefined ? '' : `${money(before)} → `}${money(expected)}, ${reports}`;
      break;
  }
  if (windowSize <= 1 || explanation.involved.length <= 1) return sentence;
  const ids = explanation.involved.map((o) => `#${o.id}`);
  const shown = ids.length > 12 ? `${ids.slice(0, 12).join(', ')}, …` : ids.join(', ');
  const could = explanation.possible.map((minor) => money(minor));
  const options =
    could.length === 0
      ? 'no order reaches it at all'
      : could.length === 1
        ? `the only balance an order gives it is ${could[0]}`
        : `an order could give ${could.slice(0, -1).join(', ')} or ${could[could.length - 1]}`;
  return `${sentence}. It overlapped ${ids.length - 1} other event(s) (${shown}); no order of them that respects when each was sent and answered explains ${actual === undefined ? 'it' : money(actual)}: ${options}`;
}
