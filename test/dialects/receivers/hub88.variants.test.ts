/**
 * The Hub88 receiver's style B and its planted bugs (hub88.ts header), proven with requests built by
 * hand from Hub88's Wallet API pages and signed here RSA-SHA256 over the exact bytes sent.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHub88Receiver } from './hub88.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const TOKEN = '55b7518e-b89e-11e7-81be-58404eea6d16';
let wallet: VendorReceiver | undefined;
let sequence = 0;
const uuid = (label: string) => `${label}-${++sequence}-4c0e-bbf5-308aad6265af`;

afterEach(async () => {
  await wallet?.stop();
  wallet = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await wallet?.stop();
  wallet = await startHub88Receiver({
    credentials: { publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    players: [{ playerId: 'john12345', currency: 'EUR', balance: '15.00', token: TOKEN }],
    ...options,
  });
}

/** Posts `raw` (or the body as JSON.stringify writes it) signed over exactly those bytes. */
async function post(path: string, body: unknown, raw = JSON.stringify(body)) {
  const signature = sign('sha256', Buffer.from(raw), keys.privateKey).toString('base64');
  const response = await fetch(`${wallet?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Hub88-Signature': signature },
    body: raw,
  });
  return (await response.json()) as Record<string, unknown>;
}

const bet = (transaction_uuid: string, amount: number) => ({
  user: 'john12345',
  transaction_uuid,
  supplier_transaction_id: uuid('sup'),
  token: TOKEN,
  round: 'round-1',
  round_closed: false,
  request_uuid: uuid('req'),
  game_code: 'clt_dragonrising',
  currency: 'EUR',
  amount,
});

describe('Hub88 receiver, style B', () => {
  it('answers a repeated transaction_uuid with its first reply (balance then), the new request_uuid echoed; A answers today’s balance', async () => {
    for (const [style, repeatBalance] of [
      ['B', 1_400_000],
      ['A', 1_200_000],
    ] as const) {
      await start({ style });
      const first = bet('tx-1', 100_000);
      expect(await post('/transaction/bet', first)).toMatchObject({ status: 'RS_OK', balance: 1_400_000 });
      expect(await post('/transaction/bet', bet('tx-2', 200_000))).toMatchObject({ status: 'RS_OK', balance: 1_200_000 });
      const again = { ...first, request_uuid: uuid('retry') };
      expect(await post('/transaction/bet', again)).toMatchObject({
        status: 'RS_OK',
        balance: repeatBalance,
        request_uuid: again.request_uuid,
      });
      expect(wallet?.balanceOf('john12345')).toBe('12.00');
      // A win whose bet the wallet never took stays refused.
      const orphan = { ...bet('win-1', 5), reference_transaction_uuid: 'nobody' };
      expect(await post('/transaction/win', orphan)).toMatchObject({ status: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST' });
      expect(wallet?.errors).toEqual([]);
    }
  });
});

describe('Hub88 receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['session-takeover'] })).rejects.toThrow(/cannot plant "session-takeover"/);
  });

  it('reserialised-signature: a body signed as sent with spacing and another key order is refused (correct: accepted)', async () => {
    const body = bet('tx-1', 100_000);
    // The bytes a sender may well sign: a space after each colon and amount first.
    const raw = `{"amount": 100000, ${JSON.stringify({ ...body, amount: undefined })
      .slice(1)
      .replace(/":/g, '": ')}`;
    expect(JSON.parse(raw)).toEqual(body);
    await start();
    expect(await post('/transaction/bet', body, raw)).toMatchObject({ status: 'RS_OK' });
    await start({ bugs: ['reserialised-signature'] });
    expect(await post('/transaction/bet', body, raw)).toMatchObject({ status: 'RS_ERROR_INVALID_SIGNATURE' });
    // The same bug passes a body that JSON.stringify writes byte for byte.
    expect(await post('/transaction/bet', bet('tx-2', 100_000))).toMatchObject({ status: 'RS_OK' });
  });

  it('funds-before-duplicate: a repeat of an applied bet after the balance fell below it is RS_ERROR_NOT_ENOUGH_MONEY', async () => {
    for (const [bugs, status] of [
      [[], 'RS_OK'],
      [['funds-before-duplicate'], 'RS_ERROR_NOT_ENOUGH_MONEY'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('tx-1', 1_000_000);
      await post('/transaction/bet', first);
      await post('/transaction/bet', bet('tx-2', 400_000));
      // 1.00 left: the first bet (10.00) again, once with the same request_uuid and once with a new one.
      expect(await post('/transaction/bet', first)).toMatchObject({ status });
      expect(await post('/transaction/bet', { ...first, request_uuid: uuid('retry') })).toMatchObject({ status });
      expect(wallet?.balanceOf('john12345')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other bets is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('tx-first', 100_000);
      await post('/transaction/bet', first);
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/transaction/bet', bet(`tx-${i}`, 5_000));
      // 15 − 1 − 200 × 0.05 = 4.00; the exact request again (same request_uuid), then a retry with a new one.
      expect(await post('/transaction/bet', first)).toMatchObject({ status: 'RS_OK' });
      expect(await post('/transaction/bet', { ...first, request_uuid: uuid('retry') })).toMatchObject({ status: 'RS_OK' });
      expect(wallet?.balanceOf('john12345')).toBe(after);
    }
  });
});
