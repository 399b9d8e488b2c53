import { encodeAmount } from '../money/index.ts';
import { setAt } from '../shared/index.ts';
import type { ReplyRules, WireReplyCode } from './schema.ts';
import type { ReplyReading } from './wire.ts';

/*
 * The wallet side of a profile's reply rules: what a wallet writes so that judgeReply, reading
 * the same rules, sees an acceptance with the balance or a rejection with its code. The
 * reference wallet writes every reply here, whatever the profile.
 */

export type ReplyOutcome =
  | { accepted: true; balanceMinor: number }
  | {
      accepted: false;
      code: WireReplyCode;
      message: string;
      /** The player's balance, when the player is known. */
      balanceMinor?: number | undefined;
      /** One entry per bad field (INVALID_REQUEST). */
      errors?: readonly unknown[] | undefined;
    };

type Scalar = string | number | boolean;

/** A value judgeReply will not take for the success value. */
function unsuccessful(equals: Scalar): Scalar {
  if (typeof equals === 'boolean') return !equals;
  if (typeof equals === 'number') return equals === 0 ? 1 : 0;
  return equals === 'error' ? 'failed' : 'error';
}

/**
 * The code a rejection carries: the profile's own when it maps one; the reason's name when the
 * wire signals rejections by an error field only; none when a success flag says it already.
 */
function errorCode(rules: ReplyRules, code: WireReplyCode): string | undefined {
  return rules.codes?.[code] ?? (rules.success ? undefined : code);
}

/**
 * The JSON body of a wallet's reply under a profile's reply rules, members in a fixed order:
 * the success flag, the error code, the message, the profile's constant members, the balance
 * (on a rejection only when the rules say rejections carry it; a wire that does not writes 0
 * there), then `errors`. `judgeReply(…, reading)` reads it back as the same verdict and balance.
 *
 * @example writeReplyBody(wireOf(c).reading('EUR'), { accepted: true, balanceMinor: 1050 }) // {balance: 10.5} (default)
 * @example writeReplyBody(betnex.reading('EUR'), { accepted: false, code: 'INSUFFICIENT_FUNDS', message: 'no' })
 * // {success: false, msg: 'no', handle: false, money: 0}
 */
export function writeReplyBody(reading: ReplyReading, outcome: ReplyOutcome): Record<string, unknown> {
  const { rules, codec } = reading;
  const out: Record<string, unknown> = {};
  if (rules.success) setAt(out, rules.success.path, outcome.accepted ? rules.success.equals : unsuccessful(rules.success.equals));
  if (!outcome.accepted) {
    const code = errorCode(rules, outcome.code);
    if (code !== undefined) setAt(out, rules.error, code);
    const messagePath = rules.message[0];
    if (messagePath) setAt(out, messagePath, outcome.message);
  }
  for (const [path, value] of Object.entries(rules.writes?.[outcome.accepted ? 'accepted' : 'rejected'] ?? {})) {
    setAt(out, path, value);
  }
  if (outcome.accepted) setAt(out, rules.balance, encodeAmount(outcome.balanceMinor, codec));
  else if (!rules.balanceOnRejection) setAt(out, rules.balance, encodeAmount(0, codec));
  else if (outcome.balanceMinor !== undefined) setAt(out, rules.balance, encodeAmount(outcome.balanceMinor, codec));
  if (!outcome.accepted && outcome.errors?.length) out.errors = outcome.errors;
  return out;
}
