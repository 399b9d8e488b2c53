import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestWallet } from './test-support.ts';

describe('persistence in a SQLite file', () => {
  let dir: string;
  let dbPath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
    dbPath = join(dir, 'wallet.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps balances and idempotency records across a restart, and seeding does not reset them', async () => {
    const first = await startTestWallet({ dbPath });
    const debit = await first.client.debit('p1', 'tx-1', 100);
    await first.client.rollback('p2', 'ghost', 5); // a tombstone
    expect(debit.body).toEqual({ balance: 900 });
    await first.wallet.close();

    const second = await startTestWallet({ dbPath });
    try {
      expect(await second.client.balance('p1')).toBe(900); // the seed of 1000.00 did not overwrite it
      const replay = await second.client.debit('p1', 'tx-1', 100);
      expect(replay.text).toBe(debit.text);
      expect(await second.client.balance('p1')).toBe(900);
      expect((await second.client.debit('p2', 'ghost', 5)).status).toBe(409);
      expect(await second.client.balance('p2')).toBe(1000);
    } finally {
      await second.wallet.close();
    }
  });

  it('adds players that a new config introduces, leaving existing ones alone', async () => {
    const first = await startTestWallet({ dbPath, configInput: { wallet: { players: { p1: 50 } } } });
    await first.client.debit('p1', 'tx-1', 20);
    await first.wallet.close();

    const second = await startTestWallet({ dbPath, configInput: { wallet: { players: { p1: 50, p2: 70 } } } });
    try {
      expect(await second.client.balance('p1')).toBe(30);
      expect(await second.client.balance('p2')).toBe(70);
    } finally {
      await second.wallet.close();
    }
  });

  it('opens the file in WAL mode with its three tables (players, their session tokens, transactions)', async () => {
    const { wallet } = await startTestWallet({ dbPath });
    try {
      expect(wallet.store.db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      const tables = wallet.store.db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((t) => t.name);
      expect(tables).toEqual(['players', 'sessions', 'transactions']);
    } finally {
      await wallet.close();
    }
  });

  it('creates the folder of the database file when it is missing', async () => {
    const { wallet } = await startTestWallet({ dbPath: join(dir, 'nested', '.aggmock', 'wallet.db') });
    await wallet.close();
    expect(existsSync(join(dir, 'nested', '.aggmock', 'wallet.db'))).toBe(true);
  });

  it('refuses a configured balance with a third decimal, naming the key', async () => {
    await expect(startTestWallet({ dbPath, configInput: { wallet: { players: { p1: 1.005 } } } })).rejects.toThrow(
      /wallet\.players\.p1: expected a balance with at most 2 decimals/,
    );
  });
});
