import type { DialectInput, Field } from '../schema.ts';

/*
 * Evolution's One Wallet: /check, /balance, /debit, /credit, /cancel under the base URL, a static
 * authToken in the query, JSON with the session (sid) and a request uuid that the reply echoes;
 * replies {status: "OK" | code, balance, bonus, uuid}; TEMPORARY_ERROR means "retry".
 */

const base: Record<string, Field> = {
  sid: { from: 'sessionToken' },
  userId: { from: 'playerId' },
  uuid: { from: 'requestId' },
};

/** The game a call is played in: the round's id (else the transaction's) and the table. */
const game: Field = {
  object: {
    id: { from: ['roundId', 'transactionId'] },
    type: { const: 'slots' },
    details: { object: { table: { object: { id: { from: 'gameId', default: 'aggmock01' }, vid: { const: '' } } } } },
  },
};

/** A debit, credit or cancel: `idFacts` name its transaction id, `refFacts` its refId: the debit's own id, which its credit and cancel repeat. */
const money = (
  idFacts: ('betTransactionId' | 'transactionId')[],
  refFacts: ('betTransactionId' | 'transactionId')[],
): Record<string, Field> => ({
  ...base,
  currency: { from: 'currency' },
  game,
  transaction: {
    object: {
      id: { from: idFacts },
      // One refId per bet, never the round's: a credit or cancel names its own debit, and two debits of one
      // round are two bets (valkyrie test/evo_integration_test.go Test_twoUsersBjGameEachPlaying_2_hands,
      // Test_multipleDebitCreditCancelSettleTypeMixed; docs/research/vendor-rules.md E1).
      refId: { from: refFacts },
      amount: { from: 'amount' },
    },
  },
});

export const EVOLUTION: DialectInput = {
  name: 'evolution',
  description:
    "Evolution's One Wallet: /check, /balance, /debit, /credit, /cancel and /promo_payout with ?authToken=<token>; JSON carrying sid, userId and a uuid the reply echoes; " +
    'a credit settles its debit through transaction.refId; replies {status: "OK", balance, bonus, uuid}.',
  sources: [
    {
      title:
        'valkyrie-fnd/valkyrie provider/evolution (router.go, model.go, errors.go; controller_test.go cases "… example from specs")',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The vendor\u2019s own document was not readable; fields follow an open-source implementation and its spec examples.',
    'Promo payout types other than the spec example\u2019s "FreeRoundPlayableSpent" (aggmock sends only that one); a promo payout names the game it was played in (the spec example sends game null).',
    'game.details.table.vid: aggmock sends an empty string.',
  ],
  credentials: {
    authToken: { kind: 'secret', description: 'the static API token sent as ?authToken=', default: 'aggmock-dev-token' },
  },
  session: {
    token: 'required',
    checkedOn: ['authenticate', 'balance', 'bet'],
    // Test_checkUsingNewSID: after /check answered a new sid, a debit with the old one is INVALID_SID.
    // A credit with it is "INVALID_SID or BET_DOES_NOT_EXIST" there, of a bet that was refused: not judged.
    staleToken: { refusedOn: ['bet'], acceptedOn: [] },
  },
  request: { encoding: 'json', query: { authToken: { credential: 'authToken' } } },
  amounts: { format: 'decimal', as: 'number', exponent: 6 },
  signing: {
    algorithm: 'none',
  },
  operations: {
    // /check answers a fresh sid that every later call must carry: "if a new SID returned after initialization,
    // further requests storing old SID must be rejected" (valkyrie test/evo_integration_test.go Test_checkUsingNewSID;
    // wallet_service.go Check returns the refreshed session). A wallet that answers the same sid is right too.
    // CheckResponse {status, sid, uuid} carries no balance (valkyrie provider/evolution/model.go).
    authenticate: {
      path: '/check',
      fields: { ...base, channel: { object: { type: { const: 'P' } } } },
      reply: { balance: false, token: 'sid' },
    },
    balance: { path: '/balance', fields: { ...base, currency: { from: 'currency' } } },
    bet: { path: '/debit', fields: money(['transactionId'], ['transactionId']) },
    win: { path: '/credit', fields: money(['transactionId'], ['betTransactionId', 'transactionId']) },
    // A cancel carries the debit's own transaction id and its refId.
    rollback: { path: '/cancel', fields: money(['betTransactionId'], ['betTransactionId']) },
    // A payout that settles no bet (valkyrie provider/evolution/model.go PromoPayoutRequest {currency, game,
    // promoTransaction {type, id, amount, voucherId, remainingRounds}}; controller_test.go "Promo payout example
    // from specs": type "FreeRoundPlayableSpent"). The other promo types Evolution sends are not public.
    promoWin: {
      path: '/promo_payout',
      fields: {
        ...base,
        currency: { from: 'currency' },
        game,
        promoTransaction: {
          object: {
            type: { const: 'FreeRoundPlayableSpent' },
            id: { from: 'transactionId' },
            amount: { from: 'amount' },
            voucherId: { from: 'bonusId', default: 'aggmock-voucher' },
            remainingRounds: { const: 0 },
          },
        },
      },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'Evolution\u2019s wallet test tool as mirrored in valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/test/evo_integration_test.go (Test_debitBetAlreadyExist: "BET_ALREADY_EXIST or OK"; Test_debitCreditBetAlreadySettled, Test_debitCancelBetAlreadySettled: BET_ALREADY_SETTLED or OK)',
      grade: 'vendor',
      relax: 'a repeated debit may answer BET_ALREADY_EXIST or OK, a repeated credit or cancel BET_ALREADY_SETTLED or OK',
    },
    'unknown-rollback': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/test/evo_integration_test.go (Test_debitCancelBetDoesNotExist: BET_DOES_NOT_EXIST, balance kept)',
      grade: 'vendor',
    },
    'reply-balance': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/model.go (CheckResponse {status, sid, uuid}: no balance; StandardResponse {status, balance, bonus, uuid})',
      grade: 'vendor',
    },
    'session-token': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/test/evo_integration_test.go (Test_checkUsingNewSID: /check answers a new sid) and provider/evolution/wallet_service.go (Check refreshes the session)',
      grade: 'vendor',
    },
    'stale-token': {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/test/evo_integration_test.go (Test_checkUsingNewSID, step 5: "Place bet with old SID … must contain failures (status INVALID_SID)"); a credit with the old sid is not judged (step 6 settles a bet that was refused)',
      grade: 'vendor',
    },
    refusal: {
      source: 'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/errors.go (status codes and their HTTP statuses)',
      grade: 'vendor',
    },
    retry: {
      source:
        'valkyrie-fnd/valkyrie @ fe49faae: provider/evolution/errors.go (TEMPORARY_ERROR and OPERATION_IN_PROCESS are retried)',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'status',
    ok: 'OK',
    retryCodes: ['TEMPORARY_ERROR', 'OPERATION_IN_PROCESS'],
    codes: {
      INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
      PLAYER_NOT_FOUND: 'INVALID_PARAMETER',
      INVALID_TOKEN: 'INVALID_SID',
      INVALID_SIGNATURE: 'INVALID_TOKEN_ID',
      TRANSACTION_NOT_FOUND: 'BET_DOES_NOT_EXIST',
      INVALID_REQUEST: 'INVALID_PARAMETER',
      ALREADY_SETTLED: 'BET_ALREADY_SETTLED',
      DUPLICATE_TRANSACTION: 'BET_ALREADY_EXIST',
    },
    statuses: { INVALID_SIGNATURE: 401 },
    balance: { sum: ['balance', 'bonus'] },
    message: [],
    echo: { requestId: 'uuid' },
    duplicates: 'same-outcome',
    // The test tool: a repeated debit is "BET_ALREADY_EXIST or OK", a repeated credit or cancel
    // BET_ALREADY_SETTLED or OK (evo_integration_test.go), each charged or paid once.
    acknowledges: { bet: 'BET_ALREADY_EXIST', win: 'BET_ALREADY_SETTLED', rollback: 'BET_ALREADY_SETTLED' },
    // Test_debitCancelBetDoesNotExist: a cancel of an unknown bet is BET_DOES_NOT_EXIST, balance kept.
    unknownRollback: 'not-found',
  },
};
