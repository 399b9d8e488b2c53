/**
 * The Pact Verifier runs in a child process that stays for the next verify of the same process
 * (its start-up is most of a quick verify): reused while alive, replaced when it died, and never
 * what keeps a finished `aggmock verify` from exiting (test/verify/cli.test.ts runs the real CLI).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { idlePactChildPids } from '../../src/verify/pact.ts';
import { failures, startReferenceWallet, verifyWallet } from './helpers.ts';

const wallet = await startReferenceWallet();
afterAll(() => wallet.close());

const pactOnly = { only: ['pact'] };

describe('the Pact child of verify', () => {
  it('is kept after a run and serves the next one itself', async () => {
    const first = await verifyWallet(wallet, 'state', pactOnly);
    expect(failures(first)).toEqual({});
    const [pid] = idlePactChildPids();
    expect(pid).toBeTypeOf('number');
    const second = await verifyWallet(wallet, 'state', pactOnly);
    expect(failures(second)).toEqual({});
    expect(second.report?.results.filter((r) => r.status === 'pass').length).toBeGreaterThan(5);
    expect(idlePactChildPids()).toEqual([pid]);
  });

  it('is replaced when the waiting child died, and the run still passes', async () => {
    const [pid] = idlePactChildPids();
    process.kill(pid as number, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(idlePactChildPids()).not.toContain(pid);
    const outcome = await verifyWallet(wallet, 'state', pactOnly);
    expect(failures(outcome)).toEqual({});
    expect(idlePactChildPids()).toHaveLength(1);
    expect(idlePactChildPids()).not.toContain(pid);
  });
});
