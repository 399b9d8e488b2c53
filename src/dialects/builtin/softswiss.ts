import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * SoftSwiss Game Aggregator (GCP) and BGaming: /play carries actions[] (a bet, a win, both, or
 * none for a balance request), /rollback reverses an action; JSON signed with HMAC-SHA256 hex of
 * the raw body in X-REQUEST-SIGN keyed by the casino's auth token; amounts in subunits.
 */

const play: Record<string, Field> = {
  user_id: { from: 'playerId' },
  currency: { from: 'currency' },
  game: { from: 'gameId', default: 'aggmock:test' },
  game_id: { from: ['roundId', 'transactionId'] },
  finished: { from: 'roundClosed', default: false },
};

const action = (name: string, amount: 'betAmount' | 'winAmount' | 'amount', id: Field = { from: 'transactionId' }): Field => ({
  object: { action: { const: name }, action_id: id, amount: { from: amount } },
});

export const SOFTSWISS: DialectInput = {
  name: 'softswiss',
  description:
    'SoftSwiss GCP / BGaming: POST /play with actions[] (bet, win, both, or none to read the balance) and /rollback; ' +
    'JSON signed with HMAC-SHA256 hex of the body in X-REQUEST-SIGN; amounts in subunits; errors are non-2xx {code, message, balance?} (412 + code 100: no funds).',
  sources: [
    {
      title:
        'An open-source operator integration (softswiss_seamless_service_api, bgaming_seamless_service_api, generateRequestSign)',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The vendor\u2019s own document was not readable; the wire follows an operator implementation.',
    'Whether a bet and its win always come in one /play call; aggmock sends them apart unless the call is a bet-and-win.',
  ],
  credentials: {
    authToken: { kind: 'secret', description: 'the casino auth token that keys X-REQUEST-SIGN', default: 'aggmock-dev-secret' },
  },
  session: { token: 'none', checkedOn: [] },
  request: { encoding: 'json' },
  amounts: { format: 'minor', as: 'number' },
  signing: {
    algorithm: 'hmac-sha256',
    key: 'authToken',
    payload: { over: 'body' },
    encoding: 'hex',
    place: { header: 'X-REQUEST-SIGN' },
  },
  operations: {
    balance: { path: '/play', fields: { ...play, actions: { list: [] } } },
    bet: { path: '/play', fields: { ...play, actions: { list: [action('bet', 'amount')] } } },
    win: { path: '/play', fields: { ...play, actions: { list: [action('win', 'amount')] } } },
    betWin: {
      path: '/play',
      fields: {
        ...play,
        actions: {
          list: [action('bet', 'betAmount'), action('win', 'winAmount', { template: '{transactionId}-win' })],
        },
      },
    },
    rollback: {
      path: '/rollback',
      fields: {
        ...play,
        actions: {
          list: [
            {
              object: {
                action: { const: 'rollback' },
                action_id: { from: 'transactionId' },
                original_action_id: { from: 'betTransactionId' },
              },
            },
          ],
        },
      },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php (a repeated action_id answers the stored result; SoftSwiss\u2019s own document was not found)',
      grade: 'third-party',
    },
    'unknown-rollback': {
      source:
        'wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php (a rollback of an unknown action succeeds moving nothing)',
      grade: 'third-party',
    },
    'reply-balance': {
      source:
        'wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php (every 2xx carries the balance)',
      grade: 'third-party',
    },
    'session-token': {
      source:
        'wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php (no session token on the wire)',
      grade: 'third-party',
    },
    'stale-token': noTokenHandedOver('SoftSwiss'),
    refusal: {
      source:
        'wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php (100 with HTTP 412 for insufficient funds; a bad signature is HTTP 403, its body code is aggmock\u2019s guess: any refusal passes)',
      grade: 'third-party',
    },
    retry: { source: 'unknown', grade: 'unknown' },
  },
  reply: {
    status: { retry: ['408', '429', '5xx'], answer: ['2xx'] },
    code: 'code',
    codes: { INSUFFICIENT_FUNDS: 100, PLAYER_NOT_FOUND: 101, INVALID_SIGNATURE: 403, INVALID_REQUEST: 400 },
    statuses: { INSUFFICIENT_FUNDS: 412, INVALID_SIGNATURE: 403, INVALID_REQUEST: 400, PLAYER_NOT_FOUND: 400 },
    balance: 'balance',
    message: ['message'],
    duplicates: 'same-outcome',
    // The operator code answers a bad signature with HTTP 403; the body code 403 is aggmock's guess.
    guessed: ['INVALID_SIGNATURE'],
  },
};
