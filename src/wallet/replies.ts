import type { FieldError } from '../http/errors.ts';
import { type Wire, type WireReplyCode, writeReplyBody } from '../profiles/index.ts';

/**
 * A reply body as the profile's reply rules write it: `{balance}` / `{error, message, balance?,
 * errors?}` for the default profile, `{success, msg, handle, money}` for Betnex.
 */
export type WalletReplyBody = Record<string, unknown>;

export type WalletReplyStatus = 200 | 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 500;

/** What the wallet answers: the HTTP status and the JSON body, stored verbatim for idempotent replays. */
export interface WalletReply {
  status: WalletReplyStatus;
  body: WalletReplyBody;
}

/**
 * The HTTP status of each rejection. Every one is a 4xx because SPEC §3 retries 5xx and 429 only:
 * a business "no" must not be retried. INSUFFICIENT_FUNDS is 402 Payment Required, the status
 * payment APIs (Stripe among them) use for "the request was valid, the money is not there".
 */
export const REJECTION_STATUS: Record<WireReplyCode, WalletReplyStatus> = {
  INVALID_SIGNATURE: 401,
  PLAYER_NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 402,
  TRANSACTION_NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  WRONG_CURRENCY: 400,
};

export interface RejectOptions {
  /** Minor units; included when the player is known. */
  balanceMinor?: number;
  /** Overrides the code's usual status (415 for a wrong content type, 409 for a conflict). */
  status?: WalletReplyStatus;
  errors?: FieldError[];
  /** The currency the balance is in (default: the wire's). */
  currency?: string;
}

/** Builds replies in the active profile's shape, balances in the player's currency's decimals. */
export interface ReplyWriter {
  balance(balanceMinor: number, currency?: string): WalletReply;
  reject(code: WireReplyCode, message: string, options?: RejectOptions): WalletReply;
}

/**
 * The wallet's replies under a wire, written by the profile's rules (src/profiles/reply-writer.ts).
 * A wire with a success flag in its body (Betnex) answers every rejection with HTTP 200, as its
 * API does; the default wire uses {@link REJECTION_STATUS}.
 */
export function replyWriter(wire: Wire): ReplyWriter {
  const inBody = wire.definition.reply.success !== undefined;
  return {
    balance: (balanceMinor, currency) => ({
      status: 200,
      body: writeReplyBody(wire.reading(currency), { accepted: true, balanceMinor }),
    }),
    reject: (code, message, options = {}) => ({
      status: inBody ? 200 : (options.status ?? REJECTION_STATUS[code]),
      body: writeReplyBody(wire.reading(options.currency), {
        accepted: false,
        code,
        message,
        balanceMinor: options.balanceMinor,
        errors: options.errors,
      }),
    }),
  };
}
