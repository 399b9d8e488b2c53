import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { describeFaults, faultsFor } from './faults.ts';
import { failures, idsWith, startReferenceWallet, stopsAnsweringAfter, verifyWallet, warmUp } from './helpers.ts';

describeFaults('state', faultsFor('state', 0));

describe('--fault slow', () => {
  let wallet: RunningWallet;
  let outcome: VerifyOutcome;
  beforeAll(async () => {
    // Replies held back 20 ms against a 10 ms budget: the same bug as 12 s against 2 s, in test time.
    // Every one of the run's ~220 replies is held back, so this is most of the file's time (it was
    // 120 ms against 60 ms: 27 s, then 40 against 20); each reply still takes twice the budget, so
    // p95 is over it: the latency check's replies are never faster than the hold.
    wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 20 } });
    outcome = await verifyWallet(wallet, 'state', { maxLatencyMs: 10, skip: ['pact'] });
  });
  afterAll(() => wallet.close());

  it('fails reply-latency, and only that, naming the p95 and the budget', () => {
    expect(outcome.exitCode).toBe(1);
    expect(failures(outcome)).toEqual({
      'reply-latency': expect.stringMatching(/p95 reply time is \d+ ms, over the budget of 10 ms/),
    });
  });
});

describe('--fault slow beyond --timeout', () => {
  let wallet: RunningWallet;
  afterAll(() => wallet.close());

  it('reports the reply that never came within --timeout once, as the first cause, and blocks the checks', async () => {
    wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 400 } });
    const outcome = await verifyWallet(wallet, 'state', { timeoutMs: 150, only: ['reply-latency', 'debit-applies'] });
    expect(outcome.exitCode).toBe(1);
    expect(failures(outcome)).toEqual({});
    expect(outcome.report?.firstCause?.summary).toBe('the wallet did not answer within 150 ms (--timeout)');
    expect(idsWith(outcome, 'blocked')).toEqual(['debit-applies', 'reply-latency']);
  });
});

describe('a webhook that stops answering after the preflight', () => {
  let wallet: RunningWallet;
  let front: Awaited<ReturnType<typeof stopsAnsweringAfter>>;
  afterAll(async () => {
    await front.close();
    await wallet.close();
  });

  it('fails the first checks on the timeout, then reports the rest as not run and sends them nothing', async () => {
    wallet = await startReferenceWallet();
    // The state URL is asked once first: a fresh wallet's first answer carries its warm-up, which on
    // a loaded machine alone can outlast the 100 ms timeout this test gives verify.
    await warmUp(`${wallet.url}/__state`);
    // The preflight reads p1 twice and p2 once: three answered callbacks (and the warm-up), then silence.
    front = await stopsAnsweringAfter(wallet, 4);
    await warmUp(front.url);
    const outcome = await runVerify({
      webhookUrl: front.url,
      stateUrl: `${wallet.url}/__state`,
      timeoutMs: 100,
      skip: ['pact'],
      reportDir: false,
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report?.firstCause).toBeUndefined();
    const checks = outcome.report!.results.filter((r) => r.kind === 'check');
    const failed = checks.filter((r) => r.status === 'fail');
    expect(failed.map((r) => r.id)).toEqual(['debit-applies', 'credit-applies']);
    for (const r of failed) expect(r.reason).toMatch(/no answer within 100 ms/);
    // Checks the default wire cannot express (no API key in its bodies, no endRound call…) are listed as not applicable.
    const applicable = checks.filter((r) => !r.reason?.startsWith('not run: the default dialect '));
    expect(checks.length - applicable.length).toBeGreaterThan(0);
    const rest = applicable.filter((r) => r.status !== 'fail');
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
    const failed = (outcome.report?.results ?? []).filter((r) => r.status === 'fail');
    expect(failed.length).toBeGreaterThan(2);
    // Each failure names a 500, or (a cleanup's 500 left a balance off) shows one among its requests.
    for (const r of failed) {
      const saw500 = /500/.test(r.reason ?? '') || r.exchanges.some((x) => x.response?.status === 500);
      expect(saw500, `${r.id}: ${r.reason}`).toBe(true);
    }
  });
});
