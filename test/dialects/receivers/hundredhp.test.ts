// Requests built by hand from 100HP's Game flow API v2.9.1 pages (provider.100hp.game):
// /withdrawal, /deposit (same txId), /rollback, JSON bodies with the secret inside.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHundredHpReceiver, truncatedUnits } from './hundredhp.ts';
import type { VendorReceiver } from './receiver-kit.ts';

const SECRET = 'partner-secret';
let wallet: VendorReceiver;

beforeEach(async () => {
  wallet = await startHundredHpReceiver({
    credentials: { secret: SECRET },
    players: [{ playerId: '238795249760076625', currency: 'USD', balance: '100.00', token: 'launch-session' }],
  });
});
afterEach(() => wallet.stop());

const USER = '238795249760076625';

async function post(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${wallet.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ secret: SECRET, userId: USER, sessionId: 'launch-session', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('100HP receiver', () => {
  it('withdraws, then deposits under the same txId, answering {userId, currency, balance, sessionId}', async () => {
    expect(await post('/withdrawal', { txId: 't1', amount: '10' })).toEqual({
      status: 200,
      body: { userId: USER, currency: 'USD', balance: '90.00', sessionId: 'launch-session' },
    });
    expect((await post('/deposit', { txId: 't1', amount: '25.5' })).body.balance).toBe('115.50');
    expect(wallet.balanceOf(USER)).toBe('115.50');
    expect(wallet.errors).toEqual([]);
  });

  it('truncates amounts past 2 decimals instead of rounding', async () => {
    expect(truncatedUnits('104.129')).toBe(10412);
    expect((await post('/withdrawal', { txId: 't1', amount: '1.999' })).body.balance).toBe('98.01');
  });

  it('answers a duplicate withdrawal with the first reply and moves no money; a loss deposit of 0 settles it', async () => {
    const first = await post('/withdrawal', { txId: 't1', amount: '30' });
    expect(await post('/withdrawal', { txId: 't1', amount: '30' })).toEqual(first);
    expect((await post('/deposit', { txId: 't1', amount: '0' })).body.balance).toBe('70.00');
    expect((await post('/deposit', { txId: 't1', amount: '0' })).body.balance).toBe('70.00');
    expect(wallet.balanceOf(USER)).toBe('70.00');
  });

  it('refuses a withdrawal over the balance and charges nothing', async () => {
    const reply = await post('/withdrawal', { txId: 't1', amount: '100.01' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ data: '', errCode: 400, message: 'Insufficient funds' });
    expect(wallet.balanceOf(USER)).toBe('100.00');
  });

  it('rolls a withdrawal back once; a later deposit is 608 already refunded; an unknown txId is 605', async () => {
    await post('/withdrawal', { txId: 't1', amount: '40' });
    expect((await post('/rollback', { txId: 't1' })).body.balance).toBe('100.00');
    expect((await post('/rollback', { txId: 't1' })).body.balance).toBe('100.00');
    expect(await post('/deposit', { txId: 't1', amount: '80' })).toEqual({
      status: 608,
      body: { data: '', errCode: 608, message: 'Transaction already refunded' },
    });
    expect((await post('/rollback', { txId: 'unknown' })).status).toBe(605);
    expect((await post('/deposit', { txId: 'unknown', amount: '1' })).status).toBe(605);
    expect(wallet.balanceOf(USER)).toBe('100.00');
  });

  it('refuses a rollback after the deposit as already settled', async () => {
    await post('/withdrawal', { txId: 't1', amount: '40' });
    await post('/deposit', { txId: 't1', amount: '10' });
    expect((await post('/rollback', { txId: 't1' })).body).toMatchObject({ message: 'Transaction already settled' });
    expect(wallet.balanceOf(USER)).toBe('70.00');
  });

  it('pays a bonusWin once under its own txId', async () => {
    expect((await post('/bonusWin', { txId: 'b1', amount: '5' })).body.balance).toBe('105.00');
    expect((await post('/bonusWin', { txId: 'b1', amount: '5' })).body.balance).toBe('105.00');
  });

  it('authorizes the launch session and answers the balance by it; another session is 604', async () => {
    expect((await post('/auth', { userId: undefined })).body).toMatchObject({ userId: USER, balance: '100.00' });
    expect(await post('/balance', { userId: undefined })).toEqual({
      status: 200,
      body: { userId: USER, currency: 'USD', balance: '100.00' },
    });
    expect(await post('/balance', { userId: undefined, sessionId: 'stolen' })).toEqual({
      status: 604,
      body: { data: '', errCode: 604, message: 'Session not found' },
    });
    expect((await post('/auth', { sessionId: 'stolen' })).status).toBe(604);
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a wrong secret with 601 and records it', async () => {
    expect(await post('/withdrawal', { txId: 't1', amount: '1', secret: 'guess' })).toEqual({
      status: 601,
      body: { data: '', errCode: 601, message: 'Invalid secret key' },
    });
    expect(wallet.balanceOf(USER)).toBe('100.00');
    expect(wallet.errors).toEqual([expect.stringContaining('secret is not the one')]);
  });

  it('refuses a numeric amount and a missing txId with 400, naming the fields', async () => {
    expect((await post('/withdrawal', { amount: 10 })).status).toBe(400);
    expect(wallet.errors.join('\n')).toMatch(/txId: required by the docs but missing/);
    expect(wallet.errors.join('\n')).toMatch(/amount: got number 10; expected a non-empty string/);
    expect(wallet.balanceOf(USER)).toBe('100.00');
  });
});
