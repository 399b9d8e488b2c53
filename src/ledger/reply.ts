import type { StoredEvent } from '../callbacks/events.ts';
import { type AmountFormat, decodeAmount } from '../money/index.ts';

/**
 * How a wallet answered one settled event, read from the stored reply. A reply is accepted when
 * it was delivered (2xx) and carries no `{error}`; SPEC §3 lets a business rejection come as a
 * 2xx with `{error}` too.
 */
export type ReplyOutcome = 'accepted' | 'rejected' | 'failed';

export function replyOutcome(event: Pick<StoredEvent, 'status' | 'reply'>): ReplyOutcome {
  if (event.status === 'failed' || !event.reply) return 'failed';
  if (event.status === 'rejected') return 'rejected';
  return hasErrorField(event.reply.body) ? 'rejected' : 'accepted';
}

/** True when the wallet took the event: delivered, and no `{error}` in the reply. */
export function isAccepted(event: Pick<StoredEvent, 'status' | 'reply'>): boolean {
  return replyOutcome(event) === 'accepted';
}

export type ReplyBalance = { kind: 'none' } | { kind: 'invalid'; raw: unknown } | { kind: 'ok'; minor: number };

/** The `balance` a reply reports, in minor units, decoded in the wire's amount format. */
export function replyBalance(event: Pick<StoredEvent, 'reply'>, format: AmountFormat): ReplyBalance {
  const body = event.reply?.body;
  if (body === null || typeof body !== 'object' || !('balance' in body)) return { kind: 'none' };
  const raw = (body as { balance: unknown }).balance;
  if (raw === undefined || raw === null) return { kind: 'none' };
  const minor = decodeAmount(raw, format);
  return minor === undefined ? { kind: 'invalid', raw } : { kind: 'ok', minor };
}

function hasErrorField(body: unknown): boolean {
  return body !== null && typeof body === 'object' && 'error' in body && (body as { error: unknown }).error != null;
}
