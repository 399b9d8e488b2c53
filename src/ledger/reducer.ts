import type { StoredEvent } from '../callbacks/events.ts';
import { formatMinor } from '../money/index.ts';
import type { HistoryOp, HistoryVerdict, WalletState } from './history.ts';
import {
  DEFAULT_REDUCER_OPTIONS,
  type DiscrepancyDraft,
  type LedgerTx,
  type LedgerView,
  type PlayerLedger,
  type ReducerOptions,
  type SettlementOutcome,
} from './model.ts';
import { replyOutcome } from './reply.ts';
import {
  duplicateRule,
  type Flag,
  historyRule,
  type Judged,
  labelOf,
  overdraftRule,
  type ReplyFindings,
  replyRules,
  type TimedEvent,
  type WindowContext,
} from './rules.ts';

/**
 * The shadow ledger's rules, pure: given what the ledger knew and a window of settled events of
 * one player (one event when they go one after another; several when they overlapped in time),
 * every way the wallet's replies were wrong. No SQLite, no timers, no engine.
 *
 * The balance rule is the one history checker (history.ts): every reply's balance must be
 * explained by some order of the accepted events that respects real time. When none is, the
 * first reply no order explains is reported, as what the model says it is: a double debit or
 * credit (a repeated transaction moved money), a rollback that did not give the bet back, money
 * moved by a rejection or by a rollback of nothing, an overdraft, or plain balance drift. The
 * rules that are not about order stay their own: a repeated transaction must get the first reply
 * again, an accepted reply must carry a usable balance, a balance is never negative, and a
 * rejected ROLLBACK of a bet accepted earlier left the bet taken, and a rollback of a transaction
 * never seen is answered as the dialect allows. Each rule is one named function (rules.ts:
 * replyRules, historyRule, duplicateRule, overdraftRule); `nextState` works out what the ledger
 * knows afterwards. After a mismatch the ledger follows the wallet, so one mistake is reported
 * once, not on every later event.
 */

export * from './model.ts';

export { MAX_WINDOW, type TimedEvent } from './rules.ts';

/** Events sent in parallel for one player (a burst), all overlapping in time, judged as one history. */
export function evaluateConcurrentGroup(
  view: LedgerView,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  if (events.length === 0) throw new RangeError('evaluateConcurrentGroup needs at least one event');
  return evaluateWindow(
    view,
    events.map((event) => ({ event, sentAt: 0, answeredAt: 1 })),
    options,
  );
}

/**
 * Judges a window of one player's settled events, given in settle order, whose real-time
 * intervals are known: no event outside the window overlaps any inside it, so the player's
 * state before it is the ledger's and after it is a single known balance (or uncertain).
 */
export function evaluateWindow(
  view: LedgerView,
  window: readonly TimedEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  const first = window[0];
  if (!first) throw new RangeError('evaluateWindow needs at least one event');
  const playerId = first.event.playerId;
  let at = Number.NEGATIVE_INFINITY;
  for (const { event } of window) at = Math.max(at, event.settledAt ?? event.createdAt);
  const lastEventId = window[window.length - 1]?.event.id as number;
  const before: PlayerLedger = view.player(playerId) ?? { playerId, uncertain: false };
  const start = before.uncertain ? undefined : before.balanceMinor;
  const discrepancies: DiscrepancyDraft[] = [];
  const flag: Flag = (kind, expectedMinor, actualMinor, eventIds, message, group) =>
    discrepancies.push({
      playerId,
      kind,
      expectedMinor,
      actualMinor,
      eventIds,
      message,
      createdAt: at,
      ...(group ? { group } : {}),
    });
  const moved = (player: Partial<PlayerLedger>): PlayerLedger => ({ ...before, ...player, lastEventId, updatedAt: at });

  const w: WindowContext = { view, window, options, start, flag };
  const found = replyRules(w);
  const { verdict, blamed } = historyRule(w, found);
  duplicateRule(w, found, blamed);
  overdraftRule(w, found, blamed);
  return nextState(w, found, verdict, { before, moved, discrepancies });
}

/** The player before the window, how to move it on, and the window's discrepancies so far. */
type Settling = { before: PlayerLedger; moved: (p: Partial<PlayerLedger>) => PlayerLedger; discrepancies: DiscrepancyDraft[] };

/** What the ledger knows after the window: the player's balance (or that it is uncertain), and the transaction records to keep. */
function nextState(
  w: WindowContext,
  { ops, judged }: ReplyFindings,
  verdict: HistoryVerdict,
  { before, moved, discrepancies }: Settling,
): SettlementOutcome {
  const { view, window, start } = w;
  const first = window[0] as TimedEvent;
  const finals = verdict.linearizable === true ? verdict.finals : [];
  const transactions = remember(view, judged, ops, finals[0]);
  const balances = finals.length === 1 ? [(finals[0] as WalletState).balance] : [...new Set(finals.map((f) => f.balance))];
  const [only] = balances;
  if (verdict.linearizable === true && balances.length === 1 && only !== undefined && verdict.complete) {
    const labels = window.length === 1 ? first.event : undefined;
    const note =
      start !== undefined
        ? before.note
        : before.balanceMinor === undefined
          ? `baseline ${formatMinor(only)} from the first reply${labels ? ` (${labelOf(labels)})` : ''}`
          : `re-baselined at ${formatMinor(only)}${labels ? ` from ${labelOf(labels)}` : ''} after an uncertain balance`;
    return { player: moved({ balanceMinor: only, uncertain: false, ...(note ? { note } : {}) }), transactions, discrepancies };
  }
  if (verdict.linearizable === true && balances.length === 1 && only === undefined) {
    // No reply carried a balance and none was known: still nothing known.
    return { player: moved({}), transactions, discrepancies };
  }
  // After a mismatch the ledger follows the wallet: the last reply of a lone event is the new balance.
  const last = ops[ops.length - 1] as HistoryOp;
  if (verdict.linearizable === false && ops.length === 1 && last.balanceMinor !== undefined) {
    return { player: moved({ balanceMinor: last.balanceMinor, uncertain: false }), transactions, discrepancies };
  }
  return {
    player: moved({ uncertain: true, note: uncertainty(verdict.linearizable, window, balances.length) }),
    transactions,
    discrepancies,
  };
}

/** The transaction records after the window: its own events, and earlier DEBITs its ROLLBACKs gave back. */
function remember(
  view: LedgerView,
  judged: readonly Judged[],
  ops: readonly HistoryOp[],
  final: WalletState | undefined,
): LedgerTx[] {
  const lone = judged.length === 1 ? judged[0] : undefined;
  if (lone && ops[0]?.kind !== 'rollback') {
    // One event that gives nothing back: its own record, unless an earlier settlement stays the one to compare with.
    return lone.known && lone.known.outcome !== 'failed' ? [] : [lone.tx];
  }
  const out = new Map<string, LedgerTx>();
  for (const { tx, known } of judged) {
    const first = out.get(tx.key) ?? known;
    if (first && first.outcome !== 'failed') continue; // the first settlement stays the one to compare with
    out.set(tx.key, tx);
  }
  for (const op of ops) {
    if (op.kind !== 'rollback' || op.outcome === 'rejected' || !op.reverses) continue;
    const debit = out.get(op.reverses) ?? view.transaction(op.reverses);
    if (!debit || debit.rolledBack) continue;
    // Given back in the order found; when none was (a mismatch), an accepted ROLLBACK still closes its DEBIT.
    const status = final?.touched.get(op.reverses)?.status;
    if (final === undefined ? op.outcome === 'accepted' : status === 'rolled-back')
      out.set(op.reverses, { ...debit, rolledBack: true });
  }
  return [...out.values()];
}

export { describeExplanation } from './explain.ts';

function uncertainty(linearizable: boolean | undefined, window: readonly TimedEvent[], balances: number): string {
  const what = window.length === 1 ? labelOf((window[0] as TimedEvent).event) : `${window.length} overlapping events`;
  if (linearizable === undefined)
    return `balance uncertain: ${what} are too many to search for an order; the next reply sets a new baseline`;
  if (linearizable === false) return `balance uncertain after the discrepancy in ${what}; the next reply sets a new baseline`;
  const failed = window.find(({ event }) => replyOutcome(event) === 'failed')?.event;
  if (failed)
    return `balance uncertain: ${labelOf(failed)} failed without a reply (${failed.error ?? 'no reply'}); the next reply sets a new baseline`;
  return `balance uncertain: ${what} leave ${balances} possible balances; the next reply sets a new baseline`;
}

/** The whole ledger as a plain value, for the pure reducer. */
export interface LedgerState {
  players: Readonly<Record<string, PlayerLedger>>;
  transactions: Readonly<Record<string, LedgerTx>>;
}

export function emptyLedgerState(): LedgerState {
  return { players: {}, transactions: {} };
}

function viewOf(state: LedgerState): LedgerView {
  // Own keys only: a player called "constructor" is a player with no history, not Object's constructor.
  return {
    player: (id) => (Object.hasOwn(state.players, id) ? state.players[id] : undefined),
    transaction: (key) => (Object.hasOwn(state.transactions, key) ? state.transactions[key] : undefined),
  };
}

function applyOutcome(state: LedgerState, outcome: SettlementOutcome): LedgerState {
  const transactions = { ...state.transactions };
  for (const tx of outcome.transactions) transactions[tx.key] = tx;
  return { players: { ...state.players, [outcome.player.playerId]: outcome.player }, transactions };
}

/**
 * The reducer: a settled event and the state before it → the state after it and what was wrong.
 * Never mutates `state`.
 *
 * @example
 * let state = emptyLedgerState();
 * ({ state } = applySettlement(state, firstDebit));        // baseline from the reply
 * const { discrepancies } = applySettlement(state, dupDebit); // [{ kind: 'double-debit', … }] on a bad wallet
 */
export function applySettlement(
  state: LedgerState,
  event: StoredEvent,
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  return applyConcurrentGroup(state, [event], options);
}

/** {@link applySettlement} for a parallel group, judged as one history. */
export function applyConcurrentGroup(
  state: LedgerState,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateConcurrentGroup(viewOf(state), events, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}
