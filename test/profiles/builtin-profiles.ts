import type { BodyTemplate, ProfileInput } from '../../src/profiles/index.ts';

/*
 * aggmock's own wires as profile files, as src/profiles/builtin.ts defined them before issue 31 made
 * `default` and `betnex` built-in dialects (src/dialects/builtin): test references only. The reply
 * readers' differential test restates their reply rules from them, and the profile tests use
 * Betnex as a profile file to edit.
 */

/** The settings the default profile is built from (a subset of `callbacks`). */
export interface DefaultWireSettings {
  types: { debit: string; credit: string; rollback: string };
  rollbackStyle: 'original' | 'reference';
  amountFormat: 'decimal' | 'minor';
  extraFields: readonly ('roundId' | 'gameId' | 'currency' | 'timestamp' | 'bonus')[];
}

/** With extra field `bonus`: a free spin, a jackpot or a promotion, when the event is one: `{kind, id}`; left out otherwise. */
const BONUS_FIELD = {
  object: { kind: { from: 'bonusKind' }, id: { from: 'bonusId' } },
  omitWhenEmpty: true,
} as const;

/**
 * The documented wire: `{type, transactionId, amount, playerId}`; a 'reference'-style ROLLBACK adds
 * `referenceTransactionId` (an 'original'-style one carries the reversed DEBIT's id as its own
 * transactionId); configured extra fields follow in a fixed order; a bonus event adds `bonus`.
 */
export function defaultProfile(settings: DefaultWireSettings): ProfileInput {
  const extras: BodyTemplate = {};
  for (const name of ['roundId', 'gameId', 'currency', 'timestamp'] as const) {
    if (settings.extraFields.includes(name)) extras[name] = { from: name };
  }
  const bonus: BodyTemplate = settings.extraFields.includes('bonus') ? { bonus: BONUS_FIELD } : {};
  const core: BodyTemplate = {
    type: { from: 'type' },
    transactionId: { from: 'transactionId' },
    amount: { from: 'amount' },
    playerId: { from: 'playerId' },
  };
  const reference: BodyTemplate =
    settings.rollbackStyle === 'reference' ? { referenceTransactionId: { from: 'referenceTransactionId' } } : {};
  return {
    name: 'default',
    description:
      "aggmock's documented wire: one callback per DEBIT, CREDIT and ROLLBACK, signed in headers; reply {balance} or {error}.",
    events: {
      debit: { type: settings.types.debit, body: { ...core, ...extras, ...bonus } },
      credit: { type: settings.types.credit, body: { ...core, ...extras, ...bonus } },
      rollback: { type: settings.types.rollback, body: { ...core, ...reference, ...extras } },
    },
    amounts: { format: settings.amountFormat, as: 'number' },
    reply: {
      balance: 'balance',
      error: 'error',
      message: ['message', 'msg', 'description'],
      balanceOnRejection: true,
      codes: {
        INVALID_SIGNATURE: 'INVALID_SIGNATURE',
        PLAYER_NOT_FOUND: 'PLAYER_NOT_FOUND',
        INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
        TRANSACTION_NOT_FOUND: 'TRANSACTION_NOT_FOUND',
        INVALID_REQUEST: 'INVALID_REQUEST',
        WRONG_CURRENCY: 'WRONG_CURRENCY',
      },
    },
  };
}

/** Betnex's round body: bet and win in one callback; a DEBIT is a bet with no win, a CREDIT a win with no bet. */
const BETNEX_BODY: BodyTemplate = {
  bet_amount: { from: 'betAmount' },
  win_amount: { from: 'winAmount' },
  member_account: { from: 'playerId' },
  game_uid: { from: 'gameId', default: '0a0ac0ffee0a0ac0ffee0a0ac0ffee00' },
  game_round: { from: ['roundId', 'transactionId'] },
  serial_number: { from: 'transactionId' },
  currency_code: { from: 'currency' },
  api_key: { from: 'apiKey' },
  game_name: { from: 'gameName', default: 'aggmock test game' },
  game_provider: { from: 'provider', default: 'AGGMOCK' },
  data: { object: { bonus_type: { from: 'bonusKind' }, bonus_id: { from: 'bonusId' } } },
};

/**
 * The callbacks of the public Betnex casino API (`@betnex/sdk`): one body per round with
 * `bet_amount` and `win_amount`, `serial_number` as the idempotency key, the operator's `api_key`
 * in the body instead of a signature; reply `{success, msg, handle, money}`. No ROLLBACK.
 */
export const BETNEX_PROFILE: ProfileInput = {
  name: 'betnex',
  description:
    'Betnex casino API callbacks: bet_amount and win_amount in one body, serial_number is the idempotency key, ' +
    'api_key in the body (no signature header); reply {success, msg, handle, money}; no rollback.',
  events: {
    debit: { body: BETNEX_BODY },
    credit: { body: BETNEX_BODY },
  },
  amounts: { format: 'decimal', as: 'number' },
  reply: {
    balance: 'money',
    success: { path: 'success', equals: true },
    message: ['msg', 'message'],
    // The SDK's own example answers a duplicate with another msg ("Duplicate callback ignored").
    duplicates: 'same-outcome',
    // The SDK's createCallbackResponse writes money: 0 on a failure.
    balanceOnRejection: false,
    writes: { accepted: { msg: 'success', handle: true }, rejected: { handle: false } },
  },
  signing: { scheme: 'none' },
};
