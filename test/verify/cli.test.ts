import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/config/dialect.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { runCli } from '../cli/process.ts';
import { EXPECTED_FAILURES } from './faults.ts';
import { DEFAULT_CHECK_IDS, DEFAULT_NOT_APPLICABLE, startReferenceWallet } from './helpers.ts';

/** The committed contracts: the default wire's. */
const DEFAULT_CONTRACTS = dialectContracts(dialectOf(defaultConfig().callbacks));

describe('aggmock verify as a real process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-verify-cli-'));
  let good: RunningWallet;
  let broken: RunningWallet;
  beforeAll(async () => {
    good = await startReferenceWallet();
    broken = await startReferenceWallet({ fault: 'rollback-ignored' });
  });
  afterAll(async () => {
    await good.close();
    await broken.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 against the reference wallet and writes junit.xml, report.json and report.html', async () => {
    const reportDir = join(dir, 'good');
    const cli = runCli(['verify', good.webhookUrl, '--state-url', `${good.url}/__state`, '--report-dir', reportDir], {
      NO_COLOR: '1',
    });
    const code = await cli.exited;
    expect(cli.stderr()).toBe('');
    expect(code).toBe(0);
    expect(cli.stdout()).toMatch(/^CHECK\s+RESULT\s+TIME\s+REASON$/m);
    expect(cli.stdout()).toMatch(/^idempotent-debit\s+PASS\s/m);
    const total = DEFAULT_CHECK_IDS.length + DEFAULT_CONTRACTS.length;
    const na = DEFAULT_NOT_APPLICABLE.length;
    expect(cli.stdout()).toMatch(new RegExp(`PASSED: ${total} passed, 0 failed, ${na} skipped of ${total + na}`));
    for (const file of ['junit.xml', 'report.json', 'report.html']) expect(existsSync(join(reportDir, file))).toBe(true);
  });

  it('exits 1 against a broken wallet, and --json prints the machine-readable report alone on stdout', async () => {
    const reportDir = join(dir, 'broken');
    const cli = runCli([
      'verify',
      broken.webhookUrl,
      '--players',
      'p1,p2',
      '--json',
      '--skip',
      'pact',
      '--report-dir',
      reportDir,
    ]);
    expect(await cli.exited).toBe(1);
    const report = JSON.parse(cli.stdout());
    expect(report.exitCode).toBe(1);
    expect(report.results.filter((r: { status: string }) => r.status === 'fail').map((r: { id: string }) => r.id)).toEqual(
      EXPECTED_FAILURES.players['rollback-ignored'],
    );
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain('name="rollback-restores"');
  });

  it('exits 2 with a message for an unknown check id', async () => {
    const cli = runCli(['verify', good.webhookUrl, '--only', 'nope', '--no-reports']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/aggmock verify: --only: unknown check id "nope"/);
  });
});
