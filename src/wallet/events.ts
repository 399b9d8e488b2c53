import { z } from 'zod';
import type { AggmockConfig } from '../config/index.ts';
import { parseJsonBytes } from '../http/body.ts';
import { ApiError, describeFieldErrors, type FieldError, fieldErrors } from '../http/errors.ts';
import { MAX_ID_LENGTH } from '../http/limits.ts';
import { type AmountFormat, decodeAmount } from '../money/index.ts';

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
}

export type CallbackWireOptions = Pick<AggmockConfig['callbacks'], 'types' | 'amountFormat'> & {
  /** Only the `negative-amounts` faulty wallet reads negative amounts. */
  allowNegative?: boolean;
};

/**
 * The webhook body of SPEC §3: `{type, transactionId, amount, playerId}`, plus
 * `referenceTransactionId` on a reference-style ROLLBACK. Extra fields (roundId, gameId, currency,
 * timestamp) are allowed and ignored, so an aggregator that adds fields never breaks the wallet.
 */
export function callbackBodySchema(options: CallbackWireOptions) {
  const kindOfType = new Map<string, WalletEventKind>([
    [options.types.debit, 'DEBIT'],
    [options.types.credit, 'CREDIT'],
    [options.types.rollback, 'ROLLBACK'],
  ]);
  const typeNames = [...kindOfType.keys()] as [string, ...string[]];
  return z
    .object({
      type: z.enum(typeNames),
      transactionId: id,
      amount: amountSchema(options.amountFormat, options.allowNegative === true),
      playerId: id,
      referenceTransactionId: id.optional(),
    })
    .transform(({ type, transactionId, amount, playerId, referenceTransactionId }): WalletEvent => {
      const kind = kindOfType.get(type) as WalletEventKind;
      return {
        kind,
        playerId,
        transactionId,
        amountMinor: amount,
        ...(kind === 'ROLLBACK' ? { debitTransactionId: referenceTransactionId ?? transactionId } : {}),
      };
    });
}

const id = z.string().min(1, 'expected a non-empty string').max(MAX_ID_LENGTH, `expected at most ${MAX_ID_LENGTH} characters`);

/**
 * A wire amount → minor units, refusing a third decimal instead of rounding someone's money. Zero
 * is legitimate (a free spin, a losing round closed) and moves nothing; negative amounts are refused.
 */
function amountSchema(format: AmountFormat, allowNegative: boolean) {
  const expected =
    format === 'minor'
      ? 'a whole number of minor units, 0 or more, e.g. 1050 for 10.50'
      : 'a JSON number in major units, 0 or more, with at most 2 decimals, e.g. 10.5';
  return z.number({ error: `expected ${expected}` }).transform((value, ctx) => {
    const minor = decodeAmount(value, format);
    if (minor === undefined || (minor < 0 && !allowNegative)) {
      ctx.addIssue({ code: 'custom', message: `expected ${expected}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return minor;
  });
}

export type CallbackBodySchema = ReturnType<typeof callbackBodySchema>;

export type ParsedCallback = { ok: true; event: WalletEvent } | { ok: false; message: string; errors: FieldError[] };

/**
 * Parses the raw body bytes into an event, or says which field is wrong. Parsing happens only
 * after the signature was verified over these same bytes.
 */
export function parseCallbackBody(rawBody: Uint8Array, schema: CallbackBodySchema): ParsedCallback {
  let json: unknown;
  try {
    // Strict UTF-8 and bounded nesting: the same checks as every aggmock route.
    json = parseJsonBytes(rawBody);
  } catch (error) {
    const errors = error instanceof ApiError && error.errors ? error.errors : [{ field: '(body)', message: String(error) }];
    return { ok: false, message: describeFieldErrors(errors), errors };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, event: result.data };
  const errors = fieldErrors(result.error.issues, json);
  return { ok: false, message: describeFieldErrors(errors), errors };
}
