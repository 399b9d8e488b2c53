import { DEV_RSA_PRIVATE_KEY } from '../dev-keys.ts';
import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * Hub88's Operator Wallet API: Hub88 calls the operator's wallet, one path per operation, JSON
 * bodies signed with RSA-SHA256 over the raw body (base64 in X-Hub88-Signature), amounts as
 * integers × 100000, every reply {status: "RS_OK" | "RS_ERROR_…", balance, request_uuid, …}.
 */

const common: Record<string, Field> = {
  user: { from: 'playerId' },
  request_uuid: { from: 'requestId' },
};

/** The members every money call carries. */
const transaction: Record<string, Field> = {
  user: { from: 'playerId' },
  transaction_uuid: { from: 'transactionId' },
  supplier_transaction_id: { from: 'transactionId' },
  token: { from: 'sessionToken' },
  round_closed: { from: 'roundClosed', default: false },
  round: { from: ['roundId', 'transactionId'] },
  reward_uuid: { from: 'bonusId' },
  request_uuid: { from: 'requestId' },
  is_free: { from: 'bonusKind', map: { 'free-spins': true }, default: false },
  is_aggregated: { const: false },
  game_code: { from: 'gameId', default: 'aggmock_test_game' },
  currency: { from: 'currency' },
  amount: { from: 'amount' },
};

/** The RS_* statuses of each refusal (Caleta's are the same, and one more). */
export const RS_CODES = {
  INVALID_SIGNATURE: 'RS_ERROR_INVALID_SIGNATURE',
  PLAYER_NOT_FOUND: ['RS_ERROR_USER_DISABLED', 'RS_ERROR_UNKNOWN'],
  INSUFFICIENT_FUNDS: 'RS_ERROR_NOT_ENOUGH_MONEY',
  TRANSACTION_NOT_FOUND: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
  INVALID_REQUEST: ['RS_ERROR_WRONG_SYNTAX', 'RS_ERROR_WRONG_TYPES'],
  WRONG_CURRENCY: 'RS_ERROR_WRONG_CURRENCY',
  INVALID_TOKEN: ['RS_ERROR_INVALID_TOKEN', 'RS_ERROR_TOKEN_EXPIRED'],
  DUPLICATE_TRANSACTION: 'RS_ERROR_DUPLICATE_TRANSACTION',
};

/** RSA-SHA256 by the private key over the raw body, base64, in a header (Caleta signs the same way). */
export const rsaBodySigning = (header: string): DialectInput['signing'] => ({
  algorithm: 'rsa-sha256',
  key: 'privateKey',
  payload: { over: 'body' },
  encoding: 'base64',
  place: { header },
});

export const HUB88: DialectInput = {
  name: 'hub88',
  description:
    "Hub88's Operator Wallet API: /user/info, /user/balance, /transaction/bet, /transaction/win and /transaction/rollback under the wallet's base URL; " +
    'JSON signed with RSA-SHA256 (X-Hub88-Signature, base64); amounts are integers × 100000; replies carry status RS_OK or RS_ERROR_… and echo request_uuid.',
  sources: [
    {
      title: 'Hub88 Operator API reference: Wallet API',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/wallet-api',
      grade: 'primary',
    },
    {
      title: 'Hub88 Seamless Wallet response statuses (operator API)',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/seamless-wallet-response-statuses-operator-api',
      grade: 'primary',
    },
    {
      title: 'Hub88 TransferWallet API (amounts: integer multiplied by 100000)',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/transferwallet-api',
      grade: 'primary',
    },
  ],
  unknown: [
    'The "bet" member of a bet (a description of the bet placed) is not sent: its format is not documented in what we read.',
    "The operator side's retry policy for wins and rollbacks (the supplier side rolls a failed bet back).",
    'The reply to a rollback that arrives before its bet.',
  ],
  credentials: {
    privateKey: {
      kind: 'private-key',
      default: DEV_RSA_PRIVATE_KEY,
      description:
        'the RSA private key (PEM text or a file path) Hub88 signs with; give your wallet the matching public key (aggmock profiles show hub88 prints it)',
    },
  },
  session: { token: 'required', checkedOn: ['bet'] },
  request: { encoding: 'json' },
  amounts: { format: 'minor', as: 'number', exponent: 5 },
  signing: rsaBodySigning('X-Hub88-Signature'),
  operations: {
    // /user/info answers the player's data; the balance has its own call (Wallet API).
    authenticate: { path: '/user/info', fields: common, reply: { balance: false } },
    balance: {
      path: '/user/balance',
      fields: { ...common, token: { from: 'sessionToken' }, game_code: { from: 'gameId', default: 'aggmock_test_game' } },
    },
    bet: { path: '/transaction/bet', fields: transaction },
    win: {
      path: '/transaction/win',
      fields: { ...transaction, reference_transaction_uuid: { from: 'betTransactionId' } },
    },
    rollback: {
      path: '/transaction/rollback',
      fields: {
        user: { from: 'playerId' },
        transaction_uuid: { from: 'transactionId' },
        supplier_transaction_id: { from: 'transactionId' },
        token: { from: 'sessionToken' },
        round_closed: { from: 'roundClosed', default: true },
        round: { from: ['roundId', 'betTransactionId'] },
        request_uuid: { from: 'requestId' },
        reference_transaction_uuid: { from: 'betTransactionId' },
        game_code: { from: 'gameId', default: 'aggmock_test_game' },
      },
    },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'Hub88 status table, https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/seamless-wallet-response-statuses-operator-api (RS_ERROR_DUPLICATE_TRANSACTION only for a repeat with other details: an exact repeat is RS_OK and moves no money); "the response will be the same for all duplicate requests" is on the supplier page, https://docs.hub88.io/developer-docs/supplier-api-reference/wallet-api',
      grade: 'vendor',
      relax: 'a repeat answered RS_OK with the balance as it is now passes; only a second movement fails',
    },
    'unknown-rollback': {
      source:
        'unknown: the status table lists RS_ERROR_TRANSACTION_DOES_NOT_EXIST but not for a rollback; aggmock accepts RS_OK with the balance unchanged or that refusal',
      grade: 'unknown',
    },
    'reply-balance': {
      source:
        'https://docs.hub88.io/developer-docs/operator-api-reference/wallet-api ("Wallet API": /user/info answers the player\u2019s data, the balance comes from /user/balance and every transaction reply)',
      grade: 'vendor',
    },
    'session-token': {
      source:
        'https://docs.hub88.io/developer-docs/operator-api-reference/wallet-api (the launch token is sent on every call; no reply hands over another)',
      grade: 'vendor',
    },
    'stale-token': noTokenHandedOver('Hub88'),
    refusal: {
      source:
        'status table, https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/seamless-wallet-response-statuses-operator-api; the unknown-player code is aggmock\u2019s guess (RS_ERROR_USER_DISABLED or RS_ERROR_UNKNOWN): any refusal passes',
      grade: 'vendor',
    },
    retry: {
      source:
        'https://docs.hub88.io/developer-docs/supplier-api-reference/wallet-api (retry and rollback policy: no retry code in a reply; 408, 429 and 5xx retried)',
      grade: 'vendor',
    },
  },
  reply: {
    code: 'status',
    ok: 'RS_OK',
    retryCodes: [],
    codes: RS_CODES,
    balance: 'balance',
    message: [],
    echo: { requestId: 'request_uuid' },
    // The operator page says only that an exact repeat is no DUPLICATE_TRANSACTION and moves no money;
    // "the same response" (the first balance again) is on the supplier page: aggmock's safer reading.
    duplicates: 'current-balance',
    safer: { duplicates: 'same-reply' },
    guessed: ['PLAYER_NOT_FOUND'],
  },
};
