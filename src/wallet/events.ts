import type { AggmockConfig } from '../config/index.ts';
import { parseJsonBytes } from '../http/body.ts';
import { ApiError, describeFieldErrors, type FieldError } from '../http/errors.ts';
import { MAX_ID_LENGTH } from '../http/limits.ts';
import type { AmountFormat } from '../money/index.ts';
import { type ParsedWireEvent, parseBody, type Wire, type WireSettings, wireOf } from '../profiles/index.ts';

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

export type CallbackWireOptions = Pick<AggmockConfig['callbacks'], 'types' | 'amountFormat'> & {
  /** Only the `negative-amounts` faulty wallet reads negative amounts. */
  allowNegative?: boolean;
};

/** How the wallet reads bodies: the wire and the parse options. */
export interface CallbackBodySchema {
  wire: Wire;
  allowNegative: boolean;
  /** The player's currency, for a body that names none. */
  currencyOf?: (playerId: string) => string | undefined;
}

/**
 * The wire the wallet reads. With the default profile it reads both rollback styles (a
 * `referenceTransactionId`, when present, names the reversed DEBIT), so one wallet serves either
 * aggregator setting; every other profile is read as it is written.
 */
export function walletWire(callbacks: WireSettings): Wire {
  return wireOf(callbacks.dialect === 'default' ? { ...callbacks, rollbackStyle: 'reference' } : callbacks);
}

/**
 * The documented body `{type, transactionId, amount, playerId}` (plus `referenceTransactionId`)
 * with these type strings and amount format; extra fields are allowed and ignored.
 */
export function callbackBodySchema(options: CallbackWireOptions): CallbackBodySchema {
  return { wire: documentedWire(options.types, options.amountFormat), allowNegative: options.allowNegative === true };
}

/** The default profile with the given type strings and amount format, EUR, nothing extra. */
export function documentedWire(types: CallbackWireOptions['types'], amountFormat: AmountFormat): Wire {
  return walletWire({
    dialect: 'default',
    types,
    amountFormat,
    rollbackStyle: 'reference',
    extraFields: [],
    currency: 'EUR',
    currencies: {},
    apiKey: '',
    signing: { scheme: 'timestamped' },
  });
}

export type ParsedCallback =
  | { ok: true; event: WalletEvent; apiKey?: string }
  | { ok: false; message: string; errors: FieldError[] };

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
  const parsed = parseBody(schema.wire, json, {
    allowNegative: schema.allowNegative,
    maxIdLength: MAX_ID_LENGTH,
    ...(schema.currencyOf ? { currencyOf: schema.currencyOf } : {}),
  });
  if (!parsed.ok) return { ok: false, message: describeFieldErrors(parsed.errors), errors: parsed.errors };
  const { apiKey } = parsed.event;
  return { ok: true, event: walletEventOf(parsed.event), ...(apiKey === undefined ? {} : { apiKey }) };
}

/** A parsed wire event as a wallet transaction: a whole round is a DEBIT that carries its win. */
function walletEventOf(e: ParsedWireEvent): WalletEvent {
  const kind: WalletEventKind = e.kind === 'credit' ? 'CREDIT' : e.kind === 'rollback' ? 'ROLLBACK' : 'DEBIT';
  return {
    kind,
    playerId: e.playerId,
    transactionId: e.transactionId,
    amountMinor: e.amountMinor,
    ...(kind === 'ROLLBACK' ? { debitTransactionId: e.referenceTransactionId ?? e.transactionId } : {}),
    ...(e.winMinor === undefined ? {} : { winMinor: e.winMinor }),
    ...(e.currency === undefined ? {} : { currency: e.currency }),
  };
}
