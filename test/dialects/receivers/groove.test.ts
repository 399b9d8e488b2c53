/**
 * Proves the Groove casino wallet against GET requests built by hand from groove-docs.pages.dev
 * (/transaction-api/*, /appendix/) and signed, where enabled, per /transaction-api/signature-validation.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startGrooveReceiver, type VendorReceiver } from './groove.ts';

const SECURITY_KEY = 'groove-security-key';
let wallet: VendorReceiver | undefined;

async function start(credentials: Record<string, string> = {}): Promise<VendorReceiver> {
  wallet = await startGrooveReceiver({
    credentials,
    players: [{ playerId: '111', currency: 'EUR', balance: '100.00', token: '11_sess-a' }],
  });
  return wallet;
}
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

/** X-Groove-Signature: HMAC-SHA256 of the values sorted by name, `request` left out, nogsgameid as gameid. */
function sign(params: Record<string, string>, key = SECURITY_KEY): string {
  const text = Object.keys(params)
    .filter((name) => name !== 'request')
    .sort((a, b) => {
      const left = a === 'nogsgameid' ? 'gameid' : a;
      const right = b === 'nogsgameid' ? 'gameid' : b;
      return left < right ? -1 : left > right ? 1 : 0;
    })
    .map((name) => params[name])
    .join('');
  return createHmac('sha256', key).update(text).digest('hex');
}

async function call(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${wallet!.url}/groove?${new URLSearchParams(params)}`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const common = { accountid: '111', gamesessionid: '11_sess-a', device: 'desktop', gameid: '80102', apiversion: '1.2' };
const wager = (transactionid: string, betamount: string, roundid = 'r1') => ({
  request: 'wager',
  ...common,
  roundid,
  transactionid,
  betamount,
});
const result = (transactionid: string, amount: string, gamestatus = 'completed', roundid = 'r1') => ({
  request: 'result',
  ...common,
  roundid,
  transactionid,
  result: amount,
  gamestatus,
});
const rollback = (transactionid: string, rollbackAmount: string, roundid = 'r1') => ({
  request: 'rollback',
  ...common,
  roundid,
  transactionid,
  rollbackAmount,
});

describe('Groove casino wallet', () => {
  it('answers getaccount and getbalance for the session it opened', async () => {
    await start();
    const account = await call({
      request: 'getaccount',
      gamesessionid: '11_sess-a',
      accountid: '111',
      device: 'desktop',
      apiversion: '1.2',
    });
    expect(account).toMatchObject({
      code: 200,
      status: 'Success',
      accountid: '111',
      currency: 'EUR',
      real_balance: 100,
      apiversion: '1.2',
    });
    const { gameid: _named, ...noGameId } = common;
    const balance = await call({ request: 'getbalance', ...noGameId, nogsgameid: '80102' });
    expect(balance).toMatchObject({ code: 200, status: 'Success', balance: 100, real_balance: 100, bonus_balance: 0 });
    expect(wallet!.errors).toEqual([]);
  });

  it('takes a wager and answers its own transaction id with the new balance', async () => {
    await start();
    const reply = await call(wager('w1', '10.5'));
    expect(reply).toMatchObject({
      code: 200,
      status: 'Success',
      accounttransactionid: expect.any(String),
      balance: 89.5,
      realmoneybet: 10.5,
    });
    expect(wallet!.balanceOf('111')).toBe('89.50');
  });

  it('answers a repeated wager with the original reply, "Success - duplicate request", and charges once', async () => {
    await start();
    const first = await call(wager('w1', '10'));
    const again = await call(wager('w1', '10.0000000000'));
    expect(again).toMatchObject({
      code: 200,
      status: 'Success - duplicate request',
      accounttransactionid: first.accounttransactionid,
      balance: 90,
    });
    expect(wallet!.balanceOf('111')).toBe('90.00');
    expect(wallet!.errors).toEqual([]);
  });

  it('answers 400 when a repeated transactionid carries another betamount', async () => {
    await start();
    await call(wager('w1', '10'));
    expect(await call(wager('w1', '11'))).toMatchObject({ code: 400, status: 'Transaction parameter mismatch' });
    expect(wallet!.balanceOf('111')).toBe('90.00');
  });

  it('answers 1006 Out of money and charges nothing', async () => {
    await start();
    expect(await call(wager('w1', '100.01'))).toMatchObject({ code: 1006, status: 'Out of money', balance: 100 });
    expect(wallet!.balanceOf('111')).toBe('100.00');
    expect(wallet!.errors).toEqual([]);
  });

  it('answers 1000 Not logged on to a wager under a session it did not open', async () => {
    await start();
    expect(await call({ ...wager('w1', '1'), gamesessionid: '11_other' })).toMatchObject({ code: 1000 });
    expect(wallet!.balanceOf('111')).toBe('100.00');
    expect(wallet!.errors).toEqual([expect.stringContaining('gamesessionid: string "11_other" is not the session')]);
  });

  it('pays a result of a wagered round once, even after the session ended', async () => {
    await start();
    await call(wager('w1', '10'));
    const paid = await call({ ...result('x1', '25'), gamesessionid: '11_expired' });
    expect(paid).toMatchObject({ code: 200, status: 'Success', walletTx: expect.any(String), balance: 115, realMoneyWin: 25 });
    expect(await call({ ...result('x1', '25'), gamesessionid: '11_expired' })).toMatchObject({
      status: 'Success - duplicate request',
    });
    expect(wallet!.balanceOf('111')).toBe('115.00');
  });

  it('refuses a result for a round without a wager, unless it is a free-round result', async () => {
    await start();
    expect(await call(result('x1', '5', 'completed', 'no-wager'))).toMatchObject({ code: 110 });
    expect(await call({ ...result('x2', '5', 'completed', 'frb-round'), frbid: 'tpl-1' })).toMatchObject({ code: 200 });
    expect(wallet!.balanceOf('111')).toBe('105.00');
    expect(wallet!.errors).toEqual([expect.stringContaining('roundid no-wager: no wager of 111 in this round')]);
  });

  it('accepts pending results and then one completed result, refusing any after it with 409', async () => {
    await start();
    await call(wager('w1', '10'));
    await call(result('x1', '1', 'pending'));
    await call(result('x2', '2', 'completed'));
    expect(await call(result('x3', '3', 'completed'))).toMatchObject({ code: 409 });
    expect(await call(result('x4', '3', 'finished', 'r2'))).toMatchObject({ code: 110 });
    expect(wallet!.balanceOf('111')).toBe('93.00');
  });

  it('rolls back a wager once and repeats the answer as a duplicate', async () => {
    await start();
    await call(wager('w1', '10'));
    expect(await call({ ...rollback('w1', '10'), gamesessionid: '11_expired' })).toMatchObject({
      code: 200,
      status: 'Success',
      balance: 100,
    });
    expect(await call(rollback('w1', '10'))).toMatchObject({ code: 200, status: 'Success - duplicate request', balance: 100 });
    expect(wallet!.balanceOf('111')).toBe('100.00');
    expect(wallet!.errors).toEqual([]);
  });

  it('answers 102 to a rollback of a wager it never took, and never charges that wager later', async () => {
    await start();
    expect(await call(rollback('ghost', '10'))).toMatchObject({ code: 102, status: 'Wager not found' });
    expect((await call(wager('ghost', '10'))).code).not.toBe(200);
    expect(wallet!.balanceOf('111')).toBe('100.00');
  });

  it('answers 110 to a rollback of a wager whose round already has a result', async () => {
    await start();
    await call(wager('w1', '10'));
    await call(result('x1', '0'));
    expect(await call(rollback('w1', '10'))).toMatchObject({ code: 110 });
    expect(wallet!.balanceOf('111')).toBe('90.00');
  });

  it('takes back a result once on reversewin', async () => {
    await start();
    await call(wager('w1', '10'));
    await call(result('x1', '30'));
    const reverse = { request: 'reversewin', ...common, roundid: 'r1', transactionid: 'x1', amount: '30' };
    expect(await call(reverse)).toMatchObject({ code: 200, balance: 90 });
    expect(await call(reverse)).toMatchObject({ status: 'Success - duplicate request', balance: 90 });
    expect(wallet!.balanceOf('111')).toBe('90.00');
  });

  it('answers 110 to a negative amount and 1 Technical error naming a missing parameter', async () => {
    await start();
    expect(await call(wager('w1', '-1'))).toMatchObject({ code: 110 });
    const { transactionid: _omitted, ...noId } = wager('w2', '1');
    expect(await call(noId)).toMatchObject({ code: 1, status: 'Technical error' });
    expect(wallet!.errors).toEqual([
      expect.stringContaining('betamount: -1 is negative'),
      expect.stringContaining('transactionid: required but missing'),
    ]);
    expect(wallet!.balanceOf('111')).toBe('100.00');
  });

  it('with a security key, takes a correctly signed wager and refuses a missing or wrong X-Groove-Signature with 1003', async () => {
    await start({ securityKey: SECURITY_KEY });
    const params = wager('w1', '10');
    expect(await call(params, { 'X-Groove-Signature': sign(params) })).toMatchObject({ code: 200, balance: 90 });
    expect(await call(wager('w2', '10'))).toMatchObject({ code: 1003 });
    expect(await call(wager('w3', '10'), { 'X-Groove-Signature': sign(wager('w3', '10'), 'other-key') })).toMatchObject({
      code: 1003,
    });
    expect(await call(wager('w4', '20'), { 'X-Groove-Signature': sign(wager('w4', '10')) })).toMatchObject({ code: 1003 });
    expect(wallet!.balanceOf('111')).toBe('90.00');
    expect(wallet!.errors).toEqual([
      expect.stringContaining('X-Groove-Signature: required'),
      expect.stringContaining('X-Groove-Signature: does not match'),
      expect.stringContaining('X-Groove-Signature: does not match'),
    ]);
  });
});
