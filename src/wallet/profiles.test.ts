import { afterEach, describe, expect, it } from 'vitest';
import { buildCallbackBody, type CallbackFields } from '../callbacks/events.ts';
import { judgeReply } from '../callbacks/reply.ts';
import { type AggmockConfigInput, dialectOf } from '../config/index.ts';
import type { RunningWallet, WalletFault } from './index.ts';
import { type Reply, readReply, startTestWallet } from './test-support.ts';

/*
 * The reference wallet under the Betnex profile, over real HTTP on 127.0.0.1: bodies written by
 * aggmock's own engine (its dialect), replies judged by aggmock's own judge, money checked in the store.
 */

/** The facts of a callback: its kind and amount, the rest defaulted. */
type Fields = Partial<CallbackFields> & Pick<CallbackFields, 'kind' | 'amountMinor'>;

const API_KEY = 'operator-key-123';
const BETNEX: AggmockConfigInput = {
  callbacks: { profile: 'betnex', apiKey: API_KEY, currencies: { BTC: 8 } },
  wallet: {
    players: { p1: 100, jp: { balance: 5000, currency: 'JPY' }, btc: { balance: 0.5, currency: 'BTC' } },
  },
};

const running: RunningWallet[] = [];
afterEach(async () => {
  for (const wallet of running.splice(0)) await wallet.close();
});

async function betnexWallet(input: AggmockConfigInput = BETNEX) {
  const started = await startTestWallet({ configInput: input });
  running.push(started.wallet);
  const wire = started.config.callbacks;
  const post = async (body: unknown): Promise<Reply> =>
    readReply(
      await fetch(started.wallet.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  /** The body aggmock would send for these facts. */
  const body = (fields: Fields) =>
    JSON.parse(buildCallbackBody({ transactionId: 'tx-1', playerId: 'p1', ...fields }, wire)) as Record<string, unknown>;
  const judge = (reply: Reply, currency = wire.currency) =>
    judgeReply({ status: reply.status, text: reply.text }, { dialect: dialectOf(wire), currency, currencies: wire.currencies });
  const balance = (playerId: string) => started.wallet.store.balanceOf(playerId);
  return { ...started, wire, post, body, judge, balance };
}

describe('the reference wallet under the betnex profile', () => {
  it('takes a bet (bet_amount, win_amount 0) and a win (bet 0, win_amount), replying {success, msg, handle, money}', async () => {
    const w = await betnexWallet();
    const bet = await w.post(w.body({ kind: 'debit', amountMinor: 1050 }));
    expect(bet.status).toBe(200);
    expect(bet.body).toEqual({ success: true, msg: 'success', handle: true, money: 89.5 });
    expect(w.judge(bet)).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 8950 }, balanceExact: true });

    const win = await w.post(w.body({ kind: 'credit', transactionId: 'tx-2', amountMinor: 2000 }));
    expect(win.body).toEqual({ success: true, msg: 'success', handle: true, money: 109.5 });
    expect(w.balance('p1')).toBe(10_950);
  });

  it('applies a whole round (bet and win in one body) at once, and a repeat of its serial_number moves nothing', async () => {
    const w = await betnexWallet();
    const round = { ...w.body({ kind: 'debit', amountMinor: 1000 }), win_amount: 25 };
    const first = await w.post(round);
    expect(first.body).toMatchObject({ success: true, money: 115 });
    expect(w.balance('p1')).toBe(11_500);

    const again = await w.post(round);
    expect(again.text).toBe(first.text);
    expect(w.balance('p1')).toBe(11_500);
  });

  it('replays a duplicate serial_number with the first reply and moves no money', async () => {
    const w = await betnexWallet();
    const bet = w.body({ kind: 'debit', amountMinor: 500 });
    const first = await w.post(bet);
    const second = await w.post(bet);
    expect(second.text).toBe(first.text);
    expect(w.balance('p1')).toBe(9_500);
  });

  it('refuses a bet larger than the balance with success:false, money 0 and HTTP 200, and moves nothing', async () => {
    const w = await betnexWallet();
    const refused = await w.post(w.body({ kind: 'debit', amountMinor: 10_001 }));
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ success: false, handle: false, money: 0 });
    expect(String(refused.body.msg)).toMatch(/100\.00, less than the bet of 100\.01/);
    // The judge reads a rejection and, as the profile says, no balance from it.
    expect(w.judge(refused)).toMatchObject({ verdict: 'rejected', balance: { kind: 'none' } });
    expect(w.balance('p1')).toBe(10_000);
    // The other side: exactly the whole balance is accepted.
    expect((await w.post(w.body({ kind: 'debit', transactionId: 'tx-2', amountMinor: 10_000 }))).body).toMatchObject({
      success: true,
      money: 0,
    });
  });

  it('checks api_key instead of a signature: a wrong or missing key is refused and moves nothing', async () => {
    const w = await betnexWallet();
    const good = w.body({ kind: 'debit', amountMinor: 100 });
    const wrong = await w.post({ ...good, api_key: 'operator-key-124' });
    expect(wrong.body).toMatchObject({ success: false, handle: false, money: 0 });
    expect(String(wrong.body.msg)).toMatch(/^Wrong API key/);
    const { api_key: _key, ...keyless } = good;
    const missing = await w.post(keyless);
    expect(String(missing.body.msg)).toMatch(/^Missing API key/);
    expect(w.balance('p1')).toBe(10_000);

    expect((await w.post(good)).body).toMatchObject({ success: true, money: 99 });
  });

  it('refuses a currency_code that is not the player’s, and reads amounts in the player’s currency', async () => {
    const w = await betnexWallet();
    const wrong = await w.post(w.body({ kind: 'debit', amountMinor: 100, currency: 'USD' }));
    expect(wrong.body).toMatchObject({ success: false, money: 0 });
    expect(String(wrong.body.msg)).toMatch(/^currency: player p1 plays in EUR, but this DEBIT is in USD/);
    expect(w.balance('p1')).toBe(10_000);

    // JPY has no decimals: 150 yen is 150 minor units, written 150.
    const yen = await w.post(w.body({ kind: 'debit', playerId: 'jp', amountMinor: 150, currency: 'JPY' }));
    expect(yen.body).toEqual({ success: true, msg: 'success', handle: true, money: 4850 });
    expect(w.balance('jp')).toBe(4850);
    const fraction = await w.post({
      ...w.body({ kind: 'debit', playerId: 'jp', transactionId: 'tx-3', amountMinor: 1, currency: 'JPY' }),
      bet_amount: 1.5,
    });
    expect(fraction.body).toMatchObject({ success: false });
    expect(String(fraction.body.msg)).toMatch(/^bet_amount: expected a JSON number in major units, 0 or more, with no decimals/);
    expect(w.balance('jp')).toBe(4850);
  });

  it('names the body field that is wrong (member_account, serial_number, data.bonus_type)', async () => {
    const w = await betnexWallet();
    const good = w.body({ kind: 'debit', amountMinor: 100, bonus: { kind: 'free-spins', id: 'fs-1' } });
    const { member_account: _m, ...noPlayer } = good;
    const refused = await w.post({ ...noPlayer, serial_number: 7, data: { bonus_type: 'lottery', bonus_id: 'x' } });
    expect(refused.status).toBe(200);
    expect(refused.body.success).toBe(false);
    const fields = (refused.body.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['data.bonus_type', 'member_account', 'serial_number']);
    expect(w.balance('p1')).toBe(10_000);
    expect((await w.post(good)).body).toMatchObject({ success: true });
  });
});

describe('planted faults under the betnex profile', () => {
  async function faulty(fault: WalletFault) {
    const started = await startTestWallet({ configInput: BETNEX, fault });
    running.push(started.wallet);
    const wire = started.config.callbacks;
    const post = async (fields: Fields, change = {}) =>
      readReply(
        await fetch(started.wallet.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            ...JSON.parse(buildCallbackBody({ transactionId: 'tx-1', playerId: 'p1', ...fields }, wire)),
            ...change,
          }),
        }),
      );
    return { post, balance: () => started.wallet.store.balanceOf('p1') };
  }

  it('no-signature-check takes a wrong api_key too (the reference refuses it: see above)', async () => {
    const w = await faulty('no-signature-check');
    expect((await w.post({ kind: 'debit', amountMinor: 100 }, { api_key: 'forged' })).body).toMatchObject({ success: true });
    expect(w.balance()).toBe(9_900);
  });

  it('double-debit charges a repeated serial_number again (the reference replays it: see above)', async () => {
    const w = await faulty('double-debit');
    await w.post({ kind: 'debit', amountMinor: 100 });
    expect((await w.post({ kind: 'debit', amountMinor: 100 })).body).toMatchObject({ success: true, money: 98 });
    expect(w.balance()).toBe(9_800);
  });

  it('a ROLLBACK fault has nothing to break: the wire has no ROLLBACK, so the wallet behaves as the reference', async () => {
    const w = await faulty('rollback-ignored');
    expect((await w.post({ kind: 'debit', amountMinor: 100 })).body).toMatchObject({ success: true, money: 99 });
    expect((await w.post({ kind: 'credit', transactionId: 'tx-2', amountMinor: 100 })).body).toMatchObject({ money: 100 });
  });
});

describe('the reference wallet with players in other currencies (default profile)', () => {
  const CURRENCIES: AggmockConfigInput = {
    callbacks: { currencies: { BTC: 8 }, extraFields: ['currency'] },
    wallet: {
      testEndpoints: true,
      players: {
        eur: 100,
        jp: { balance: 1000, currency: 'JPY' },
        kw: { balance: 10.5, currency: 'KWD' },
        btc: { balance: 0.00012345, currency: 'BTC' },
      },
    },
  };
  const signed = async () => {
    const started = await startTestWallet({ configInput: CURRENCIES });
    running.push(started.wallet);
    const send = (playerId: string, currency: string, amount: number, type = 'DEBIT', transactionId = `${playerId}-1`) =>
      started.client.post({ type, transactionId, amount, playerId, currency });
    return { ...started, send };
  };

  it('keeps each balance in its currency’s minor units and writes it with its decimals', async () => {
    const { send, wallet, client } = await signed();
    expect((await send('jp', 'JPY', 150)).body).toEqual({ balance: 850 });
    expect(wallet.store.balanceOf('jp')).toBe(850);
    expect((await send('kw', 'KWD', 0.125)).body).toEqual({ balance: 10.375 });
    expect(wallet.store.balanceOf('kw')).toBe(10_375);
    expect((await send('btc', 'BTC', 0.00000045)).body).toEqual({ balance: 0.000123 });
    expect(wallet.store.balanceOf('btc')).toBe(12_300);
    expect((await send('btc', 'BTC', 0.00000001, 'CREDIT', 'btc-2')).body).toEqual({ balance: 0.00012301 });
    expect(await client.balance('kw')).toBe(10.375);
    expect((await send('eur', 'EUR', 10.5)).body).toEqual({ balance: 89.5 });
  });

  it('refuses more decimals than the currency has, naming amount, and moves nothing', async () => {
    const { send, wallet } = await signed();
    const yen = await send('jp', 'JPY', 1.5);
    expect(yen.status).toBe(400);
    expect(yen.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(String(yen.body.message)).toMatch(/^amount: .*with no decimals.*got 1\.5/);
    const dinar = await send('kw', 'KWD', 0.0001);
    expect(String(dinar.body.message)).toMatch(/^amount: .*at most 3 decimals.*got 0\.0001/);
    const satoshi = await send('btc', 'BTC', 0.000000001);
    expect(String(satoshi.body.message)).toMatch(/^amount: .*at most 8 decimals/);
    expect([wallet.store.balanceOf('jp'), wallet.store.balanceOf('kw'), wallet.store.balanceOf('btc')]).toEqual([
      1000, 10_500, 12_345,
    ]);
  });

  it('refuses a callback in another currency than the player’s with WRONG_CURRENCY and the balance, moving nothing', async () => {
    const { send, wallet } = await signed();
    const wrong = await send('jp', 'EUR', 1);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: 'WRONG_CURRENCY', balance: 1000 });
    expect(wallet.store.balanceOf('jp')).toBe(1000);
    const unknown = await send('jp', 'ZZZZ', 1);
    expect(unknown.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'currency' })]);
    expect((await send('jp', 'JPY', 1)).body).toEqual({ balance: 999 });
  });

  it('refuses a configured player with an unknown currency or too many decimals, naming the key', async () => {
    await expect(
      startTestWallet({ configInput: { wallet: { players: { x: { balance: 1, currency: 'ABCD' } } } } }),
    ).rejects.toThrow(/wallet\.players\.x\.currency: unknown currency "ABCD"/);
    await expect(
      startTestWallet({ configInput: { wallet: { players: { x: { balance: 1.5, currency: 'JPY' } } } } }),
    ).rejects.toThrow(/wallet\.players\.x\.balance: expected a balance with at most 0 decimals, got 1\.5/);
  });
});
