import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet, WalletFault } from '../../src/wallet/index.ts';
import { failures, type Mode, startReferenceWallet, verifyWallet } from './helpers.ts';
import type { BetnexFault } from './wallets/betnex/receiver.ts';

/**
 * The proof that `aggmock verify` catches bugs: each deliberately broken wallet must fail verify,
 * and exactly the checks that name its bug must be the ones that fail (so a check that passes a
 * broken wallet, or blames the wrong rule, shows up here).
 */
const SIGNATURE = ['wrong-secret', 'tampered-signature', 'stale-timestamp', 'future-timestamp', 'rotated-signatures'];
const CONCURRENCY = ['concurrent-debits', 'concurrent-credits', 'concurrent-rollbacks', 'concurrent-mixed'];
const ROLLBACKS = [
  'rollback-restores',
  'duplicate-rollback',
  'late-debit-after-rollback',
  'debit-retry-after-rollback',
  'rollback-amount-mismatch',
];

/** What each fault breaks: the same with or without a state URL, since every contract interaction runs in both. */
const FAILURES: Partial<Record<WalletFault, string[]>> = {
  // A DEBIT forgotten after it was applied: every repeat is charged, also that of a refused one once funds arrived.
  'double-debit': [
    // The contract's repeated bet must get its first reply, balance and all: a second charge shows.
    'pact:duplicate-bet',
    'idempotent-debit',
    'duplicate-changed-amount',
    'repeat-after-balance-fell',
    'refused-debit-retried',
    'idempotent-later-retry',
    'hostile-ids',
    'concurrent-duplicates',
  ],
  'no-signature-check': ['pact:bad-signature', 'missing-signature', ...SIGNATURE, 'signed-every-event', 'replayed-signature'],
  // Ignoring rollbacks breaks every rule about them, including the cleanup of same-tx-two-players.
  'rollback-ignored': ['same-tx-two-players', ...ROLLBACKS, 'concurrent-rollbacks', 'concurrent-mixed'],
  'negative-balance': [
    'pact:insufficient-funds',
    'insufficient-funds',
    'exact-balance',
    'refused-debit-retried',
    'rollback-refused-debit',
    'concurrent-debits',
  ],
  race: CONCURRENCY,
  'duplicate-race': ['concurrent-duplicates'],
  'tx-only-key': ['same-tx-two-players'],
  'no-tombstone': ['late-debit-after-rollback'],
  'rollback-deletes-debit': ['debit-retry-after-rollback'],
  'refund-refused-debit': ['rollback-refused-debit'],
  'rollback-trusts-amount': ['rollback-amount-mismatch'],
  'zero-as-default-stake': ['zero-amount'],
  'off-by-one-funds': ['exact-balance'],
  'float-money': ['cent-precision'],
  'int32-cents': ['large-amounts'],
  'creates-players': ['unknown-player'],
  'first-signature-only': ['rotated-signatures'],
  'past-only-timestamp': ['future-timestamp'],
  'double-credit': ['idempotent-credit', 'idempotent-later-retry'],
  'negative-amounts': ['negative-amount'],
  'malformed-json-crash': ['malformed-json'],
  // A 500 instead of "not found", and no tombstone; a ROLLBACK for an unknown player crashes too.
  'rollback-unknown-crash': ['rollback-unknown', 'late-debit-after-rollback', 'unknown-player'],
  // verify's own balance probe is such a ROLLBACK: it notices the probe moving money, reads balances
  // another way, and reports the rule once (preflight.ts).
  'rollback-unknown-credits': ['rollback-unknown'],
  // The reply of every CREDIT (DEBIT) is wrong, so every check that reads one fails (the concurrent
  // checks judge every reply's balance with the one history checker, not only the final balance).
  'stale-credit-reply': [
    'credit-applies',
    'cent-precision',
    'large-amounts',
    'idempotent-credit',
    'refused-debit-retried',
    'idempotent-later-retry',
    'concurrent-credits',
    'concurrent-mixed',
  ],
  'stale-debit-reply': [
    'debit-applies',
    'exact-balance',
    'cent-precision',
    'large-amounts',
    'idempotent-debit',
    'duplicate-changed-amount',
    'same-tx-two-players',
    'repeat-after-balance-fell',
    'idempotent-later-retry',
    'distinct-transaction-ids',
    'hostile-ids',
    'rollback-restores',
    'duplicate-rollback',
    'rollback-unknown',
    'debit-retry-after-rollback',
    'rollback-amount-mismatch',
    'concurrent-debits',
    'concurrent-rollbacks',
    'concurrent-mixed',
    'concurrent-duplicates',
    'rotated-signatures',
    'signed-every-event',
    'replayed-signature',
    'reserialised-json',
  ],
  // The money is right, but under concurrency the replies carry balances no order explains.
  'reply-from-stale-read': CONCURRENCY,
  'debit-only-signature': ['signed-every-event', 'replayed-signature'],
  'signature-cache': ['replayed-signature'],
  'ci-collation-ids': ['distinct-transaction-ids', 'distinct-player-ids'],
  'trims-ids': ['distinct-transaction-ids', 'distinct-player-ids'],
  'truncates-ids': ['distinct-transaction-ids'],
  'utf8mb3-ids': ['distinct-transaction-ids', 'distinct-player-ids'],
  'sql-concat-ids': ['hostile-ids'],
  'rounds-amounts': ['excess-decimals'],
  'charges-retried-refusal': ['refused-debit-retried'],
  'last-bet-only': ['repeat-after-balance-fell', 'idempotent-later-retry'],
};

/**
 * The proof that `aggmock verify` catches bugs: each deliberately broken wallet must fail verify,
 * and exactly the checks that name its bug must be the ones that fail (so a check that passes a
 * broken wallet, or blames the wrong rule, shows up here).
 */
export const EXPECTED_FAILURES: Record<Mode, Partial<Record<WalletFault, string[]>>> = { state: FAILURES, players: FAILURES };

/** Faults proven in their own tests (timing, or a non-default wire): fault → the checks that catch it. */
export const FAULTS_TESTED_APART: Partial<Record<WalletFault, string[]>> = {
  slow: ['reply-latency'], // faults-state.test.ts, with a short latency budget
  'rollback-by-own-id': ['second-rollback-new-id'], // faults-state-2.test.ts, in the reference rollback style
};

/**
 * Faults of the Betnex receiver built on the SDK's helpers (test/verify/wallets/betnex), each with
 * exactly the checks that catch it under the betnex profile (betnex.test.ts).
 */
export const BETNEX_RECEIVER_FAULTS: Record<BetnexFault, string[]> = {
  // The SDK still refuses a missing api_key (a required field): only a wrong one gets through.
  // Betnex signs nothing, so its contracts have no bad-signature interaction: the api-key check catches it.
  'ignores-api-key': ['wrong-api-key'],
  'ignores-currency': ['wrong-currency'],
  'api-key-optional': ['missing-api-key'],
  'repeats-duplicates': [
    // The contract's repeated bet is in the round of its provider state's bet, so it catches it too.
    'pact:duplicate-bet',
    'idempotent-debit',
    'idempotent-credit',
    'duplicate-changed-amount',
    'repeat-after-balance-fell',
    'refused-debit-retried',
    'idempotent-later-retry',
    'hostile-ids',
    'concurrent-duplicates',
    'whole-round',
    'free-spin',
    'bonus-credited-once',
  ],
  'float-money': ['cent-precision'],
  'bonus-not-idempotent': ['free-spin', 'bonus-credited-once'],
  'charges-free-spins': ['free-spin'],
  'bet-or-win': ['whole-round'],
};

/**
 * Bugs planted by a proxy in front of the independent vendor receivers (dialect-receivers.ts), each
 * with exactly the checks that catch it on every dialect that has the call (session-checks.test.ts).
 */
export const DIALECT_RECEIVER_FAULTS = {
  'refuses-repeated-end-round': ['end-round-repeated'],
  'keeps-the-win': ['rollback-win-restores', 'duplicate-rollback-win'],
  'takes-the-win-twice': ['duplicate-rollback-win'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Bugs planted in the independent vendor receivers (test/dialects/receivers, receiver-style.ts), each
 * with the checks that catch it on at least three dialects' receivers (new-checks*.test.ts).
 */
export const PLANTED_RECEIVER_BUGS = {
  'ignores-credential': ['wrong-credential', 'missing-credential'],
  'session-takeover': ['session-takeover'],
  'funds-before-duplicate': ['repeat-after-balance-fell'],
  'forgetful-dedupe': ['repeat-after-many'],
  'reserialised-signature': ['reserialised-json'],
  'crashes-on-cut-request': ['truncated-request'],
  'crashes-on-malformed-param': ['malformed-params'],
  // The stale-token rule has a vendor source on Evolution and Caleta only (stale-token.test.ts).
  'accepts-old-token': ['old-token-bet'],
  'refuses-old-token-settlement': ['old-token-settles'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The faults that catch a check, for the table of checks in docs/verify.md (Betnex receiver faults
 * as `betnex:<fault>`, bugs planted in front of a vendor receiver as `dialect:<fault>`, bugs planted in a
 * vendor receiver as `receiver:<bug>`).
 */
export function faultsCatching(checkId: string): string[] {
  const reference = (Object.entries({ ...FAILURES, ...FAULTS_TESTED_APART }) as [WalletFault, string[]][])
    .filter(([, ids]) => ids.includes(checkId))
    .map(([fault]) => fault as string);
  const receiver = Object.entries(BETNEX_RECEIVER_FAULTS)
    .filter(([, ids]) => ids.includes(checkId))
    .map(([fault]) => `betnex:${fault}`);
  const dialect = Object.entries(DIALECT_RECEIVER_FAULTS)
    .filter(([, ids]) => (ids as readonly string[]).includes(checkId))
    .map(([fault]) => `dialect:${fault}`);
  const planted = Object.entries(PLANTED_RECEIVER_BUGS)
    .filter(([, ids]) => (ids as readonly string[]).includes(checkId))
    .map(([bug]) => `receiver:${bug}`);
  return [...reference, ...receiver, ...dialect, ...planted];
}

/**
 * Every fault but `slow` and `flaky` (those are about delivery, tested in the engine), for one mode
 * and one of two test files per mode. Each fault runs in one mode, alternating down the list so both
 * modes see every kind of bug (the expected failures are the same in both); `npm run test:nightly`
 * (AGGMOCK_FAULTS_BOTH_MODES=1) runs every fault in both. A full verify per fault is the suite's
 * largest cost, and this keeps `npm test` within its time.
 */
export function faultsFor(mode: Mode, part: 0 | 1): WalletFault[] {
  const both = process.env.AGGMOCK_FAULTS_BOTH_MODES === '1';
  const mine = (Object.keys(FAILURES) as WalletFault[]).filter((_, i) => both || (i % 2 === 0) === (mode === 'state'));
  const half = Math.ceil(mine.length / 2);
  return part === 0 ? mine.slice(0, half) : mine.slice(half);
}

export function describeFaults(mode: Mode, faults: readonly WalletFault[]): void {
  describe(`aggmock verify catches every wallet fault (${mode === 'state' ? 'with --state-url' : 'with --players only'})`, () => {
    for (const fault of faults) {
      const expected = EXPECTED_FAILURES[mode][fault] ?? [];
      describe(`--fault ${fault}`, () => {
        let wallet: RunningWallet;
        let outcome: VerifyOutcome;
        beforeAll(async () => {
          wallet = await startReferenceWallet({ fault });
          outcome = await verifyWallet(wallet, mode);
        });
        afterAll(() => wallet.close());

        it('exits 1', () => {
          expect(outcome.exitCode).toBe(1);
        });

        it(`fails exactly ${expected.join(', ')}`, () => {
          expect(Object.keys(failures(outcome))).toEqual(expected);
        });

        it('says in each failure what was expected and what came back', () => {
          const checks = (outcome.report?.results ?? []).filter((r) => r.kind === 'check' && r.status === 'fail');
          for (const r of checks) expect(r.reason).toMatch(/expected|Expected|covers only/);
        });
      });
    }
  });
}
