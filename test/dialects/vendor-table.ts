import { onCleanup } from '../../src/callbacks/test-engine.ts';
import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { startBlueOceanReceiver } from './receivers/blueocean.ts';
import { startCaletaReceiver } from './receivers/caleta.ts';
import { startEvolutionReceiver } from './receivers/evolution.ts';
import { startHub88Receiver } from './receivers/hub88.ts';
import { startHundredHpReceiver } from './receivers/hundredhp.ts';
import { startPragmaticReceiver } from './receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from './receivers/receiver-kit.ts';
import { startRedTigerReceiver } from './receivers/redtiger.ts';
import { startSoftswissReceiver } from './receivers/softswiss.ts';

/** The eight built-in vendor dialects, each with an independent receiver and the credentials both sides share. */

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
] as const;
