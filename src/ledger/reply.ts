import type { StoredEvent } from '../callbacks/events.ts';
import { type DialectReading, judgeReply, type ReplyBalance } from '../callbacks/reply.ts';

export type { ReplyBalance } from '../callbacks/reply.ts';

/**
 * How a wallet answered one settled event. The engine settled it with the one reply judge
 * (`judgeReply`) under the active wire's reading, so `delivered` means accepted and `rejected`
 * rejected; the reply is not judged a second time here, by rules that could differ.
 */
export type ReplyOutcome = 'accepted' | 'rejected' | 'failed';

export function replyOutcome(event: Pick<StoredEvent, 'status' | 'reply'>): ReplyOutcome {
  if (event.status === 'failed' || !event.reply) return 'failed';
  return event.status === 'delivered' ? 'accepted' : 'rejected';
}

/** True when the wallet took the event: delivered, and the judge calls the reply an acceptance. */
export function isAccepted(event: Pick<StoredEvent, 'status' | 'reply'>): boolean {
  return replyOutcome(event) === 'accepted';
}

/** The balance a reply reports (acceptance or rejection), in minor units, read by the wire's rules. */
export function replyBalance(event: Pick<StoredEvent, 'reply'>, reading: DialectReading): ReplyBalance {
  return event.reply ? judgeReply(event.reply, reading).balance : { kind: 'none' };
}
