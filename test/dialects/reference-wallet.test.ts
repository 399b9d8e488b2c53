import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import {
  BUILTIN_DIALECTS,
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Credentials,
  DEV_RSA_PUBLIC_KEY,
  type Dialect,
  readReply,
} from '../../src/dialects/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
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

/**
 * The reference wallet in every built-in dialect against the independent receivers
 * (test/dialects/receivers, written from the vendors' docs): the same requests, built by the
 * dialect, go to both; after each step both hold the same balance and both replies read the same
 * (accepted, or refused with the same outcome).
 */

type Start = (options: { credentials: Record<string, string>; players: ReceiverPlayer[] }) => Promise<VendorReceiver>;

/** Each receiver, and its credentials by the vendor's names for the dialect's development ones. */
const RECEIVERS: Record<string, { start: Start; credentials: (dev: Credentials) => Record<string, string> }> = {
  hub88: { start: startHub88Receiver, credentials: () => ({ publicKey: DEV_RSA_PUBLIC_KEY }) },
  caleta: { start: startCaletaReceiver, credentials: () => ({ publicKey: DEV_RSA_PUBLIC_KEY }) },
  evolution: { start: startEvolutionReceiver, credentials: (dev) => ({ authToken: dev.authToken as string }) },
  pragmatic: { start: startPragmaticReceiver, credentials: (dev) => ({ secretKey: dev.secretKey as string }) },
  softswiss: { start: startSoftswissReceiver, credentials: (dev) => ({ authToken: dev.authToken as string }) },
  blueocean: { start: startBlueOceanReceiver, credentials: (dev) => ({ ...dev }) },
  redtiger: { start: startRedTigerReceiver, credentials: (dev) => ({ apiKey: dev.apiKey as string }) },
  '100hp': { start: startHundredHpReceiver, credentials: (dev) => ({ secret: dev.secret as string }) },
  slotegrator: { start: startSlotegratorReceiver, credentials: (dev) => ({ ...dev }) },
  habanero: { start: startHabaneroReceiver, credentials: (dev) => ({ ...dev }) },
  groove: { start: startGrooveReceiver, credentials: () => ({}) },
};

function devCredentials(dialect: Dialect): Credentials {
  return Object.fromEntries(
    Object.entries(dialect.credentials).flatMap(([name, c]) => (c.default === undefined ? [] : [[name, c.default]])),
  );
}

/** Other values for every credential: a request signed or authorised with them is forged. */
let otherKey: string | undefined;
function wrongCredentials(dialect: Dialect): Credentials {
  otherKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const other = otherKey;
  return Object.fromEntries(
    Object.entries(dialect.credentials).map(([name, c]) => [name, c.kind === 'private-key' ? other : `wrong-${name}`]),
  );
}

/** Red Tiger wants 32 to 128 characters. */
const TOKEN = 'tok-player01-0123456789abcdef0123456789';
const PLAYER: ReceiverPlayer = { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: TOKEN };

let wallet: RunningWallet | undefined;
let receiver: VendorReceiver | undefined;
afterEach(async () => {
  await Promise.all([wallet?.close(), receiver?.stop()]);
  wallet = undefined;
  receiver = undefined;
});

/** One side of the comparison: where it listens, its balance in minor units, the token it issued. */
interface Side {
  url: string;
  balance(): number | undefined;
  token: string;
}

interface Step {
  name: string;
  facts: Omit<CallFacts, 'createdAt' | 'requestId' | 'currency' | 'sessionToken'> & { sessionToken?: string };
  credentials?: Credentials;
}

/** The sequence of the brief: play, repeat, roll back, refuse. */
function steps(dialect: Dialect): Step[] {
  const player = { playerId: PLAYER.playerId, gameId: 'vs20fruitsw' };
  const has = (op: keyof Dialect['operations']) => dialect.operations[op] !== undefined;
  return [
    ...(has('authenticate') ? [{ name: 'authenticate', facts: { ...player, operation: 'authenticate' as const } }] : []),
    ...(has('balance') ? [{ name: 'balance', facts: { ...player, operation: 'balance' as const } }] : []),
    { name: 'bet', facts: { ...player, operation: 'bet', transactionId: 'tx0001', roundId: '1001', amountMinor: 1050 } },
    {
      name: 'win',
      facts: {
        ...player,
        operation: 'win',
        transactionId: 'tx0002',
        betTransactionId: 'tx0001',
        roundId: '1001',
        amountMinor: 2500,
        roundClosed: true,
      },
    },
    {
      name: 'duplicate bet',
      facts: { ...player, operation: 'bet', transactionId: 'tx0001', roundId: '1001', amountMinor: 1050 },
    },
    { name: 'bet 2', facts: { ...player, operation: 'bet', transactionId: 'tx0003', roundId: '1002', amountMinor: 2000 } },
    {
      name: 'rollback of bet 2',
      facts: {
        ...player,
        operation: 'rollback',
        transactionId: 'rb0003',
        betTransactionId: 'tx0003',
        roundId: '1002',
        amountMinor: 2000,
      },
    },
    {
      name: 'rollback of an unknown bet',
      facts: {
        ...player,
        operation: 'rollback',
        transactionId: 'rb0099',
        betTransactionId: 'tx0099',
        roundId: '1099',
        amountMinor: 500,
      },
    },
    ...(has('endRound') ? [{ name: 'end round', facts: { ...player, operation: 'endRound' as const, roundId: '1002' } }] : []),
    {
      name: 'bet beyond the balance',
      facts: { ...player, operation: 'bet', transactionId: 'tx0004', roundId: '1003', amountMinor: 50_000_000 },
    },
    {
      // A player neither wallet knows, with the session token it would have been issued.
      name: 'bet of an unknown player',
      facts: {
        ...player,
        playerId: 'ghost01',
        sessionToken: 'tok-ghost01-0123456789abcdef0123456789',
        operation: 'bet',
        transactionId: 'tx0005',
        roundId: '1004',
        amountMinor: 100,
      },
    },
    {
      name: 'bet with a bad signature',
      facts: { ...player, operation: 'bet', transactionId: 'tx0006', roundId: '1005', amountMinor: 100 },
      credentials: wrongCredentials(dialect),
    },
    ...(has('balance') ? [{ name: 'balance at the end', facts: { ...player, operation: 'balance' as const } }] : []),
  ];
}

// Slotegrator's wallet refuses an X-Timestamp far from its own clock: play at the real time.
const T0 = Date.now() - 60_000;

/** Plays the steps on both sides; the differences, step by step, as text. */
async function differences(name: string): Promise<{ differences: string[]; receiverErrors: string[] }> {
  const dialect = builtinDialect(name);
  const dev = devCredentials(dialect);
  const spec = RECEIVERS[name];
  if (!spec) throw new Error(`no receiver for ${name}`);
  receiver = await spec.start({ credentials: spec.credentials(dev), players: [PLAYER] });
  wallet = await startWallet({
    config: configSchema.parse({
      callbacks: { profile: name },
      wallet: { currency: 'EUR', players: { [PLAYER.playerId]: 1000 } },
    }),
    dbPath: ':memory:',
    port: 0,
    sessions: { [TOKEN]: PLAYER.playerId },
  });
  const w = wallet;
  const r = receiver;
  const sides: Record<'wallet' | 'receiver', Side> = {
    wallet: { url: w.url, balance: () => w.store.balanceOf(PLAYER.playerId), token: TOKEN },
    receiver: { url: r.url, balance: () => Math.round(Number(r.balanceOf(PLAYER.playerId)) * 100), token: TOKEN },
  };
  const out: string[] = [];
  let n = 0;
  for (const step of steps(dialect)) {
    n++;
    const seen: Record<string, string> = {};
    const answered: Record<string, number> = {};
    for (const [side, target] of Object.entries(sides)) {
      const facts: CallFacts = {
        currency: 'EUR',
        sessionToken: target.token,
        ...step.facts,
        createdAt: T0 + n * 1000,
        requestId: `5f0c${String(n).padStart(4, '0')}-aaaa-4bbb-8ccc-0123456789ab`,
      } as CallFacts;
      const req = buildRequest(dialect, facts, step.credentials ?? dev);
      const res = await fetch(`${target.url}${req.path}`, {
        method: req.method,
        headers: req.headers,
        ...(req.body === undefined ? {} : { body: req.body }),
      });
      const reply = readReply(dialect, facts, { status: res.status, text: await res.text() });
      // A wire whose authenticate swaps the launch token (Caleta) carries the new one from then on.
      if (reply.token) target.token = reply.token;
      seen[side] = `${reply.verdict}${reply.outcome ? ` ${reply.outcome}` : ''}; holds ${target.balance()}`;
      if (reply.verdict === 'accepted' && reply.balance.kind === 'ok') answered[side] = reply.balance.minor;
    }
    if (seen.wallet !== seen.receiver) out.push(`${step.name}: wallet ${seen.wallet} | receiver ${seen.receiver}`);
    // The balance an acceptance shows, where both replies show one. A repeat on a wire whose rule is
    // not "same reply" may show the first balance or today's (verify asks the same verdict only).
    else if (
      answered.wallet !== undefined &&
      answered.receiver !== undefined &&
      answered.wallet !== answered.receiver &&
      !(step.name === 'duplicate bet' && dialect.reply.duplicates !== 'same-reply')
    )
      out.push(`${step.name}: wallet answers balance ${answered.wallet} | receiver ${answered.receiver}`);
  }
  return { differences: out, receiverErrors: r.errors };
}

/**
 * Where the two disagree, and why (decided from the vendors' docs; the receivers are not changed).
 * A disagreement not listed here fails the test, and so does one listed that no longer happens.
 */
const KNOWN_DISAGREEMENTS: Record<string, Record<string, string>> = {
  // hub88: the vendor's rule is RS_OK with no second movement ("current-balance"); the first reply's
  // balance again, which the reference wallet answers, is aggmock's safer reading. Both agree now.
  groove: {
    // Both refuse a bet of a player neither knows, carrying a session token neither issued, with a code
    // Groove documents: the receiver looks the account up first (110, which the appendix gives an unknown
    // account), the wallet checks the session first, as it does on every dialect that checks tokens on
    // bets (1000 "Not logged on"). verify's unknown-player check accepts either.
    'bet of an unknown player': 'wallet rejected INVALID_TOKEN; holds 101450 | receiver rejected PLAYER_NOT_FOUND; holds 101450',
  },
};

describe('the reference wallet answers in every built-in dialect as an independent wallet does', () => {
  it.each(BUILTIN_DIALECTS)('%s: the same balances after each step and the same outcome for each reply', async (name) => {
    const { differences: found, receiverErrors } = await differences(name);
    const known = Object.entries(KNOWN_DISAGREEMENTS[name] ?? {}).map(([step, text]) => `${step}: ${text}`);
    expect(found).toEqual(known);
    // The receiver finds fault only with the two requests made wrong on purpose (a forged one, an unknown player).
    expect(receiverErrors.length).toBeLessThanOrEqual(2);
  });
});
