/**
 * The Evolution receiver's style B and its planted bugs (evolution.ts header), each proven with
 * requests built by hand in the shape of valkyrie's "… example from specs" bodies: style B is still
 * a correct wallet, and each bug really answers wrongly where the correct receiver does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEvolutionReceiver } from './evolution.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const AUTH_TOKEN = 'api-token-from-evolution';
let receiver: VendorReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}): Promise<VendorReceiver> {
  receiver = await startEvolutionReceiver({
    credentials: { authToken: AUTH_TOKEN },
    players: [
      { playerId: 'euID-1', currency: 'EUR', balance: '1000.00', token: 'sid-1' },
      { playerId: 'euID-2', currency: 'EUR', balance: '2.00', token: 'sid-2' },
    ],
    ...options,
  });
  return receiver;
}

async function post(path: string, body: unknown, token = AUTH_TOKEN): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${receiver?.url}${path}?authToken=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const money = (transaction: { id: string; refId: string; amount: number }, who = { sid: 'sid-1', userId: 'euID-1' }) => ({
  ...who,
  currency: 'EUR',
  game: { id: 'round-1', type: 'blackjack', details: { table: { id: 't1', vid: 't1' } } },
  transaction,
  uuid: `u-${transaction.id}`,
});

describe('Evolution receiver, style B', () => {
  it('answers /check with a fresh sid; the old sid is then INVALID_SID on balance, debit and credit, the new one works', async () => {
    await start({ style: 'B' });
    const check = await post('/check', { sid: 'sid-1', userId: 'euID-1', channel: { type: 'P' }, uuid: 'c1' });
    expect(check.json.status).toBe('OK');
    const fresh = check.json.sid as string;
    expect(fresh).not.toBe('sid-1');
    expect(fresh.length).toBeGreaterThanOrEqual(32);
    expect((await post('/balance', { sid: 'sid-1', userId: 'euID-1', currency: 'EUR' })).json.status).toBe('INVALID_SID');
    expect((await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }))).json.status).toBe('INVALID_SID');
    expect((await post('/credit', money({ id: 'c1', refId: 'r1', amount: 1 }))).json.status).toBe('INVALID_SID');
    const debit = await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }, { sid: fresh, userId: 'euID-1' }));
    expect(debit.json).toMatchObject({ status: 'OK', balance: 999 });
    // The other player's sid is untouched, and the fresh sid is bound to its player.
    expect((await post('/balance', { sid: 'sid-2', userId: 'euID-2', currency: 'EUR' })).json.status).toBe('OK');
    expect((await post('/balance', { sid: fresh, userId: 'euID-2', currency: 'EUR' })).json.status).toBe('INVALID_SID');
    expect(receiver?.errors).toEqual([]);
  });

  it('style A keeps the sid on /check (both are correct)', async () => {
    await start();
    const check = await post('/check', { sid: 'sid-1', userId: 'euID-1', uuid: 'c1' });
    expect(check.json).toEqual({ status: 'OK', sid: 'sid-1', uuid: 'c1' });
    expect((await post('/balance', { sid: 'sid-1', userId: 'euID-1', currency: 'EUR' })).json.status).toBe('OK');
  });

  it('answers a repeated debit BET_ALREADY_EXIST with the balance, charged once (style A: OK)', async () => {
    for (const [style, code] of [
      ['B', 'BET_ALREADY_EXIST'],
      ['A', 'OK'],
    ] as const) {
      await start({ style });
      const bet = money({ id: 'd1', refId: 'r1', amount: 10 });
      expect((await post('/debit', bet)).json).toMatchObject({ status: 'OK', balance: 990 });
      expect((await post('/debit', bet)).json).toMatchObject({ status: code, balance: 990 });
      expect(receiver?.balanceOf('euID-1')).toBe('990.00');
      // A win without its bet stays refused in both styles.
      expect((await post('/credit', money({ id: 'c9', refId: 'r-none', amount: 5 }))).json.status).toBe('BET_DOES_NOT_EXIST');
      await receiver?.stop();
      receiver = undefined;
    }
  });
});

describe('Evolution receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['reserialised-signature'] })).rejects.toThrow(/cannot plant "reserialised-signature"/);
  });

  it('ignores-credential: a wrong authToken is accepted and moves money (the correct wallet answers 401)', async () => {
    await start();
    expect((await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }), 'guess')).status).toBe(401);
    await receiver?.stop();
    await start({ bugs: ['ignores-credential'] });
    const reply = await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }), 'guess');
    expect(reply).toMatchObject({ status: 200, json: { status: 'OK', balance: 999 } });
  });

  it('session-takeover: /check with a known userId and a guessed sid is OK and the sid then bets (correct: INVALID_SID)', async () => {
    const guess = { sid: 'guessed-sid', userId: 'euID-1' };
    await start();
    expect((await post('/check', { ...guess, uuid: 'c' })).json.status).toBe('INVALID_SID');
    expect((await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }, guess))).json.status).toBe('INVALID_SID');
    await receiver?.stop();
    await start({ bugs: ['session-takeover'] });
    expect((await post('/check', { ...guess, uuid: 'c' })).json).toMatchObject({ status: 'OK', sid: 'guessed-sid' });
    expect((await post('/debit', money({ id: 'd1', refId: 'r1', amount: 1 }, guess))).json).toMatchObject({ status: 'OK' });
    expect(receiver?.balanceOf('euID-1')).toBe('999.00');
  });

  it('funds-before-duplicate: a repeat of an applied debit after the balance fell below it is INSUFFICIENT_FUNDS', async () => {
    const who = { sid: 'sid-2', userId: 'euID-2' };
    for (const [bugs, code] of [
      [[], 'OK'],
      [['funds-before-duplicate'], 'INSUFFICIENT_FUNDS'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const bet = money({ id: 'd1', refId: 'r1', amount: 1.5 }, who);
      expect((await post('/debit', bet)).json).toMatchObject({ status: 'OK', balance: 0.5 });
      expect((await post('/debit', bet)).json).toMatchObject({ status: code, balance: 0.5 });
      expect(receiver?.balanceOf('euID-2')).toBe('0.50');
      await receiver?.stop();
      receiver = undefined;
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other debits is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '980.00'],
      [['forgetful-dedupe'], '970.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const bet = money({ id: 'd-first', refId: 'r-first', amount: 10 });
      await post('/debit', bet);
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/debit', money({ id: `d${i}`, refId: `r${i}`, amount: 0.05 }));
      const repeat = await post('/debit', bet);
      expect(repeat.json.status).toBe('OK');
      // 1000 − 10 − 200 × 0.05 = 980, and 10 more when the repeat is charged again.
      expect(receiver?.balanceOf('euID-1')).toBe(after);
      await receiver?.stop();
      receiver = undefined;
    }
  });
});
