import type { EventKind } from '../callbacks/events.ts';

/*
 * The wallet as a sequential model, a parameter of the history checker (history.ts) the way
 * Porcupine's checker takes its `Model{Init, Step, Equal}`: what one operation does to one state.
 * The checker searches orders; the model says what each op may do. The diagnostics that explain a
 * failed search (explain.ts) read the facts a step reports, and never reach into the model.
 */

export type HistoryOutcome = 'accepted' | 'rejected' | 'unknown';

/** What an op is: a money event, or a read of the balance (a balance or authenticate call, verify's read back). */
export type HistoryKind = EventKind | 'read';

export interface HistoryOp {
  /** The user's handle for it: an event id, or a step number. */
  id: number;
  kind: HistoryKind;
  /** Its idempotency key (type, player, transactionId): a second op with the same key moves nothing. A read has none that matters. */
  key: string;
  /** ROLLBACK: the key of the DEBIT it gives back (or of the CREDIT it takes back, with `reversesCredit`). */
  reverses?: string | undefined;
  /** A rollback of a win: it takes the CREDIT's amount back instead of giving a DEBIT's back. */
  reversesCredit?: boolean | undefined;
  amountMinor: number;
  /** A whole round: the win paid with this DEBIT's bet. */
  winMinor?: number | undefined;
  outcome: HistoryOutcome;
  /** The balance its reply reported, minor units; absent when the reply carried none. */
  balanceMinor?: number | undefined;
  /** Real time, in any unit: when it was sent (or earliest could have been) and when its answer came (Infinity: never). */
  sentAt: number;
  answeredAt: number;
  /** How a person names it: "DEBIT tx_1 (event #3)". */
  label: string;
}

/** What is known of a transaction settled before this history (an earlier, closed window). */
export type PastStatus = 'applied' | 'rolled-back' | 'maybe' | 'tombstone';
export interface PastTx {
  status: PastStatus;
  amountMinor: number;
}

/** One possible wallet state: the balance and what this history did to each transaction key. */
export interface WalletState {
  balance: number | undefined;
  /** Key → what happened to it within this history. */
  touched: ReadonlyMap<string, PastTx>;
}

/** One change a step makes to what the history did to a transaction key. */
export interface Change {
  key: string;
  tx: PastTx;
}

/** What one op does to a state, before the state is built: the balance after it and the keys it touches. */
export interface Move {
  balance: number | undefined;
  changes: readonly Change[];
}

/** What a step did, in the model's terms: what the explanation of a reply no order explains reads. */
export interface StepFacts {
  /** An accepted DEBIT the balance did not cover. */
  overdraft: boolean;
  /** A repeat of a transaction already applied. */
  duplicate: boolean;
  /** A ROLLBACK whose DEBIT was applied and not yet given back. */
  restoring: boolean;
  /** Its own movement if applied fresh (−bet + win, +credit, +the DEBIT's amount). */
  movement: number;
}

export interface Step {
  /** The moves the op can make; none when a constrained op cannot happen (an overdraft a correct wallet refuses). */
  moves: readonly Move[];
  facts: StepFacts;
}

/** What is known of a key in a state: this history's doing, else the past's. */
export type StatusOf = (key: string) => PastTx | undefined;

/** A sequential model of one player's wallet, as the history checker asks it. */
export interface WalletModel {
  /** The state before the first op: a balance (or none known) and no key touched. */
  init(balanceMinor: number | undefined): WalletState;
  /**
   * The moves `op` can make from `state` when it is applied (`apply`) or not; `constrained`: its
   * own constraint holds (a correct wallet refuses a DEBIT the balance does not cover).
   */
  step(state: WalletState, op: HistoryOp, apply: boolean, statusOf: StatusOf, constrained: boolean): Step;
  /** What a repeated op would have moved had it been the first: to recognise a double debit or credit. */
  fresh(state: WalletState, op: HistoryOp, statusOf: StatusOf): number;
  /** Whether two states are the same state (the checker hashes the same entries). */
  equal(a: WalletState, b: WalletState): boolean;
}

const NO_CHANGES: readonly Change[] = [];
const APPLIED_ROLLBACK: PastTx = { status: 'applied', amountMinor: 0 };
const TOMBSTONE: PastTx = { status: 'tombstone', amountMinor: 0 };

/**
 * The wallet model: the balance in integer minor units. An applied DEBIT takes its amount (and
 * pays its win) and is refused when the balance does not cover it; a CREDIT adds; a ROLLBACK gives
 * its DEBIT back once (a rollback of a win takes its CREDIT back once); a repeated transaction
 * (same type, player and id) moves nothing; a rejected event moves nothing; a read moves nothing
 * and reports the balance as it is.
 */
export const WALLET_MODEL: WalletModel = {
  init: (balanceMinor) => ({ balance: balanceMinor, touched: new Map() }),
  step: walletStep,
  fresh,
  equal(a, b) {
    if (a.balance !== b.balance || a.touched.size !== b.touched.size) return false;
    for (const [key, tx] of a.touched) {
      const theirs = b.touched.get(key);
      if (!theirs || theirs.status !== tx.status || theirs.amountMinor !== tx.amountMinor) return false;
    }
    return true;
  },
};

function walletStep(s: WalletState, op: HistoryOp, apply: boolean, statusOf: StatusOf, constrained: boolean): Step {
  const own = op.kind === 'read' ? undefined : statusOf(op.key);
  const duplicate = apply && own !== undefined && own.status !== 'tombstone' && own.status !== 'maybe';
  const plus = (delta: number) => (s.balance === undefined ? undefined : s.balance + delta);
  const stay: Move = { balance: s.balance, changes: NO_CHANGES };
  let moves: Move[];
  let movement = 0;
  let restoring = false;
  let overdraft = false;
  if (!apply || op.kind === 'read') moves = [stay];
  else if (duplicate) {
    moves = [stay];
    movement = fresh(s, op, statusOf);
  } else if (op.kind === 'credit') {
    movement = op.amountMinor;
    moves = [{ balance: plus(movement), changes: [{ key: op.key, tx: { status: 'applied', amountMinor: op.amountMinor } }] }];
  } else if (op.kind === 'debit') {
    movement = -op.amountMinor + (op.winMinor ?? 0);
    overdraft = s.balance !== undefined && op.amountMinor > s.balance;
    const taken: Move = {
      balance: plus(movement),
      changes: [{ key: op.key, tx: { status: 'applied', amountMinor: op.amountMinor } }],
    };
    // A DEBIT after its own ROLLBACK: a wallet may take it or acknowledge it without taking money.
    moves =
      own?.status === 'tombstone'
        ? [taken, { balance: s.balance, changes: [{ key: op.key, tx: { status: 'rolled-back', amountMinor: 0 } }] }]
        : [taken];
  } else {
    const debitKey = op.reverses ?? op.key;
    const debit = statusOf(debitKey);
    if (debit?.status === 'applied' || debit?.status === 'maybe') {
      restoring = debit.status === 'applied';
      movement = reversal(op, debit.amountMinor);
      const back: Change[] = [
        { key: debitKey, tx: { status: 'rolled-back', amountMinor: debit.amountMinor } },
        { key: op.key, tx: APPLIED_ROLLBACK },
      ];
      moves = [{ balance: plus(movement), changes: back }];
      // A DEBIT whose fate is unknown may never have taken anything to give back.
      if (debit.status === 'maybe') moves.push({ balance: s.balance, changes: back });
    } else {
      const tomb: Change[] = debit === undefined ? [{ key: debitKey, tx: TOMBSTONE }] : [];
      moves = [{ balance: s.balance, changes: [...tomb, { key: op.key, tx: APPLIED_ROLLBACK }] }];
    }
  }
  // A copy of an op whose first delivery has an unknown fate: that one may have moved the money already.
  if (apply && own?.status === 'maybe')
    moves.push({ balance: s.balance, changes: [{ key: op.key, tx: { status: 'applied', amountMinor: own.amountMinor } }] });
  const facts = { overdraft, duplicate, restoring, movement };
  if (apply && constrained && overdraft && op.kind === 'debit' && !duplicate) return { moves: [], facts };
  return { moves, facts };
}

function fresh(_state: WalletState, op: HistoryOp, statusOf: StatusOf): number {
  if (op.kind === 'read') return 0;
  if (op.kind === 'credit') return op.amountMinor;
  if (op.kind === 'debit') return -op.amountMinor + (op.winMinor ?? 0);
  return reversal(op, statusOf(op.reverses ?? op.key)?.amountMinor ?? 0);
}

/** What a rollback moves: a DEBIT's amount given back, or a CREDIT's taken back. */
function reversal(op: HistoryOp, amountMinor: number): number {
  return op.reversesCredit ? -amountMinor : amountMinor;
}
