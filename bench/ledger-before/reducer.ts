/**
 * The shadow ledger's reducer as it was before the one history checker (git: main before the
 * history branch), kept only as the baseline of bench/ledger.ts. Not used by aggmock.
 */
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { type DialectReading, type ReplyInput, replyText } from '../../src/callbacks/reply.ts';
import { repeatAgrees } from '../../src/dialects/index.ts';

/** The repeat rule, asked of the one judge (the baseline had its own copy, since deleted). */
function repliesAgree(first: ReplyInput, again: ReplyInput, reading: DialectReading): boolean {
  const context = { operation: reading.operation ?? 'bet', currency: reading.currency };
  return repeatAgrees(
    reading.dialect,
    context,
    { status: first.status, text: replyText(first) },
    { status: again.status, text: replyText(again) },
  ).agrees;
}

import {
  DEFAULT_REDUCER_OPTIONS,
  type DiscrepancyDraft,
  type DiscrepancyKind,
  type LedgerTx,
  type LedgerView,
  ledgerTx,
  type PlayerLedger,
  type ReducerOptions,
  type SettlementOutcome,
  transactionKey,
} from '../../src/ledger/model.ts';
import { type ReplyBalance, replyBalance, replyOutcome } from '../../src/ledger/reply.ts';
import { formatMinor } from '../../src/money/index.ts';
import { evaluateConcurrentGroup } from './burst.ts';

/**
 * The shadow ledger's arithmetic, pure: given what the ledger knew and one settled event, what
 * the wallet's reply should have said and every way it did not. No SQLite, no timers, no engine.
 *
 * Each player has a last known balance. An accepted DEBIT must take its amount off, a CREDIT add
 * it, a ROLLBACK of an accepted DEBIT give the DEBIT back; a duplicate transactionId (same type,
 * same player) must get the first reply again and move nothing; a rejected event or a rollback of
 * something unknown, rejected or already rolled back moves nothing. The ledger follows the
 * wallet's reported balance after each check, so one mistake is reported once, not on every
 * later event.
 */

export * from '../../src/ledger/model.ts';
export { evaluateConcurrentGroup } from './burst.ts';

/**
 * Judges one settled, sequentially delivered event against what the ledger knew.
 *
 * @example
 * const { player, discrepancies } = evaluateSettlement(view, settledDebit, DEFAULT_REDUCER_OPTIONS);
 */
export function evaluateSettlement(
  view: LedgerView,
  event: StoredEvent,
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  const at = event.settledAt ?? event.createdAt;
  const before: PlayerLedger = view.player(event.playerId) ?? { playerId: event.playerId, uncertain: false };
  const prev = before.uncertain ? undefined : before.balanceMinor;
  const outcome = replyOutcome(event);
  const balance = replyBalance(event, options.reading(event.currency));
  const self = ledgerTx(event, outcome);
  const { key } = self;
  const label = `${event.kind.toUpperCase()} ${event.transactionId} (event #${event.id})`;
  const discrepancies: DiscrepancyDraft[] = [];
  const flag = (kind: DiscrepancyKind, expectedMinor: number | null, actualMinor: number | null, message: string) =>
    discrepancies.push({
      playerId: event.playerId,
      kind,
      expectedMinor,
      actualMinor,
      eventIds: [event.id],
      message,
      createdAt: at,
      ...(event.group ? { group: event.group } : {}),
    });
  const moved = (player: Partial<PlayerLedger>): PlayerLedger => ({ ...before, ...player, lastEventId: event.id, updatedAt: at });

  if (outcome === 'failed') {
    const first = view.transaction(key);
    return {
      player: moved({
        uncertain: true,
        note: `balance uncertain: ${label} failed without a reply (${event.error ?? 'no reply'}); the next reply sets a new baseline`,
      }),
      transactions: first && first.outcome !== 'failed' ? [] : [self],
      discrepancies,
    };
  }

  const first = view.transaction(key);
  if (first && first.outcome !== 'failed') {
    return judgeDuplicate(first, event, { balance, prev, before, moved, flag, label, discrepancies, options });
  }

  const transactions: LedgerTx[] = [self];
  if (balance.kind === 'invalid') {
    flag('invalid-balance', null, null, `${label}: the reply's balance ${JSON.stringify(balance.raw)} is not a valid amount`);
    return {
      player: moved({ uncertain: true, note: `balance uncertain: ${label} replied with an unusable balance` }),
      transactions,
      discrepancies,
    };
  }

  // Which DEBIT a ROLLBACK reverses, and whether it can still be given back.
  const reversed = event.kind === 'rollback' ? reversedDebit(view, event) : undefined;
  if (
    reversed &&
    outcome === 'accepted' &&
    (reversed.outcome === 'accepted' || reversed.outcome === 'failed') &&
    !reversed.rolledBack
  ) {
    transactions.push({ ...reversed, rolledBack: true });
  }

  if (prev === undefined || (reversed?.outcome === 'failed' && !reversed.rolledBack)) {
    // No baseline yet (or the reversed DEBIT's fate is unknown): this reply is the baseline.
    if (balance.kind === 'none') {
      if (outcome === 'accepted') flag('missing-balance', null, null, `${label} was accepted but the reply carries no balance`);
      return { player: moved({}), transactions, discrepancies };
    }
    if (balance.minor < 0)
      flag('overdraft', 0, balance.minor, `${label}: the wallet reports a negative balance ${formatMinor(balance.minor)}`);
    const note =
      before.balanceMinor === undefined
        ? `baseline ${formatMinor(balance.minor)} from the first reply (${label})`
        : `re-baselined at ${formatMinor(balance.minor)} from ${label} after an uncertain balance`;
    return { player: moved({ balanceMinor: balance.minor, uncertain: false, note }), transactions, discrepancies };
  }

  const actual = balance.kind === 'ok' ? balance.minor : undefined;
  let expected = prev;
  let explained = false;
  const amount = event.amountMinor;

  if (event.kind === 'debit' && outcome === 'accepted') {
    // A whole round (bet and win in one callback) pays its win at once.
    expected = prev - amount + (event.winMinor ?? 0);
    if (amount > prev) {
      flag(
        'overdraft',
        prev,
        actual ?? null,
        `${label}: a bet of ${formatMinor(amount)} was accepted with a balance of only ${formatMinor(prev)}`,
      );
      explained = true;
    }
  } else if (event.kind === 'credit' && outcome === 'accepted') {
    expected = prev + amount;
  } else if (event.kind === 'rollback') {
    const ref = event.referenceTransactionId ?? event.transactionId;
    if (reversed && reversed.outcome === 'accepted' && !reversed.rolledBack) {
      expected = prev + reversed.amountMinor;
      if (outcome !== 'accepted') {
        flag(
          'rollback-not-restored',
          expected,
          actual ?? prev,
          `${label} was rejected, so the accepted DEBIT ${ref} (event #${reversed.eventId}, ${formatMinor(reversed.amountMinor)}) was not given back`,
        );
        expected = prev;
        explained = true;
      } else if (actual === prev) {
        flag(
          'rollback-not-restored',
          expected,
          actual,
          `${label} was accepted but the balance stayed ${formatMinor(prev)}: the DEBIT ${ref} of ${formatMinor(reversed.amountMinor)} was not given back`,
        );
        explained = true;
      }
    } else if (actual !== undefined && actual !== prev) {
      const why = !reversed ? 'was never sent' : reversed.outcome === 'rejected' ? 'was rejected' : 'was already rolled back';
      flag(
        'rollback-moved-money',
        prev,
        actual,
        `${label} reverses DEBIT ${ref}, which ${why}, yet the balance moved from ${formatMinor(prev)} to ${formatMinor(actual)}`,
      );
      explained = true;
    }
  }

  if (outcome === 'rejected' && event.kind !== 'rollback' && actual !== undefined && actual !== prev) {
    flag(
      'rejected-moved-money',
      prev,
      actual,
      `${label} was rejected but the balance moved from ${formatMinor(prev)} to ${formatMinor(actual)}`,
    );
    explained = true;
  }

  if (actual === undefined) {
    if (outcome === 'accepted') {
      flag(
        'missing-balance',
        expected,
        null,
        `${label} was accepted but the reply carries no balance (expected ${formatMinor(expected)})`,
      );
      return {
        player: moved({ uncertain: true, note: `balance uncertain: ${label} replied without a balance` }),
        transactions,
        discrepancies,
      };
    }
    // A rejection without a balance: nothing moved, as far as the ledger can tell.
    return { player: moved({ balanceMinor: expected, uncertain: false }), transactions, discrepancies };
  }

  if (!explained && actual !== expected) {
    flag(
      'balance-drift',
      expected,
      actual,
      `${label} of ${formatMinor(amount)}: expected the balance ${formatMinor(prev)} → ${formatMinor(expected)}, the wallet reports ${formatMinor(actual)}`,
    );
  }
  if (actual < 0 && !discrepancies.some((d) => d.kind === 'overdraft')) {
    flag('overdraft', 0, actual, `${label}: the wallet reports a negative balance ${formatMinor(actual)}`);
  }
  return { player: moved({ balanceMinor: actual, uncertain: false }), transactions, discrepancies };
}

function reversedDebit(view: LedgerView, event: StoredEvent): LedgerTx | undefined {
  const ref = event.referenceTransactionId ?? event.transactionId;
  return view.transaction(transactionKey('debit', event.playerId, ref));
}

interface DuplicateContext {
  balance: ReplyBalance;
  prev: number | undefined;
  before: PlayerLedger;
  moved: (p: Partial<PlayerLedger>) => PlayerLedger;
  flag: (kind: DiscrepancyKind, e: number | null, a: number | null, m: string) => void;
  label: string;
  discrepancies: DiscrepancyDraft[];
  options: ReducerOptions;
}

/** A transactionId seen before (same type, same player): the first reply again, and no money moved. */
function judgeDuplicate(first: LedgerTx, event: StoredEvent, ctx: DuplicateContext): SettlementOutcome {
  const { balance, prev, before, moved, flag, label, discrepancies } = ctx;
  const sameReply =
    first.reply !== undefined &&
    event.reply !== undefined &&
    repliesAgree(first.reply, event.reply, ctx.options.reading(event.currency));
  if (sameReply) return { player: moved({}), transactions: [], discrepancies };

  const actual = balance.kind === 'ok' ? balance.minor : undefined;
  const firstSaid = `first reply (event #${first.eventId}) ${describeReply(first.reply)}, this one ${describeReply(event.reply)}`;
  if (actual !== undefined && prev !== undefined && actual !== prev) {
    const delta = actual - prev;
    const kind: DiscrepancyKind =
      event.kind === 'debit' && delta === -event.amountMinor + (event.winMinor ?? 0)
        ? 'double-debit'
        : event.kind === 'credit' && delta === event.amountMinor
          ? 'double-credit'
          : event.kind === 'rollback'
            ? 'double-rollback'
            : 'balance-drift';
    flag(
      kind,
      prev,
      actual,
      `${label} repeats transactionId ${event.transactionId} and must move no money, but the balance moved from ${formatMinor(prev)} to ${formatMinor(actual)}; ${firstSaid}`,
    );
  } else {
    const firstBalance = first.reply ? replyBalance({ reply: first.reply }, ctx.options.reading(first.currency)) : undefined;
    flag(
      'duplicate-reply-differs',
      firstBalance?.kind === 'ok' ? firstBalance.minor : null,
      actual ?? null,
      `${label} repeats transactionId ${event.transactionId} and must get the same reply as the first time; ${firstSaid}`,
    );
  }
  const player = actual !== undefined ? moved({ balanceMinor: actual, uncertain: false }) : moved({ ...before });
  return { player, transactions: [], discrepancies };
}

function describeReply(reply: { status: number; body: unknown } | undefined): string {
  if (!reply) return 'was missing';
  return `was ${reply.status} ${truncate(JSON.stringify(reply.body) ?? String(reply.body), 200)}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
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
  return { player: (id) => state.players[id], transaction: (key) => state.transactions[key] };
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
  const outcome = evaluateSettlement(viewOf(state), event, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}

/** {@link applySettlement} for a parallel group, judged as a set. */
export function applyConcurrentGroup(
  state: LedgerState,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateConcurrentGroup(viewOf(state), events, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}
