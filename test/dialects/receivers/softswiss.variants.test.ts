/**
 * The SoftSwiss receiver's style B and its planted bugs (softswiss.ts header), proven with bodies
 * built by hand and signed here HMAC-SHA256 (hex) over the exact bytes sent.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';
import { startSoftswissReceiver } from './softswiss.ts';

const AUTH_TOKEN = 'casino-auth-token';
let wallet: VendorReceiver | undefined;
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startSoftswissReceiver({
    credentials: { authToken: AUTH_TOKEN },
    players: [{ playerId: 'p1', currency: 'EUR', balance: '15.00' }],
    ...options,
  });
}

async function post(path: string, body: unknown, raw = JSON.stringify(body)) {
  const res = await fetch(`${wallet?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-sign': createHmac('sha256', AUTH_TOKEN).update(raw).digest('hex') },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const bet = (actionId: string, amount: number) => ({
  user_id: 'p1',
  currency: 'EUR',
  game: 'acceptance:test',
  game_id: `round-${actionId}`,
  finished: false,
  actions: [{ action: 'bet', action_id: actionId, amount }],
});

describe('SoftSwiss receiver, style B', () => {
  it('answers a repeated request with its first reply (balance then, same tx_ids); A with today’s balance', async () => {
    for (const [style, balance] of [
      ['B', 1400],
      ['A', 1200],
    ] as const) {
      await start({ style });
      const first = await post('/play', bet('a1', 100));
      await post('/play', bet('a2', 200));
      const again = await post('/play', bet('a1', 100));
      expect(again.status).toBe(200);
      expect(again.body.balance).toBe(balance);
      expect(again.body.transactions).toEqual(first.body.transactions);
      expect(wallet?.balanceOf('p1')).toBe('12.00');
      expect(wallet?.errors).toEqual([]);
    }
  });
});

describe('SoftSwiss receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['ignores-credential'] })).rejects.toThrow(/cannot plant "ignores-credential"/);
  });

  it('reserialised-signature: a body signed as sent with spaces is refused 403 (correct: accepted)', async () => {
    const body = bet('a1', 100);
    const raw = JSON.stringify(body, null, 2);
    await start();
    expect((await post('/play', body, raw)).status).toBe(200);
    await start({ bugs: ['reserialised-signature'] });
    expect((await post('/play', body, raw)).status).toBe(403);
    expect((await post('/play', bet('a2', 100))).status).toBe(200);
  });

  it('funds-before-duplicate: a repeat of an applied bet after the balance fell below it is 412 code 100', async () => {
    for (const [bugs, status] of [
      [[], 200],
      [['funds-before-duplicate'], 412],
    ] as const) {
      await start({ bugs: [...bugs] });
      await post('/play', bet('a1', 1000));
      await post('/play', bet('a2', 400));
      const again = await post('/play', bet('a1', 1000));
      expect(again.status).toBe(status);
      if (status === 412) expect(again.body.code).toBe(100);
      expect(wallet?.balanceOf('p1')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other bets is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await post('/play', bet('a-first', 100));
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/play', bet(`a${i}`, 5));
      expect((await post('/play', bet('a-first', 100))).status).toBe(200);
      expect(wallet?.balanceOf('p1')).toBe(after);
    }
  });
});
