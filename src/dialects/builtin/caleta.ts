import { DEV_RSA_PRIVATE_KEY } from '../dev-keys.ts';
import type { DialectInput, Field } from '../schema.ts';
import { RS_CODES, rsaBodySigning } from './hub88.ts';

/*
 * Caleta Gaming's Generic Seamless Wallet (API 1.5): Hub88's shape (the player known by the token,
 * RS_* statuses, × 100000 amounts), with RSA-SHA256 in X-Auth-Signature and paths under /wallet.
 */

const transaction: Record<string, Field> = {
  token: { from: 'sessionToken' },
  transaction_uuid: { from: 'transactionId' },
  supplier_user: { from: 'playerId' },
  round_closed: { from: 'roundClosed', default: false },
  round: { from: ['roundId', 'transactionId'] },
  request_uuid: { from: 'requestId' },
  is_free: { from: 'bonusKind', map: { 'free-spins': true }, default: false },
  game_id: { const: 1 },
  game_code: { from: 'gameId', default: 'aggmock_test_game' },
  currency: { from: 'currency' },
  reward_uuid: { from: 'bonusId' },
  amount: { from: 'amount' },
};

/** Caleta's own OAS, as vendored by an open-source aggregator (the rules' sources cite its sections). */
const OAS =
  'Caleta OAS "System API \u2013 Operator\u2019s Guide" 1.5, vendored in valkyrie-fnd/valkyrie @ fe49faae: provider/caleta/caletagaming-caleta-gaming_system_api_operators_guide-1.5-oapi3.yaml';

/** The OAS's "WIN ERROR" list: the statuses after which Caleta stops sending a failed win again. */
const WIN_FINAL = [
  'RS_ERROR_INVALID_TOKEN',
  'RS_ERROR_INVALID_GAME',
  'RS_ERROR_USER_DISABLED',
  'RS_ERROR_WRONG_CURRENCY',
  'RS_ERROR_DUPLICATE_TRANSACTION',
  'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
  'RS_ERROR_TRANSACTION_ROLLED_BACK',
] as const;

export const CALETA: DialectInput = {
  name: 'caleta',
  description:
    "Caleta Gaming's Generic Seamless Wallet (API 1.5): /wallet/check, /wallet/balance, /wallet/bet, /wallet/win and /wallet/rollback; " +
    'JSON signed with RSA-SHA256 (X-Auth-Signature, base64); amounts × 100000; replies {status: RS_OK | RS_ERROR_…, balance, request_uuid}.',
  sources: [
    {
      title: 'Caleta Gaming system API operators guide 1.5 (OpenAPI 3, vendored in valkyrie-fnd/valkyrie provider/caleta)',
      grade: 'primary',
    },
    { title: 'valkyrie-fnd/valkyrie provider/caleta (auth_signature.go, amount.go)', grade: 'secondary' },
  ],
  unknown: [
    'game_id is an integer id in Caleta\u2019s catalog; aggmock sends 1 (its games have hex ids, sent as game_code).',
    'Whether the optional X-Msg-Timestamp header is checked by wallets; aggmock does not send it.',
  ],
  credentials: {
    privateKey: {
      kind: 'private-key',
      default: DEV_RSA_PRIVATE_KEY,
      description: 'the RSA private key (PEM text or a file path) Caleta signs with; give your wallet the matching public key',
    },
  },
  session: {
    token: 'required',
    checkedOn: ['bet'],
    // The OAS: RS_ERROR_TOKEN_EXPIRED is a bet's answer only; wins and rollbacks of a session that
    // moved on (a /wallet/check swapped its token) are still paid.
    staleToken: { refusedOn: ['bet'], acceptedOn: ['win', 'rollback'] },
  },
  request: { encoding: 'json' },
  amounts: { format: 'minor', as: 'number', exponent: 5 },
  signing: rsaBodySigning('X-Auth-Signature'),
  operations: {
    authenticate: {
      path: '/wallet/check',
      fields: { token: { from: 'sessionToken' }, request_uuid: { from: 'requestId' } },
      // The check answers {token} (the OAS's inline_response_200_1): the launch token swapped for the
      // one later calls carry. A refusal still carries its status (RS_ERROR_INVALID_TOKEN: "when
      // token never existed"), and is read by it.
      reply: { code: false, balance: false, token: 'token' },
    },
    balance: {
      path: '/wallet/balance',
      fields: {
        token: { from: 'sessionToken' },
        request_uuid: { from: 'requestId' },
        supplier_user: { from: 'playerId' },
        game_id: { const: 1 },
        game_code: { from: 'gameId', default: 'aggmock_test_game' },
      },
    },
    bet: {
      path: '/wallet/bet',
      fields: { ...transaction, bet: { const: 'spin' } },
      // "BET ERROR": a bet answered with an unknown error (or no JSON) is ROLLED_BACK, never sent again.
      reply: { retryCodes: [], rolledBackOn: ['RS_ERROR_UNKNOWN', 'RS_ERROR_TIMEOUT'] },
    },
    win: {
      path: '/wallet/win',
      fields: { ...transaction, reference_transaction_uuid: { from: 'betTransactionId' }, jackpot_win: { const: 0 } },
      // "WIN ERROR": a failed win is retried until complete unless the answer is one of these (the OAS's list).
      reply: { finalCodes: [...WIN_FINAL] },
    },
    rollback: {
      path: '/wallet/rollback',
      fields: {
        token: { from: 'sessionToken' },
        transaction_uuid: { from: 'transactionId' },
        round_closed: { from: 'roundClosed', default: true },
        round: { from: ['roundId', 'betTransactionId'] },
        request_uuid: { from: 'requestId' },
        reference_transaction_uuid: { from: 'betTransactionId' },
        is_free: { from: 'bonusKind', map: { 'free-spins': true }, default: false },
        game_id: { const: 1 },
        game_code: { from: 'gameId', default: 'aggmock_test_game' },
        user: { from: 'playerId' },
      },
      // "ROLLBACK ERROR": retried until complete unless the answer is one of these (the win's, and a bad signature).
      reply: { finalCodes: [...WIN_FINAL, 'RS_ERROR_INVALID_SIGNATURE'] },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source: OAS + ' (info.description "Handling errors")',
      grade: 'vendor',
    },
    'unknown-rollback': {
      source:
        OAS +
        ' ("ROLLBACK ERROR": RS_ERROR_TRANSACTION_DOES_NOT_EXIST is a final answer); RS_OK "preferred" in valkyrie-fnd/valkyrie @ fe49faae: provider/caleta/test/caleta_integration_test.go (Test_Rollback_Missing_Referenced_Transaction)',
      grade: 'vendor',
    },
    'reply-balance': {
      source:
        OAS + ' (/wallet/check answers a token and no balance; /wallet/bet, /wallet/win, /wallet/rollback answer the balance)',
      grade: 'vendor',
    },
    'session-token': {
      source:
        OAS +
        ' (components.schemas.token; /wallet/check answers the token to use); valkyrie-fnd/valkyrie @ fe49faae: provider/caleta/test/caleta_integration_test.go (Test_Check_New_Session)',
      grade: 'vendor',
    },
    'stale-token': {
      source:
        OAS +
        ' (components.schemas.status: "RS_ERROR_TOKEN_EXPIRED - when a new token exists (this rule applies only for /wallet/bet)"; /wallet/check: "Change the initial token … for a new one"): a win or rollback with the old token is paid',
      grade: 'vendor',
    },
    refusal: {
      source: OAS + ' (components.schemas.status); the unknown-player code is aggmock\u2019s guess: any refusal passes',
      grade: 'vendor',
    },
    retry: {
      source:
        OAS +
        ' ("Handling errors": a win or a rollback is sent again on every status but the "WIN ERROR" and "ROLLBACK ERROR" lists, `finalCodes`; a bet answered RS_ERROR_UNKNOWN, RS_ERROR_TIMEOUT or no JSON is rolled back, `rolledBackOn`: the bet ends failed and its ROLLBACK follows)',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'status',
    ok: 'RS_OK',
    retryCodes: ['RS_ERROR_TIMEOUT'],
    codes: {
      ...RS_CODES,
      ALREADY_SETTLED: 'RS_ERROR_TRANSACTION_ROLLED_BACK',
    },
    balance: 'balance',
    message: [],
    echo: { requestId: 'request_uuid' },
    // A rollback of an unknown bet: the OAS lists RS_ERROR_TRANSACTION_DOES_NOT_EXIST among the final
    // rollback answers ("ROLLBACK ERROR"), so both pass; "Caleta prefers that Valkyrie just returns OK and
    // balance" (valkyrie provider/caleta/test/caleta_integration_test.go) is the safer reading: a warning.
    safer: { unknownRollback: 'acknowledge' },
    guessed: ['PLAYER_NOT_FOUND'],
    duplicates: 'same-outcome',
  },
};
