/**
 * Verify your wallet webhook from your own test suite (vitest here; any runner works).
 *
 * Replace `startWallet` with however your tests start YOUR wallet (an Express app on port 0, a
 * container, a staging URL); aggmock's reference wallet stands in for it so this file runs as is:
 *   npx vitest run examples/verify.test.ts
 */
import { defaultConfig, runVerify, startWallet } from 'aggmock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('our wallet webhook', () => {
  let wallet: Awaited<ReturnType<typeof startWallet>>;
  beforeAll(async () => {
    wallet = await startWallet({ config: defaultConfig(), dbPath: ':memory:', port: 0 });
  });
  afterAll(() => wallet.close());

  it('passes every aggmock contract and check', async () => {
    const { exitCode, report } = await runVerify({
      webhookUrl: wallet.webhookUrl,
      players: ['p1', 'p2'], // players your wallet knows; or stateUrl for exact balances
      secrets: ['aggmock-dev-secret'], // the secret your webhook verifies with
      reportDir: false, // or 'reports/verify' for junit.xml, report.json and report.html
    });
    // A first cause (wallet down, signature refused, unknown player…) blocks the checks that need it: fix it first.
    const cause = report?.firstCause;
    const failures = [
      ...(cause ? [`first cause: ${cause.summary}\n  fix: ${cause.fix}`] : []),
      ...(report?.results ?? [])
        .filter((r) => r.status === 'fail')
        .map((r) => `${r.id}: ${r.reason}\n  rule: ${r.rule}\n  fix: ${r.hint ?? '-'}`),
    ];
    expect(failures, failures.join('\n')).toEqual([]);
    expect(report?.summary.failed).toBe(0);
    expect(report?.summary.blocked).toBe(0);
    expect(exitCode).toBe(0);
  }, 60_000);
});
