import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet, WalletFault } from '../../src/wallet/index.ts';
import { failures, type Mode, startTestWallet, verifyWallet } from './helpers.ts';

/**
 * The proof that `aggmock verify` catches bugs: each deliberately broken wallet must fail verify,
 * and exactly the checks that name its bug must be the ones that fail (so a check that passes a
 * broken wallet, or blames the wrong rule, shows up here).
 */
export const EXPECTED_FAILURES: Record<Mode, Partial<Record<WalletFault, string[]>>> = {
  state: {
    'double-debit': ['idempotent-debit'],
    'no-signature-check': ['pact:bad-signature', 'missing-signature', 'tampered-signature', 'stale-timestamp'],
    'rollback-ignored': ['rollback-restores', 'duplicate-rollback'],
    'negative-balance': ['pact:insufficient-funds', 'insufficient-funds', 'concurrent-debits'],
    race: ['concurrent-debits'],
  },
  players: {
    'double-debit': ['idempotent-debit'],
    'no-signature-check': ['pact:bad-signature', 'missing-signature', 'tampered-signature', 'stale-timestamp'],
    'rollback-ignored': ['rollback-restores', 'duplicate-rollback'],
    'negative-balance': ['insufficient-funds', 'concurrent-debits'],
    race: ['concurrent-debits'],
  },
};

export function describeFaults(mode: Mode): void {
  describe(`aggmock verify catches every wallet fault (${mode === 'state' ? 'with --state-url' : 'with --players only'})`, () => {
    for (const [fault, expected] of Object.entries(EXPECTED_FAILURES[mode]) as [WalletFault, string[]][]) {
      describe(`--fault ${fault}`, () => {
        let wallet: RunningWallet;
        let outcome: VerifyOutcome;
        beforeAll(async () => {
          wallet = await startTestWallet({ fault });
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
          for (const reason of Object.values(failures(outcome))) expect(reason).toMatch(/expected|Expected|covers only/);
        });
      });
    }
  });
}
