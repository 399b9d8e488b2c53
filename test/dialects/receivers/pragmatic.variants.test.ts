/**
 * The Pragmatic Play receiver's style B and its planted bugs (pragmatic.ts header), proven with
 * form calls built by hand and hashed here as §3.2 says (MD5 of the sorted k=v&… plus the key).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startPragmaticReceiver } from './pragmatic.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const SECRET = 'testKey';
const TOKEN = '5v93mto7jr';
let wallet: VendorReceiver | undefined;
let sequence = 0;

afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startPragmaticReceiver({
    credentials: { secretKey: SECRET },
    players: [{ playerId: '421', currency: 'USD', balance: '15.00', token: TOKEN }],
    ...options,
  });
}

async function call(path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const text = Object.keys(params)
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  const hash = createHash('md5')
    .update(text + SECRET)
    .digest('hex');
  const response = await fetch(`${wallet?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...params, hash }).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

const bet = (reference: string, amount: string, token = TOKEN) => ({
  providerId: 'pragmaticplay',
  userId: '421',
  gameId: 'vs50aladdin',
  roundId: String(5103188800 + ++sequence),
  amount,
  reference,
  timestamp: '1732536000000',
  roundDetails: 'spin',
  token,
});

describe('Pragmatic receiver, style B', () => {
  it('answers authenticate with a fresh session token; the one-time launch token is then refused with error 4', async () => {
    await start({ style: 'B' });
    const first = await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN });
    expect(first).toMatchObject({ userId: '421', error: 0 });
    const session = first.token as string;
    expect(session).not.toBe(TOKEN);
    expect(await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN })).toMatchObject({ error: 4 });
    expect(await call('/bet.html', bet('r1', '1.00'))).toMatchObject({ error: 4 });
    expect(await call('/bet.html', bet('r1', '1.00', session))).toMatchObject({ error: 0, cash: 14 });
    expect(wallet?.balanceOf('421')).toBe('14.00');
  });

  it('style A answers authenticate with the launch token again and keeps it valid', async () => {
    await start();
    expect(await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN })).toMatchObject({ token: TOKEN });
    expect(await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN })).toMatchObject({ error: 0 });
  });

  it('answers a refund of a bet it never saw with error 120 and moves nothing (style A: 0)', async () => {
    for (const [style, error] of [
      ['B', 120],
      ['A', 0],
    ] as const) {
      await start({ style });
      const refund = { providerId: 'pragmaticplay', userId: '421', reference: 'never-bet' };
      expect(await call('/refund.html', refund)).toMatchObject({ error });
      expect(wallet?.balanceOf('421')).toBe('15.00');
    }
  });

  it('answers a retried bet with the current balance in style B as in A, charged once', async () => {
    await start({ style: 'B' });
    const session = (await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN })).token as string;
    const first = bet('r1', '1.00', session);
    const answer = await call('/bet.html', first);
    await call('/bet.html', bet('r2', '2.00', session));
    expect(await call('/bet.html', first)).toMatchObject({ error: 0, transactionId: answer.transactionId, cash: 12 });
    expect(wallet?.errors).toEqual([]);
  });
});

describe('Pragmatic receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['ignores-credential'] })).rejects.toThrow(/cannot plant "ignores-credential"/);
  });

  it('funds-before-duplicate: a retry of an applied bet after the balance fell below it is error 1', async () => {
    for (const [bugs, error] of [
      [[], 0],
      [['funds-before-duplicate'], 1],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('r1', '10.00');
      await call('/bet.html', first);
      await call('/bet.html', bet('r2', '4.00'));
      expect(await call('/bet.html', first)).toMatchObject({ error });
      expect(wallet?.balanceOf('421')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a retry after ${FORGETFUL_MEMORY} other bets is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('r-first', '1.00');
      await call('/bet.html', first);
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await call('/bet.html', bet(`r${i}`, '0.05'));
      expect(await call('/bet.html', first)).toMatchObject({ error: 0 });
      expect(wallet?.balanceOf('421')).toBe(after);
    }
  });
});
