/**
 * verify reads balances with a probe that should move no money (a ROLLBACK of a transaction the
 * wallet never saw). On a wallet where that probe pays out the amount it claims, verify notices
 * at once, reports it as ONE failure of the rule the probe relies on (rollback-unknown), reads
 * balances another way, judges every other rule as it would on a correct wallet, and leaves the
 * players where it found them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { failures, type Mode, startReferenceWallet, verifyWallet } from './helpers.ts';

function verdicts(outcome: VerifyOutcome): Record<string, string> {
  return Object.fromEntries((outcome.report?.results ?? []).map((r) => [r.id, r.status]));
}

describe.each(['players', 'state'] as Mode[])('a wallet whose ROLLBACK of an unknown id pays out (%s mode)', (mode) => {
  let correct: RunningWallet;
  let faulty: RunningWallet;
  let reference: VerifyOutcome;
  let outcome: VerifyOutcome;
  let before: (number | undefined)[];
  beforeAll(async () => {
    correct = await startReferenceWallet();
    faulty = await startReferenceWallet({ fault: 'rollback-unknown-credits' });
    before = [faulty.store.balanceOf('p1'), faulty.store.balanceOf('p2')];
    reference = await verifyWallet(correct, mode);
    outcome = await verifyWallet(faulty, mode);
  }, 120_000);
  afterAll(async () => {
    await correct.close();
    await faulty.close();
  });

  it('fails exactly one check, rollback-unknown, and blocks nothing', () => {
    expect(outcome.exitCode).toBe(1);
    expect(Object.keys(failures(outcome))).toEqual(['rollback-unknown']);
    expect(outcome.report?.firstCause).toBeUndefined();
    expect(outcome.report?.summary.blocked).toBe(0);
  });

  it('gives every other check the verdict it gets on the correct wallet', () => {
    expect(failures(reference)).toEqual({});
    const expected = { ...verdicts(reference), 'rollback-unknown': 'fail' };
    expect(verdicts(outcome)).toEqual(expected);
  });

  it('says in that failure that its own balance probe moved money, and how it went on', () => {
    const r = outcome.report?.results.find((x) => x.id === 'rollback-unknown');
    expect(r?.notes.join('\n')).toMatch(
      /verify's balance probe found it first: verify's balance probe, a ROLLBACK of a transaction the wallet never saw \(claiming 0\.01\), moved player p1's balance: two reads in a row gave \d+\.\d\d then \d+\.\d\d \(moved by 0\.01\); .*read balances with a DEBIT of 0\.01 and its reversal instead/,
    );
  });

  it('reads balances with the other probe from then on', () => {
    const probes = (outcome.report?.results ?? [])
      .filter((r) => r.kind === 'check')
      .flatMap((r) => r.exchanges.map((x) => x.label))
      .filter((label) => label.startsWith('balance read:'));
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.filter((label) => label.includes('never-seen'))).toEqual([]);
  });

  if (mode === 'players')
    it('leaves both players with the balance they had', () => {
      expect([faulty.store.balanceOf('p1'), faulty.store.balanceOf('p2')]).toEqual(before);
    });
});
