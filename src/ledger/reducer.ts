import type { EventKind, StoredEvent } from '../callbacks/events.ts';
import { type AmountFormat, formatMinor } from '../money/index.ts';
import { type ReplyBalance, type ReplyOutcome, replyBalance, replyOutcome } from './reply.ts';

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

export const DISCREPANCY_KINDS = [
  'double-debit',
  'double-credit',
  'double-rollback',
  'rollback-not-restored',
  'rollback-moved-money',
  'duplicate-reply-differs',
  'rejected-moved-money',
  'balance-drift',
  'overdraft',
  'missing-balance',
  'invalid-balance',
] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/** A discrepancy before storage gives it an id. `createdAt` is the event's settle time, so runs replay identically. */
export interface DiscrepancyDraft {
  playerId: string;
  kind: DiscrepancyKind;
  /** What the ledger expected the balance to be (minor units); null when it cannot say. */
  expectedMinor: number | null;
  /** What the wallet reported (minor units); null when the reply had no usable balance. */
  actualMinor: number | null;
  eventIds: number[];
  message: string;
  createdAt: number;
  /** The scenario run, when the event belonged to one. */
  group?: string;
}

export interface Discrepancy extends DiscrepancyDraft {
  id: number;
}

export interface PlayerLedger {
  playerId: string;
  /** Last balance the wallet reported (minor units); undefined before the first reply. */
  balanceMinor?: number;
  /** True after a failed event or an unusable reply: the next reply sets a new baseline. */
  uncertain: boolean;
  /** Why the balance was (re-)baselined or became uncertain. */
  note?: string;
  lastEventId?: number;
  updatedAt?: number;
}

/** What the ledger remembers of one transaction, to judge duplicates and rollbacks. */
export interface LedgerTx {
  key: string;
  eventId: number;
  kind: EventKind;
  playerId: string;
  transactionId: string;
  amountMinor: number;
  /** 'failed' = no reply: the wallet may or may not have applied it. */
  outcome: ReplyOutcome;
  reply?: { status: number; body: unknown };
  rolledBack: boolean;
}

/** Read access to what the ledger knows; the storage decides how it keeps it. */
export interface LedgerView {
  player(playerId: string): PlayerLedger | undefined;
  transaction(key: string): LedgerTx | undefined;
}

/** The result of one settlement: the player's new ledger, the transaction records to store, the discrepancies. */
export interface SettlementOutcome {
  player: PlayerLedger;
  transactions: LedgerTx[];
  discrepancies: DiscrepancyDraft[];
}

export interface ReducerOptions {
  /** How the wire encodes `balance`: major units with 2 decimals (default) or minor units. */
  amountFormat: AmountFormat;
}

const DEFAULT_OPTIONS: ReducerOptions = { amountFormat: 'decimal' };

/** Idempotency key of SPEC §3: same type, same player, same transactionId. */
export function transactionKey(kind: EventKind, playerId: string, transactionId: string): string {
  return `${kind}\u0000${playerId}\u0000${transactionId}`;
}

/** What the ledger remembers of a settled event, to judge later duplicates and rollbacks. */
function ledgerTx(event: StoredEvent, outcome: LedgerTx['outcome']): LedgerTx {
  return {
    key: transactionKey(event.kind, event.playerId, event.transactionId),
    eventId: event.id,
    kind: event.kind,
    playerId: event.playerId,
    transactionId: event.transactionId,
    amountMinor: event.amountMinor,
    outcome,
    ...(event.reply ? { reply: event.reply } : {}),
    rolledBack: false,
  };
}

/**
 * Judges one settled, sequentially delivered event against what the ledger knew.
 *
 * @example
 * const { player, discrepancies } = evaluateSettlement(view, settledDebit, { amountFormat: 'decimal' });
 */
export function evaluateSettlement(
  view: LedgerView,
  event: StoredEvent,
  options: ReducerOptions = DEFAULT_OPTIONS,
): SettlementOutcome {
  const at = event.settledAt ?? event.createdAt;
  const before: PlayerLedger = view.player(event.playerId) ?? { playerId: event.playerId, uncertain: false };
  const prev = before.uncertain ? undefined : before.balanceMinor;
  const outcome = replyOutcome(event);
  const balance = replyBalance(event, options.amountFormat);
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
    expected = prev - amount;
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
    first.reply.status === event.reply.status &&
    deepEqual(first.reply.body, event.reply.body);
  if (sameReply) return { player: moved({}), transactions: [], discrepancies };

  const actual = balance.kind === 'ok' ? balance.minor : undefined;
  const firstSaid = `first reply (event #${first.eventId}) ${describeReply(first.reply)}, this one ${describeReply(event.reply)}`;
  if (actual !== undefined && prev !== undefined && actual !== prev) {
    const delta = actual - prev;
    const kind: DiscrepancyKind =
      event.kind === 'debit' && delta === -event.amountMinor
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
    const firstBalance = first.reply ? replyBalance({ reply: first.reply }, ctx.options.amountFormat) : undefined;
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

/**
 * Judges a set of events sent in parallel for one player (a burst) as a whole: the order the
 * wallet applied them in is unknown, so only the set is checked. The lowest balance reported is
 * the final one; it must equal start − sum of accepted bets, and no more may be accepted than
 * the start balance covered.
 */
export function evaluateConcurrentGroup(
  view: LedgerView,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_OPTIONS,
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
    balance: replyBalance(event, options.amountFormat),
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

  const signed = (e: StoredEvent) => (e.kind === 'debit' ? -e.amountMinor : e.kind === 'credit' ? e.amountMinor : 0);
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
  options: ReducerOptions = DEFAULT_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateSettlement(viewOf(state), event, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}

/** {@link applySettlement} for a parallel group, judged as a set. */
export function applyConcurrentGroup(
  state: LedgerState,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateConcurrentGroup(viewOf(state), events, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
