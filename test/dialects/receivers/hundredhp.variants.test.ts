/**
 * The 100HP receiver's style B and its planted bugs (hundredhp.ts header), proven with JSON bodies
 * built by hand from the Game flow API pages (the secret travels in every body).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHundredHpReceiver } from './hundredhp.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const SECRET = 'partner-secret';
const USER = '238795249760076625';
let wallet: VendorReceiver | undefined;
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startHundredHpReceiver({
    credentials: { secret: SECRET },
    players: [{ playerId: USER, currency: 'USD', balance: '15.00', token: 'launch-session' }],
    ...options,
  });
}

async function post(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${wallet?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ secret: SECRET, userId: USER, sessionId: 'launch-session', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('100HP receiver, style B', () => {
  it('answers a repeated withdrawal with today’s balance (A: its first reply), charged once; a deposit needs its withdrawal', async () => {
    for (const [style, balance] of [
      ['B', '12.00'],
      ['A', '14.00'],
    ] as const) {
      await start({ style });
      await post('/withdrawal', { txId: 't1', amount: '1' });
      await post('/withdrawal', { txId: 't2', amount: '2' });
      expect(await post('/withdrawal', { txId: 't1', amount: '1' })).toMatchObject({ status: 200, body: { balance } });
      expect(wallet?.balanceOf(USER)).toBe('12.00');
      expect((await post('/deposit', { txId: 'never', amount: '5' })).status).toBe(605);
      expect(wallet?.errors).toEqual([]);
    }
  });
});

describe('100HP receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['reserialised-signature'] })).rejects.toThrow(/cannot plant "reserialised-signature"/);
  });

  it('ignores-credential: a wrong secret withdraws (correct: 601)', async () => {
    await start();
    expect((await post('/withdrawal', { txId: 't1', amount: '1', secret: 'guess' })).status).toBe(601);
    await start({ bugs: ['ignores-credential'] });
    expect((await post('/withdrawal', { txId: 't1', amount: '1', secret: 'guess' })).status).toBe(200);
    expect(wallet?.balanceOf(USER)).toBe('14.00');
  });

  it('session-takeover: /auth with a known userId and a guessed sessionId is accepted and the session then reads the balance (correct: 604)', async () => {
    await start();
    expect((await post('/auth', { sessionId: 'guessed' })).status).toBe(604);
    expect((await post('/balance', { sessionId: 'guessed' })).status).toBe(604);
    await start({ bugs: ['session-takeover'] });
    expect(await post('/auth', { sessionId: 'guessed' })).toMatchObject({ status: 200, body: { userId: USER } });
    // The balance page's body is {sessionId, secret}: the guessed session alone names the player now.
    const balance = await fetch(`${wallet?.url}/balance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: SECRET, sessionId: 'guessed' }),
    });
    expect(await balance.json()).toMatchObject({ userId: USER, balance: '15.00' });
  });

  it('funds-before-duplicate: a repeat of an applied withdrawal after the balance fell below it is refused', async () => {
    for (const [bugs, status] of [
      [[], 200],
      [['funds-before-duplicate'], 400],
    ] as const) {
      await start({ bugs: [...bugs] });
      await post('/withdrawal', { txId: 't1', amount: '10' });
      await post('/withdrawal', { txId: 't2', amount: '4' });
      expect((await post('/withdrawal', { txId: 't1', amount: '10' })).status).toBe(status);
      expect(wallet?.balanceOf(USER)).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other withdrawals is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await post('/withdrawal', { txId: 't-first', amount: '1' });
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/withdrawal', { txId: `t${i}`, amount: '0.05' });
      expect((await post('/withdrawal', { txId: 't-first', amount: '1' })).status).toBe(200);
      expect(wallet?.balanceOf(USER)).toBe(after);
    }
  });
});
