import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type LoadFlags, runLoadCommand } from '../../src/cli/commands/load.ts';
import { configSchema } from '../../src/config/index.ts';
import type { LoadSummary, Verdict } from '../../src/load/index.ts';
import { type RunningWallet, startWallet, type WalletFault } from '../../src/wallet/index.ts';

/**
 * `aggmock load` against the reference wallet started in-process (127.0.0.1, port 0): correctness
 * under load catches a planted race at a rate where the correct wallet passes; a slow wallet
 * breaches a p99 threshold; faults leave the verdict exact; a run's record judged again with
 * --check gives the same verdict. Short runs at small rates: seconds each.
 */

const PLAYERS = ['p1', 'p2', 'p3'];
let wallet: RunningWallet | undefined;
const dir = mkdtempSync(join(tmpdir(), 'aggmock-load-'));
afterEach(async () => {
  await wallet?.close();
  wallet = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function walletWith(dialect: string, fault?: WalletFault, faultOptions?: { slowMs?: number }): Promise<string> {
  const config = configSchema.parse({
    callbacks: { profile: dialect },
    wallet: { currency: 'EUR', players: Object.fromEntries(PLAYERS.map((p) => [p, 1000])) },
  });
  wallet = await startWallet({
    config,
    dbPath: ':memory:',
    port: 0,
    ...(fault ? { fault } : {}),
    ...(faultOptions ? { faultOptions } : {}),
  });
  return wallet.url;
}

async function load(url: string | undefined, flags: LoadFlags): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runLoadCommand(url, flags, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env: {},
    cwd: dir,
    tty: false,
  });
  return { code, out, err };
}

const RUN = { rate: '30', duration: '1500ms', players: PLAYERS.join(','), seed: '7' } satisfies LoadFlags;

describe('aggmock load: correctness under load', () => {
  it('a correct wallet passes --threshold correctness; every player is reconciled by its balance call', async () => {
    const url = await walletWith('pragmatic');
    const { code, out } = await load(url, {
      ...RUN,
      dialect: 'pragmatic',
      json: true,
      threshold: ['correctness'],
      record: 'good.jsonl',
    });
    const summary = JSON.parse(out) as LoadSummary;
    expect(summary.correctness.violations).toEqual([]);
    expect(summary.correctness).toMatchObject({ ok: true, players: 3, reconciled: 3, undetermined: [] });
    expect(summary.rate.startedRounds).toBeGreaterThan(30);
    expect(summary.latency.byOperation.bet?.count).toBeGreaterThan(0);
    expect(summary.thresholds).toEqual([{ threshold: 'correctness', ok: true, actual: expect.stringContaining('every player') }]);
    expect(code).toBe(0);
    // The record judged again gives the same verdict.
    const again = await load(undefined, { dialect: 'pragmatic', check: 'good.jsonl', json: true, threshold: ['correctness'] });
    expect(again.code).toBe(0);
    expect((JSON.parse(again.out) as Verdict).ok).toBe(true);
  });

  it('a wallet with a lost-update race fails --threshold correctness at the same rate, naming the call no order explains', async () => {
    const url = await walletWith('pragmatic', 'race');
    const { code, out } = await load(url, {
      ...RUN,
      dialect: 'pragmatic',
      json: true,
      threshold: ['correctness'],
      record: 'race.jsonl',
    });
    const summary = JSON.parse(out) as LoadSummary;
    expect(code).toBe(1);
    expect(summary.correctness.ok).toBe(false);
    expect(summary.correctness.violations.length).toBeGreaterThan(0);
    expect(summary.correctness.violations[0]?.message).toMatch(
      /no order of the calls explains|bet was accepted that the balance did not cover/,
    );
    const again = await load(undefined, { dialect: 'pragmatic', check: 'race.jsonl', threshold: ['correctness'] });
    expect(again.code).toBe(1);
    expect(again.out).toContain('NOT proven correct');
  });

  it('injected timeouts (after the wallet applied the call) and duplicates in flight leave the verdict exact', async () => {
    const url = await walletWith('softswiss');
    const { code, out } = await load(url, {
      ...RUN,
      dialect: 'softswiss',
      json: true,
      fault: ['timeout@20%', 'duplicate@15%'],
      threshold: ['correctness'],
    });
    const summary = JSON.parse(out) as LoadSummary;
    expect(summary.faults.timeouts).toBeGreaterThan(0);
    expect(summary.faults.duplicates).toBeGreaterThan(0);
    expect(summary.errors.retries).toBeGreaterThan(0);
    expect(summary.correctness.violations).toEqual([]);
    expect(code).toBe(0);
  });

  it('injected duplicates in flight against a wallet that charges duplicates again: caught', async () => {
    const url = await walletWith('softswiss', 'duplicate-race');
    const { code, out } = await load(url, {
      ...RUN,
      dialect: 'softswiss',
      json: true,
      fault: ['duplicate@50%'],
      threshold: ['correctness'],
    });
    const summary = JSON.parse(out) as LoadSummary;
    expect(summary.correctness.violations.length).toBeGreaterThan(0);
    expect(code).toBe(1);
  });
});

describe('aggmock load: profiles and exports', () => {
  it('speaks a profile too: its webhook URL is the wallet URL (no path of its own)', async () => {
    await walletWith('default');
    const { code, out } = await load((wallet as RunningWallet).webhookUrl, {
      ...RUN,
      dialect: 'default',
      mix: 'bet-win=1',
      json: true,
      threshold: ['correctness'],
    });
    const summary = JSON.parse(out) as LoadSummary;
    expect(summary.rate.calls).toBeGreaterThan(30);
    expect(summary.errors.percent).toBe(0);
    expect(summary.correctness.violations).toEqual([]);
    expect(code).toBe(0);
  });

  it('--export k6 writes the script, and refuses a tool it does not know', async () => {
    const written = await load(undefined, { ...RUN, dialect: 'hub88', export: 'k6', out: 'k6' });
    expect(written.code).toBe(0);
    const script = readFileSync(join(dir, 'k6', 'load.k6.js'), 'utf8');
    expect(script).toContain('"executor": "ramping-arrival-rate"');
    expect(script).toContain('crypto.subtle.sign');
    const bad = await load(undefined, { ...RUN, dialect: 'hub88', export: 'gatling' });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--export: expected k6 or artillery, got "gatling"');
  });
});

describe('aggmock load: latency thresholds', () => {
  it('a wallet that answers after 400 ms breaches p99<300ms; the latencies it measures are at least the delay', async () => {
    const url = await walletWith('pragmatic', 'slow', { slowMs: 400 });
    const { code, out } = await load(url, {
      rate: '10',
      duration: '1s',
      players: PLAYERS.join(','),
      dialect: 'pragmatic',
      threshold: ['p99<300ms', 'p50(bet)>=400ms'],
      html: 'slow.html',
    });
    expect(code).toBe(1);
    expect(out).toMatch(/threshold FAIL p99<300ms \(p99 = \d+\.\d ms\)/);
    expect(out).toMatch(/threshold ok {3}p50\(bet\)>=400ms/);
    const html = readFileSync(join(dir, 'slow.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('Latency percentiles per second');
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  });
});

describe('aggmock load: usage', () => {
  it.each([
    [{ threshold: ['p99<250'] }, 'a latency needs a unit'],
    [{ threshold: ['speed'] }, 'or correctness'],
    [{ rate: 'lots' }, '--rate: expected a positive rate'],
    [{ mix: 'bet-win=1,jackpot=2' }, '--mix: "jackpot=2"'],
    [{ fault: ['timeout@two'] }, '--fault: expected timeout@<percent>'],
    [{ stake: '0' }, '--stake: expected a positive amount'],
  ] as [LoadFlags, string][])('%j is a usage error (exit 2) naming what was expected', async (flags, message) => {
    const { code, err } = await load('http://x.invalid/', { rate: '10', duration: '1s', dialect: 'pragmatic', ...flags });
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('no wallet URL without --check or --export is a usage error', async () => {
    const { code, err } = await load(undefined, { rate: '10', dialect: 'pragmatic' });
    expect(code).toBe(2);
    expect(err).toContain("<walletUrl>: expected the wallet's base URL");
  });
});
