import type { DialectInput, Field } from '../schema.ts';

/*
 * Red Tiger's seamless wallet: /auth, /stake, /payout and /refund, JSON authorised by a static
 * "Authorization: Basic <api key>" header; amounts as decimal strings with two decimals; replies
 * {success, result: {balance: {cash, bonus}}}, errors HTTP 400 {success: false, error: {code}}.
 */

const base: Record<string, Field> = {
  token: { from: 'sessionToken' },
  userId: { from: 'playerId' },
  casino: { const: 'aggmock' },
  currency: { from: 'currency' },
  ip: { const: '127.0.0.1' },
};

const game: Field = {
  object: { type: { const: 'slot' }, key: { from: 'gameId', default: 'aggmock_test_game' }, version: { const: '1' } },
};
const round: Field = {
  object: { id: { from: ['roundId', 'transactionId'] }, starts: { const: true }, ends: { from: 'roundClosed', default: false } },
};

/** A stake or a payout: the transaction's amount, none of it promotional. */
const money = (kind: 'stake' | 'payout'): Record<string, Field> => ({
  ...base,
  transaction: { object: { id: { from: 'transactionId' }, [kind]: { from: 'amount' }, [`${kind}Promo`]: { const: '0.00' } } },
  game,
  round,
});

export const REDTIGER: DialectInput = {
  name: 'redtiger',
  description:
    'Red Tiger\'s seamless wallet: /auth, /stake, /payout and /refund with Authorization: Basic <api key>; amounts as strings ("10.00"); ' +
    'replies {success: true, result: {balance: {cash, bonus}}}; errors HTTP 400 {success: false, error: {code, message}}.',
  sources: [
    {
      title: 'valkyrie-fnd/valkyrie provider/redtiger (router, middleware, models, errors, model_mapper, test/integration_test)',
      url: 'https://github.com/valkyrie-fnd/valkyrie/tree/fe49faae254f20311af90157952f9c365779768a/provider/redtiger',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The vendor documents are behind a login; fields follow an open-source implementation.',
    'round.starts: aggmock sends true on every stake.',
  ],
  credentials: {
    apiKey: { kind: 'secret', description: 'the API key sent as Authorization: Basic <key>', default: 'aggmock-dev-key' },
  },
  // token `validate:"required,min=32,max=128"` (valkyrie provider/redtiger/models.go; vendor-rules.md R3).
  session: { token: 'required', checkedOn: ['authenticate', 'bet'], tokenLength: { min: 32, max: 128 } },
  // transaction.id and round.id `validate:"max=32"` (valkyrie provider/redtiger/models.go TransactionStake,
  // TransactionPayout, Round); the engine's ids fit with the default 22 hex digits (tx_<namespace>_<hex>).
  calls: { idMaxLength: 32 },
  request: { encoding: 'json', headers: { Authorization: { template: 'Basic {credential.apiKey}' } } },
  amounts: { format: 'decimal', as: 'string' },
  signing: { algorithm: 'none' },
  operations: {
    // /auth refreshes the session and answers result.token: "Use the new token returned by refresh session for
    // subsequent calls" (valkyrie provider/redtiger/wallet_service.go Auth; docs/research/vendor-rules.md R5).
    authenticate: { path: '/auth', fields: base, reply: { token: 'result.token' } },
    bet: { path: '/stake', fields: money('stake') },
    win: { path: '/payout', fields: money('payout') },
    rollback: {
      path: '/refund',
      fields: { ...base, transaction: { object: { id: { from: 'betTransactionId' }, stake: { from: 'amount' } } }, game, round },
      // The refund's reply has its balance (and currency) beside `result`, not in it: valkyrie
      // provider/redtiger/models.go, RefundResponseWrapper {success, result{token, id, stake}, balance, currency}.
      reply: { balance: { sum: ['balance.cash', 'balance.bonus'] } },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/test/integration_test.go (MAKES_A_BET_REQUEST_WITH_EXISTING_TRANSACTION_ID, TRY_TO_REFUND_A_REFUNDED_TRANSACTION: success, balance unchanged)',
      grade: 'vendor',
    },
    'unknown-rollback': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/test/integration_test.go (TRY_TO_REFUND_NON_EXISTING_TRANSACTION: 400 TransactionNotFound) and provider/redtiger/errors.go',
      grade: 'vendor',
    },
    'reply-balance': {
      source: 'valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/models.go (result.balance.cash and result.balance.bonus)',
      grade: 'vendor',
    },
    'session-token': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/wallet_service.go (Auth: "Use the new token returned by refresh session for subsequent calls")',
      grade: 'vendor',
    },
    'stale-token': {
      source:
        'unknown: valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/wallet_service.go says to use the token /auth returns, not whether the one it replaced is refused; aggmock judges no call carrying it',
      grade: 'unknown',
    },
    refusal: {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/redtiger/errors.go (codes 100\u2013501) and provider/redtiger/middleware.go (a wrong or missing API key: HTTP 401, code 100); Red Tiger\u2019s own status for it is unknown (its docs need a login): a refusal at 400 or 401 passes',
      grade: 'vendor',
    },
    retry: { source: 'unknown', grade: 'unknown' },
  },
  reply: {
    status: { retry: ['408', '429', '5xx'], answer: ['2xx'] },
    code: 'error.code',
    success: { path: 'success', equals: true },
    // errors.go maps an unknown user and an unknown session to 301 "not authorized" (test/
    // integration_test.go: userId "invalid-user" → NotAuthorized) and an unknown account to 302.
    codes: {
      INVALID_SIGNATURE: 100,
      INVALID_REQUEST: 200,
      PLAYER_NOT_FOUND: [301, 302],
      INVALID_TOKEN: 301,
      INSUFFICIENT_FUNDS: 304,
      WRONG_CURRENCY: 305,
      TRANSACTION_NOT_FOUND: 400,
      DUPLICATE_TRANSACTION: 401,
    },
    // middleware.go answers a wrong API key with HTTP 401 code 100 (the reference wallet writes that);
    // the credential checks pass any refusal that moves no money, 400 as well.
    statuses: {
      INVALID_SIGNATURE: 401,
      INVALID_REQUEST: 400,
      PLAYER_NOT_FOUND: 400,
      INVALID_TOKEN: 400,
      INSUFFICIENT_FUNDS: 400,
      WRONG_CURRENCY: 400,
      TRANSACTION_NOT_FOUND: 400,
      DUPLICATE_TRANSACTION: 400,
    },
    balance: { sum: ['result.balance.cash', 'result.balance.bonus'] },
    message: ['error.message'],
    // test/integration_test.go, Test_TRY_TO_REFUND_NON_EXISTING_TRANSACTION: 400 TransactionNotFound.
    unknownRollback: 'not-found',
    duplicates: 'same-outcome',
  },
};
