import type { WalletReplyError } from '../callbacks/events.ts';
import type { FieldError } from '../http/errors.ts';
import { type AmountFormat, encodeAmount } from '../money/index.ts';

/** The business codes of SPEC §3 that a wallet puts in `{error}`, from the wire shapes. */
export { WALLET_REPLY_ERRORS as WALLET_ERROR_CODES } from '../callbacks/events.ts';
export type WalletErrorCode = WalletReplyError;

export interface BalanceBody {
  /** The player's balance after the event, in the configured amount format. */
  balance: number;
}

export interface RejectionBody {
  error: WalletErrorCode | 'INTERNAL_ERROR' | 'NOT_FOUND';
  message: string;
  /** The current balance, when the player is known: lets the aggregator resync its display. */
  balance?: number;
  /** INVALID_REQUEST: one entry per bad field. */
  errors?: FieldError[];
}

export type WalletReplyBody = BalanceBody | RejectionBody;

export type WalletReplyStatus = 200 | 400 | 401 | 402 | 404 | 409 | 413 | 415 | 500;

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
export const REJECTION_STATUS: Record<WalletErrorCode, WalletReplyStatus> = {
  INVALID_SIGNATURE: 401,
  PLAYER_NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 402,
  TRANSACTION_NOT_FOUND: 404,
  INVALID_REQUEST: 400,
};

export interface RejectOptions {
  /** Minor units; included when the player is known. */
  balanceMinor?: number;
  /** Overrides the code's usual status (415 for a wrong content type, 409 for a conflict). */
  status?: WalletReplyStatus;
  errors?: FieldError[];
}

/** Builds replies with balances encoded in the wire's amount format. */
export interface ReplyWriter {
  balance(balanceMinor: number): WalletReply;
  reject(code: WalletErrorCode, message: string, options?: RejectOptions): WalletReply;
}

export function replyWriter(format: AmountFormat): ReplyWriter {
  return {
    balance: (balanceMinor) => ({ status: 200, body: { balance: encodeAmount(balanceMinor, format) } }),
    reject: (code, message, options = {}) => ({
      status: options.status ?? REJECTION_STATUS[code],
      body: {
        error: code,
        message,
        ...(options.balanceMinor === undefined ? {} : { balance: encodeAmount(options.balanceMinor, format) }),
        ...(options.errors?.length ? { errors: options.errors } : {}),
      },
    }),
  };
}
