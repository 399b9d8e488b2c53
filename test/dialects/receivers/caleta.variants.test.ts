/**
 * The Caleta receiver's style B and its planted bugs (caleta.ts header), proven with bodies built by
 * hand from Caleta's OAS 1.5 and signed here RSA-SHA256 (PKCS#1 v1.5) over the exact bytes sent.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startCaletaReceiver } from './caleta.ts';
import type { VendorReceiver } from './receiver-kit.ts';
import { FORGETFUL_MEMORY, type PlantedBug, type ReceiverStyle } from './receiver-style.ts';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
let receiver: VendorReceiver | undefined;
let counter = 0;
const uuid = (): string => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

async function start(options: { style?: ReceiverStyle; bugs?: PlantedBug[] } = {}) {
  await receiver?.stop();
  receiver = await startCaletaReceiver({
    credentials: { publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    players: [{ playerId: 'user1210', currency: 'EUR', balance: '15.00', token: 'tok-alice' }],
    ...options,
  });
}

async function post(path: string, body: unknown, raw = JSON.stringify(body)): Promise<Record<string, unknown>> {
  const signature = sign('sha256', Buffer.from(raw), keys.privateKey).toString('base64');
  const response = await fetch(`${receiver?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-signature': signature },
    body: raw,
  });
  return (await response.json()) as Record<string, unknown>;
}

const bet = (transaction_uuid: string, amount: number) => ({
  token: 'tok-alice',
  transaction_uuid,
  supplier_user: 'cg_user1210',
  round_closed: false,
  round: 'CG-1718271',
  request_uuid: uuid(),
  is_free: false,
  game_code: 'cg_magicforest',
  currency: 'EUR',
  amount,
});

const rollback = (reference: string) => ({
  token: 'tok-alice',
  transaction_uuid: uuid(),
  round_closed: true,
  round: 'CG-1718271',
  request_uuid: uuid(),
  reference_transaction_uuid: reference,
  game_code: 'cg_magicforest',
});

describe('Caleta receiver, style B', () => {
  it('answers a rollback of an unknown transaction RS_ERROR_TRANSACTION_DOES_NOT_EXIST, its repeat too, and refuses the late bet (A: RS_OK)', async () => {
    for (const [style, status] of [
      ['B', 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST'],
      ['A', 'RS_OK'],
    ] as const) {
      await start({ style });
      const back = rollback('tx-never');
      expect(await post('/wallet/rollback', back)).toMatchObject({ status });
      expect(await post('/wallet/rollback', back)).toMatchObject({ status });
      expect(await post('/wallet/bet', bet('tx-never', 100_000))).toMatchObject({ status: 'RS_ERROR_TRANSACTION_ROLLED_BACK' });
      expect(receiver?.balanceOf('user1210')).toBe('15.00');
      // A rollback of a bet it knows is RS_OK in both styles, and so is a win of a standing bet; a win without one is refused.
      await post('/wallet/bet', bet('tx-1', 100_000));
      expect(await post('/wallet/rollback', rollback('tx-1'))).toMatchObject({ status: 'RS_OK', balance: 1_500_000 });
      const orphan = { ...bet('w-1', 5), reference_transaction_uuid: 'nobody' };
      expect(await post('/wallet/win', orphan)).toMatchObject({ status: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST' });
      expect(receiver?.errors).toEqual([]);
    }
  });
});

describe('Caleta receiver, planted bugs', () => {
  it('refuses to plant a bug it does not have', async () => {
    await expect(start({ bugs: ['session-takeover'] })).rejects.toThrow(/cannot plant "session-takeover"/);
  });

  it('reserialised-signature: a body signed as sent with spaces is refused (correct: accepted)', async () => {
    const body = bet('tx-1', 100_000);
    const raw = JSON.stringify(body, null, 1);
    await start();
    expect(await post('/wallet/bet', body, raw)).toMatchObject({ status: 'RS_OK' });
    await start({ bugs: ['reserialised-signature'] });
    expect(await post('/wallet/bet', body, raw)).toMatchObject({ status: 'RS_ERROR_INVALID_SIGNATURE' });
    expect(await post('/wallet/bet', bet('tx-2', 100_000))).toMatchObject({ status: 'RS_OK' });
  });

  it('funds-before-duplicate: a repeat of an applied bet after the balance fell below it is RS_ERROR_NOT_ENOUGH_MONEY', async () => {
    for (const [bugs, status] of [
      [[], 'RS_OK'],
      [['funds-before-duplicate'], 'RS_ERROR_NOT_ENOUGH_MONEY'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('tx-1', 1_000_000);
      await post('/wallet/bet', first);
      await post('/wallet/bet', bet('tx-2', 400_000));
      expect(await post('/wallet/bet', { ...first, request_uuid: uuid() })).toMatchObject({ status });
      expect(receiver?.balanceOf('user1210')).toBe('1.00');
    }
  });

  it(`forgetful-dedupe: a repeat after ${FORGETFUL_MEMORY} other bets is charged again (correct: once)`, async () => {
    for (const [bugs, after] of [
      [[], '4.00'],
      [['forgetful-dedupe'], '3.00'],
    ] as const) {
      await start({ bugs: [...bugs] });
      const first = bet('tx-first', 100_000);
      await post('/wallet/bet', first);
      for (let i = 0; i < FORGETFUL_MEMORY; i++) await post('/wallet/bet', bet(`tx-${i}`, 5_000));
      expect(await post('/wallet/bet', { ...first, request_uuid: uuid() })).toMatchObject({ status: 'RS_OK' });
      expect(receiver?.balanceOf('user1210')).toBe(after);
    }
  });
});
