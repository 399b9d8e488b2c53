/**
 * Proves the Slotegrator GIS wallet against callbacks built by hand from the vendor's material
 * (https://softbet.io/docs/CUSTOMER-API.md and the integrations cited in slotegrator.ts), signed here
 * the two documented ways: PHP's ksort + http_build_query (the Laravel client) and SoftBet's sorted
 * keys with encodeURIComponent values.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlotegratorReceiver, type VendorReceiver } from './slotegrator.ts';

const MERCHANT_ID = 'merchant-7';
const MERCHANT_KEY = 'a54987730bd43743a9f2bda32d6b97c32ab22254';

type Params = Record<string, string | Record<string, string>[]>;

/** PHP: ksort($params ∪ headers); http_build_query (keys encoded, spaces '+'); hash_hmac('sha1'). */
function phpSign(params: Params, headers: Record<string, string>, key = MERCHANT_KEY): string {
  const merged: Params = { ...params, ...headers };
  const encode = (text: string) =>
    encodeURIComponent(text)
      .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  const parts: string[] = [];
  for (const name of Object.keys(merged).sort()) {
    const value = merged[name]!;
    if (typeof value === 'string') {
      parts.push(`${encode(name)}=${encode(value)}`);
    } else {
      value.forEach((entry, index) => {
        for (const [inner, text] of Object.entries(entry)) parts.push(`${encode(`${name}[${index}][${inner}]`)}=${encode(text)}`);
      });
    }
  }
  return createHmac('sha1', key).update(parts.join('&')).digest('hex');
}

/** SoftBet: flatten, sort keys byte-wise, keys literal, values encodeURIComponent. */
function softbetSign(flat: Record<string, string>, headers: Record<string, string>): string {
  const merged = { ...flat, ...headers };
  const text = Object.keys(merged)
    .sort()
    .map((name) => `${name}=${encodeURIComponent(merged[name as keyof typeof merged]!)}`)
    .join('&');
  return createHmac('sha1', MERCHANT_KEY).update(text).digest('hex');
}

let nonce = 0;
function authHeaders(timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  nonce += 1;
  return { 'X-Merchant-Id': MERCHANT_ID, 'X-Timestamp': String(timestamp), 'X-Nonce': `nonce-${nonce}` };
}

function formBody(params: Params): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') {
      body.append(name, value);
      continue;
    }
    for (const [index, entry] of value.entries()) {
      for (const [inner, text] of Object.entries(entry)) body.append(`${name}[${index}][${inner}]`, text);
    }
  }
  return body.toString();
}

let wallet: VendorReceiver;

async function callback(
  params: Params,
  options: { headers?: Record<string, string>; sign?: string } = {},
): Promise<Record<string, unknown>> {
  const headers = options.headers ?? authHeaders();
  const response = await fetch(`${wallet.url}/slotegrator/callback`, {
    method: 'POST',
    headers: {
      ...headers,
      'X-Sign': options.sign ?? phpSign(params, headers),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: formBody(params),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const base = { player_id: 'p1', currency: 'EUR', game_uuid: 'g-1', session_id: 'sess-1' };
const bet = (id: string, amount: string, round = 'r1') => ({
  ...base,
  action: 'bet',
  amount,
  transaction_id: id,
  round_id: round,
  type: 'bet',
});
const win = (id: string, amount: string, round = 'r1') => ({
  ...base,
  action: 'win',
  amount,
  transaction_id: id,
  round_id: round,
  type: 'win',
});

beforeEach(async () => {
  wallet = await startSlotegratorReceiver({
    credentials: { merchantId: MERCHANT_ID, merchantKey: MERCHANT_KEY },
    players: [
      { playerId: 'p1', currency: 'EUR', balance: '100.00', token: 'sess-1' },
      { playerId: 'p2', currency: 'USD', balance: '5.00' },
    ],
  });
});
afterEach(async () => {
  await wallet.stop();
});

describe('Slotegrator GIS wallet', () => {
  it('answers balance with the balance in major units', async () => {
    expect(await callback({ ...base, action: 'balance' })).toEqual({ balance: 100 });
    expect(wallet.errors).toEqual([]);
  });

  it('takes a bet and answers its own transaction id with the new balance', async () => {
    const reply = await callback(bet('b1', '10.50'));
    expect(reply).toEqual({ balance: 89.5, transaction_id: expect.any(String) });
    expect(wallet.balanceOf('p1')).toBe('89.50');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a repeated bet with the first transaction id and charges it once', async () => {
    const first = await callback(bet('b1', '10.00'));
    const again = await callback(bet('b1', '10.00'));
    expect(again.transaction_id).toBe(first.transaction_id);
    expect(again.balance).toBe(90);
    expect(wallet.balanceOf('p1')).toBe('90.00');
  });

  it('refuses a repeat of a transaction id with another amount and moves no money', async () => {
    await callback(bet('b1', '10.00'));
    const again = await callback(bet('b1', '20.00'));
    expect(again.error_code).toBe('INTERNAL_ERROR');
    expect(wallet.balanceOf('p1')).toBe('90.00');
    expect(wallet.errors.join('\n')).toMatch(/transaction_id: bet b1 was first sent .* 10\.00.* 20\.00/);
  });

  it('pays a win once, however often it is sent', async () => {
    await callback(bet('b1', '10.00'));
    await callback(win('w1', '25.00'));
    const again = await callback(win('w1', '25.00'));
    expect(again.balance).toBe(115);
    expect(wallet.balanceOf('p1')).toBe('115.00');
  });

  it('answers INSUFFICIENT_FUNDS for a bet above the balance and charges nothing', async () => {
    const reply = await callback(bet('b1', '100.01'));
    expect(reply).toEqual({ error_code: 'INSUFFICIENT_FUNDS', error_description: expect.any(String) });
    expect(wallet.balanceOf('p1')).toBe('100.00');
    // A refusal is the wallet's answer, not a fault in the request.
    expect(wallet.errors).toEqual([]);
  });

  it('returns a refunded bet once, even when the refund is repeated under a new id', async () => {
    await callback(bet('b1', '10.00'));
    const refund = { ...base, action: 'refund', amount: '10.00', bet_transaction_id: 'b1' };
    expect((await callback({ ...refund, transaction_id: 'rf1' })).balance).toBe(100);
    expect((await callback({ ...refund, transaction_id: 'rf1' })).balance).toBe(100);
    expect((await callback({ ...refund, transaction_id: 'rf2' })).balance).toBe(100);
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a refund of a bet it never took with success and the balance unchanged, then never charges that bet', async () => {
    const reply = await callback({
      ...base,
      action: 'refund',
      amount: '10.00',
      transaction_id: 'rf1',
      bet_transaction_id: 'late',
    });
    expect(reply).toEqual({ balance: 100, transaction_id: expect.any(String) });
    const lateBet = await callback(bet('late', '10.00'));
    expect(lateBet.error_code).toBe('INTERNAL_ERROR');
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('rolls back a bet and a win listed in rollback_transactions once, skipping entries it does not know', async () => {
    await callback(bet('b1', '10.00'));
    await callback(win('w1', '4.00'));
    expect(wallet.balanceOf('p1')).toBe('94.00');
    const rollback = {
      ...base,
      action: 'rollback',
      transaction_id: 'rb1',
      round_id: 'r1',
      type: 'rollback',
      rollback_transactions: [
        { action: 'bet', amount: '10.00', transaction_id: 'b1' },
        { action: 'win', amount: '4.00', transaction_id: 'w1' },
        { action: 'bet', amount: '3.00', transaction_id: 'never-seen' },
      ],
    };
    const reply = await callback(rollback);
    expect(reply).toEqual({
      balance: 100,
      transaction_id: expect.any(String),
      rollback_transactions: ['b1', 'w1', 'never-seen'],
    });
    // The same rollback again, and another one naming the same entries: nothing moves twice.
    expect((await callback(rollback)).balance).toBe(100);
    expect((await callback({ ...rollback, transaction_id: 'rb2' })).balance).toBe(100);
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('accepts a rollback signed by PHP with its entries in the order they were sent, not sorted', async () => {
    await callback(bet('b1', '10.00'));
    const rollback = {
      ...base,
      action: 'rollback',
      transaction_id: 'rb1',
      rollback_transactions: [{ transaction_id: 'b1', amount: '10.00', action: 'bet' }],
    };
    expect(await callback(rollback)).toEqual({ balance: 100, transaction_id: expect.any(String), rollback_transactions: ['b1'] });
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a wrong X-Sign, says why, and moves no money', async () => {
    const headers = authHeaders();
    const reply = await callback(bet('b1', '10.00'), { headers, sign: phpSign(bet('b1', '10.00'), headers, 'another-key') });
    expect(reply.error_code).toBe('INTERNAL_ERROR');
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([expect.stringContaining('X-Sign: does not match HMAC-SHA1')]);
  });

  it('refuses a body changed after signing', async () => {
    const headers = authHeaders();
    const reply = await callback(bet('b1', '90.00'), { headers, sign: phpSign(bet('b1', '10.00'), headers) });
    expect(reply.error_code).toBe('INTERNAL_ERROR');
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('refuses another merchant id and a timestamp outside five minutes', async () => {
    const otherMerchant = { ...authHeaders(), 'X-Merchant-Id': 'merchant-8' };
    expect((await callback(bet('b1', '1.00'), { headers: otherMerchant })).error_code).toBe('INTERNAL_ERROR');
    const stale = authHeaders(Math.floor(Date.now() / 1000) - 301);
    expect((await callback(bet('b2', '1.00'), { headers: stale })).error_code).toBe('INTERNAL_ERROR');
    expect(wallet.errors).toEqual([
      expect.stringContaining('X-Merchant-Id: got string "merchant-8"'),
      expect.stringMatching(/X-Timestamp: \d+ is 30\d s from the wallet's clock/),
    ]);
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('judges X-Timestamp by the clock it is given', async () => {
    const frozen = await startSlotegratorReceiver({
      credentials: { merchantId: MERCHANT_ID, merchantKey: MERCHANT_KEY },
      players: [{ playerId: 'p1', currency: 'EUR', balance: '100.00' }],
      now: () => Date.UTC(2024, 0, 1),
    });
    try {
      const send = async (timestamp: number) => {
        const headers = authHeaders(timestamp);
        const params = { ...base, action: 'balance' };
        const response = await fetch(frozen.url, {
          method: 'POST',
          headers: { ...headers, 'X-Sign': phpSign(params, headers), 'content-type': 'application/x-www-form-urlencoded' },
          body: formBody(params),
        });
        return (await response.json()) as Record<string, unknown>;
      };
      const then = Date.UTC(2024, 0, 1) / 1000;
      expect(await send(then + 299)).toEqual({ balance: 100 });
      expect((await send(Math.floor(Date.now() / 1000))).error_code).toBe('INTERNAL_ERROR');
      expect(frozen.errors).toEqual([expect.stringContaining('X-Timestamp:')]);
    } finally {
      await frozen.stop();
    }
  });

  it('accepts a JSON body signed SoftBet-style (sorted keys, encodeURIComponent values)', async () => {
    const headers = authHeaders();
    const params = { ...bet('b1', '2.25'), game_uuid: 'game with spaces & symbols' };
    const response = await fetch(wallet.url, {
      method: 'POST',
      headers: { ...headers, 'X-Sign': softbetSign(params, headers), 'content-type': 'application/json' },
      body: JSON.stringify({ ...params, amount: 2.25 }),
    });
    expect(await response.json()).toEqual({ balance: 97.75, transaction_id: expect.any(String) });
    expect(wallet.errors).toEqual([]);
  });

  it('names the missing field, an unknown player and a foreign currency', async () => {
    const { amount: _omitted, ...noAmount } = bet('b1', '1.00');
    expect((await callback(noAmount)).error_code).toBe('INTERNAL_ERROR');
    expect((await callback({ ...bet('b2', '1.00'), player_id: 'nobody' })).error_code).toBe('INTERNAL_ERROR');
    expect((await callback({ ...bet('b3', '1.00'), currency: 'USD' })).error_code).toBe('INTERNAL_ERROR');
    expect(wallet.errors).toEqual([
      expect.stringContaining('amount: required but missing'),
      expect.stringContaining('player_id: no player string "nobody"'),
      expect.stringContaining('currency: got string "USD"; the player\'s wallet is in EUR'),
    ]);
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('refuses a bet under a session it did not open', async () => {
    const reply = await callback({ ...bet('b1', '1.00'), session_id: 'sess-other' });
    expect(reply.error_code).toBe('INTERNAL_ERROR');
    expect(wallet.errors).toEqual([expect.stringContaining('session_id: string "sess-other" is not the session')]);
  });
});
