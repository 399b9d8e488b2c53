import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { describeFaults, FAULT_HALVES } from './faults.ts';
import { failures, startReferenceWallet, verifyWallet } from './helpers.ts';

describeFaults('state', FAULT_HALVES[0] ?? []);

describe('--fault slow', () => {
  let wallet: RunningWallet;
  let outcome: VerifyOutcome;
  beforeAll(async () => {
    // Replies held back 120 ms against a 60 ms budget: the same bug as 12 s against 2 s, in test time.
    wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 120 } });
    outcome = await verifyWallet(wallet, 'state', { maxLatencyMs: 60, skip: ['pact'] });
  });
  afterAll(() => wallet.close());

  it('fails reply-latency, and only that, naming the p95 and the budget', () => {
    expect(outcome.exitCode).toBe(1);
    expect(failures(outcome)).toEqual({
      'reply-latency': expect.stringMatching(/p95 reply time is \d+ ms, over the budget of 60 ms/),
    });
  });
});

describe('--fault slow beyond --timeout', () => {
  let wallet: RunningWallet;
  afterAll(() => wallet.close());

  it('reports a reply that never came within --timeout as a failure', async () => {
    wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 400 } });
    const outcome = await verifyWallet(wallet, 'state', { timeoutMs: 150, only: ['reply-latency', 'debit-applies'] });
    expect(outcome.exitCode).toBe(1);
    expect(failures(outcome)).toEqual({
      'debit-applies': expect.stringMatching(/no answer within 150 ms/),
      'reply-latency': expect.stringMatching(/no answer within 150 ms/),
    });
  });
});

describe('a webhook that stops answering', () => {
  let wallet: RunningWallet;
  afterAll(() => wallet.close());

  it('fails the first checks on the timeout, then reports the rest as not run and sends them nothing', async () => {
    wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 400 } });
    const outcome = await verifyWallet(wallet, 'state', { timeoutMs: 100, skip: ['pact'] });
    expect(outcome.exitCode).toBe(1);
    const checks = outcome.report!.results.filter((r) => r.kind === 'check');
    const failed = checks.filter((r) => r.status === 'fail');
    expect(failed.map((r) => r.id)).toEqual(['debit-applies', 'credit-applies']);
    for (const r of failed) expect(r.reason).toMatch(/no answer within 100 ms/);
    const rest = checks.filter((r) => r.status !== 'fail');
    expect(rest.length).toBeGreaterThan(10);
    for (const r of rest) {
      expect(r.status).toBe('skip');
      expect(r.reason).toMatch(/not run: the webhook did not answer within 100 ms in the last 2 checks/);
      expect(r.exchanges).toEqual([]);
    }
  });
});

describe('--fault flaky', () => {
  let wallet: RunningWallet;
  let outcome: VerifyOutcome;
  beforeAll(async () => {
    wallet = await startReferenceWallet({ fault: 'flaky' });
    outcome = await verifyWallet(wallet, 'state');
  });
  afterAll(() => wallet.close());

  it('fails, blaming the 500s the wallet answered', () => {
    expect(outcome.exitCode).toBe(1);
    const failed = failures(outcome);
    expect(Object.keys(failed).length).toBeGreaterThan(2);
    for (const reason of Object.values(failed)) expect(reason).toMatch(/500/);
  });
});
