import type { FieldError } from '../http/errors.ts';

/** What an event does to a wallet, whatever type strings the aggregator is configured to send. */
export const WALLET_EVENT_KINDS = ['DEBIT', 'CREDIT', 'ROLLBACK'] as const;
export type WalletEventKind = (typeof WALLET_EVENT_KINDS)[number];

/** A callback as the wallet understands it: wire strings mapped to kinds, the amount in minor units. */
export interface WalletEvent {
  kind: WalletEventKind;
  playerId: string;
  /** The event's own id: the idempotency key, together with the kind and the player. */
  transactionId: string;
  /** Never negative; 0 is a free spin (DEBIT) or a losing round closed (CREDIT). */
  amountMinor: number;
  /**
   * ROLLBACK only: the DEBIT it reverses. It is `referenceTransactionId` when the aggregator sends
   * one (rollbackStyle "reference"), otherwise the rollback's own `transactionId` (the default).
   */
  debitTransactionId?: string;
  /** ROLLBACK only: 'CREDIT' when it takes a win back (a dialect's rollbackWin; `debitTransactionId` names the CREDIT). */
  reverses?: 'CREDIT';
  /**
   * A DEBIT of a whole round (a Betnex body with both a bet and a win): the win, paid in the same
   * transaction as the bet, under the same transaction id.
   */
  winMinor?: number;
  /** The currency the body names, when it names one; the wallet refuses one that is not the player's. */
  currency?: string;
}

/** A call the wallet could not read: why, and each wrong field (what a planted fault may answer instead of the 400). */
export interface UnreadableCall {
  ok: false;
  message: string;
  errors: FieldError[];
}
