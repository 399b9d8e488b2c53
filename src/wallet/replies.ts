import type { OutcomeCode } from '../dialects/index.ts';
import type { FieldError } from '../http/errors.ts';

/**
 * A reply body: in the wallet, the neutral answer the store keeps (`dialect.ts` renders it in the
 * dialect when it is sent); a planted fault's raw body (a 500) goes out as it is.
 */
export type WalletReplyBody = Record<string, unknown>;

export type WalletReplyStatus = 200 | 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 500;

/** What the wallet answers: the HTTP status and the JSON body, stored verbatim for idempotent replays. */
export interface WalletReply {
  status: WalletReplyStatus;
  body: WalletReplyBody;
}

export interface RejectOptions {
  /** Minor units; included when the player is known. */
  balanceMinor?: number;
  /** Overrides the code's usual status (415 for a wrong content type, 409 for a conflict). */
  status?: WalletReplyStatus;
  errors?: FieldError[];
  /** The currency the balance is in (default: the wire's). */
  currency?: string;
}

/** Builds the store's replies: acceptance with the balance, or a refusal with aggmock's name for it. */
export interface ReplyWriter {
  balance(balanceMinor: number, currency?: string): WalletReply;
  reject(code: OutcomeCode, message: string, options?: RejectOptions): WalletReply;
}
