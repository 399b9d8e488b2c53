/**
 * `aggmock verify` must pass correct wallets written independently of aggmock, in the styles
 * integrators really use (HTTP 200 rejections, charset content types, zero amounts accepted or
 * refused, rollback-unknown as 404 or 2xx, minor units, reference-style rollbacks, a mutex instead
 * of SQL transactions), twice in a row on the same storage, and leave their players as it found them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../../src/config/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { failures } from './helpers.ts';
import { expressBalances, startExpressStyleWallet } from './wallets/express-style.ts';
import { minorBalances, startMinorUnitsWallet } from './wallets/minor-units.ts';
import { mutexBalances, startMutexJsonWallet } from './wallets/mutex-json-file.ts';
import { startStrict4xxWallet, strictBalances } from './wallets/strict-4xx.ts';
import type { StartedWallet, WalletOptions } from './wallets/types.ts';
import { startZeroRefuserWallet, zeroRefuserBalances } from './wallets/zero-refuser.ts';

interface WalletCase {
  name: string;
  start: (options: WalletOptions) => Promise<StartedWallet>;
  /** Balances in minor units, read straight from the wallet's storage. */
  balances: (dbPath: string) => Record<string, number>;
  file: string;
  config: AggmockConfigInput;
  amountFormat?: 'decimal' | 'minor';
  /** Stop and start the wallet between the two verify runs (proves the storage, not memory, holds the state). */
  restart: boolean;
}

const CASES: WalletCase[] = [
  {
    name: 'express-style',
    start: startExpressStyleWallet,
    balances: expressBalances,
    file: 'wallet.db',
    config: {},
    restart: false,
  },
  { name: 'strict-4xx', start: startStrict4xxWallet, balances: strictBalances, file: 'wallet.db', config: {}, restart: true },
  {
    name: 'minor-units',
    start: startMinorUnitsWallet,
    balances: minorBalances,
    file: 'wallet.db',
    config: { callbacks: { amountFormat: 'minor' } },
    amountFormat: 'minor',
    restart: true,
  },
  {
    name: 'zero-refuser (reference-style rollbacks)',
    start: startZeroRefuserWallet,
    balances: zeroRefuserBalances,
    file: 'wallet.db',
    config: { callbacks: { rollbackStyle: 'reference' } },
    restart: false,
  },
  {
    name: 'mutex-json-file',
    start: startMutexJsonWallet,
    balances: mutexBalances,
    file: 'wallet.json',
    config: {},
    restart: true,
  },
];

const PLAYERS = { p1: 1000, p2: 1000 };
const dirs: string[] = [];
const running = new Set<StartedWallet>();

afterAll(async () => {
  for (const w of running) await w.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(c: WalletCase, dbPath: string): Promise<StartedWallet> {
  const w = await c.start({ dbPath, players: PLAYERS, ...(c.amountFormat ? { amountFormat: c.amountFormat } : {}) });
  running.add(w);
  return w;
}

async function stop(w: StartedWallet): Promise<void> {
  running.delete(w);
  await w.close();
}

function expectPassed(outcome: VerifyOutcome, what: string): void {
  const failed = failures(outcome);
  const why = `${what}: ${outcome.error ?? JSON.stringify(failed, null, 2)}`;
  expect.soft(failed, why).toEqual({});
  expect.soft(outcome.report?.summary.failed, why).toBe(0);
  expect.soft(outcome.exitCode, why).toBe(0);
}

describe.each(CASES)('aggmock verify against a correct $name wallet', (c) => {
  const config: AggmockConfig = configSchema.parse(c.config);

  it('passes twice in a row on the same storage (players mode) and leaves the players as it found them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
    dirs.push(dir);
    const dbPath = join(dir, c.file);
    let wallet = await start(c, dbPath);
    const before = c.balances(dbPath);
    expect(before).toEqual({ p1: 100_000, p2: 100_000 });

    for (const run of [1, 2]) {
      if (run === 2 && c.restart) {
        await stop(wallet);
        wallet = await start(c, dbPath);
      }
      const outcome = await runVerify({ webhookUrl: wallet.webhookUrl, players: ['p1', 'p2'], reportDir: false, config });
      expectPassed(outcome, `${c.name}, players mode, run ${run}`);
    }
    await stop(wallet);
    expect(c.balances(dbPath), 'verify must give back every cent it moved').toEqual(before);
  }, 180_000);

  it.runIf(c.name === 'strict-4xx' || c.name === 'mutex-json-file')(
    'passes twice in a row with its provider-state endpoint (state mode)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
      dirs.push(dir);
      const dbPath = join(dir, c.file);
      let wallet = await start(c, dbPath);
      for (const run of [1, 2]) {
        if (run === 2 && c.restart) {
          await stop(wallet);
          wallet = await start(c, dbPath);
        }
        const outcome = await runVerify({
          webhookUrl: wallet.webhookUrl,
          stateUrl: wallet.stateUrl as string,
          players: ['p1', 'p2'],
          reportDir: false,
          config,
        });
        expectPassed(outcome, `${c.name}, state mode, run ${run}`);
      }
      await stop(wallet);
    },
    180_000,
  );
});
