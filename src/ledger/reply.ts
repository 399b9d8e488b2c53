import type { StoredEvent } from '../callbacks/events.ts';
import { judgeReply, type ReplyBalance } from '../callbacks/reply.ts';
import type { AmountFormat } from '../money/index.ts';

export type { ReplyBalance } from '../callbacks/reply.ts';

/**
 * How a wallet answered one settled event. The engine settled it with the one reply judge
 * (`judgeReply`), so `delivered` already means accepted; the judge is asked again only so that a
 * stored reply is never read by a second set of rules.
 */
export type ReplyOutcome = 'accepted' | 'rejected' | 'failed';

export function replyOutcome(event: Pick<StoredEvent, 'status' | 'reply'>): ReplyOutcome {
  if (event.status === 'failed' || !event.reply) return 'failed';
  if (event.status === 'rejected') return 'rejected';
  return judgeReply(event.reply).verdict === 'accepted' ? 'accepted' : 'rejected';
}

/** True when the wallet took the event: delivered, and the judge calls the reply an acceptance. */
export function isAccepted(event: Pick<StoredEvent, 'status' | 'reply'>): boolean {
  return replyOutcome(event) === 'accepted';
}

/** The `balance` a reply reports (acceptance or rejection), in minor units, decoded in the wire's amount format. */
export function replyBalance(event: Pick<StoredEvent, 'reply'>, format: AmountFormat): ReplyBalance {
  return event.reply ? judgeReply(event.reply, format).balance : { kind: 'none' };
}
