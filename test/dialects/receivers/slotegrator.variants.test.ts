/**
 * The Slotegrator receiver's style B and its planted bugs (slotegrator.ts header), proven with form
 * callbacks built by hand and signed here as the Laravel client does: HMAC-SHA1 of the params and
 * the X-Merchant-Id/X-Timestamp/X-Nonce headers sorted by key, http_build_query-encoded.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';
import { startSlotegratorReceiver } from './slotegrator.ts';

const MERCHANT_ID = 'merchant-7';
const MERCHANT_KEY = 'a54987730bd43743a9f2bda32d6b97c32ab22254';
let wallet: VendorReceiver | undefined;
let nonce = 0;
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startSlotegratorReceiver({
    credentials: { merchantId: MERCHANT_ID, merchantKey: MERCHANT_KEY },
    players: [{ playerId: 'p1', currency: 'EUR', balance: '15.00', token: 'sess-1' }],
    ...options,
  });
}

const encode = (text: string) =>
  encodeURIComponent(text)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

async function callback(params: Record<string, string>, secondsAgo = 0): Promise<Record<string, unknown>> {
  const headers = {
    'X-Merchant-Id': MERCHANT_ID,
    'X-Timestamp': String(Math.floor(Date.now() / 1000) - secondsAgo),
    'X-Nonce': `nonce-${++nonce}`,
  };
  const merged: Record<string, string> = { ...params, ...headers };
  const text = Object.keys(merged)
    .sort()
    .map((name) => `${encode(name)}=${encode(merged[name] as string)}`)
    .join('&');
  const response = await fetch(`${wallet?.url}/slotegrator/callback`, {
    method: 'POST',
    headers: {
      ...headers,
      'X-Sign': createHmac('sha1', MERCHANT_KEY).update(text).digest('hex'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(params).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

const bet = (transaction_id: string, amount: string) => ({
  action: 'bet',
  player_id: 'p1',
  currency: 'EUR',
  amount,
  transaction_id,
  session_id: 'sess-1',
  game_uuid: 'g-1',
  round_id: 'r-1',
});

describe('Slotegrator receiver, style B', () => {
  it('refuses an X-Timestamp 2 minutes old (30 s window; A takes 5 minutes)', async () => {
    for (const [style, refused] of [
      ['B', true],
      ['A', false],
    ] as const) {
      await start({ style });
      const reply = await callback(bet('t1', '1.00'), 120);
      expect('error_code' in reply).toBe(refused);
    }
  });

  it('answers a repeated bet with its first reply (balance then); A with today’s balance; charged once', async () => {
    for (const [style, balance] of [
      ['B', 14],
      ['A', 12],
    ] as const) {
      await start({ style });
      const first = await callback(bet('t1', '1.00'));
      await callback(bet('t2', '2.00'));
      expect(await callback(bet('t1', '1.00'))).toEqual({ balance, transaction_id: first.transaction_id });
      expect(wallet?.balanceOf('p1')).toBe('12.00');
      expect(wallet?.errors).toEqual([]);
    }
  });
});

describe('Slotegrator receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['ignores-credential'] })).rejects.toThrow(/cannot plant "ignores-credential"/);
  });

  it('funds-before-duplicate: a repeat of an applied bet after the balance fell below it is INSUFFICIENT_FUNDS', async () => {
    for (const [bugs, code] of [
      [[], undefined],
      [['funds-before-duplicate'], 'INSUFFICIENT_FUNDS'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await callback(bet('t1', '10.00'));
      await callback(bet('t2', '4.00'));
      expect((await callback(bet('t1', '10.00'))).error_code).toBe(code);
      expect(wallet?.balanceOf('p1')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other bets is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await callback(bet('t-first', '1.00'));
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await callback(bet(`t${i}`, '0.05'));
      expect((await callback(bet('t-first', '1.00'))).error_code).toBeUndefined();
      expect(wallet?.balanceOf('p1')).toBe(after);
    }
  });
});
