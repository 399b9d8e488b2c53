/**
 * The Red Tiger receiver's style B and its planted bugs (redtiger.ts header), proven with bodies
 * built by hand in the shape of valkyrie's provider/redtiger models and integration tests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';
import { startRedTigerReceiver } from './redtiger.ts';

const API_KEY = 'red-tiger-api-key';
const TOKEN = 'alice-session-token-0123456789abcdef';
let receiver: VendorReceiver | undefined;
let counter = 0;

afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await receiver?.stop();
  receiver = await startRedTigerReceiver({
    credentials: { apiKey: API_KEY },
    players: [{ playerId: 'alice', currency: 'EUR', balance: '15.00', token: TOKEN }],
    ...options,
  });
}

interface Reply {
  status: number;
  json: { success?: boolean; error?: { code?: number }; result?: { token?: string } };
}

async function post(path: string, body: unknown, key = API_KEY): Promise<Reply> {
  const response = await fetch(`${receiver?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Reply['json'] };
}

const auth = (token = TOKEN, userId = 'alice') => ({ token, userId, casino: 'Kongo', currency: 'EUR' });
const stake = (id: string, amount: string, token = TOKEN) => ({
  token,
  userId: 'alice',
  casino: 'Kongo',
  currency: 'EUR',
  transaction: { id, stake: amount, stakePromo: '0.00' },
  round: { id: `round-${++counter}`, starts: true, ends: false },
  game: { key: 'dragonsLuck' },
});

describe('Red Tiger receiver, style B', () => {
  it('answers /auth with a fresh token of 32–128 characters; the old token is then refused (301), the new one stakes', async () => {
    await start({ style: 'B' });
    const first = await post('/auth', auth());
    expect(first.json.success).toBe(true);
    const fresh = first.json.result?.token as string;
    expect(fresh).not.toBe(TOKEN);
    expect(fresh.length).toBeGreaterThanOrEqual(32);
    expect(fresh.length).toBeLessThanOrEqual(128);
    expect((await post('/stake', stake('t1', '1.00'))).json.error?.code).toBe(301);
    expect((await post('/auth', auth())).json.error?.code).toBe(301);
    expect((await post('/stake', stake('t1', '1.00', fresh))).json.success).toBe(true);
    // The fresh token is bound to alice: another userId with it is refused.
    expect((await post('/auth', auth(fresh, 'bob'))).json.error?.code).toBe(301);
    expect(receiver?.balanceOf('alice')).toBe('14.00');
    expect(receiver?.errors).toEqual([]);
  });

  it('style A answers /auth with the same token and keeps it', async () => {
    await start();
    expect((await post('/auth', auth())).json.result?.token).toBe(TOKEN);
    expect((await post('/stake', stake('t1', '1.00'))).json.success).toBe(true);
  });
});

describe('Red Tiger receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['reserialised-signature'] })).rejects.toThrow(/cannot plant "reserialised-signature"/);
  });

  it('ignores-credential: a wrong API key stakes (correct: HTTP 401 code 100)', async () => {
    await start();
    expect(await post('/stake', stake('t1', '1.00'), 'guess')).toMatchObject({ status: 401, json: { error: { code: 100 } } });
    await start({ bugs: ['ignores-credential'] });
    expect(await post('/stake', stake('t1', '1.00'), 'guess')).toMatchObject({ status: 200, json: { success: true } });
    expect(receiver?.balanceOf('alice')).toBe('14.00');
  });

  it('session-takeover: /auth with a known userId and a guessed token is accepted and the token then stakes (correct: 301)', async () => {
    const guess = 'guessed-token-0123456789abcdef0123456789';
    await start();
    expect((await post('/auth', auth(guess))).json.error?.code).toBe(301);
    expect((await post('/stake', stake('t1', '1.00', guess))).json.error?.code).toBe(301);
    await start({ bugs: ['session-takeover'] });
    expect((await post('/auth', auth(guess))).json.success).toBe(true);
    expect((await post('/stake', stake('t1', '1.00', guess))).json.success).toBe(true);
    expect(receiver?.balanceOf('alice')).toBe('14.00');
  });

  it('funds-before-duplicate: a repeat of an applied stake after the balance fell below it is 304', async () => {
    for (const [bugs, success] of [
      [[], true],
      [['funds-before-duplicate'], false],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = stake('t1', '10.00');
      await post('/stake', first);
      await post('/stake', stake('t2', '4.00'));
      const again = await post('/stake', first);
      expect(again.json.success).toBe(success);
      if (!success) expect(again.json.error?.code).toBe(304);
      expect(receiver?.balanceOf('alice')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other stakes is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = stake('t-first', '1.00');
      await post('/stake', first);
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/stake', stake(`t${i}`, '0.05'));
      expect((await post('/stake', first)).json.success).toBe(true);
      expect(receiver?.balanceOf('alice')).toBe(after);
    }
  });
});
