import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * Slotegrator's Game Integration Service (GIS, "APIgrator"): one merchant callback URL, every call
 * a form POST whose `action` says what it is (balance, bet, win, refund, rollback); X-Sign is the
 * HMAC-SHA1 hex, keyed by the merchant key, of the parameters together with the X-Merchant-Id,
 * X-Timestamp and X-Nonce headers, sorted by name and written as PHP's http_build_query writes
 * them. Replies are HTTP 200 {balance, transaction_id} or {error_code, error_description}.
 *
 * aggmock's rollback (of a bet) is Slotegrator's `refund`; its rollbackWin is a `rollback` whose
 * rollback_transactions[] holds the win (betTransactionId names the win reversed).
 */

const player: Record<string, Field> = {
  player_id: { from: 'playerId' },
  currency: { from: 'currency' },
  game_uuid: { from: 'gameId', default: 'aggmock-test-game' },
  session_id: { from: 'sessionToken' },
};

/**
 * A free round's campaign and the rounds of it left, on its bet, win and refund ("freespin_id: Freespin
 * campaign ID (if active)", "quantity: Freespin rounds left (if active)": Slotegrator's Casino API
 * Documentation v1.4.3, "Integrator Callbacks", Bet / Win / Refund); absent on other calls.
 */
const freeRound: Record<string, Field> = {
  freespin_id: { from: 'freeRoundId' },
  quantity: { from: 'freeRoundsLeft' },
};

/** A round flag as PHP writes a boolean in a form: 1 or 0. */
const finished: Field = { from: 'roundClosed', map: { true: 1, false: 0 }, default: 0 };

/** A bet or a win: its `type` is the action, or the bonus kind's name on the wire. */
const money = (action: 'bet' | 'win', bonusTypes: Record<string, string>): Record<string, Field> => ({
  action: { const: action },
  ...player,
  amount: { from: 'amount' },
  transaction_id: { from: 'transactionId' },
  round_id: { from: ['roundId', 'transactionId'] },
  type: { from: 'bonusKind', map: bonusTypes, default: action },
  ...freeRound,
  finished,
});

export const SLOTEGRATOR: DialectInput = {
  name: 'slotegrator',
  description:
    "Slotegrator's GIS callbacks: one URL, form POSTs with action balance, bet, win, refund or rollback; " +
    'X-Sign = HMAC-SHA1 hex (merchant key) of the sorted parameters plus X-Merchant-Id, X-Timestamp and X-Nonce, http_build_query style; ' +
    'replies HTTP 200 {balance, transaction_id} or {error_code: "INSUFFICIENT_FUNDS" | "INTERNAL_ERROR", error_description}. ' +
    'Most of the wire follows open-source integrations and a reseller that states byte compatibility; the free-round fields follow a copy of Slotegrator\u2019s own callback documentation.',
  sources: [
    {
      title:
        'Casino API Documentation \u2013 Slotegrator Game Aggregator v1.4.3 (2025-07-14), a Markdown copy in a public repository (search-index document 63093469083, address not recorded): "Integrator Callbacks" (freespin_id and quantity on bet, win and refund)',
      grade: 'primary',
    },
    {
      title:
        'SoftBet Customer API contract (a gateway that states it is byte-compatible with the Slotegrator GIS API: the signing string, the headers, the ±5 min window)',
      url: 'https://softbet.io/docs/CUSTOMER-API.md',
      grade: 'secondary',
    },
    {
      title:
        'An open-source Laravel client (SlotegratorClient generateHeaders / verifySignature: ksort + http_build_query + hash_hmac sha1)',
      grade: 'secondary',
    },
    {
      title:
        'Open-source merchant callback handlers (Express and Next.js: form bodies, actions, error_code replies, rollback_transactions[i][k]; a NestJS DTO of each action)',
      grade: 'secondary',
    },
  ],
  unknown: [
    'Slotegrator\u2019s own callback documentation is known only from a copy of v1.4.3 (search-index document 63093469083): its bet, win, refund and rollback fields agree with the open-source integrations aggmock follows.',
    'Whether a win carries bet_transaction_id (one third-party DTO lists it, the handlers never read it): aggmock does not send it.',
    'How amounts are written (the handlers parse floats; one shows "47.16"): aggmock writes two decimals.',
    'How many seconds of clock skew the X-Timestamp may show (one client checks 30 s, the reseller ±5 min).',
    'How the signing string escapes: the PHP client (ksort + http_build_query) escapes names and values alike, the reseller describes literal names and encodeURIComponent values; aggmock follows http_build_query. The two differ only on the rollback list\u2019s bracketed names and on characters such as spaces.',
    'Which outcomes besides INSUFFICIENT_FUNDS have a code of their own: the sources name only INSUFFICIENT_FUNDS and INTERNAL_ERROR, so every other refusal is INTERNAL_ERROR.',
    'Whether the aggregator retries a bet, a win or a refund after INTERNAL_ERROR, and how often.',
    'The type of a rollback call and what provider_round_id holds: aggmock sends neither.',
    'Whether a free round’s quantity counts the round being played ("rounds left"): aggmock sends the rounds left after it (the last round says 0).',
  ],
  credentials: {
    merchantId: {
      kind: 'text',
      description: 'the merchant id sent in X-Merchant-Id and signed with the parameters',
      default: 'aggmock',
    },
    merchantKey: {
      kind: 'secret',
      description: 'the merchant key that keys the HMAC-SHA1 of X-Sign',
      default: 'aggmock-dev-key',
    },
  },
  session: { token: 'required', checkedOn: [] },
  request: {
    encoding: 'form',
    headers: {
      'X-Merchant-Id': { credential: 'merchantId' },
      // The time of this attempt: the wallet refuses an X-Timestamp outside its window (30 s in the
      // Laravel client, ±5 min at SoftBet), so a retry carries its own, as it carries a new X-Nonce.
      'X-Timestamp': { from: 'sentTimestampSeconds' },
      'X-Nonce': { from: 'nonce' },
    },
  },
  amounts: { format: 'decimal', as: 'string' },
  signing: {
    algorithm: 'hmac-sha1',
    key: 'merchantKey',
    payload: {
      over: 'params',
      sort: 'key',
      pair: '=',
      join: '&',
      headers: ['X-Merchant-Id', 'X-Timestamp', 'X-Nonce'],
      escape: 'form',
    },
    encoding: 'hex',
    place: { header: 'X-Sign' },
  },
  operations: {
    balance: { path: '', fields: { action: { const: 'balance' }, ...player } },
    bet: { path: '', fields: money('bet', { 'free-spins': 'freespin' }) },
    win: { path: '', fields: money('win', { 'free-spins': 'freespin', jackpot: 'jackpot', promotion: 'promo' }) },
    rollback: {
      path: '',
      fields: {
        action: { const: 'refund' },
        ...player,
        amount: { from: 'amount' },
        transaction_id: { from: 'transactionId' },
        bet_transaction_id: { from: 'betTransactionId' },
        ...freeRound,
        round_id: { from: ['roundId', 'betTransactionId'] },
      },
    },
    rollbackWin: {
      path: '',
      fields: {
        action: { const: 'rollback' },
        ...player,
        transaction_id: { from: 'transactionId' },
        round_id: { from: ['roundId', 'betTransactionId'] },
        rollback_transactions: {
          list: [
            {
              object: {
                action: { const: 'win' },
                amount: { from: 'amount' },
                transaction_id: { from: 'betTransactionId' },
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
        'open-source merchant callback handlers (Node/Express, search-index document 52038676287; Next.js, 10801979360): a repeat answers the current balance',
      grade: 'third-party',
    },
    'unknown-rollback': {
      source:
        'open-source merchant callback handlers (search-index documents 52038676287, 10801979360): a refund of an unknown bet succeeds',
      grade: 'third-party',
      safer: 'an acknowledgement (a refusal that moves no money is a warning)',
    },
    'reply-balance': {
      source: 'open-source merchant callback handlers (search-index documents 52038676287, 10801979360): balance in every reply',
      grade: 'third-party',
    },
    'session-token': { source: 'unknown', grade: 'unknown' },
    'stale-token': noTokenHandedOver('Slotegrator'),
    refusal: {
      source:
        'open-source merchant callback handlers (search-index documents 52038676287, 10801979360): INSUFFICIENT_FUNDS and INTERNAL_ERROR only; every other code is aggmock\u2019s guess, so any refusal passes',
      grade: 'third-party',
    },
    retry: { source: 'unknown', grade: 'unknown' },
  },
  reply: {
    code: 'error_code',
    codes: {
      INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
      INVALID_SIGNATURE: 'INTERNAL_ERROR',
      PLAYER_NOT_FOUND: 'INTERNAL_ERROR',
      INVALID_REQUEST: 'INTERNAL_ERROR',
      INVALID_TOKEN: 'INTERNAL_ERROR',
    },
    balance: 'balance',
    message: ['error_description'],
    duplicates: 'current-balance',
    // The sources name INSUFFICIENT_FUNDS and INTERNAL_ERROR only: the other codes are aggmock's guess.
    guessed: ['INVALID_SIGNATURE', 'PLAYER_NOT_FOUND', 'INVALID_REQUEST', 'INVALID_TOKEN'],
    // A refund of an unknown bet succeeds in the handlers; a refusal that moves no money is a warning.
    safer: { unknownRollback: 'acknowledge' },
  },
};
