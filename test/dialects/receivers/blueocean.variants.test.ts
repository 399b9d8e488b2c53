/**
 * The Blue Ocean receiver's style B and its planted bugs (blueocean.ts header), proven with GET
 * queries built by hand and keyed here: key = sha1(salt + the query string without key).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startBlueOceanReceiver } from './blueocean.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const CREDENTIALS = { callerId: 'casino_s', callerPassword: 'pw', salt: 'Salt123' };
let wallet: VendorReceiver | undefined;
afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startBlueOceanReceiver({
    credentials: CREDENTIALS,
    players: [{ playerId: 'u1', currency: 'EUR', balance: '15.00' }],
    ...options,
  });
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** Sends `query` with a key over `keyed` (the query itself unless given). */
async function get(query: string, keyed = query): Promise<Record<string, string>> {
  const res = await fetch(`${wallet?.url}/?${query}&key=${sha1(CREDENTIALS.salt + keyed)}`);
  return (await res.json()) as Record<string, string>;
}

const debit = (id: string, amount: string, password = CREDENTIALS.callerPassword) =>
  new URLSearchParams({
    callerId: CREDENTIALS.callerId,
    callerPassword: password,
    action: 'debit',
    game_id_hash: 're_re-reactor',
    gamesession_id: 'gs-1',
    username: 'u1',
    session_id: 's1',
    round_id: 'r1',
    gameplay_final: '0',
    amount,
    transaction_id: id,
  }).toString();

describe('Blue Ocean receiver, style B', () => {
  it('checks the key over the query text as received only (A also takes PHP’s rebuild of the pairs)', async () => {
    // Sent with %20 for the space; keyed over PHP's http_build_query form of the same pairs (a '+').
    const sent = `${debit('t1', '1.00')}&game_id=a%20b`;
    const phpForm = `${debit('t1', '1.00')}&game_id=a+b`;
    for (const [style, status] of [
      ['B', '403'],
      ['A', '200'],
    ] as const) {
      await start({ style });
      expect((await get(sent, phpForm)).status).toBe(status);
      expect((await get(debit('t2', '1.00'))).status).toBe('200');
      // The same transaction again gets its first reply in both styles.
      expect(await get(debit('t2', '1.00'))).toEqual({ status: '200', balance: status === '200' ? '13.00' : '14.00' });
    }
  });
});

describe('Blue Ocean receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['reserialised-signature'] })).rejects.toThrow(/cannot plant "reserialised-signature"/);
  });

  it('ignores-credential: a wrong callerPassword (keyed correctly) debits (correct: 403 INCORRECT_CALLER)', async () => {
    await start();
    expect(await get(debit('t1', '1.00', 'guess'))).toEqual({ status: '403', msg: 'INCORRECT_CALLER' });
    await start({ bugs: ['ignores-credential'] });
    expect(await get(debit('t1', '1.00', 'guess'))).toEqual({ status: '200', balance: '14.00' });
  });

  it('funds-before-duplicate: a repeat of an applied debit after the balance fell below it is 403 INSUFFICIENT_FUNDS', async () => {
    for (const [bugs, status] of [
      [[], '200'],
      [['funds-before-duplicate'], '403'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await get(debit('t1', '10.00'));
      await get(debit('t2', '4.00'));
      expect((await get(debit('t1', '10.00'))).status).toBe(status);
      expect(wallet?.balanceOf('u1')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other debits is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      await get(debit('t-first', '1.00'));
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await get(debit(`t${i}`, '0.05'));
      expect((await get(debit('t-first', '1.00'))).status).toBe('200');
      expect(wallet?.balanceOf('u1')).toBe(after);
    }
  });
});
