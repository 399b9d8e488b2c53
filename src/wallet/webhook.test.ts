import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningWallet } from './index.ts';
import { startTestWallet, type WalletClient } from './test-support.ts';

describe('POST /callback/webhook over HTTP, signed (default contract)', () => {
  let wallet: RunningWallet;
  let client: WalletClient;
  beforeEach(async () => {
    ({ wallet, client } = await startTestWallet());
  });
  afterEach(() => wallet.close());

  it('knows p1…p10 with 1000.00 each out of the box', async () => {
    expect(await client.balance('p1')).toBe(1000);
    expect(await client.balance('p10')).toBe(1000);
    expect(await client.balance('p11')).toBeUndefined();
  });

  it('answers a DEBIT with 200 {balance} after the bet', async () => {
    const reply = await client.debit('p1', 'tx-1', 10.5);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ balance: 989.5 });
  });

  it('answers a CREDIT with 200 {balance} after the win', async () => {
    expect((await client.credit('p1', 'win-1', 0.1)).body).toEqual({ balance: 1000.1 });
  });

  it('keeps cent precision without float noise (0.1 + 0.2)', async () => {
    await client.credit('p1', 'c-1', 0.1);
    expect((await client.credit('p1', 'c-2', 0.2)).body).toEqual({ balance: 1000.3 });
  });

  it('answers a duplicate DEBIT with the first reply, byte for byte, and moves no money', async () => {
    const first = await client.debit('p1', 'tx-1', 10);
    await client.credit('p1', 'win-1', 5);
    const again = await client.debit('p1', 'tx-1', 10);
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(await client.balance('p1')).toBe(995);
  });

  it('answers a duplicate CREDIT with the first reply and moves no money', async () => {
    const first = await client.credit('p1', 'win-1', 5);
    expect((await client.credit('p1', 'win-1', 5)).text).toBe(first.text);
    expect(await client.balance('p1')).toBe(1005);
  });

  it('refuses a DEBIT above the balance with 402 INSUFFICIENT_FUNDS, the current balance, and no change', async () => {
    const reply = await client.debit('p1', 'big', 1000.01);
    expect(reply.status).toBe(402);
    expect(reply.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', balance: 1000 });
    expect(reply.body.message).toMatch(/1000\.00.*1000\.01/);
    expect(await client.balance('p1')).toBe(1000);
  });

  it('restores the DEBIT on ROLLBACK', async () => {
    await client.debit('p1', 'tx-1', 25);
    const reply = await client.rollback('p1', 'tx-1', 25);
    expect(reply).toMatchObject({ status: 200, body: { balance: 1000 } });
  });

  it('accepts a reference-style ROLLBACK (fresh transactionId + referenceTransactionId)', async () => {
    await client.debit('p1', 'tx-1', 25);
    expect((await client.rollback('p1', 'rb-1', 25, 'tx-1')).body).toEqual({ balance: 1000 });
  });

  it('answers a duplicate ROLLBACK with the first reply and restores once', async () => {
    await client.debit('p1', 'tx-1', 25);
    const first = await client.rollback('p1', 'tx-1', 25);
    const again = await client.rollback('p1', 'tx-1', 25);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(await client.balance('p1')).toBe(1000);
  });

  it('acknowledges a ROLLBACK of an unknown transaction with 200 and the unchanged balance', async () => {
    expect(await client.rollback('p1', 'never-seen', 10)).toMatchObject({ status: 200, body: { balance: 1000 } });
  });

  it('refuses the late DEBIT of a transaction that was already rolled back (tombstone), moving no money', async () => {
    await client.rollback('p1', 'late', 10);
    const reply = await client.debit('p1', 'late', 10);
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST', balance: 1000 });
    expect(await client.balance('p1')).toBe(1000);
  });

  it('acknowledges a ROLLBACK of a refused DEBIT without changing the balance', async () => {
    await client.debit('p1', 'big', 5000);
    expect(await client.rollback('p1', 'big', 5000)).toMatchObject({ status: 200, body: { balance: 1000 } });
  });

  it('refuses a ROLLBACK whose amount differs from its DEBIT with INVALID_REQUEST naming amount', async () => {
    await client.debit('p1', 'tx-1', 25);
    const reply = await client.rollback('p1', 'tx-1', 30);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(reply.body.message).toMatch(/^amount:/);
    expect(await client.balance('p1')).toBe(975);
  });

  it('treats the same transactionId for two players as two independent transactions', async () => {
    expect((await client.debit('p1', 'shared', 100)).body).toEqual({ balance: 900 });
    expect((await client.debit('p2', 'shared', 100)).body).toEqual({ balance: 900 });
    expect(await client.balance('p1')).toBe(900);
    expect(await client.balance('p2')).toBe(900);
  });

  it('answers PLAYER_NOT_FOUND (404) for a CREDIT or DEBIT to an unknown player', async () => {
    for (const reply of [await client.credit('ghost', 'w', 1), await client.debit('ghost', 'b', 1)]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ error: 'PLAYER_NOT_FOUND' });
      expect(reply.body.message).toContain('ghost');
    }
  });

  it('accepts a DEBIT or CREDIT of 0 (a free spin, a losing round closed) without moving money, once', async () => {
    expect((await client.debit('p1', 'free-spin', 0)).body).toEqual({ balance: 1000 });
    expect((await client.credit('p1', 'lost-round', 0)).body).toEqual({ balance: 1000 });
    expect((await client.debit('p1', 'free-spin', 0)).body).toEqual({ balance: 1000 });
    expect((await client.rollback('p1', 'free-spin', 0)).body).toEqual({ balance: 1000 });
    expect(await client.balance('p1')).toBe(1000);
  });

  it.each([
    ['negative', -10],
    ['three-decimal', 1.005],
  ])('refuses a %s amount with 400 INVALID_REQUEST naming amount, and moves no money', async (_, amount) => {
    const reply = await client.debit('p1', 'tx-1', amount);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(reply.body.message).toMatch(/^amount:/);
    expect(await client.balance('p1')).toBe(1000);
  });

  it('refuses malformed JSON with 400 INVALID_REQUEST', async () => {
    const reply = await client.post('{"type":"DEBIT",');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(reply.body.message).toMatch(/not valid JSON/);
  });

  it('refuses missing fields with 400 naming each', async () => {
    const reply = await client.post({ type: 'DEBIT', amount: 1 });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/transactionId/);
    expect(reply.body.message).toMatch(/playerId/);
  });

  it('refuses wrong types with 400 naming the field', async () => {
    const reply = await client.post({ type: 'DEBIT', transactionId: 42, amount: 1, playerId: 'p1' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^transactionId:/);
  });

  it('refuses an unknown type with 400 naming type and the expected values', async () => {
    const reply = await client.post({ type: 'BONUS', transactionId: 't', amount: 1, playerId: 'p1' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^type: .*DEBIT.*CREDIT.*ROLLBACK/);
  });

  it('refuses a non-JSON content type with 415 INVALID_REQUEST', async () => {
    const reply = await client.post(
      { type: 'DEBIT', transactionId: 't', amount: 1, playerId: 'p1' },
      { contentType: 'text/plain' },
    );
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(await client.balance('p1')).toBe(1000);
  });

  it('accepts application/json with a charset', async () => {
    const reply = await client.post(
      { type: 'DEBIT', transactionId: 't', amount: 1, playerId: 'p1' },
      { contentType: 'application/json; charset=utf-8' },
    );
    expect(reply.status).toBe(200);
  });

  it('refuses a body over 1 MiB with 413 JSON', async () => {
    const reply = await client.post({ type: 'DEBIT', transactionId: 't', amount: 1, playerId: 'p1', pad: 'x'.repeat(1_100_000) });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST' });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await fetch(`${wallet.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('answers GET /health', async () => {
    const response = await fetch(`${wallet.url}/health`);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('configured wire variants', () => {
  it('speaks custom type strings (BET/WIN/REFUND)', async () => {
    const { wallet, client } = await startTestWallet({
      configInput: { callbacks: { types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } } },
    });
    try {
      expect((await client.debit('p1', 'b-1', 10)).body).toEqual({ balance: 990 });
      expect((await client.credit('p1', 'w-1', 30)).body).toEqual({ balance: 1020 });
      expect((await client.rollback('p1', 'b-1', 10)).body).toEqual({ balance: 1030 });
      const old = await client.post({ type: 'DEBIT', transactionId: 'x', amount: 1, playerId: 'p1' });
      expect(old.status).toBe(400);
    } finally {
      await wallet.close();
    }
  });

  it('reads and answers integer minor units when amountFormat is "minor"', async () => {
    const { wallet, client } = await startTestWallet({ configInput: { callbacks: { amountFormat: 'minor' } } });
    try {
      expect(await client.balance('p1')).toBe(100_000);
      expect((await client.debit('p1', 'b-1', 1_050)).body).toEqual({ balance: 98_950 });
      const fraction = await client.debit('p1', 'b-2', 10.5);
      expect(fraction.status).toBe(400);
      expect(fraction.body.message).toMatch(/^amount: expected a whole number of minor units, 0 or more/);
    } finally {
      await wallet.close();
    }
  });

  it('seeds the players of wallet.players', async () => {
    const { wallet, client } = await startTestWallet({ configInput: { wallet: { players: { alice: 12.34 } } } });
    try {
      expect(await client.balance('alice')).toBe(12.34);
      expect(await client.balance('p1')).toBeUndefined();
    } finally {
      await wallet.close();
    }
  });
});
