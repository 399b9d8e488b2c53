import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { describeFaults, faultsFor } from './faults.ts';
import { config, failures, startReferenceWallet, verifyWallet } from './helpers.ts';

describeFaults('state', faultsFor('state', 1));

describe('in the "reference" rollback style (a ROLLBACK has its own id)', () => {
  const reference = config({ callbacks: { rollbackStyle: 'reference' } });

  describe.each([
    ['the reference wallet', undefined, {}],
    [
      '--fault rollback-by-own-id',
      'rollback-by-own-id' as const,
      { 'second-rollback-new-id': expect.stringMatching(/expected/) },
    ],
  ])('%s', (_, fault, expected) => {
    let wallet: RunningWallet;
    let outcome: VerifyOutcome;
    beforeAll(async () => {
      wallet = await startReferenceWallet({ config: reference, ...(fault ? { fault } : {}) });
      outcome = await verifyWallet(wallet, 'players', { config: reference });
    });
    afterAll(() => wallet.close());

    it(fault ? 'fails exactly second-rollback-new-id' : 'passes every check, second-rollback-new-id included', () => {
      expect(failures(outcome)).toEqual(expected);
      expect(outcome.report?.results.map((r) => r.id)).toContain('second-rollback-new-id');
    });
  });
});
