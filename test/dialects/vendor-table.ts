import type { CallbackEngine, StoredEvent } from '../../src/callbacks/index.ts';
import { onCleanup } from '../../src/callbacks/test-engine.ts';
import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { startBlueOceanReceiver } from './receivers/blueocean.ts';
import { startCaletaReceiver } from './receivers/caleta.ts';
import { startEvolutionReceiver } from './receivers/evolution.ts';
import { startGrooveReceiver } from './receivers/groove.ts';
import { startHabaneroReceiver } from './receivers/habanero.ts';
import { startHub88Receiver } from './receivers/hub88.ts';
import { startHundredHpReceiver } from './receivers/hundredhp.ts';
import { startPragmaticReceiver } from './receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from './receivers/receiver-kit.ts';
import { startRedTigerReceiver } from './receivers/redtiger.ts';
import { startSlotegratorReceiver } from './receivers/slotegrator.ts';
import { startSoftswissReceiver } from './receivers/softswiss.ts';

/** The built-in vendor dialects, each with an independent receiver and the credentials both sides share. */

export const PLAYER: ReceiverPlayer = {
  playerId: 'player01',
  currency: 'EUR',
  balance: '1000.00',
  token: 'tok-player01-0123456789abcdef0123456789',
};

export async function started(receiver: Promise<VendorReceiver>): Promise<VendorReceiver> {
  const rx = await receiver;
  onCleanup(() => rx.stop());
  return rx;
}

export const VENDORS = [
  {
    name: 'hub88',
    receiver: () => startHub88Receiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players: [PLAYER] }),
    credentials: {},
  },
  {
    name: 'pragmatic',
    receiver: () => startPragmaticReceiver({ credentials: { secretKey: 'engine-key' }, players: [PLAYER] }),
    credentials: { secretKey: 'engine-key' },
  },
  {
    name: 'caleta',
    receiver: () => startCaletaReceiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players: [PLAYER] }),
    credentials: {},
  },
  {
    name: 'evolution',
    receiver: () => startEvolutionReceiver({ credentials: { authToken: 'evo-token-1' }, players: [PLAYER] }),
    credentials: { authToken: 'evo-token-1' },
  },
  {
    name: 'softswiss',
    receiver: () => startSoftswissReceiver({ credentials: { authToken: 'ss-auth-token' }, players: [PLAYER] }),
    credentials: { authToken: 'ss-auth-token' },
  },
  {
    name: 'blueocean',
    receiver: () =>
      startBlueOceanReceiver({
        credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
        players: [PLAYER],
      }),
    credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
  },
  {
    name: '100hp',
    receiver: () => startHundredHpReceiver({ credentials: { secret: 'hp-secret' }, players: [PLAYER] }),
    credentials: { secret: 'hp-secret' },
  },
  {
    name: 'redtiger',
    receiver: () => startRedTigerReceiver({ credentials: { apiKey: 'rt-api-key-1' }, players: [PLAYER] }),
    credentials: { apiKey: 'rt-api-key-1' },
  },
  {
    name: 'slotegrator',
    receiver: () =>
      startSlotegratorReceiver({
        credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
        players: [PLAYER],
      }),
    credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
  },
  {
    name: 'habanero',
    receiver: () =>
      startHabaneroReceiver({
        credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
        players: [PLAYER],
      }),
    credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
  },
  // Groove's documentation names no credential for its calls to the casino.
  { name: 'groove', receiver: () => startGrooveReceiver({ credentials: {}, players: [PLAYER] }), credentials: {} },
] as const;

/**
 * What the engine sends a vendor wallet in one sitting, each settled before the next: a bet, its win
 * (closing the round), the bet again (a replay), a second bet and its rollback. A correct wallet
 * accepts all five and ends 14.50 up (−10.50 + 25.00, the rolled-back 20.00 back).
 */
export async function betWinReplayRollback(
  engine: CallbackEngine,
  player: { playerId: string; sessionToken?: string | undefined },
  gameId = 'vs20fruitsw',
): Promise<StoredEvent[]> {
  const call = { playerId: player.playerId, sessionToken: player.sessionToken, currency: 'EUR', gameId };
  const bet = await engine.enqueue({ ...call, kind: 'debit', transactionId: 'tx0001', roundId: '1001', amountMinor: 1050 })
    .settled;
  const win = await engine.enqueue({
    ...call,
    kind: 'credit',
    transactionId: 'tx0002',
    referenceTransactionId: 'tx0001',
    roundId: '1001',
    amountMinor: 2500,
    roundClosed: true,
  }).settled;
  const again = await engine.replay(bet.id).settled;
  const bet2 = await engine.enqueue({ ...call, kind: 'debit', transactionId: 'tx0003', roundId: '1002', amountMinor: 2000 })
    .settled;
  const rollback = await engine.enqueue({
    ...call,
    kind: 'rollback',
    transactionId: 'rb0003',
    referenceTransactionId: 'tx0003',
    roundId: '1002',
    amountMinor: 2000,
  }).settled;
  return [bet, win, again, bet2, rollback];
}
