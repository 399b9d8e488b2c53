import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * GrooveTech's Transaction API, as the casino receives it: one casino endpoint, every call a GET
 * whose query names it in `request` (getaccount, getbalance, wager, result, wagerAndResult,
 * rollback, reversewin) and carries the game session; replies are JSON {code: 200, status:
 * "Success", balance, real_balance, bonus_balance, …} with the code holding success or the error.
 * A rollback carries the wager's own transactionid; a reversewin the result's.
 */

const session: Record<string, Field> = {
  gamesessionid: { from: 'sessionToken' },
  accountid: { from: 'playerId' },
  device: { const: 'desktop' },
};

const game: Record<string, Field> = {
  gameid: { from: 'gameId', default: '80102' },
  apiversion: { const: '1.2' },
};

const gamestatus: Field = { from: 'roundClosed', map: { true: 'completed', false: 'pending' }, default: 'completed' };

/** One call: a GET of the casino endpoint itself, `request` naming it, the game session, then its own fields. */
const call = (name: string, fields: Record<string, Field>, reply?: { finalCodes: number[] }) => ({
  method: 'GET' as const,
  path: '',
  fields: { request: { const: name }, ...session, ...fields },
  ...(reply === undefined ? {} : { reply }),
});

/** The result page: "All other return codes [but success] … will result in the result attempt being resent". */
const RESULT_REPLY = { finalCodes: [] as number[] };

export const GROOVE: DialectInput = {
  name: 'groove',
  description:
    "GrooveTech's Transaction API: one casino endpoint, GET with request=getaccount, getbalance, wager, result, wagerAndResult, rollback or reversewin " +
    'and the game session in the query; replies {code: 200, status: "Success", balance, …}, errors in code (1006 out of money, 102 wager not found, 110 operation not allowed). ' +
    'How Groove authenticates its calls to the casino is not documented in what we read: aggmock signs nothing.',
  sources: [
    {
      title:
        'Groove Transaction API (casino side): Get Account, Get Balance, Wager, Result, Rollback, Rollback On Result, Rollback On Rollback',
      url: 'https://groove-docs.pages.dev/transaction-api/',
      grade: 'primary',
    },
    {
      title: 'Groove Transaction API (game provider side): Wager And Result, request and reply parameters',
      url: 'https://groove-reverse.pages.dev/transaction-api/',
      grade: 'primary',
    },
    { title: 'Groove response codes (appendix)', url: 'https://groove-docs.pages.dev/appendix/', grade: 'primary' },
  ],
  unknown: [
    'How Groove authenticates its calls to the casino (the game-to-Groove leg uses HMAC-SHA256 in Authorization): aggmock sends no signature.',
    'The device of the player: aggmock always sends desktop.',
    'The Groove game id: aggmock sends the call\u2019s game id, or 80102 (the documentation\u2019s example).',
    'CMA fields (game_mode, order): aggmock sends none of them. A free-round win (frbid) is sent only as the promotion\u2019s result without a wager.',
    'Groove resends a result on any code but success, and a rollback on any code but success, 102 and 110: aggmock does the same (`finalCodes`); a reversewin is resent on no code (its page says nothing).',
    'Whether a rollback\u2019s success is code 200 (every example) or 0 (the rollback page\u2019s words): aggmock reads both as success and writes 200.',
  ],
  credentials: {},
  session: { token: 'required', checkedOn: ['authenticate', 'balance', 'bet'] },
  request: { encoding: 'query' },
  amounts: { format: 'decimal', as: 'string' },
  signing: { algorithm: 'none' },
  operations: {
    authenticate: call('getaccount', { apiversion: { const: '1.2' } }),
    balance: call('getbalance', { nogsgameid: { from: 'gameId', default: '80102' }, apiversion: { const: '1.2' } }),
    bet: call('wager', {
      ...game,
      betamount: { from: 'amount' },
      roundid: { from: ['roundId', 'transactionId'] },
      transactionid: { from: 'transactionId' },
    }),
    // A free-round win with no wager before it: "Result requests may be received without a prior wager request
    // for FRB (free round bonus) … the result represents the win from the free round" (Groove's result page),
    // named by its frbid. Before `win`: a wallet tells the two apart by frbid, which a win has not.
    promoWin: call(
      'result',
      {
        ...game,
        result: { from: 'amount' },
        gamestatus: { const: 'completed' },
        roundid: { from: 'transactionId' },
        transactionid: { from: 'transactionId' },
        frbid: { from: ['bonusId', 'transactionId'] },
      },
      RESULT_REPLY,
    ),
    win: call(
      'result',
      {
        ...game,
        result: { from: 'amount' },
        gamestatus,
        roundid: { from: ['roundId', 'transactionId'] },
        transactionid: { from: 'transactionId' },
      },
      RESULT_REPLY,
    ),
    betWin: call('wagerAndResult', {
      ...game,
      betamount: { from: 'betAmount' },
      result: { from: 'winAmount' },
      gamestatus,
      roundid: { from: ['roundId', 'transactionId'] },
      transactionid: { from: 'transactionId' },
    }),
    rollback: call(
      'rollback',
      {
        ...game,
        rollbackAmount: { from: 'amount' },
        roundid: { from: ['roundId', 'betTransactionId'] },
        // The wager's own id: Groove names the wager a rollback reverses by its transactionid.
        transactionid: { from: 'betTransactionId' },
      },
      // The rollback page: "All other return codes result in a resending of the rollback attempt".
      { finalCodes: [102, 110] },
    ),
    rollbackWin: call('reversewin', {
      ...game,
      amount: { from: 'amount' },
      roundid: { from: ['roundId', 'betTransactionId'] },
      transactionid: { from: 'betTransactionId' },
    }),
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'https://groove-docs.pages.dev/transaction-api/ (wager, result: a repeat answers 200 "Success - duplicate request" with the current balance)',
      grade: 'vendor',
    },
    'unknown-rollback': {
      source: 'https://groove-docs.pages.dev/transaction-api/ (rollback: 102 wager not found)',
      grade: 'vendor',
    },
    'reply-balance': { source: 'https://groove-docs.pages.dev/transaction-api/ (every reply carries balance)', grade: 'vendor' },
    'session-token': {
      source:
        'https://groove-docs.pages.dev/transaction-api/ (the session id is sent on every call; no reply hands over another)',
      grade: 'vendor',
    },
    'stale-token': noTokenHandedOver('Groove'),
    refusal: { source: 'https://groove-docs.pages.dev/appendix/ (response codes; 1006 out of money)', grade: 'vendor' },
    retry: {
      source:
        'https://groove-docs.pages.dev/transaction-api/result/ ("All other return codes … will result in the result attempt being resent") and /transaction-api/rollback/ ("All other return codes result in a resending of the rollback attempt": all but 0, 102 and 110); 408, 429 and 5xx are retried on every call',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'code',
    // 200 everywhere, but the rollback page says "0 success": a wallet that follows it is read as it means.
    ok: [200, 0],
    codes: {
      INSUFFICIENT_FUNDS: 1006,
      TRANSACTION_NOT_FOUND: 102,
      ALREADY_SETTLED: 110,
      // The appendix's 110 "Operation not allowed" covers an unknown account too (and a negative
      // amount, a bad gamestatus), so it is the refusal of an unknown player; shared with ALREADY_SETTLED.
      PLAYER_NOT_FOUND: 110,
      DUPLICATE_TRANSACTION: 400,
      // 1000 Not logged on, 1003 Authentication failed: the session is not (or no longer) the account's.
      INVALID_TOKEN: [1000, 1003],
    },
    balance: 'balance',
    message: ['status'],
    // The rollback page: a rollback of a wager the casino never received is answered 102 "Wager not found".
    unknownRollback: 'not-found',
    duplicates: 'current-balance',
  },
};
