import type { DialectInput, Field, Fields } from '../schema.ts';

/*
 * aggmock's documented wire (docs/callbacks.md): one JSON callback per DEBIT, CREDIT and ROLLBACK,
 * POSTed to the webhook URL itself, signed in headers by aggmock's schemes (`callbacks.signing`);
 * reply `{balance}` or `{error, message?, balance?}`. Four settings shape it, and only it:
 * `callbacks.types`, `rollbackStyle`, `amountFormat` and `extraFields`, so it is a small function
 * of them. Its bytes are the profile renderer's of old (test/dialects/profiles-as-dialects.test.ts).
 */

/** The settings the default dialect is built from (a subset of `callbacks`). */
export interface DefaultWireSettings {
  types: { debit: string; credit: string; rollback: string };
  rollbackStyle: 'original' | 'reference';
  amountFormat: 'decimal' | 'minor';
  extraFields: readonly ('roundId' | 'gameId' | 'currency' | 'timestamp' | 'bonus')[];
}

/** The credential aggmock's own wires (and a profile file's) write in the body. */
export const API_KEY_IN_BODY = {
  apiKey: { description: 'the API key written in the body (callbacks.apiKey)', kind: 'text' },
} as const satisfies DialectInput['credentials'];

/** With extra field `bonus`: a free spin, a jackpot or a promotion, when the event is one: `{kind, id}`; left out otherwise. */
const BONUS: Field = { object: { kind: { from: 'bonusKind' }, id: { from: 'bonusId' } }, omitWhenEmpty: true };

/** The wallet's codes are aggmock's names, each answered with its HTTP status (a profile file's too). */
export const AGGMOCK_STATUSES = {
  INVALID_SIGNATURE: 401,
  PLAYER_NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 402,
  TRANSACTION_NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  WRONG_CURRENCY: 400,
} as const;

/**
 * The documented wire: `{type, transactionId, amount, playerId}`; a 'reference'-style ROLLBACK adds
 * `referenceTransactionId` (an 'original'-style one carries the reversed DEBIT's id as its own
 * transactionId); configured extra fields follow in a fixed order; a bonus event adds `bonus`.
 *
 * @example defaultDialect({ types: { debit: 'DEBIT', credit: 'CREDIT', rollback: 'ROLLBACK' }, rollbackStyle: 'original', amountFormat: 'decimal', extraFields: [] })
 */
export function defaultDialect(settings: DefaultWireSettings): DialectInput {
  const original = settings.rollbackStyle === 'original';
  const extras: Fields = {};
  for (const name of ['roundId', 'gameId', 'currency', 'timestamp'] as const) {
    if (settings.extraFields.includes(name)) extras[name] = { from: name };
  }
  const bonus: Fields = settings.extraFields.includes('bonus') ? { bonus: BONUS } : {};
  const body = (type: string, transactionId: Field, reference: Fields = {}): Fields => ({
    type: { const: type },
    transactionId,
    amount: { from: 'amount' },
    playerId: { from: 'playerId' },
    ...reference,
    ...extras,
  });
  const own: Field = { from: 'transactionId' };
  return {
    name: 'default',
    description:
      "aggmock's documented wire: one callback per DEBIT, CREDIT and ROLLBACK, signed in headers; reply {balance} or {error}.",
    credentials: API_KEY_IN_BODY,
    operations: {
      bet: { path: '', fields: { ...body(settings.types.debit, own), ...bonus } },
      win: { path: '', fields: { ...body(settings.types.credit, own), ...bonus } },
      rollback: {
        path: '',
        fields: original
          ? body(settings.types.rollback, { from: ['betTransactionId', 'transactionId'] })
          : body(settings.types.rollback, own, { referenceTransactionId: { from: 'betTransactionId' } }),
      },
    },
    amounts: { format: settings.amountFormat, as: 'number' },
    calls: { rollbackStyle: settings.rollbackStyle, winsNameBet: false, idHexDigits: 24 },
    signing: { algorithm: 'scheme' },
    reply: {
      code: 'error',
      codes: Object.fromEntries(Object.keys(AGGMOCK_STATUSES).map((code) => [code, code])),
      balance: 'balance',
      message: ['message', 'msg', 'description'],
      duplicates: 'same-reply',
      statuses: AGGMOCK_STATUSES,
    },
  };
}
