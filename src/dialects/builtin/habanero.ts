import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * Habanero's seamless wallet: JSON POSTs whose top-level `type` names the request
 * (playerdetailrequest, fundtransferrequest), authorised by the shared passkey in `auth.passkey`.
 * A fundtransferrequest carries funds.fundinfo[]: a negative amount is a debit (the bet), a
 * non-negative one a credit (the win); a refund carries funds.refund and isrefund. Replies wrap
 * everything in playerdetailresponse / fundtransferresponse: {status: {success, nofunds, …}, balance}.
 */

/** The members every request carries. */
const envelope = (type: string): Record<string, Field> => ({
  type: { const: type },
  // "dt sent": when this request is sent (a retry's own time); dtevent stays the event's.
  dtsent: { from: 'sentTimestamp' },
  auth: { object: { brandid: { credential: 'brandId' }, passkey: { credential: 'passkey' } } },
});

const basegame: Field = { object: { keyname: { from: 'gameId', default: 'SGAggmockTest' } } };

/** The members of a fundtransferrequest around its funds. */
const transfer = (flags: { isrefund: boolean; isretry: boolean }): Record<string, Field> => ({
  token: { from: 'sessionToken' },
  accountid: { from: 'playerId' },
  // A refund's round is its bet's; a bet or a win without a round is a round of its own.
  gameinstanceid: { from: ['roundId', flags.isrefund ? 'betTransactionId' : 'transactionId'] },
  friendlygameinstanceid: { from: ['roundId', flags.isrefund ? 'betTransactionId' : 'transactionId'] },
  isretry: { const: flags.isretry },
  isrefund: { const: flags.isrefund },
  isrecredit: { const: false },
  gamedetails: { object: { keyname: { from: 'gameId', default: 'SGAggmockTest' } } },
});

/** One fundinfo entry: a transfer of the call's amount, negated for a debit. */
const fundinfo = (extra: Record<string, Field>, amount: Field, transferid: Field = { from: 'transactionId' }): Field => ({
  object: {
    transferid,
    currencycode: { from: 'currency' },
    amount,
    dtevent: { from: 'timestamp' },
    ...extra,
  },
});

const fundTransfer = (entries: Field[]): Record<string, Field> => ({
  ...envelope('fundtransferrequest'),
  basegame,
  fundtransferrequest: {
    object: {
      ...transfer({ isrefund: false, isretry: false }),
      funds: { object: { debitandcredit: { const: entries.length > 1 }, fundinfo: { list: entries } } },
    },
  },
});

export const HABANERO: DialectInput = {
  name: 'habanero',
  description:
    "Habanero's seamless wallet: JSON POSTs typed playerdetailrequest (/auth) and fundtransferrequest (/transaction) with the passkey in auth.passkey; " +
    'a bet is a fundinfo entry with a negative amount, a win a non-negative one referring to its bet (initialdebittransferid), both in one call with debitandcredit, a refund funds.refund with isrefund; ' +
    'replies {fundtransferresponse: {status: {success, nofunds, …}, balance}}. ' +
    "Habanero's own documentation was not readable: the wire follows two open-source operator integrations.",
  sources: [
    {
      title:
        'An open-source operator integration (t1 habanero_service_api: auth, transaction and query handlers, the request record, the response templates)',
      grade: 'secondary',
    },
    {
      title:
        'A second open-source operator integration (HabaneroController: playerdetailrequest, fundtransferrequest, gamestatemode)',
      grade: 'secondary',
    },
  ],
  unknown: [
    "Habanero's own wallet documentation: every field here is as two operator integrations read it.",
    'The paths: Habanero posts each request kind to a URL the operator configures; aggmock uses /auth and /transaction (as one integration names them) and writes the kind in type too.',
    'Which of gameinstanceid and friendlygameinstanceid is the round (the integrations read one each): aggmock writes the round id in both.',
    'isretry and retrycount of a resent bet or win: aggmock sends isretry false on bets and wins, true on a refund (both integrations only read a refund with isretry true).',
    'Whether a refund amount is signed: aggmock sends the refunded amount as a positive number (one integration credits a non-negative amount and debits a negative one).',
    'The transfer id of the win in a bet-and-win call: aggmock writes the bet\u2019s id followed by -win.',
    'brandgameid, machinename, locale, username and the other gamedetails members: aggmock sends none of them.',
    'Codes for refusals other than a lack of money: a refusal is status.success false with a message, and only nofunds: true says why; aggmock reads any other refusal (nofunds false) as one outcome.',
    'isbonus, jpwin, jpcont and bonusdetails of a free-spin or jackpot transfer: aggmock sends none of them.',
  ],
  credentials: {
    passkey: {
      kind: 'secret',
      description: 'the passkey Habanero sends in auth.passkey, which the wallet compares',
      default: 'aggmock-dev-passkey',
    },
    brandId: {
      kind: 'text',
      description: 'the brand id Habanero sends in auth.brandid',
      default: '00000000-0000-0000-0000-000000000000',
    },
  },
  session: { token: 'required', checkedOn: ['authenticate', 'bet'] },
  request: { encoding: 'json' },
  amounts: { format: 'decimal', as: 'number' },
  signing: { algorithm: 'none' },
  operations: {
    authenticate: {
      path: '/auth',
      fields: {
        ...envelope('playerdetailrequest'),
        playerdetailrequest: { object: { token: { from: 'sessionToken' }, gamelaunch: { const: true } } },
      },
      reply: { root: 'playerdetailresponse' },
    },
    bet: {
      path: '/transaction',
      fields: fundTransfer([fundinfo({ gamestatemode: { const: 1 } }, { from: 'amount', as: 'negate' })]),
      reply: { root: 'fundtransferresponse' },
    },
    win: {
      path: '/transaction',
      fields: fundTransfer([
        fundinfo(
          {
            gamestatemode: { from: 'roundClosed', map: { true: 2, false: 0 }, default: 2 },
            initialdebittransferid: { from: 'betTransactionId' },
          },
          { from: 'amount' },
        ),
      ]),
      reply: { root: 'fundtransferresponse' },
    },
    betWin: {
      path: '/transaction',
      fields: fundTransfer([
        fundinfo({ gamestatemode: { const: 1 } }, { from: 'betAmount', as: 'negate' }),
        fundinfo(
          { gamestatemode: { const: 2 }, initialdebittransferid: { from: 'transactionId' } },
          { from: 'winAmount' },
          { template: '{transactionId}-win' },
        ),
      ]),
      reply: { root: 'fundtransferresponse' },
    },
    rollback: {
      path: '/transaction',
      fields: {
        ...envelope('fundtransferrequest'),
        basegame,
        fundtransferrequest: {
          object: {
            ...transfer({ isrefund: true, isretry: true }),
            funds: {
              object: {
                debitandcredit: { const: false },
                refund: {
                  object: {
                    transferid: { from: 'transactionId' },
                    originaltransferid: { from: 'betTransactionId' },
                    currencycode: { from: 'currency' },
                    amount: { from: 'amount' },
                  },
                },
              },
            },
          },
        },
      },
      reply: { root: 'fundtransferresponse' },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'wendell1101/t1softxxx @ 7a67db73: admin/application/controllers/habanero_service_api.php (handleSingleTransaction: a repeated transferid succeeds with the current balance)',
      grade: 'third-party',
    },
    'unknown-rollback': {
      source: 'wendell1101/t1softxxx @ 7a67db73: admin/application/controllers/habanero_service_api.php (handleRefund)',
      grade: 'third-party',
    },
    'reply-balance': {
      source:
        'wendell1101/t1softxxx @ 7a67db73: admin/application/controllers/habanero_service_api.php (fundtransferresponse.balance)',
      grade: 'third-party',
    },
    'session-token': {
      source:
        'wendell1101/t1softxxx @ 7a67db73: admin/application/controllers/habanero_service_api.php (the token is checked on playerdetailrequest and bets)',
      grade: 'third-party',
    },
    'stale-token': noTokenHandedOver('Habanero'),
    refusal: {
      source:
        'wendell1101/t1softxxx @ 7a67db73: admin/application/controllers/habanero_service_api.php (status.success false; nofunds true)',
      grade: 'third-party',
    },
    retry: { source: 'unknown', grade: 'unknown' },
  },
  reply: {
    code: 'status.nofunds',
    success: { path: 'status.success', equals: true },
    // Only nofunds says why; every other refusal is nofunds false (like Blue Ocean's shared "403").
    codes: {
      INSUFFICIENT_FUNDS: true,
      INVALID_SIGNATURE: false,
      PLAYER_NOT_FOUND: false,
      INVALID_TOKEN: false,
      INVALID_REQUEST: false,
    },
    balance: 'balance',
    message: ['status.message'],
    duplicates: 'current-balance',
  },
};
