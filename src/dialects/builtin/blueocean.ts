import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * Blue Ocean Gaming's seamless wallet: one URL, every call a GET whose query carries the caller's
 * id and password, the action and its fields, and key = SHA-1(salt + the query string without
 * key, unsorted); replies {"status":"200","balance":"300.00"} with strings for both.
 */

const common: Record<string, Field> = {
  action: { from: 'operation', map: { balance: 'balance', bet: 'debit', win: 'credit', rollback: 'rollback' } },
  remote_id: { from: 'playerId' },
  username: { from: 'playerId' },
  session_id: { from: 'sessionToken' },
  game_id_hash: { from: 'gameId', default: 'aggmock_test_game' },
  gamesession_id: { from: 'sessionToken' },
  currency: { from: 'currency' },
};

const money: Record<string, Field> = {
  ...common,
  amount: { from: 'amount' },
  transaction_id: { from: 'transactionId' },
  round_id: { from: ['roundId', 'transactionId'] },
  gameplay_final: { from: 'roundClosed', map: { true: 1, false: 0 }, default: 0 },
  is_freeround_bet: { from: 'bonusKind', map: { 'free-spins': 1 }, default: 0 },
};

export const BLUEOCEAN: DialectInput = {
  name: 'blueocean',
  description:
    "Blue Ocean Gaming's seamless wallet: one URL, GET with the fields in the query (action balance, debit, credit or rollback), " +
    'callerId/callerPassword and key = SHA-1(salt + query string); replies {"status":"200","balance":"300.00"}.',
  sources: [
    {
      title:
        'Blue Ocean Gaming seamless wallet documentation (balance, debit, credit and rollback callbacks; request validation)',
      url: 'https://blueoceangaming.atlassian.net',
      grade: 'primary',
    },
  ],
  unknown: [
    'A refusal for lack of funds, a bad key and an unknown player all answer status "403"; aggmock tells them apart only by msg.',
    'No code of its own for an unknown player: the docs give a debit three answers (200, 500, 403 refusal); aggmock expects the refusal, "403".',
    'Whether a rollback carries currency (some versions add it); aggmock sends it.',
  ],
  credentials: {
    callerId: { kind: 'text', description: 'the caller id Blue Ocean sends on every call', default: 'aggmock' },
    callerPassword: { kind: 'secret', description: 'the caller password sent on every call', default: 'aggmock-dev-password' },
    salt: { kind: 'secret', description: 'the salt prepended to the query string before the SHA-1', default: 'aggmock-dev-salt' },
  },
  // session_id "string (32 - 40) Unique game session id" (Seamless player debit callback page; vendor-rules.md B1).
  session: { token: 'required', checkedOn: [], tokenLength: { min: 32, max: 40 } },
  request: {
    encoding: 'query',
    query: { callerId: { credential: 'callerId' }, callerPassword: { credential: 'callerPassword' } },
  },
  amounts: { format: 'decimal', as: 'string' },
  signing: {
    algorithm: 'sha1',
    payload: { over: 'template', template: '{credential.salt}{query}' },
    encoding: 'hex',
    place: { query: 'key' },
  },
  operations: {
    balance: { method: 'GET', path: '', fields: common },
    bet: { method: 'GET', path: '', fields: money },
    win: {
      method: 'GET',
      path: '',
      fields: { ...money, is_freeround_win: { from: 'bonusKind', map: { 'free-spins': 1 }, default: 0 } },
    },
    rollback: { method: 'GET', path: '', fields: { ...money, transaction_id: { from: 'betTransactionId' } } },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'Blue Ocean "Failed possible tests", https://blueoceangaming.atlassian.net/wiki/x/AYBMqw ("Bet again with same transid": the same response as the first time, balance unchanged)',
      grade: 'vendor',
    },
    'unknown-rollback': {
      source:
        'https://blueoceangaming.atlassian.net/wiki/spaces/iGPPD/pages/1209172038 ("Seamless player rollback callback": status "404" for an unknown transaction)',
      grade: 'vendor',
    },
    'reply-balance': {
      source:
        'https://blueoceangaming.atlassian.net/wiki/spaces/iGPPD/pages/1209172004 ("Seamless player debit callback") and https://blueoceangaming.atlassian.net/wiki/x/IIASS (credit): the balance as a string',
      grade: 'vendor',
    },
    'session-token': {
      source:
        'https://blueoceangaming.atlassian.net/wiki/spaces/iGPPD/pages/1209172004 (session_id on every call; no reply hands over another)',
      grade: 'vendor',
    },
    'stale-token': noTokenHandedOver('Blue Ocean'),
    refusal: {
      source:
        'https://blueoceangaming.atlassian.net/wiki/spaces/iGPPD/pages/1209172004 (status "403" for insufficient funds and a wrong key; "404" unknown transaction)',
      grade: 'vendor',
    },
    retry: {
      source:
        'https://blueoceangaming.atlassian.net/wiki/spaces/iGPPD/pages/1209172004 and the rollback page (status "500": try again)',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'status',
    ok: '200',
    retryCodes: ['500'],
    // "External service can respond with 3 type of status codes. 200 for success, 500 service error
    // and 403 for debit transaction refusal" (Seamless player debit callback): an unknown player is
    // such a refusal. The docs name no code of its own for it.
    codes: { INSUFFICIENT_FUNDS: '403', INVALID_SIGNATURE: '403', PLAYER_NOT_FOUND: '403', TRANSACTION_NOT_FOUND: '404' },
    balance: 'balance',
    message: ['msg'],
    // "Seamless player rollback callback": a rollback of a transaction the wallet does not have is
    // answered {"status":"404","msg":"transaction missing"}.
    unknownRollback: 'not-found',
    duplicates: 'same-reply',
  },
};
