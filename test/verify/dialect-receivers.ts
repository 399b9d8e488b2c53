import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { startBlueOceanReceiver } from '../dialects/receivers/blueocean.ts';
import { startCaletaReceiver } from '../dialects/receivers/caleta.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import { startHub88Receiver } from '../dialects/receivers/hub88.ts';
import { startHundredHpReceiver } from '../dialects/receivers/hundredhp.ts';
import { startPragmaticReceiver } from '../dialects/receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import { startRedTigerReceiver } from '../dialects/receivers/redtiger.ts';
import { startSoftswissReceiver } from '../dialects/receivers/softswiss.ts';

/*
 * The independent vendor receivers (test/dialects/receivers), each with the credentials aggmock's
 * dialect of it signs with by default, and two players verify can play: the judges of
 * `aggmock verify --profile <dialect>`.
 */

/** Session tokens long enough for every wire (Red Tiger wants 32 to 128 characters). */
export const RECEIVER_PLAYERS: ReceiverPlayer[] = [
  { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef0123456789' },
  { playerId: 'player02', currency: 'EUR', balance: '500.00', token: 'tok-player02-0123456789abcdef0123456789' },
];

export interface DialectUnderTest {
  dialect: string;
  /** The credentials verify signs with (--credential), by the vendor's names. */
  credentials: Record<string, string>;
  start(players: ReceiverPlayer[]): Promise<VendorReceiver>;
}

export const DIALECTS_UNDER_TEST: DialectUnderTest[] = [
  {
    dialect: 'hub88',
    credentials: {},
    start: (players) => startHub88Receiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players }),
  },
  {
    dialect: 'pragmatic',
    credentials: { secretKey: 'pp-secret-1' },
    start: (players) => startPragmaticReceiver({ credentials: { secretKey: 'pp-secret-1' }, players }),
  },
  {
    dialect: 'caleta',
    credentials: {},
    start: (players) => startCaletaReceiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players }),
  },
  {
    dialect: 'evolution',
    credentials: { authToken: 'evo-token-1' },
    start: (players) => startEvolutionReceiver({ credentials: { authToken: 'evo-token-1' }, players }),
  },
  {
    dialect: 'softswiss',
    credentials: { authToken: 'ss-auth-token' },
    start: (players) => startSoftswissReceiver({ credentials: { authToken: 'ss-auth-token' }, players }),
  },
  {
    dialect: 'blueocean',
    credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
    start: (players) =>
      startBlueOceanReceiver({ credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' }, players }),
  },
  {
    dialect: '100hp',
    credentials: { secret: 'hp-secret' },
    start: (players) => startHundredHpReceiver({ credentials: { secret: 'hp-secret' }, players }),
  },
  {
    dialect: 'redtiger',
    credentials: { apiKey: 'rt-api-key-1' },
    start: (players) => startRedTigerReceiver({ credentials: { apiKey: 'rt-api-key-1' }, players }),
  },
];
