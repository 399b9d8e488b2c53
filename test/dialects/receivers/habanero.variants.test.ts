/**
 * The Habanero receiver's style B and its planted bugs (habanero.ts header), proven with
 * fundtransferrequest bodies built by hand in the shape the public integrations read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHabaneroReceiver } from './habanero.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const PASSKEY = 'hb-passkey-1';
type Json = Record<string, unknown>;
let wallet: VendorReceiver | undefined;

afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startHabaneroReceiver({
    credentials: { passkey: PASSKEY, brandId: 'brand-1' },
    players: [{ playerId: 'p1', currency: 'EUR', balance: '15.00', token: 'tok-1' }],
    ...options,
  });
}

function transfer(fundinfo: Json[], extra: Json = {}, passkey = PASSKEY): Json {
  return {
    type: 'fundtransferrequest',
    dtsent: '2026-11-25T12:00:00.0000000Z',
    basegame: { brandgameid: 'bg-1', keyname: 'SGCoyoteCash' },
    auth: { username: 'hb', passkey, machinename: 'HB01', locale: 'en', brandid: 'brand-1' },
    fundtransferrequest: {
      token: 'tok-1',
      accountid: 'p1',
      gameinstanceid: 'gi-1',
      isretry: false,
      retrycount: 0,
      isrefund: false,
      isrecredit: false,
      funds: { debitandcredit: false, fundinfo },
      ...extra,
    },
  };
}

const entry = (transferid: string, amount: number, extra: Json = {}): Json => ({
  transferid,
  amount,
  currencycode: 'EUR',
  gamestatemode: amount < 0 ? 1 : 2,
  ...extra,
});

async function fund(body: Json) {
  const response = await fetch(`${wallet?.url}/habanero/transaction`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { fundtransferresponse: { status: Json; balance: number } };
  return json.fundtransferresponse;
}

describe('Habanero receiver, style B', () => {
  it('checks the token on a credit too (A pays a credit whatever its token); a retry is exempt', async () => {
    for (const [style, paid] of [
      ['B', false],
      ['A', true],
    ] as const) {
      await start({ style });
      await fund(transfer([entry('d1', -1)]));
      const credit = await fund(transfer([entry('c1', 2, { initialdebittransferid: 'd1' })], { token: 'tok-stale' }));
      expect(credit.status).toMatchObject({ success: paid, autherror: !paid });
      const retry = await fund(
        transfer([entry('c1', 2, { initialdebittransferid: 'd1' })], { token: 'tok-stale', isretry: true }),
      );
      expect(retry.status.success).toBe(true);
      expect(wallet?.balanceOf('p1')).toBe('16.00');
      // A credit naming a debit the wallet never took stays refused in both styles.
      const orphan = await fund(transfer([entry('c2', 2, { initialdebittransferid: 'never' })]));
      expect(orphan.status).toMatchObject({ success: false, message: 'Bet not exist' });
    }
  });
});

describe('Habanero receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['session-takeover'] })).rejects.toThrow(/cannot plant "session-takeover"/);
  });

  it('ignores-credential: a wrong passkey debits (correct: autherror, no money)', async () => {
    await start();
    expect((await fund(transfer([entry('d1', -1)], {}, 'guess'))).status).toMatchObject({ success: false, autherror: true });
    expect(wallet?.balanceOf('p1')).toBe('15.00');
    await start({ bugs: ['ignores-credential'] });
    expect((await fund(transfer([entry('d1', -1)], {}, 'guess'))).status).toMatchObject({ success: true });
    expect(wallet?.balanceOf('p1')).toBe('14.00');
  });

  it('funds-before-duplicate: a repeat of an applied debit after the balance fell below it is nofunds', async () => {
    for (const [bugs, success] of [
      [[], true],
      [['funds-before-duplicate'], false],
    ] as const) {
      await start({ bugs: [...bugs] });
      await fund(transfer([entry('d1', -10)]));
      await fund(transfer([entry('d2', -4)]));
      const again = await fund(transfer([entry('d1', -10)], { isretry: true, retrycount: 1 }));
      expect(again.status).toMatchObject({ success, nofunds: !success });
      expect(wallet?.balanceOf('p1')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other debits is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await fund(transfer([entry('d-first', -1)]));
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await fund(transfer([entry(`d${i}`, -0.05)]));
      expect((await fund(transfer([entry('d-first', -1)], { isretry: true }))).status.success).toBe(true);
      expect(wallet?.balanceOf('p1')).toBe(after);
    }
  });
});
