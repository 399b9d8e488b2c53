/**
 * The shadow ledger: follows every settled callback and flags what a correct wallet would not have
 * done (double debits, lost rollbacks, wrong balances, overdrafts). The pure rules are in
 * reducer.ts; this file stores them. An engine: it imports callbacks and money; it must not
 * import surfaces (admin, ui, play, verify) or the CLI.
 */

import type { CallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { toMajor } from '../money/index.ts';
import type { ReplyReading } from '../profiles/index.ts';
import type { Database } from '../storage/index.ts';
import { DEFAULT_REDUCER_OPTIONS, type ReducerOptions } from './model.ts';
import {
  type Discrepancy,
  evaluateConcurrentGroup,
  evaluateSettlement,
  type LedgerTx,
  type LedgerView,
  type PlayerLedger,
  type SettlementOutcome,
} from './reducer.ts';
import { type DiscrepancyFilter, DiscrepancyStore } from './store.ts';

export * from './reducer.ts';
export { isAccepted, type ReplyOutcome, replyBalance, replyOutcome } from './reply.ts';
export { type DiscrepancyFilter, isDiscrepancyKind } from './store.ts';

/** Transactions remembered for duplicate and rollback checks; the oldest are forgotten past this. */
export const REMEMBERED_TRANSACTIONS = 200_000;
/** Parallel groups remembered as already judged, so a late replay of one member is judged alone. */
const REMEMBERED_GROUPS = 10_000;

export interface PlayerBalance {
  playerId: string;
  balanceMinor: number | null;
  /** Major units, as the wire shows it. */
  balance: number | null;
  uncertain: boolean;
  note?: string;
  lastEventId?: number;
  updatedAt?: number;
}

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
  /** Settled events arrive through `engine.onSettled`; parallel groups are completed from `engine.outbox`. */
  engine: Pick<CallbackEngine, 'onSettled' | 'outbox'>;
  /** The same database as the outbox. */
  db: Database;
  /** How replies read in a currency; default the documented wire (`wireOf(config.callbacks).reading`). */
  reading?: (currency?: string) => ReplyReading;
  /** Discrepancies kept, like deliveries (config.callbacks.retention); unbounded when absent. */
  retention?: { maxEvents: number; maxAge: number };
  now?: () => number;
}

/**
 * The shadow ledger of SPEC §5: it watches every settled callback, checks the balance each reply
 * reports against the previous balance and the event, and records every mismatch as a
 * discrepancy in SQLite. Events sent in parallel for one player (a burst: same group, their own
 * ordering keys) are held until the whole group has settled and judged as a set.
 *
 * @example
 * const ledger = createShadowLedger({ engine, db, reading: wireOf(config.callbacks).reading });
 * ledger.discrepancies({ kind: 'double-debit' });
 */
export function createShadowLedger(options: ShadowLedgerOptions): ShadowLedger {
  const { engine, db } = options;
  const reducer: ReducerOptions = options.reading ? { reading: options.reading } : DEFAULT_REDUCER_OPTIONS;
  const store = new DiscrepancyStore(db);
  const players = new Map<string, PlayerLedger>();
  const transactions = new Map<string, LedgerTx>();
  const openGroups = new Map<string, { events: Map<number, StoredEvent>; expected: number }>();
  const judgedGroups = new Set<string>();
  const listeners = new Set<(d: Discrepancy) => void>();
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

  const record = (event: StoredEvent): Discrepancy[] => {
    const groupKey = parallelGroupKey(event);
    if (groupKey === undefined || judgedGroups.has(groupKey)) return commit(evaluateSettlement(view, event, reducer));
    const open = openGroups.get(groupKey) ?? { events: new Map<number, StoredEvent>(), expected: 0 };
    open.events.set(event.id, event);
    openGroups.set(groupKey, open);
    // The outbox says who belongs to the group; asked again only once as many have settled as it named last time.
    if (open.events.size < open.expected) return [];
    const members = engine.outbox
      .list({ group: event.group as string, playerId: event.playerId, limit: 100_000 })
      .filter((e) => parallelGroupKey(e) === groupKey);
    open.expected = members.length;
    if (!members.every((m) => open.events.has(m.id))) return [];
    const buffered = [...open.events.values()].sort((a, b) => a.id - b.id);
    openGroups.delete(groupKey);
    judgedGroups.add(groupKey);
    if (judgedGroups.size > REMEMBERED_GROUPS) judgedGroups.delete(judgedGroups.values().next().value as string);
    return commit(evaluateConcurrentGroup(view, buffered, reducer));
  };

  const reset = () => {
    players.clear();
    transactions.clear();
    openGroups.clear();
    judgedGroups.clear();
    store.clear();
  };

  const unsubscribe = engine.onSettled((event) => {
    record(event);
  });
  const unsubscribeReset = engine.outbox.onReset?.(reset);

  return {
    balances: () => [...players.values()].sort((a, b) => a.playerId.localeCompare(b.playerId)).map(toBalance),
    balance: (playerId) => {
      const p = players.get(playerId);
      return p ? toBalance(p) : undefined;
    },
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
      unsubscribeReset?.();
    },
  };
}

/**
 * Events of one group sent in parallel for one player carry their own ordering key (not the
 * player id); they form one set to judge.
 */
function parallelGroupKey(event: StoredEvent): string | undefined {
  if (event.group === undefined || event.orderingKey === event.playerId) return undefined;
  return `${event.group}\u0000${event.playerId}`;
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
