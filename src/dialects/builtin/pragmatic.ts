import type { DialectInput, Field } from '../schema.ts';

/*
 * Pragmatic Play's Seamless Wallet API: one `.html` path per call, form-urlencoded bodies, an MD5
 * over the sorted parameters with the secret key appended, sent as the `hash` field; replies are
 * JSON {cash, bonus, error: 0, description}; error 100 means "retry".
 */

const player: Record<string, Field> = {
  userId: { from: 'playerId' },
  providerId: { const: 'PragmaticPlay' },
  token: { from: 'sessionToken' },
};

const money: Record<string, Field> = {
  userId: { from: 'playerId' },
  gameId: { from: 'gameId', default: 'vs20aggmock' },
  roundId: { from: ['roundId', 'transactionId'] },
  amount: { from: 'amount' },
  reference: { from: 'transactionId' },
  providerId: { const: 'PragmaticPlay' },
  timestamp: { from: 'timestampMs' },
  roundDetails: { const: 'spin' },
  bonusCode: { from: 'bonusId' },
  token: { from: 'sessionToken' },
};

/** Pragmatic's specification as an integrator summarised it section by section (the rules' sources cite its sections). */
const SPEC = 'Pragmatic "Integration API Specification" as summarised by an integrator (search-index document 61200119308)';

export const PRAGMATIC: DialectInput = {
  name: 'pragmatic',
  description:
    "Pragmatic Play's Seamless Wallet API: authenticate, balance, bet, result, refund, endRound and promoWin as POSTs to /<name>.html, " +
    'form-urlencoded, signed with MD5 over the sorted parameters plus the secret key (field hash); replies {cash, bonus, error, description}, error 100 = retry.',
  sources: [
    {
      title: 'Pragmatic Play Integration API Specification (Seamless Wallet API, section III), as summarised by an integrator',
      grade: 'secondary',
    },
    {
      title: 'An open-source operator integration (pragmaticplay_service_api generateHash, routes *.html)',
      grade: 'secondary',
    },
  ],
  unknown: [
    'roundId is a Long in the specification; aggmock sends its own round ids, which are not numeric.',
    'Whether amounts are written with exactly two decimals ("10.50") or as the shortest number ("10.5"): aggmock writes two.',
    "The providerId value Pragmatic sends to a given operator (aggmock sends 'PragmaticPlay').",
  ],
  credentials: {
    secretKey: {
      kind: 'secret',
      description: 'the secret key appended to the sorted parameters before the MD5',
      default: 'testKey',
    },
  },
  session: { token: 'optional', checkedOn: ['authenticate'] },
  request: { encoding: 'form' },
  amounts: { format: 'decimal', as: 'string' },
  signing: {
    algorithm: 'md5',
    payload: { over: 'params', sort: 'key', pair: '=', join: '&', suffix: '{credential.secretKey}' },
    encoding: 'hex',
    place: { field: 'hash' },
  },
  operations: {
    authenticate: {
      path: '/authenticate.html',
      fields: {
        token: { from: 'sessionToken' },
        providerId: { const: 'PragmaticPlay' },
        gameId: { from: 'gameId', default: 'vs20aggmock' },
      },
      // The reply's optional token is "the player token/session (can be configured to be returned in all later API
      // calls)" (Pragmatic Integration API Specification §3.4, P1 in docs/research/vendor-rules.md): adopted when answered.
      reply: { token: 'token' },
    },
    balance: { path: '/balance.html', fields: player },
    bet: { path: '/bet.html', fields: money },
    win: { path: '/result.html', fields: money },
    rollback: {
      path: '/refund.html',
      fields: {
        userId: { from: 'playerId' },
        reference: { from: 'betTransactionId' },
        providerId: { const: 'PragmaticPlay' },
        amount: { from: 'amount' },
        gameId: { from: 'gameId', default: 'vs20aggmock' },
        roundId: { from: ['roundId', 'betTransactionId'] },
        timestamp: { from: 'timestampMs' },
        token: { from: 'sessionToken' },
      },
      reply: { balance: false },
    },
    endRound: {
      path: '/endRound.html',
      fields: {
        userId: { from: 'playerId' },
        gameId: { from: 'gameId', default: 'vs20aggmock' },
        roundId: { from: 'roundId' },
        providerId: { const: 'PragmaticPlay' },
        token: { from: 'sessionToken' },
      },
      // §3.17: 130 "endRound error, retry" is endRound's own retry code, beside 100.
      reply: { retryCodes: [100, 130] },
    },
    promoWin: {
      path: '/promoWin.html',
      fields: {
        providerId: { const: 'PragmaticPlay' },
        timestamp: { from: 'timestampMs' },
        userId: { from: 'playerId' },
        campaignId: { from: 'bonusId', default: '1' },
        campaignType: { const: 'T' },
        amount: { from: 'amount' },
        currency: { from: 'currency' },
        reference: { from: 'transactionId' },
      },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source: SPEC + ', \u00a73.6 bet, \u00a73.11 refund: a repeat answers error 0 with the current balance and moves no money',
      grade: 'vendor',
    },
    'unknown-rollback': {
      source: SPEC + ', \u00a73.11 refund: error 0, or an error code, moving no money',
      grade: 'vendor',
    },
    'reply-balance': {
      source: SPEC + ', \u00a73.11 refund (the reply carries no balance); \u00a73.4 authenticate, \u00a73.6 bet (cash and bonus)',
      grade: 'vendor',
    },
    'session-token': {
      source: SPEC + ', \u00a73.4 authenticate (the reply may carry a token)',
      grade: 'vendor',
    },
    'stale-token': {
      source:
        SPEC +
        ', \u00a73.4: unknown whether the token authenticate was called with is refused afterwards (the reply\u2019s token "can be configured to be returned in all later API calls"); aggmock judges no call carrying it',
      grade: 'unknown',
    },
    refusal: {
      source:
        SPEC +
        ', \u00a73.17 error codes (1 insufficient funds, 2 player not found, 4 token expired, 5 bad hash, 7 bad parameters)',
      grade: 'vendor',
    },
    retry: {
      source: SPEC + ', \u00a73.17 error codes (100 internal error: retried; 130 endRound error: retried, endRound only)',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'error',
    ok: 0,
    retryCodes: [100],
    codes: {
      INSUFFICIENT_FUNDS: 1,
      PLAYER_NOT_FOUND: 2,
      INVALID_TOKEN: 4,
      INVALID_SIGNATURE: 5,
      INVALID_REQUEST: 7,
    },
    balance: { sum: ['cash', 'bonus'] },
    message: ['description'],
    duplicates: 'current-balance',
  },
};
