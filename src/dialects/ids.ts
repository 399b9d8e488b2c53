import { createHash } from 'node:crypto';
import type { CallFacts } from './request.ts';

/*
 * The ids aggmock makes for a call it sends outside the engine (verify's checks, the contracts'
 * requests): derived from what the call is, so the same call made twice is the same call on the
 * wire (a duplicate is a true repeat), and a contract's call and the bet its provider state made
 * agree on their round.
 */

/** A request id derived from what the call is, so a repeat of the same call is a retry of it (Hub88's request_uuid). */
export function requestIdOf(facts: Omit<CallFacts, 'requestId' | 'createdAt'>, unique?: string): string {
  const key = JSON.stringify([
    facts.operation,
    facts.playerId,
    facts.currency,
    facts.transactionId,
    facts.betTransactionId,
    facts.amountMinor,
    facts.winMinor,
    facts.roundId,
    facts.bonus,
    unique,
  ]);
  const hex = createHash('sha256').update(key).digest('hex');
  // UUID-shaped (version 4 bits set): some wallets check request ids for that form.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The round of a bet: digits made from its transaction id (Pragmatic's roundId is a Long), the
 * same for every repeat of it and for its win and rollback.
 */
export function roundIdOf(transactionId: string): string {
  const hex = createHash('sha256').update(transactionId).digest('hex').slice(0, 13);
  return String(Number.parseInt(hex, 16));
}

/**
 * An id aggmock makes up, within the longest id the dialect's wallets accept (`calls.idMaxLength`,
 * Red Tiger's 32) less `room` for a suffix it may get (`-round`): as it is when it fits, else `v`
 * and hex digits of its hash — the same id for the same base, so a repeat stays a repeat.
 *
 * @example fitId('verify-mhx1k2a3b4c5d6-12345', 26) // 'v3f1c…' (26 characters)
 */
export function fitId(base: string, maxLength: number | undefined, room = 0): string {
  if (maxLength === undefined) return base;
  const limit = Math.max(maxLength - room, 8);
  if (base.length <= limit) return base;
  return `v${createHash('sha256').update(base).digest('hex')}`.slice(0, limit);
}
