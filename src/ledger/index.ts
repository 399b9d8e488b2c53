import type { DialectReading } from '../callbacks/reply.ts';
import type { Operation } from '../dialects/index.ts';
/**
 * The shadow ledger: follows every settled callback and flags what a correct wallet would not have
 * done (double debits, lost rollbacks, wrong balances, overdrafts). The pure rules are in
 * reducer.ts; this file stores them. An engine: it imports callbacks and money; it must not
 * import surfaces (admin, ui, play, verify) or the CLI.
 */

import type { CallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { toMajor } from '../money/index.ts';
import type { Database } from '../storage/index.ts';
import { DEFAULT_REDUCER_OPTIONS, type ReducerOptions } from './model.ts';
import {
  type Discrepancy,
  evaluateWindow,
  type LedgerTx,
  type LedgerView,
  MAX_WINDOW,
  type PlayerLedger,
  type SettlementOutcome,
  type TimedEvent,
} from './reducer.ts';
import { type DiscrepancyFilter, DiscrepancyStore } from './store.ts';

export * from './history.ts';
export * from './reducer.ts';
export { isAccepted, replyBalance, replyOutcome } from './reply.ts';

/** Transactions remembered for duplicate and rollback checks; the oldest are forgotten past this. */
export const REMEMBERED_TRANSACTIONS = 200_000;
/** Ordering keys whose last answer is remembered before the idle ones are swept. */
const IDLE_LINES_SWEEP = 1024;

export type PlayerBalance = Omit<PlayerLedger, 'balanceMinor'> & {
  balanceMinor: number | null;
  /** Major units, as the wire shows it. */
  balance: number | null;
};

export interface ShadowLedger {
  /** Last known balance per player, sorted by player id. */
  balances(): PlayerBalance[];
  balance(playerId: string): PlayerBalance | undefined;
  /** Known balances in minor units, e.g. for the `insufficient-funds` scenario. */
  knownBalances(): Record<string, number>;
  /** Newest first. */
  discrepancies(filter?: DiscrepancyFilter): Discrepancy[];
  discrepancyCount(filter?: Omit<DiscrepancyFilter, 'limit' | 'beforeId'>): number;
  onDiscrepancy(listener: (discrepancy: Discrepancy) => void): () => void;
  /** Judges one settled event (the engine subscription calls this; tests and tools may too). */
  record(event: StoredEvent): Discrepancy[];
  /** Forgets balances and transactions and deletes the stored discrepancies. */
  reset(): void;
  /** Stops listening to the engine. */
  close(): void;
}

export interface ShadowLedgerOptions {
  /**
   * Settled events arrive through `engine.onSettled`; `engine.onEnqueued` says which are still in
   * flight, so events that overlap in time are judged together. Without it each settled event is
   * judged on its own, as if every event went out after the previous one's answer.
   */
  engine: Pick<CallbackEngine, 'onSettled'> & Partial<Pick<CallbackEngine, 'onEnqueued' | 'outbox'>>;
  /** The same database as the outbox. */
  db: Database;
  /** How replies read in a currency; default the documented wire (`readingOf(config.callbacks)`). */
  reading?: (currency?: string, operation?: Operation) => DialectReading;
  /** Discrepancies kept, like deliveries (config.callbacks.retention); unbounded when absent. */
  retention?: { maxEvents: number; maxAge: number };
  now?: () => number;
}

/** An event sent but not yet settled: when it was stored, on the ledger's logical clock. */
interface InFlight {
  orderingKey: string;
  storedAt: number;
}

/**
 * The shadow ledger of SPEC §5: it watches every settled callback and checks each player's
 * replies with the one history checker — every balance must be explained by some order of the
 * accepted events that respects real time — recording every mismatch as a discrepancy in SQLite.
 *
 * Real time is the ledger's own logical clock: each settlement is one tick, each enqueue happens
 * between two. An event was sent no earlier than it was stored, and no earlier than the answer to
 * the event before it on its ordering key (the engine sends one at a time per key). Settled events
 * wait in their player's window while another event of that player that may overlap them is in
 * flight; when none is, the window is judged and pruned, so the player's state is again a single
 * known balance and the search stays small.
 *
 * @example
 * const ledger = createShadowLedger({ engine, db, reading: readingOf(config.callbacks) });
 * ledger.discrepancies({ kind: 'double-debit' });
 */
export function createShadowLedger(options: ShadowLedgerOptions): ShadowLedger {
  const { engine, db } = options;
  const reducer: ReducerOptions = options.reading ? { reading: options.reading } : DEFAULT_REDUCER_OPTIONS;
  const store = new DiscrepancyStore(db);
  const players = new Map<string, PlayerLedger>();
  const transactions = new Map<string, LedgerTx>();
  /** Settled, not yet judged events per player, in settle order. */
  const windows = new Map<string, TimedEvent[]>();
  /** Stored, not yet settled events per player (a player's map is kept when empty: like its balance, it is needed again). */
  const inFlight = new Map<string, Map<number, InFlight>>();
  /** The tick of the last answer per ordering key, while that key has events in flight. */
  const lineAnswered = new Map<string, number>();
  const listeners = new Set<(d: Discrepancy) => void>();
  let tick = 0;
  let forgetAt = IDLE_LINES_SWEEP;
  let insertedSincePrune = 0;

  const view: LedgerView = { player: (id) => players.get(id), transaction: (key) => transactions.get(key) };

  const commit = (outcome: SettlementOutcome): Discrepancy[] => {
    players.set(outcome.player.playerId, outcome.player);
    for (const tx of outcome.transactions) {
      transactions.delete(tx.key); // re-insert: the most recently touched are forgotten last
      transactions.set(tx.key, tx);
    }
    while (transactions.size > REMEMBERED_TRANSACTIONS) {
      const oldest = transactions.keys().next().value as string;
      transactions.delete(oldest);
    }
    const stored = store.insert(outcome.discrepancies);
    insertedSincePrune += stored.length;
    // Like the outbox: pruned every so many rows, so the table stays near its bound at little cost.
    if (options.retention && insertedSincePrune >= Math.max(10, Math.floor(options.retention.maxEvents / 10))) {
      insertedSincePrune = 0;
      store.prune((options.now ?? Date.now)(), options.retention);
    }
    for (const d of stored) for (const listener of listeners) safely(() => listener(d));
    return stored;
  };

  /** Earliest an event of this key can still be sent: after its stored time and the last answer on its key. */
  const earliestSend = (f: InFlight) => Math.max(f.storedAt, (lineAnswered.get(f.orderingKey) ?? Number.NEGATIVE_INFINITY) + 0.5);

  const enqueued = (event: StoredEvent) => {
    const mine = inFlight.get(event.playerId) ?? new Map<number, InFlight>();
    inFlight.set(event.playerId, mine);
    mine.set(event.id, { orderingKey: event.orderingKey, storedAt: tick + 0.25 });
  };

  const record = (event: StoredEvent): Discrepancy[] => {
    tick += 1;
    const mine = inFlight.get(event.playerId);
    const announced = mine?.get(event.id);
    mine?.delete(event.id);
    // Unannounced (no onEnqueued, or recorded by hand): sent after the previous answer, like a sequential delivery.
    const sentAt = announced ? earliestSend(announced) : tick - 0.5;
    lineAnswered.set(event.orderingKey, tick);
    const window = windows.get(event.playerId) ?? [];
    window.push({ event, sentAt, answeredAt: tick });
    forgetIdleLines();
    // Another event of this player that may still be applied before some answer in the window keeps it open.
    const overlapping = mine !== undefined && mayOverlap(mine.values());
    if (overlapping && window.length <= MAX_WINDOW) {
      windows.set(event.playerId, window);
      return [];
    }
    windows.delete(event.playerId);
    return commit(evaluateWindow(view, window, reducer));
  };

  const mayOverlap = (flying: Iterable<InFlight>) => {
    for (const f of flying) if (earliestSend(f) < tick) return true;
    return false;
  };

  /** Keys with nothing in flight need no memory of their last answer. */
  const forgetIdleLines = () => {
    if (lineAnswered.size < forgetAt) return;
    const busy = new Set<string>();
    for (const mine of inFlight.values()) for (const f of mine.values()) busy.add(f.orderingKey);
    for (const key of lineAnswered.keys()) if (!busy.has(key)) lineAnswered.delete(key);
    // Amortised: the next sweep waits until the map has doubled again.
    forgetAt = Math.max(IDLE_LINES_SWEEP, 2 * lineAnswered.size);
  };

  const reset = () => {
    players.clear();
    transactions.clear();
    windows.clear();
    inFlight.clear();
    lineAnswered.clear();
    store.clear();
  };

  const unsubscribe = engine.onSettled((event) => {
    record(event);
  });
  const unsubscribeEnqueued = engine.onEnqueued?.(enqueued);
  const unsubscribeReset = engine.outbox?.onReset?.(reset);

  return {
    balances: () => [...players.values()].sort((a, b) => a.playerId.localeCompare(b.playerId)).map(toBalance),
    balance: (playerId) => (players.has(playerId) ? toBalance(players.get(playerId) as PlayerLedger) : undefined),
    knownBalances: () =>
      Object.fromEntries(
        [...players.values()].flatMap((p) =>
          p.balanceMinor !== undefined && !p.uncertain ? [[p.playerId, p.balanceMinor]] : [],
        ),
      ),
    discrepancies: (filter) => store.list(filter),
    discrepancyCount: (filter) => store.count(filter),
    onDiscrepancy(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    record,
    reset,
    close() {
      unsubscribe();
      unsubscribeEnqueued?.();
      unsubscribeReset?.();
    },
  };
}

function toBalance(p: PlayerLedger): PlayerBalance {
  return {
    playerId: p.playerId,
    balanceMinor: p.balanceMinor ?? null,
    balance: p.balanceMinor === undefined ? null : toMajor(p.balanceMinor),
    uncertain: p.uncertain,
    ...(p.note ? { note: p.note } : {}),
    ...(p.lastEventId === undefined ? {} : { lastEventId: p.lastEventId }),
    ...(p.updatedAt === undefined ? {} : { updatedAt: p.updatedAt }),
  };
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // A listener (UI push, log) must never break the ledger.
  }
}
