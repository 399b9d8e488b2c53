import type { DialectInput, Fields } from '../schema.ts';

/*
 * The callbacks of the public Betnex casino API (`@betnex/sdk`): one body per round with
 * `bet_amount` and `win_amount`, `serial_number` as the idempotency key, the operator's `api_key`
 * in the body instead of a signature; reply `{success, msg, handle, money}`. No rollback.
 */

/** Betnex's round body: bet and win in one callback; a bet alone has no win, a win alone no bet. */
const ROUND: Fields = {
  bet_amount: { from: 'betAmount' },
  win_amount: { from: 'winAmount' },
  member_account: { from: 'playerId' },
  game_uid: { from: 'gameId', default: '0a0ac0ffee0a0ac0ffee0a0ac0ffee00' },
  game_round: { from: ['roundId', 'transactionId'] },
  serial_number: { from: 'transactionId' },
  currency_code: { from: 'currency' },
  api_key: { credential: 'apiKey' },
  game_name: { from: 'gameName', default: 'aggmock test game' },
  game_provider: { from: 'provider', default: 'AGGMOCK' },
  data: { object: { bonus_type: { from: 'bonusKind' }, bonus_id: { from: 'bonusId' } } },
};

export const BETNEX: DialectInput = {
  name: 'betnex',
  description:
    'Betnex casino API callbacks: bet_amount and win_amount in one body, serial_number is the idempotency key, ' +
    'api_key in the body (no signature header); reply {success, msg, handle, money}; no rollback.',
  sources: [{ title: '@betnex/sdk (npm): casino API callbacks and createCallbackResponse', grade: 'secondary' }],
  credentials: { apiKey: { description: 'the API key written in the body (callbacks.apiKey)', kind: 'text' } },
  operations: {
    bet: { path: '', fields: ROUND },
    win: { path: '', fields: ROUND },
  },
  amounts: { format: 'decimal', as: 'number' },
  calls: { winsNameBet: false, idHexDigits: 24 },
  signing: { algorithm: 'none' },
  reply: {
    codes: {},
    success: { path: 'success', equals: true },
    balance: 'money',
    message: ['msg', 'message'],
    // The SDK's own example answers a duplicate with another msg ("Duplicate callback ignored").
    duplicates: 'same-outcome',
    // Betnex writes money: 0 on a refusal; it is not the player's balance.
    balanceOnRejection: false,
    // createCallbackResponse's other members: msg and handle.
    writes: { accepted: { msg: 'success', handle: true }, rejected: { handle: false } },
  },
};
