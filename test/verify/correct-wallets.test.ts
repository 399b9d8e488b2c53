/**
 * `aggmock verify` must pass correct wallets written independently of aggmock, in the styles
 * integrators really use (HTTP 200 rejections, charset content types, zero amounts accepted or
 * refused, rollback-unknown as 404 or 2xx, minor units, reference-style rollbacks, a mutex instead
 * of SQL transactions), twice in a row on the same storage, and leave their players as it found them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../../src/config/index.ts';
import { signPayload } from '../../src/signing/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { expectPassed } from './helpers.ts';
import { decimalStringBalances, startDecimalStringsWallet } from './wallets/decimal-strings.ts';
import { expressBalances, startExpressStyleWallet } from './wallets/express-style.ts';
import { minorBalances, startMinorUnitsWallet } from './wallets/minor-units.ts';
import { mutexBalances, startMutexJsonWallet } from './wallets/mutex-json-file.ts';
import { startStrict4xxWallet, strictBalances } from './wallets/strict-4xx.ts';
import type { StartedWallet, WalletOptions } from './wallets/types.ts';
import { startZeroRefuserWallet, zeroRefuserBalances } from './wallets/zero-refuser.ts';

interface WalletCase {
  name: string;
  /** Refuses DEBIT/CREDIT of 0 (otherwise accepts it without moving money). */
  refusesZero: boolean;
  /** Understands reference-style ROLLBACKs (fresh transactionId + referenceTransactionId). */
  referenceRollbacks: boolean;
  start: (options: WalletOptions) => Promise<StartedWallet>;
  /** Balances in minor units, read straight from the wallet's storage. */
  balances: (dbPath: string) => Record<string, number>;
  file: string;
  config: AggmockConfigInput;
  amountFormat?: 'decimal' | 'minor';
  /** Has a provider-state endpoint (POST /__state). */
  hasState: boolean;
  /** Stop and start the wallet between the two verify runs (proves the storage, not memory, holds the state). */
  restart: boolean;
}

const CASES: WalletCase[] = [
  {
    name: 'express-style',
    refusesZero: true,
    referenceRollbacks: true,
    start: startExpressStyleWallet,
    balances: expressBalances,
    file: 'wallet.db',
    config: {},
    restart: false,
    hasState: true,
  },
  {
    name: 'strict-4xx',
    refusesZero: false,
    referenceRollbacks: true,
    start: startStrict4xxWallet,
    balances: strictBalances,
    file: 'wallet.db',
    config: {},
    restart: true,
    hasState: true,
  },
  {
    name: 'minor-units',
    refusesZero: false,
    referenceRollbacks: false,
    start: startMinorUnitsWallet,
    balances: minorBalances,
    file: 'wallet.db',
    config: { callbacks: { amountFormat: 'minor' } },
    amountFormat: 'minor',
    restart: true,
    hasState: false,
  },
  {
    name: 'zero-refuser (reference-style rollbacks)',
    refusesZero: true,
    referenceRollbacks: true,
    start: startZeroRefuserWallet,
    balances: zeroRefuserBalances,
    file: 'wallet.db',
    config: { callbacks: { rollbackStyle: 'reference' } },
    restart: false,
    hasState: false,
  },
  {
    name: 'mutex-json-file',
    refusesZero: false,
    referenceRollbacks: false,
    start: startMutexJsonWallet,
    balances: mutexBalances,
    file: 'wallet.json',
    config: {},
    restart: true,
    hasState: true,
  },
  {
    name: 'decimal-strings ({"balance":"995.29"})',
    refusesZero: false,
    referenceRollbacks: true,
    start: startDecimalStringsWallet,
    balances: decimalStringBalances,
    file: 'wallet.db',
    config: {},
    restart: true,
    hasState: false,
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

  // Only wallets that have a state endpoint get a state-mode run (no skipped tests for the others).
  if (c.hasState)
    it('passes twice in a row with its provider-state endpoint (state mode)', async () => {
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
    }, 180_000);
});

/**
 * The wallets must be correct on their own, not just "pass verify": these probes check the wire
 * contract directly (signature rotation and both timestamp directions, parallel duplicates,
 * late DEBITs after their ROLLBACK, reference-style rollbacks, unknown players…), reading the
 * balances from the wallet's own storage.
 */
describe.each(CASES)('the $name wallet honours the wire contract on its own', (c) => {
  const secret = 'aggmock-dev-secret';
  const minor = c.amountFormat === 'minor';
  const enc = (cents: number) => (minor ? cents : cents / 100);
  let wallet: StartedWallet;
  let dbPath: string;
  let n = 0;
  const tx = () => `probe-${Date.now().toString(36)}-${++n}`;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
    dirs.push(dir);
    dbPath = join(dir, c.file);
    wallet = await start(c, dbPath);
  });

  type Sent = { status: number; json: Record<string, unknown> };
  async function post(body: string, headers: Record<string, string>): Promise<Sent> {
    const res = await fetch(wallet.webhookUrl, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
  }
  function send(fields: Record<string, unknown>, sign: { secrets?: string[]; timestamp?: number } = {}): Promise<Sent> {
    const body = JSON.stringify(fields);
    return post(body, signPayload({ scheme: 'timestamped', secrets: sign.secrets ?? [secret], payload: body, ...sign }));
  }
  const debit = (playerId: string, cents: number, transactionId = tx()) =>
    send({ type: 'DEBIT', transactionId, amount: enc(cents), playerId });
  const credit = (playerId: string, cents: number, transactionId = tx()) =>
    send({ type: 'CREDIT', transactionId, amount: enc(cents), playerId });
  const rollback = (playerId: string, debitTx: string, cents: number, ownTx?: string) =>
    send({
      type: 'ROLLBACK',
      transactionId: ownTx ?? debitTx,
      ...(ownTx ? { referenceTransactionId: debitTx } : {}),
      amount: enc(cents),
      playerId,
    });
  const accepted = (r: Sent) => r.status >= 200 && r.status < 300 && r.json.error === undefined;
  /** The reply's balance as a number, whether the wallet wrote it as a number or as a decimal string. */
  const wireBalance = (r: Sent) => (typeof r.json.balance === 'string' ? Number(r.json.balance) : r.json.balance);
  const balance = (p = 'p1') => c.balances(dbPath)[p];

  it('accepts a signature from any active secret in any position; refuses stale, future, missing and tampered ones', async () => {
    const b0 = balance() as number;
    expect(
      accepted(await send({ type: 'CREDIT', transactionId: tx(), amount: enc(1), playerId: 'p1' }, { secrets: ['old', secret] })),
    ).toBe(true);
    expect(
      accepted(await send({ type: 'CREDIT', transactionId: tx(), amount: enc(1), playerId: 'p1' }, { secrets: [secret, 'new'] })),
    ).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 400, now + 400]) {
      const r = await send({ type: 'CREDIT', transactionId: tx(), amount: enc(1), playerId: 'p1' }, { timestamp });
      expect([r.status, r.json.error]).toEqual([401, 'INVALID_SIGNATURE']);
    }
    const body = JSON.stringify({ type: 'CREDIT', transactionId: tx(), amount: enc(1), playerId: 'p1' });
    expect((await post(body, {})).status).toBe(401);
    const signed = signPayload({ scheme: 'timestamped', secrets: [secret], payload: body });
    expect((await post(body.replace(/"amount":[\d.]+/, `"amount":${enc(500)}`), signed)).status).toBe(401);
    expect(balance()).toBe(b0 + 2);
  });

  it('ignores extra body fields, refuses malformed JSON and negative amounts, handles 0 per its style', async () => {
    const b0 = balance() as number;
    const extra = await send({
      type: 'DEBIT',
      transactionId: tx(),
      amount: enc(5),
      playerId: 'p1',
      roundId: 'r1',
      gameId: 'g',
      currency: 'EUR',
    });
    expect(accepted(extra)).toBe(true);
    const body = '{"type":"DEBIT","transactionId":';
    const bad = await post(body, signPayload({ scheme: 'timestamped', secrets: [secret], payload: body }));
    expect([bad.status, bad.json.error]).toEqual([400, 'INVALID_REQUEST']);
    for (const r of [await debit('p1', -100), await credit('p1', -100)]) expect(r.json.error).toBe('INVALID_REQUEST');
    for (const r of [await debit('p1', 0), await credit('p1', 0)]) {
      expect(r.status).toBeLessThan(500);
      if (c.refusesZero) expect(r.json.error).toBe('INVALID_REQUEST');
      else expect(accepted(r)).toBe(true);
    }
    expect(balance()).toBe(b0 - 5);
  });

  it('keeps cents exact, refuses overdrafts and unknown players without creating them', async () => {
    const b0 = balance() as number;
    await debit('p1', 10);
    const r = await debit('p1', 20);
    expect(wireBalance(r)).toBe(enc(b0 - 30));
    const over = await debit('p1', b0);
    expect(over.status).toBeLessThan(500);
    expect(over.json.error).toBe('INSUFFICIENT_FUNDS');
    const ghost = await credit('ghost', 100);
    expect(ghost.status).toBeLessThan(500);
    expect(ghost.json.error).toBe('PLAYER_NOT_FOUND');
    expect(c.balances(dbPath).ghost).toBeUndefined();
    expect(balance()).toBe(b0 - 30);
  });

  it('moves money once for a DEBIT sent 8 times in parallel, and keys idempotency per player', async () => {
    const [a0, b0] = [balance('p1') as number, balance('p2') as number];
    const id = tx();
    const replies = await Promise.all(Array.from({ length: 8 }, () => debit('p1', 100, id)));
    for (const r of replies) expect(r).toEqual(replies[0]);
    expect(accepted(await debit('p2', 100, id))).toBe(true);
    expect([balance('p1'), balance('p2')]).toEqual([a0 - 100, b0 - 100]);
  });

  it('applies parallel DEBITs, CREDITs and ROLLBACKs atomically (no lost updates, no overdraft)', async () => {
    const b0 = balance() as number;
    const debits = Array.from({ length: 10 }, () => tx());
    await Promise.all(debits.map((id) => debit('p1', 100, id)));
    const mixed = await Promise.all([
      ...debits.map((id) => rollback('p1', id, 100)),
      ...Array.from({ length: 10 }, () => credit('p1', 7)),
      ...Array.from({ length: 10 }, () => debit('p1', 3)),
    ]);
    expect(mixed.every(accepted)).toBe(true);
    expect(balance()).toBe(b0 + 40);
  });

  it('restores a DEBIT once on ROLLBACK, and never charges a DEBIT whose ROLLBACK came first', async () => {
    const b0 = balance() as number;
    const id = tx();
    await debit('p1', 250, id);
    expect(wireBalance(await rollback('p1', id, 250))).toBe(enc(b0));
    expect(wireBalance(await rollback('p1', id, 250))).toBe(enc(b0));
    const early = tx();
    const unknown = await rollback('p1', early, 300);
    expect(unknown.status).toBeLessThan(500);
    expect(accepted(unknown) || unknown.json.error === 'TRANSACTION_NOT_FOUND').toBe(true);
    const late = await debit('p1', 300, early);
    expect(late.status).toBeLessThan(500);
    expect(balance()).toBe(b0);
  });

  if (c.referenceRollbacks)
    it('understands reference-style ROLLBACKs (fresh id + referenceTransactionId)', async () => {
      const b0 = balance() as number;
      const id = tx();
      await debit('p1', 400, id);
      expect(accepted(await rollback('p1', id, 400, tx()))).toBe(true);
      await rollback('p1', id, 400, tx());
      expect(balance()).toBe(b0);
      const early = tx();
      await rollback('p1', early, 300, tx());
      await debit('p1', 300, early);
      expect(balance()).toBe(b0);
    });
});
