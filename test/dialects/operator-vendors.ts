import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blueOceanClient } from './operator-clients/blueocean.ts';
import { caletaClient } from './operator-clients/caleta.ts';
import { evolutionClient } from './operator-clients/evolution.ts';
import { hub88Client } from './operator-clients/hub88.ts';
import type { LaunchRequest, Tamper } from './operator-clients/kit.ts';
import { pragmaticClient } from './operator-clients/pragmatic.ts';
import { slotegratorClient } from './operator-clients/slotegrator.ts';
import { softSwissClient } from './operator-clients/softswiss.ts';
import type { VendorReceiver } from './receivers/receiver-kit.ts';
import { VENDORS as WALLETS } from './vendor-table.ts';

/**
 * Each vendor whose operator API aggmock serves: its independent operator client (written from the
 * vendor's docs, test/dialects/operator-clients), the operator credentials both sides share, the
 * vendor's wallet receiver, and the refusal the vendor answers a spoiled request with.
 */

export interface OperatorClient {
  /** Undefined: the vendor documents no game list (SoftSwiss). */
  listGames?(): Promise<Record<string, unknown>[]>;
  launch(launch: LaunchRequest): Promise<string>;
}

export interface OperatorVendor {
  name: string;
  receiver: () => Promise<VendorReceiver>;
  /** Wallet-side credentials (callbacks.credentials). */
  wallet: Record<string, string>;
  /** Operator credentials (config operator.credentials) and the client holding the same. */
  operator: () => { credentials: Record<string, string>; client: (aggmockUrl: string, tamper?: Tamper) => OperatorClient };
  /** Whether the spoiled reply is the vendor's refusal. */
  refused: { status: number; body: (body: unknown) => boolean };
  /** Which token the wallet calls carry: the operator's (the launch's), one aggmock issued, or none. */
  token: 'operator' | 'issued' | 'none';
  /** The name member of a list item. */
  nameOf: (item: Record<string, unknown>) => unknown;
  tampers: Tamper[];
  /** The wallet swaps the launch token for its own on the first call (Caleta's /wallet/check): later calls carry the new one. */
  swapsToken?: true;
  /** False: the vendor's launch names no platform (the session is then a desktop one). */
  platform?: false;
}

function walletOf(name: string) {
  const wallet = WALLETS.find((w) => w.name === name);
  if (!wallet) throw new Error(`no wallet receiver for ${name}`);
  return {
    receiver: wallet.receiver as () => Promise<VendorReceiver>,
    wallet: { ...wallet.credentials } as Record<string, string>,
  };
}

/** A fresh RSA key pair, the public half written to a PEM file (given to aggmock as a path, as a user would). */
function rsaOperator() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-operator-'));
  const path = join(dir, 'operator.pub.pem');
  writeFileSync(path, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  return { privateKey, path };
}

const errorString = (body: unknown) => typeof (body as { error?: unknown }).error === 'string';
const withTamper = (tamper: Tamper | undefined) => (tamper ? { tamper } : {});

export const OPERATOR_VENDORS: OperatorVendor[] = [
  {
    name: 'hub88',
    ...walletOf('hub88'),
    operator: () => {
      const { privateKey, path } = rsaOperator();
      return {
        credentials: { publicKey: path, operatorId: '7' },
        client: (url, tamper) => hub88Client({ baseUrl: url, operatorId: 7, privateKey, ...withTamper(tamper) }),
      };
    },
    refused: { status: 401, body: errorString },
    token: 'operator',
    nameOf: (g) => g.name,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
  {
    platform: false,
    swapsToken: true,
    name: 'caleta',
    ...walletOf('caleta'),
    operator: () => {
      const { privateKey, path } = rsaOperator();
      return {
        credentials: { publicKey: path, operatorId: '3' },
        client: (url, tamper) =>
          caletaClient({ baseUrl: url, operatorId: 3, privateKey, subPartnerId: 'sub-1', ...withTamper(tamper) }),
      };
    },
    refused: { status: 401, body: errorString },
    token: 'operator',
    nameOf: (g) => g.name,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
  {
    name: 'pragmatic',
    ...walletOf('pragmatic'),
    operator: () => ({
      credentials: { secureLogin: 'casino_one', secretKey: 'pp-operator-secret' },
      client: (url, tamper) =>
        pragmaticClient({ baseUrl: url, secureLogin: 'casino_one', secretKey: 'pp-operator-secret', ...withTamper(tamper) }),
    }),
    refused: { status: 200, body: (b) => (b as { error?: unknown }).error === '5' },
    token: 'operator',
    nameOf: (g) => g.gameName,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
  {
    name: 'slotegrator',
    ...walletOf('slotegrator'),
    operator: () => ({
      credentials: { merchantId: 'merchant-77', merchantKey: 'sg-operator-key' },
      client: (url, tamper) =>
        slotegratorClient({
          baseUrl: `${url}/api/index.php/v1`,
          merchantId: 'merchant-77',
          merchantKey: 'sg-operator-key',
          ...withTamper(tamper),
        }),
    }),
    refused: {
      status: 401,
      body: (b) => {
        const e = b as { name?: unknown; message?: unknown; status?: unknown };
        return typeof e.name === 'string' && typeof e.message === 'string' && e.status === 401;
      },
    },
    token: 'operator',
    nameOf: (g) => g.name,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
  {
    platform: false,
    name: 'blueocean',
    ...walletOf('blueocean'),
    operator: () => ({
      credentials: { apiLogin: 'casino_bo', apiPassword: 'bo-operator-pass' },
      client: (url, tamper) => {
        const client = blueOceanClient({
          baseUrl: `${url}/blueocean`,
          apiLogin: 'casino_bo',
          apiPassword: 'bo-operator-pass',
          ...withTamper(tamper),
        });
        return {
          listGames: () => client.listGames('EUR'),
          launch: (launch) => client.launch({ ...launch, playerPassword: 'player-pass-1' }),
        };
      },
    }),
    refused: { status: 200, body: (b) => (b as { error?: unknown }).error === 1 },
    token: 'issued',
    nameOf: (g) => g.name,
    // No signature: the credentials are the authentication (the client refuses 'tampered-body' itself).
    tampers: ['wrong-key', 'no-signature'],
  },
  {
    name: 'softswiss',
    ...walletOf('softswiss'),
    operator: () => ({
      credentials: { casinoId: 'casino-ss', authToken: 'ss-operator-token' },
      client: (url, tamper) => {
        const client = softSwissClient({
          baseUrl: `${url}/softswiss`,
          casinoId: 'casino-ss',
          authToken: 'ss-operator-token',
          ...withTamper(tamper),
        });
        // No game list is documented for SoftSwiss's GCP (the client refuses to call one).
        return { launch: (launch) => client.launch(launch) };
      },
    }),
    refused: { status: 403, body: (b) => typeof (b as { message?: unknown }).message === 'string' },
    token: 'none',
    nameOf: (g) => g.name,
    tampers: ['wrong-key', 'tampered-body', 'no-signature'],
  },
  {
    name: 'evolution',
    ...walletOf('evolution'),
    operator: () => ({
      credentials: { casinoKey: 'casino0000000042', apiToken: 'evo-operator-token' },
      client: (url, tamper) =>
        evolutionClient({ baseUrl: url, casinoKey: 'casino0000000042', apiToken: 'evo-operator-token', ...withTamper(tamper) }),
    }),
    refused: {
      status: 401,
      body: (b) => (b as { errors?: { code?: unknown }[] }).errors?.[0]?.code === 'G.2',
    },
    token: 'operator',
    nameOf: (g) => g.name,
    // The API token in the path authenticates; there is no body signature to tamper with.
    tampers: ['wrong-key'],
  },
];
