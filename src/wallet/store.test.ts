import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WalletEvent } from './events.ts';
import { openWalletStore, type WalletStore } from './store.ts';

const debit = (transactionId: string, amountMinor: number, playerId = 'p1'): WalletEvent => ({
  kind: 'DEBIT',
  playerId,
  transactionId,
  amountMinor,
});
const credit = (transactionId: string, amountMinor: number, playerId = 'p1'): WalletEvent => ({
  kind: 'CREDIT',
  playerId,
  transactionId,
  amountMinor,
});
const rollback = (
  transactionId: string,
  amountMinor: number,
  debitTransactionId = transactionId,
  playerId = 'p1',
): WalletEvent => ({
  kind: 'ROLLBACK',
  playerId,
  transactionId,
  amountMinor,
  debitTransactionId,
});

describe('WalletStore (the rules, without HTTP)', () => {
  let store: WalletStore;
  beforeEach(() => {
    store = openWalletStore({
      path: ':memory:',
      amountFormat: 'decimal',
      players: { p1: 10_000, p2: 10_000 },
      now: () => new Date('2025-01-01T00:00:00Z'),
    });
  });
  afterEach(() => store.close());

  it('seeds the configured players in minor units', () => {
    expect(store.balanceOf('p1')).toBe(10_000);
    expect(store.balanceOf('nobody')).toBeUndefined();
  });

  it('subtracts a DEBIT and answers the balance after it in major units', () => {
    expect(store.applyEvent(debit('tx-1', 1_050))).toEqual({ status: 200, body: { balance: 89.5 } });
    expect(store.balanceOf('p1')).toBe(8_950);
  });

  it('adds a CREDIT', () => {
    expect(store.applyEvent(credit('tx-1', 25))).toEqual({ status: 200, body: { balance: 100.25 } });
  });

  it('refuses a DEBIT larger than the balance with INSUFFICIENT_FUNDS (402), the balance, and no change', () => {
    const reply = store.applyEvent(debit('tx-1', 10_001));
    expect(reply.status).toBe(402);
    expect(reply.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', balance: 100 });
    expect(store.balanceOf('p1')).toBe(10_000);
  });

  it('accepts a DEBIT of exactly the balance, down to zero', () => {
    expect(store.applyEvent(debit('tx-1', 10_000)).body).toEqual({ balance: 0 });
  });

  it('answers a duplicate DEBIT with the first reply and moves no money', () => {
    const first = store.applyEvent(debit('tx-1', 1_000));
    store.applyEvent(credit('tx-2', 500)); // the balance moves in between: the replay must not
    expect(store.applyEvent(debit('tx-1', 1_000))).toEqual(first);
    expect(store.balanceOf('p1')).toBe(9_500);
  });

  it('answers a duplicate CREDIT with the first reply and moves no money', () => {
    const first = store.applyEvent(credit('tx-1', 1_000));
    expect(store.applyEvent(credit('tx-1', 1_000))).toEqual(first);
    expect(store.balanceOf('p1')).toBe(11_000);
  });

  it('replays a refused DEBIT as refused even after the player has won enough', () => {
    const first = store.applyEvent(debit('tx-1', 20_000));
    store.applyEvent(credit('win-1', 50_000));
    expect(store.applyEvent(debit('tx-1', 20_000))).toEqual(first);
    expect(store.balanceOf('p1')).toBe(60_000);
  });

  it('treats the same transactionId for two players as two transactions', () => {
    store.applyEvent(debit('tx-1', 1_000, 'p1'));
    expect(store.applyEvent(debit('tx-1', 1_000, 'p2')).body).toEqual({ balance: 90 });
    expect(store.balanceOf('p1')).toBe(9_000);
    expect(store.balanceOf('p2')).toBe(9_000);
  });

  it('treats a DEBIT and a CREDIT with the same transactionId as two transactions', () => {
    store.applyEvent(debit('round-1', 1_000));
    expect(store.applyEvent(credit('round-1', 3_000)).body).toEqual({ balance: 120 });
  });

  it('restores the amount of a DEBIT on ROLLBACK and marks the DEBIT rolled back', () => {
    store.applyEvent(debit('tx-1', 1_000));
    expect(store.applyEvent(rollback('tx-1', 1_000))).toEqual({ status: 200, body: { balance: 100 } });
    expect(store.findTransaction('p1', 'DEBIT', 'tx-1')?.status).toBe('rolled_back');
    expect(store.findTransaction('p1', 'ROLLBACK', 'tx-1')?.status).toBe('restored');
  });

  it('restores a DEBIT named by referenceTransactionId (rollbackStyle "reference")', () => {
    store.applyEvent(debit('tx-1', 1_000));
    expect(store.applyEvent(rollback('rb-1', 1_000, 'tx-1')).body).toEqual({ balance: 100 });
  });

  it('answers a duplicate ROLLBACK with the first reply and restores nothing more', () => {
    store.applyEvent(debit('tx-1', 1_000));
    const first = store.applyEvent(rollback('tx-1', 1_000));
    store.applyEvent(debit('tx-2', 500));
    expect(store.applyEvent(rollback('tx-1', 1_000))).toEqual(first);
    expect(store.balanceOf('p1')).toBe(9_500);
  });

  it('restores a DEBIT only once even when two different ROLLBACK ids name it', () => {
    store.applyEvent(debit('tx-1', 1_000));
    store.applyEvent(rollback('rb-1', 1_000, 'tx-1'));
    expect(store.applyEvent(rollback('rb-2', 1_000, 'tx-1')).body).toEqual({ balance: 100 });
    expect(store.balanceOf('p1')).toBe(10_000);
  });

  it('acknowledges a ROLLBACK of an unknown DEBIT with the balance and no change, and leaves a tombstone', () => {
    expect(store.applyEvent(rollback('ghost', 1_000))).toEqual({ status: 200, body: { balance: 100 } });
    expect(store.findTransaction('p1', 'ROLLBACK', 'ghost')?.status).toBe('tombstone');
  });

  it('refuses a DEBIT that arrives after its ROLLBACK (409), so a cancelled bet is never charged', () => {
    store.applyEvent(rollback('late', 1_000));
    const reply = store.applyEvent(debit('late', 1_000));
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST', balance: 100 });
    expect(String((reply.body as { message: string }).message)).toContain('already cancelled by a ROLLBACK');
    expect(store.balanceOf('p1')).toBe(10_000);
  });

  it('refuses a late DEBIT whose reference-style ROLLBACK came first', () => {
    store.applyEvent(rollback('rb-9', 1_000, 'late'));
    expect(store.applyEvent(debit('late', 1_000)).status).toBe(409);
    expect(store.balanceOf('p1')).toBe(10_000);
  });

  it('acknowledges a ROLLBACK of a refused DEBIT without giving back money that was never taken', () => {
    store.applyEvent(debit('tx-1', 50_000));
    expect(store.applyEvent(rollback('tx-1', 50_000))).toEqual({ status: 200, body: { balance: 100 } });
    expect(store.balanceOf('p1')).toBe(10_000);
  });

  it('refuses a ROLLBACK whose amount differs from its DEBIT, without recording it, so a corrected one still works', () => {
    store.applyEvent(debit('tx-1', 1_000));
    const wrong = store.applyEvent(rollback('tx-1', 999));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(String((wrong.body as { message: string }).message)).toMatch(/^amount: .*10\.00.*9\.99/);
    expect(store.balanceOf('p1')).toBe(9_000);
    expect(store.applyEvent(rollback('tx-1', 1_000)).body).toEqual({ balance: 100 });
  });

  it('answers PLAYER_NOT_FOUND (404) for every kind of event for an unknown player', () => {
    for (const event of [debit('tx-1', 100, 'ghost'), credit('tx-2', 100, 'ghost'), rollback('tx-3', 100, 'tx-3', 'ghost')]) {
      const reply = store.applyEvent(event);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ error: 'PLAYER_NOT_FOUND' });
    }
  });

  it('never resets an existing balance when the same players are seeded again', () => {
    store.applyEvent(debit('tx-1', 1_000));
    // Re-seeding happens on every open; simulate it on the same database.
    store.db.prepare('INSERT OR IGNORE INTO players (id, balance_minor) VALUES (?, ?)').run('p1', 10_000);
    expect(store.balanceOf('p1')).toBe(9_000);
  });

  it('encodes balances as integers of minor units when amountFormat is "minor"', () => {
    const minor = openWalletStore({ path: ':memory:', amountFormat: 'minor', players: { p1: 10_000 } });
    expect(minor.applyEvent(debit('tx-1', 1_050)).body).toEqual({ balance: 8_950 });
    minor.close();
  });

  it('allows an overdraft only up to overdraftLimitMinor', () => {
    const overdraft = openWalletStore({
      path: ':memory:',
      amountFormat: 'decimal',
      players: { p1: 100 },
      overdraftLimitMinor: 50,
    });
    expect(overdraft.applyEvent(debit('tx-1', 150)).body).toEqual({ balance: -0.5 });
    expect(overdraft.applyEvent(debit('tx-2', 1)).status).toBe(402);
    overdraft.close();
  });

  it('stores the first reply verbatim with the injected clock', () => {
    store.applyEvent(debit('tx-1', 100));
    expect(store.findTransaction('p1', 'DEBIT', 'tx-1')).toEqual({
      playerId: 'p1',
      kind: 'DEBIT',
      transactionId: 'tx-1',
      debitTransactionId: null,
      amountMinor: 100,
      status: 'accepted',
      reply: { status: 200, body: { balance: 99 } },
      createdAt: '2025-01-01T00:00:00.000Z',
    });
  });
});
