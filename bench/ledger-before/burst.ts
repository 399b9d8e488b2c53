/** The burst rule before the one history checker, the baseline of bench/ledger.ts only. */
import type { StoredEvent } from '../../src/callbacks/events.ts';
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
} from '../../src/ledger/model.ts';
import { replyBalance, replyOutcome } from '../../src/ledger/reply.ts';
import { formatMinor } from '../../src/money/index.ts';

/**
 * Judges a set of events sent in parallel for one player (a burst) as a whole: the order the
 * wallet applied them in is unknown, so only the set is checked. The lowest balance reported is
 * the final one; it must equal start − sum of accepted bets, and no more may be accepted than
 * the start balance covered.
 */
export function evaluateConcurrentGroup(
  view: LedgerView,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  const firstEvent = events[0];
  if (!firstEvent) throw new RangeError('evaluateConcurrentGroup needs at least one event');
  const playerId = firstEvent.playerId;
  const at = Math.max(...events.map((e) => e.settledAt ?? e.createdAt));
  const lastEventId = Math.max(...events.map((e) => e.id));
  const before: PlayerLedger = view.player(playerId) ?? { playerId, uncertain: false };
  const prev = before.uncertain ? undefined : before.balanceMinor;
  const ids = events.map((e) => e.id);
  const group = firstEvent.group;
  const discrepancies: DiscrepancyDraft[] = [];
  const flag = (kind: DiscrepancyKind, expectedMinor: number | null, actualMinor: number | null, message: string) =>
    discrepancies.push({
      playerId,
      kind,
      expectedMinor,
      actualMinor,
      eventIds: ids,
      message,
      createdAt: at,
      ...(group ? { group } : {}),
    });
  const moved = (player: Partial<PlayerLedger>): PlayerLedger => ({ ...before, ...player, lastEventId, updatedAt: at });
  const judged = events.map((event) => ({
    event,
    outcome: replyOutcome(event),
    balance: replyBalance(event, options.reading(event.currency)),
  }));
  const transactions: LedgerTx[] = judged.map(({ event, outcome }) => ledgerTx(event, outcome));
  const what = `${events.length} parallel events (#${ids.join(', #')})`;

  if (judged.some((j) => j.outcome === 'failed')) {
    return {
      player: moved({ uncertain: true, note: `balance uncertain: some of ${what} failed without a reply` }),
      transactions,
      discrepancies,
    };
  }
  const unusable = judged.filter((j) => j.balance.kind === 'invalid' || (j.balance.kind === 'none' && j.outcome === 'accepted'));
  if (unusable.length > 0) {
    const kind = unusable.some((j) => j.balance.kind === 'invalid') ? 'invalid-balance' : 'missing-balance';
    flag(kind, null, null, `${what}: ${unusable.length} accepted replies carry no usable balance`);
    return {
      player: moved({ uncertain: true, note: `balance uncertain: ${what} replied without usable balances` }),
      transactions,
      discrepancies,
    };
  }

  const signed = (e: StoredEvent) =>
    e.kind === 'debit' ? -e.amountMinor + (e.winMinor ?? 0) : e.kind === 'credit' ? e.amountMinor : 0;
  const accepted = judged.filter((j) => j.outcome === 'accepted');
  const sumDelta = accepted.reduce((sum, j) => sum + signed(j.event), 0);
  const betTotal = accepted.reduce((sum, j) => sum + (j.event.kind === 'debit' ? j.event.amountMinor : 0), 0);
  const reported = judged.flatMap((j) => (j.balance.kind === 'ok' ? [j.balance.minor] : []));
  if (reported.length === 0) return { player: moved({}), transactions, discrepancies };
  const actualFinal = Math.min(...reported);

  // Without a baseline, the first bet the wallet applied reported start − its amount: the highest such sum is the start.
  const derived = accepted.flatMap((j) => (j.balance.kind === 'ok' ? [j.balance.minor - signed(j.event)] : []));
  const start = prev ?? (derived.length > 0 ? Math.max(...derived) : Math.max(...reported));
  const expectedFinal = start + sumDelta;

  const creditTotal = sumDelta + betTotal;
  if (betTotal > start + creditTotal) {
    flag(
      'overdraft',
      start,
      actualFinal,
      `${what}: ${accepted.length} bets totalling ${formatMinor(betTotal)} were accepted with a balance of only ${formatMinor(start)}`,
    );
  }
  if (actualFinal !== expectedFinal) {
    flag(
      'balance-drift',
      expectedFinal,
      actualFinal,
      `${what}: ${accepted.length} of ${events.length} accepted (net ${formatMinor(sumDelta)}) from ${formatMinor(start)} should leave ${formatMinor(expectedFinal)}, the replies show ${formatMinor(actualFinal)}`,
    );
  }
  if (actualFinal < 0 && !discrepancies.some((d) => d.kind === 'overdraft')) {
    flag('overdraft', 0, actualFinal, `${what}: the wallet reports a negative balance ${formatMinor(actualFinal)}`);
  }
  const note = prev === undefined ? `baseline ${formatMinor(start)} derived from ${what}` : before.note;
  return {
    player: moved({ balanceMinor: actualFinal, uncertain: false, ...(note ? { note } : {}) }),
    transactions,
    discrepancies,
  };
}
