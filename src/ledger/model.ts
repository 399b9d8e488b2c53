import type { EventKind, StoredEvent } from '../callbacks/events.ts';
import { DEFAULT_READING, type DialectReading } from '../callbacks/reply.ts';
import type { Operation } from '../dialects/index.ts';
import type { ReplyOutcome } from './reply.ts';

/** What the shadow ledger knows and reports: discrepancy kinds, per-player state, remembered transactions. */

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
  'unknown-rollback-answer',
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
  currency?: string;
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
  /** How the wire's replies read, in an event's currency, for a call of an operation (the dialect's reading). */
  reading: (currency?: string, operation?: Operation) => DialectReading;
}

export const DEFAULT_REDUCER_OPTIONS: ReducerOptions = { reading: () => DEFAULT_READING };

/** The idempotency key: same type, same player, same transactionId. */
export function transactionKey(kind: EventKind, playerId: string, transactionId: string): string {
  return `${kind}\u0000${playerId}\u0000${transactionId}`;
}

/** What the ledger remembers of a settled event, to judge later duplicates and rollbacks. */
export function ledgerTx(event: StoredEvent, outcome: LedgerTx['outcome']): LedgerTx {
  return {
    key: transactionKey(event.kind, event.playerId, event.transactionId),
    eventId: event.id,
    kind: event.kind,
    playerId: event.playerId,
    transactionId: event.transactionId,
    amountMinor: event.amountMinor,
    ...(event.currency === undefined ? {} : { currency: event.currency }),
    outcome,
    ...(event.reply ? { reply: event.reply } : {}),
    rolledBack: false,
  };
}
