import type { EventKind } from '../callbacks/events.ts';
import { appliedEarlier, type Dialect, MONEY_OPERATIONS, readReply, rolledBackAfter } from '../dialects/index.ts';
import {
  checkHistory,
  type HistoryCause,
  type HistoryOp,
  type HistoryOutcome,
  type PastTx,
  transactionKey,
} from '../ledger/index.ts';
import { currencyExponent, formatMinor } from '../money/index.ts';
import type { CallRecord } from './record.ts';

/*
 * Correctness under load: every player's calls judged by the one history checker (ledger/history.ts)
 * — no double charge, no lost update, every reply's balance explained by some order of the
 * accepted calls that respects real time — and the final balance read reconciled. A player's
 * calls are cut into windows where none overlaps the next (nothing in flight between them), each
 * window's end state starting the next, so the search stays small at any run length.
 */

/** Calls overlapping in one window beyond this are not searched: the window is reported undetermined. */
export const MAX_WINDOW = 400;

export interface Violation {
  playerId: string;
  cause: HistoryCause;
  /** The call whose reply no order explains. */
  call: string;
  reportedMinor?: number | undefined;
  expectedMinor: number;
  /** Balances some order of the calls allows for it (at most 12). */
  possibleMinor: number[];
  /** The calls that overlapped it. */
  involved: string[];
  message: string;
}

export interface Verdict {
  /** Proven correct: no violation and every window judged. */
  ok: boolean;
  players: number;
  /** Calls judged (with an answer or not). */
  calls: number;
  violations: Violation[];
  /** Players (or windows of them) the checker could not decide, with why. */
  undetermined: { playerId: string; reason: string }[];
  /** Players whose last call was a balance read explained by their history. */
  reconciled: number;
  /** Players whose history ends without a balance read (the dialect has none, or the run did not make one). */
  unreconciled: string[];
}

const KIND: Record<'debit' | 'credit' | 'reverse', EventKind> = { debit: 'debit', credit: 'credit', reverse: 'rollback' };

/** The history checker's view of one call. */
function opOf(dialect: Dialect, r: CallRecord): HistoryOp & { record: CallRecord; accepted: boolean } {
  const { facts } = r;
  const money = MONEY_OPERATIONS[facts.operation];
  const reading =
    r.status === undefined || r.text === undefined ? undefined : readReply(dialect, facts, { status: r.status, text: r.text });
  // An answer the vendor takes as "maybe applied" (rolledBackAfter) is no refusal: the round rolled the call back.
  const maybe = reading !== undefined && rolledBackAfter(dialect, reading, facts.operation);
  const outcome: HistoryOutcome =
    reading?.verdict === 'accepted' || (reading && appliedEarlier(dialect, reading, facts.operation, r.attempts > 1))
      ? 'accepted'
      : reading?.verdict === 'rejected' && !maybe
        ? 'rejected'
        : 'unknown';
  const kind: EventKind = money ? KIND[money] : 'credit';
  const txId = facts.transactionId ?? `${facts.operation}#${r.id}`;
  // A read (authenticate, balance, end-round) is a CREDIT of 0 under a key of its own: it moves nothing, its balance counts.
  const key = money ? transactionKey(kind, facts.playerId, txId) : `read\u0000${r.id}`;
  const reversesCredit = facts.operation === 'rollbackWin';
  return {
    id: r.id,
    kind,
    key,
    reverses:
      kind === 'rollback'
        ? transactionKey(reversesCredit ? 'credit' : 'debit', facts.playerId, facts.betTransactionId ?? txId)
        : undefined,
    reversesCredit,
    amountMinor: money ? (facts.amountMinor ?? 0) : 0,
    winMinor: facts.operation === 'betWin' ? facts.winMinor : undefined,
    outcome,
    // Its balance is no constraint either: nobody can tell which moment it is of.
    balanceMinor: reading?.balance.kind === 'ok' && !maybe ? reading.balance.minor : undefined,
    sentAt: r.sentAt,
    answeredAt: outcome === 'unknown' ? Number.POSITIVE_INFINITY : (r.answeredAt ?? Number.POSITIVE_INFINITY),
    label: `${facts.operation}${facts.transactionId ? ` ${facts.transactionId}` : ''} of ${facts.playerId} (call #${r.id})`,
    record: r,
    accepted: outcome === 'accepted',
  };
}

/**
 * Judges a run's calls.
 *
 * @example const verdict = judgeRun(builtinDialect('hub88'), records); verdict.ok
 */
export function judgeRun(dialect: Dialect, records: readonly CallRecord[], options: { maxWindow?: number } = {}): Verdict {
  const maxWindow = options.maxWindow ?? MAX_WINDOW;
  const byPlayer = new Map<string, CallRecord[]>();
  for (const r of records) {
    const list = byPlayer.get(r.facts.playerId) ?? [];
    list.push(r);
    byPlayer.set(r.facts.playerId, list);
  }
  const verdict: Verdict = {
    ok: true,
    players: byPlayer.size,
    calls: records.length,
    violations: [],
    undetermined: [],
    reconciled: 0,
    unreconciled: [],
  };
  for (const [playerId, list] of byPlayer) judgePlayer(dialect, playerId, list, maxWindow, verdict);
  verdict.ok = verdict.violations.length === 0 && verdict.undetermined.length === 0;
  return verdict;
}

function judgePlayer(dialect: Dialect, playerId: string, list: CallRecord[], maxWindow: number, out: Verdict): void {
  const ops = list.map((r) => opOf(dialect, r)).sort((a, b) => a.sentAt - b.sentAt || a.id - b.id);
  unconstrainRepeats(dialect, ops);
  const exponent = currencyExponent(list[0]?.facts.currency ?? 'EUR') ?? 2;
  const money = (minor: number) => formatMinor(minor, exponent);
  const past = new Map<string, PastTx>();
  let balance: number | undefined;
  let lastWindowOk = true;
  // A call whose outcome is unknown stays in its window until its rollback is answered: the two are judged
  // together (the rollback gave the money back, or there was none to give), not across a cut that forgets either way.
  const rolledBackBy = new Map<string, number>();
  for (const op of ops) if (op.reverses !== undefined) rolledBackBy.set(op.reverses, endOf(op));
  const reach = (op: (typeof ops)[number]) =>
    op.outcome === 'unknown' ? Math.max(endOf(op), rolledBackBy.get(op.key) ?? 0) : endOf(op);
  let i = 0;
  while (i < ops.length) {
    // A window: calls chained by overlap; it ends where the next call went out after every answer in it.
    let end = reach(ops[i] as (typeof ops)[number]);
    let j = i + 1;
    while (j < ops.length && (ops[j] as (typeof ops)[number]).sentAt < end) {
      end = Math.max(end, reach(ops[j] as (typeof ops)[number]));
      j++;
    }
    const window = ops.slice(i, j);
    i = j;
    if (window.length > maxWindow) {
      out.undetermined.push({
        playerId,
        reason: `${window.length} calls overlapped without a pause (more than ${maxWindow}): spread the load over more players (--players) to judge them`,
      });
      forget(window, past);
      balance = undefined;
      lastWindowOk = false;
      continue;
    }
    const v = checkHistory(window, { balanceMinor: balance, past: (key) => past.get(key) });
    if (v.linearizable === true) {
      lastWindowOk = true;
      const balances = new Set(v.finals.map((f) => f.balance));
      balance = balances.size === 1 && v.complete ? [...balances][0] : undefined;
      const keys = new Set(v.finals.flatMap((f) => [...f.touched.keys()]));
      for (const key of keys) {
        const states = v.finals.map((f) => f.touched.get(key) ?? past.get(key));
        const first = states[0];
        const same =
          first !== undefined && states.every((s) => s?.status === first.status && s.amountMinor === first.amountMinor);
        past.set(key, same ? first : { status: 'maybe', amountMinor: states.find((s) => s)?.amountMinor ?? 0 });
      }
      continue;
    }
    lastWindowOk = false;
    if (v.linearizable === undefined) {
      out.undetermined.push({ playerId, reason: `${window.length} overlapping calls were too many orders to search` });
    } else {
      const e = v.explanation;
      const reported = e.op.balanceMinor;
      // The balances an order allows it, other than the one reported (which other replies then rule out).
      const others = e.possible.filter((p) => p !== reported);
      out.violations.push({
        playerId,
        cause: e.cause,
        call: e.op.label,
        reportedMinor: reported,
        expectedMinor: e.expected,
        possibleMinor: e.possible,
        involved: e.involved.map((o) => o.label),
        message: `${e.op.label}: ${CAUSES[e.cause]}; the wallet reports ${reported === undefined ? 'no balance' : money(reported)}, ${
          others.length
            ? `where the ${e.involved.length} overlapping calls allow ${others.map(money).join(', ')}`
            : `which no order of the ${e.involved.length} overlapping calls allows together with their own replies`
        }`,
      });
    }
    // After a mismatch follow the wallet: its next reported balance is the new baseline.
    forget(window, past);
    balance = undefined;
  }
  const last = ops.at(-1);
  const read = last && (last.record.facts.operation === 'balance' || last.record.facts.operation === 'authenticate');
  if (read && last.balanceMinor !== undefined && lastWindowOk) out.reconciled++;
  else out.unreconciled.push(playerId);
}

const CAUSES: Record<HistoryCause, string> = {
  overdraft: 'a bet was accepted that the balance did not cover',
  'moved-on-duplicate': 'a repeated transaction moved money again (double charge or double pay)',
  'rollback-not-restored': 'a rollback was acknowledged but the bet was not given back',
  'rollback-moved-money': 'a rollback moved money it should not have',
  'rejected-moved-money': 'a refused call moved money',
  drift: 'no order of the calls explains the balance (a lost update, or a wrong balance)',
};

/** Where a call's window may end: its answer, or, with none, when its last attempt ended. */
function endOf(op: HistoryOp & { record: CallRecord }): number {
  return Number.isFinite(op.answeredAt) ? op.answeredAt : (op.record.answeredAt ?? op.record.sentAt);
}

/** After a window that could not be judged, what it touched may or may not have happened. */
function forget(window: readonly (HistoryOp & { accepted: boolean })[], past: Map<string, PastTx>): void {
  for (const op of window) {
    if (op.key.startsWith('read\u0000') || op.outcome === 'rejected') continue;
    past.set(op.key, { status: op.accepted && op.kind !== 'rollback' ? 'applied' : 'maybe', amountMinor: op.amountMinor });
  }
}

/**
 * A repeated transaction answered with the first reply again replays an old balance: it says
 * nothing about now, so its balance is not a constraint (as the shadow ledger reads it). So is a
 * call that took several attempts on a wire whose repeats answer with the current balance: its
 * money moved at its first attempt, its reply is of a later moment.
 */
function unconstrainRepeats(dialect: Dialect, ops: (HistoryOp & { record: CallRecord })[]): void {
  const firstBalance = new Map<string, number>();
  const byAnswer = ops
    .filter((o) => !o.key.startsWith('read\u0000') && Number.isFinite(o.answeredAt))
    .sort((a, b) => a.answeredAt - b.answeredAt);
  for (const op of byAnswer) {
    // The balance a transaction was first answered with, even when it is not a constraint itself
    // (several attempts): a later repeat that answers it again replays that reply.
    const reported = op.balanceMinor;
    if (op.record.attempts > 1 && dialect.reply.duplicates !== 'same-reply') op.balanceMinor = undefined;
    if (reported === undefined) continue;
    const first = firstBalance.get(op.key);
    if (first === undefined) firstBalance.set(op.key, reported);
    else if (first === reported) op.balanceMinor = undefined;
  }
}
