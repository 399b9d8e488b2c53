import { noTokenHandedOver } from '../rule-sources.ts';
import type { DialectInput, Field } from '../schema.ts';

/*
 * 100HP Gaming's Game flow API (v2.9.1): /withdrawal, /deposit, /rollback, /bonusWin; JSON with the
 * casino's secret in the body; the deposit reuses its withdrawal's txId; amounts and balances are
 * decimal strings; an error's HTTP status is its code (601, 605, 608, 702).
 */

const base: Record<string, Field> = {
  secret: { credential: 'secret' },
  sessionId: { from: 'sessionToken' },
  userId: { from: 'playerId' },
};

export const HUNDRED_HP: DialectInput = {
  name: '100hp',
  description:
    "100HP Gaming's Game flow API: POST /withdrawal, /deposit, /rollback and /bonusWin with the secret in the body; a deposit reuses its withdrawal's txId; " +
    'amounts and balances are decimal strings; an error answers with its code as the HTTP status (601 invalid secret, 605 not found, 608 already refunded).',
  sources: [
    {
      title: '100HP Gaming Game flow API v2.9.1: withdrawal, deposit, rollback money',
      url: 'https://provider.100hp.game',
      grade: 'primary',
    },
    {
      title: '100HP HTTP status codes and custom error codes',
      url: 'https://provider.100hp.game/http-status-codes-and-custom-error-codes-1941472m0',
      grade: 'primary',
    },
  ],
  unknown: [
    'The path of the balance call: aggmock does not send one.',
    'The player authorization call is named /auth in a third-party copy only; aggmock uses it.',
    'Whether 702 (internal wallet error) is retried; aggmock treats it as a refusal.',
  ],
  credentials: {
    secret: { kind: 'secret', description: 'the casino secret compared in every body', default: 'aggmock-dev-secret' },
  },
  session: { token: 'required', checkedOn: ['authenticate', 'bet'] },
  request: { encoding: 'json' },
  amounts: { format: 'decimal', as: 'string' },
  signing: { algorithm: 'none' },
  operations: {
    authenticate: { path: '/auth', fields: base },
    bet: { path: '/withdrawal', fields: { ...base, txId: { from: 'transactionId' }, amount: { from: 'amount' } } },
    win: {
      path: '/deposit',
      fields: { ...base, txId: { from: ['betTransactionId', 'transactionId'] }, amount: { from: 'amount' } },
    },
    rollback: { path: '/rollback', fields: { ...base, txId: { from: 'betTransactionId' } } },
    promoWin: { path: '/bonusWin', fields: { ...base, txId: { from: 'transactionId' }, amount: { from: 'amount' } } },
  },
  // Where each wallet rule comes from (docs/research/vendor-rules.md); `safer`: aggmock's reading beyond it.
  rules: {
    repeat: {
      source:
        'unknown: https://provider.100hp.game/general-api-provision-1930915m0 says a txId is processed once but not what a repeat answers; aggmock accepts the first reply or the same outcome, moving no money',
      grade: 'unknown',
    },
    'unknown-rollback': {
      source: 'https://provider.100hp.game/http-status-codes-and-custom-error-codes-1941472m0 (605 transaction not found)',
      grade: 'vendor',
      safer: 'the 605 refusal (an acknowledgement that moves no money is a warning)',
    },
    'reply-balance': {
      source:
        'https://provider.100hp.game/withdrawal-money-27045087e0 and https://provider.100hp.game/deposit-money-27045088e0 (balance in every reply)',
      grade: 'vendor',
    },
    'session-token': { source: 'unknown', grade: 'unknown' },
    'stale-token': noTokenHandedOver('100HP'),
    refusal: {
      source:
        'https://provider.100hp.game/http-status-codes-and-custom-error-codes-1941472m0 (400, 601, 605, 608); insufficient funds has no documented code: any refusal passes',
      grade: 'vendor',
    },
    retry: {
      source: 'unknown: whether 702 is retried is not documented; aggmock retries 408, 429 and 500\u2013599 only',
      grade: 'unknown',
    },
  },
  reply: {
    status: { retry: ['408', '429', '500-599'], answer: ['2xx'] },
    code: 'errCode',
    codes: { INVALID_REQUEST: 400, INVALID_SIGNATURE: 601, TRANSACTION_NOT_FOUND: 605, ALREADY_SETTLED: 608 },
    statuses: { INVALID_REQUEST: 400, INVALID_SIGNATURE: 601, TRANSACTION_NOT_FOUND: 605, ALREADY_SETTLED: 608 },
    balance: 'balance',
    message: ['message'],
    duplicates: 'same-outcome',
    // 605 is documented; an acknowledgement that moves no money is accepted with a warning.
    safer: { unknownRollback: 'not-found' },
  },
};
