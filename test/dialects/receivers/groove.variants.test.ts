/**
 * The Groove receiver's style B and its planted bugs (groove.ts header), proven with GET queries
 * built by hand from Groove's Transaction API pages (no security key: Groove's signature is optional).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGrooveReceiver } from './groove.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

let wallet: VendorReceiver | undefined;
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startGrooveReceiver({
    credentials: {},
    players: [{ playerId: '111', currency: 'EUR', balance: '15.00', token: '11_sess-a' }],
    ...options,
  });
}

async function call(params: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(`${wallet?.url}/groove?${new URLSearchParams(params)}`);
  return (await response.json()) as Record<string, unknown>;
}

const common = { accountid: '111', gamesessionid: '11_sess-a', device: 'desktop', gameid: '80102', apiversion: '1.2' };
const wager = (transactionid: string, betamount: string, session = common.gamesessionid) => ({
  request: 'wager',
  ...common,
  gamesessionid: session,
  roundid: `r-${transactionid}`,
  transactionid,
  betamount,
});

describe('Groove receiver, style B', () => {
  it('answers a repeated wager with the original reply, balances then (A: today’s); charged once', async () => {
    for (const [style, balance] of [
      ['B', 14],
      ['A', 12],
    ] as const) {
      await start({ style });
      const first = await call(wager('t1', '1.00'));
      await call(wager('t2', '2.00'));
      const again = await call(wager('t1', '1.00'));
      expect(again).toMatchObject({ code: 200, status: 'Success - duplicate request', balance });
      expect(again.accounttransactionid).toBe(first.accounttransactionid);
      expect(wallet?.balanceOf('111')).toBe('12.00');
      // A result for a round without a wager (and no frbid) stays refused.
      const orphan = {
        request: 'result',
        ...common,
        roundid: 'r-none',
        transactionid: 'w9',
        result: '5',
        gamestatus: 'completed',
      };
      expect((await call(orphan)).code).toBe(110);
    }
  });
});

describe('Groove receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['ignores-credential'] })).rejects.toThrow(/cannot plant "ignores-credential"/);
  });

  it('session-takeover: getaccount with a known accountid and a guessed session is answered and the session then wagers (correct: 1000)', async () => {
    const getaccount = { request: 'getaccount', ...common, gamesessionid: 'guessed' };
    await start();
    expect((await call(getaccount)).code).toBe(1000);
    expect((await call(wager('t1', '1.00', 'guessed'))).code).toBe(1000);
    await start({ bugs: ['session-takeover'] });
    expect(await call(getaccount)).toMatchObject({ code: 200, accountid: '111' });
    expect((await call(wager('t1', '1.00', 'guessed'))).code).toBe(200);
    expect(wallet?.balanceOf('111')).toBe('14.00');
  });

  it('funds-before-duplicate: a repeat of an applied wager after the balance fell below it is 1006', async () => {
    for (const [bugs, code] of [
      [[], 200],
      [['funds-before-duplicate'], 1006],
    ] as const) {
      await start({ bugs: [...bugs] });
      await call(wager('t1', '10.00'));
      await call(wager('t2', '4.00'));
      expect((await call(wager('t1', '10.00'))).code).toBe(code);
      expect(wallet?.balanceOf('111')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other wagers is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await call(wager('t-first', '1.00'));
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await call(wager(`t${i}`, '0.05'));
      expect((await call(wager('t-first', '1.00'))).code).toBe(200);
      expect(wallet?.balanceOf('111')).toBe(after);
    }
  });
});
