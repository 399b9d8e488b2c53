import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Credentials,
  type Dialect,
  type OutcomeCode,
  type ReadReply,
  readReply,
} from '../../src/dialects/index.ts';
import { startBlueOceanReceiver } from './receivers/blueocean.ts';
import { startCaletaReceiver } from './receivers/caleta.ts';
import { startEvolutionReceiver } from './receivers/evolution.ts';
import { startGrooveReceiver } from './receivers/groove.ts';
import { startHabaneroReceiver } from './receivers/habanero.ts';
import { startHub88Receiver } from './receivers/hub88.ts';
import { startHundredHpReceiver } from './receivers/hundredhp.ts';
import { startPragmaticReceiver } from './receivers/pragmatic.ts';
import type { VendorReceiver } from './receivers/receiver-kit.ts';
import { startRedTigerReceiver } from './receivers/redtiger.ts';
import { startSlotegratorReceiver } from './receivers/slotegrator.ts';
import { startSoftswissReceiver } from './receivers/softswiss.ts';

/**
 * aggmock's vendor dialects against wallets written from the vendors' documentation by someone who
 * never read the dialect files (test/dialects/receivers): every call aggmock makes is accepted with
 * no receiver-side error, and aggmock reads every reply as the wallet meant it.
 */

let receiver: VendorReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
let clock = T0;
let ids = 0;

/** One call: built and signed by the dialect, sent to the receiver, its reply read by the dialect. */
async function call(
  dialect: Dialect,
  credentials: Credentials,
  facts: Omit<CallFacts, 'createdAt' | 'requestId'>,
): Promise<ReadReply> {
  clock += 1000;
  const full: CallFacts = {
    ...facts,
    createdAt: clock,
    requestId: `5f0c${String(++ids).padStart(4, '0')}-aaaa-4bbb-8ccc-0123456789ab`,
  };
  const req = buildRequest(dialect, full, credentials);
  const res = await fetch(`${receiver?.url}${req.path}`, {
    method: req.method,
    headers: req.headers,
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  return readReply(dialect, full, { status: res.status, text: await res.text() });
}

/** Whether the dialect has a code for this outcome that no other outcome shares. */
function distinctCode(dialect: Dialect, outcome: OutcomeCode): boolean {
  const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).map(String);
  const mine = list(dialect.reply.codes[outcome]);
  const others = Object.entries(dialect.reply.codes)
    .filter(([name]) => name !== outcome)
    .flatMap(([, v]) => list(v));
  return mine.length > 0 && mine.every((code) => !others.includes(code));
}

/** A round of play as aggmock's scenarios make it: bet and win, a duplicate, a rollback, a refusal. */
async function playRounds(dialect: Dialect, credentials: Credentials, player: { playerId: string; sessionToken: string }) {
  const base = { playerId: player.playerId, sessionToken: player.sessionToken, currency: 'EUR', gameId: 'vs20fruitsw' };
  const at = (minor: number) => ({ kind: 'ok', minor });
  const results: [string, ReadReply, unknown][] = [];
  const step = async (
    name: string,
    facts: Omit<CallFacts, 'createdAt' | 'requestId' | 'playerId' | 'currency'>,
    expected: unknown,
  ) => {
    const reply = await call(dialect, credentials, { ...base, ...facts });
    // A wire whose authenticate swaps the launch token (Caleta) carries the new one from then on.
    if (reply.token) base.sessionToken = reply.token;
    results.push([name, reply, expected]);
  };

  if (dialect.operations.authenticate) await step('authenticate', { operation: 'authenticate' }, { verdict: 'accepted' });
  if (dialect.operations.balance) await step('balance', { operation: 'balance' }, { verdict: 'accepted', balance: at(100000) });
  await step(
    'bet',
    { operation: 'bet', transactionId: 'tx0001', roundId: '1001', amountMinor: 1050 },
    { verdict: 'accepted', balance: at(98950) },
  );
  await step(
    'win',
    {
      operation: 'win',
      transactionId: 'tx0002',
      betTransactionId: 'tx0001',
      roundId: '1001',
      amountMinor: 2500,
      roundClosed: true,
    },
    { verdict: 'accepted', balance: at(101450) },
  );
  await step(
    'duplicate bet',
    { operation: 'bet', transactionId: 'tx0001', roundId: '1001', amountMinor: 1050 },
    { verdict: 'accepted' },
  );
  await step(
    'bet 2',
    { operation: 'bet', transactionId: 'tx0003', roundId: '1002', amountMinor: 2000 },
    { verdict: 'accepted', balance: at(99450) },
  );
  await step(
    'rollback of bet 2',
    { operation: 'rollback', transactionId: 'rb0003', betTransactionId: 'tx0003', roundId: '1002', amountMinor: 2000 },
    { verdict: 'accepted' },
  );
  if (dialect.operations.endRound) await step('end round', { operation: 'endRound', roundId: '1002' }, { verdict: 'accepted' });
  await step(
    'bet beyond the balance',
    { operation: 'bet', transactionId: 'tx0004', roundId: '1003', amountMinor: 50_000_000 },
    // A wire with its own code for "not enough money" must be read as that; Blue Ocean answers "403" to it and to a bad key
    // alike, and 100HP documents none, so there a refusal is all the reply can say.
    distinctCode(dialect, 'INSUFFICIENT_FUNDS')
      ? { verdict: 'rejected', outcome: 'INSUFFICIENT_FUNDS' }
      : { verdict: 'rejected' },
  );
  if (dialect.operations.balance)
    await step('balance at the end', { operation: 'balance' }, { verdict: 'accepted', balance: at(101450) });
  return results;
}

describe('hub88 against a Hub88 wallet written from Hub88\u2019s docs', () => {
  it('plays bet, win, a duplicate, a rollback and a refusal with no receiver-side error, each reply read as meant', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    receiver = await startHub88Receiver({
      credentials: { publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string },
      players: [{ playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-abcdef' }],
    });
    const dialect = builtinDialect('hub88');
    const results = await playRounds(
      dialect,
      { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
      {
        playerId: 'player01',
        sessionToken: 'tok-player01-abcdef',
      },
    );
    expect(receiver.errors).toEqual([]);
    for (const [name, reply, expected] of results) expect({ name, ...reply }).toMatchObject({ name, ...(expected as object) });
    expect(receiver.balanceOf('player01')).toBe('1014.50');
  });
});

describe('pragmatic against a Pragmatic Play wallet written from the Integration API Specification', () => {
  it('plays bet, result, a duplicate, a refund, end round and a refusal with no receiver-side error, each reply read as meant', async () => {
    receiver = await startPragmaticReceiver({
      credentials: { secretKey: 'testKey' },
      players: [{ playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-abcdef' }],
    });
    const dialect = builtinDialect('pragmatic');
    const results = await playRounds(
      dialect,
      { secretKey: 'testKey' },
      { playerId: 'player01', sessionToken: 'tok-player01-abcdef' },
    );
    expect(receiver.errors).toEqual([]);
    for (const [name, reply, expected] of results) expect({ name, ...reply }).toMatchObject({ name, ...(expected as object) });
    expect(receiver.balanceOf('player01')).toBe('1014.50');
  });

  it('is refused by the wallet with error 5 when signed with another secret key, and reads that as a signature refusal', async () => {
    receiver = await startPragmaticReceiver({
      credentials: { secretKey: 'testKey' },
      players: [{ playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-abcdef' }],
    });
    const reply = await call(
      builtinDialect('pragmatic'),
      { secretKey: 'wrong' },
      {
        operation: 'bet',
        playerId: 'player01',
        currency: 'EUR',
        transactionId: 'tx0009',
        roundId: '1009',
        amountMinor: 100,
      },
    );
    expect(reply).toMatchObject({ verdict: 'rejected', outcome: 'INVALID_SIGNATURE' });
    expect(receiver.balanceOf('player01')).toBe('1000.00');
  });
});

/** A player with a session token long enough for every wire (Red Tiger wants 32 to 128 characters). */
const PLAYER = { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef0123456789' };

describe.each([
  {
    name: 'caleta',
    start: () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      return {
        credentials: { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
        receiver: startCaletaReceiver({
          credentials: { publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string },
          players: [PLAYER],
        }),
      };
    },
  },
  {
    name: 'evolution',
    start: () => ({
      credentials: { authToken: 'evo-token-1' },
      receiver: startEvolutionReceiver({ credentials: { authToken: 'evo-token-1' }, players: [PLAYER] }),
    }),
  },
  {
    name: 'softswiss',
    start: () => ({
      credentials: { authToken: 'ss-auth-token' },
      receiver: startSoftswissReceiver({ credentials: { authToken: 'ss-auth-token' }, players: [PLAYER] }),
    }),
  },
  {
    name: 'blueocean',
    start: () => {
      const credentials = { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' };
      return { credentials, receiver: startBlueOceanReceiver({ credentials, players: [PLAYER] }) };
    },
  },
  {
    name: '100hp',
    start: () => ({
      credentials: { secret: 'hp-secret' },
      receiver: startHundredHpReceiver({ credentials: { secret: 'hp-secret' }, players: [PLAYER] }),
    }),
  },
  {
    name: 'redtiger',
    start: () => ({
      credentials: { apiKey: 'rt-api-key-1' },
      receiver: startRedTigerReceiver({ credentials: { apiKey: 'rt-api-key-1' }, players: [PLAYER] }),
    }),
  },
])('$name against a wallet written from the vendor\u2019s sources', ({ name, start }) => {
  it('plays bet, win, a duplicate, a rollback and a refusal with no receiver-side error, each reply read as meant', async () => {
    const started = start();
    receiver = await started.receiver;
    const results = await playRounds(builtinDialect(name), started.credentials, {
      playerId: PLAYER.playerId,
      sessionToken: PLAYER.token,
    });
    expect(receiver.errors).toEqual([]);
    for (const [step, reply, expected] of results)
      expect({ name: step, ...reply }).toMatchObject({ name: step, ...(expected as object) });
    expect(receiver.balanceOf(PLAYER.playerId)).toBe('1014.50');
  });
});

/** A receiver's start function, as every receiver file exports one (see receiver-kit.ts). */
type StartReceiver = (options: { credentials: Record<string, string>; players: (typeof PLAYER)[] }) => Promise<VendorReceiver>;

/* The dialects added after the first eight, against receivers written from the vendors' sources alone. */
describe.each<{ name: string; startReceiver: StartReceiver; credentials: Record<string, string> }>([
  {
    name: 'slotegrator',
    startReceiver: startSlotegratorReceiver,
    credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
  },
  {
    name: 'habanero',
    startReceiver: startHabaneroReceiver,
    credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
  },
  // Groove's documentation names no credential for its calls to the casino.
  { name: 'groove', startReceiver: startGrooveReceiver, credentials: {} },
])('$name against a wallet written from the vendor\u2019s sources', ({ name, startReceiver, credentials }) => {
  it('plays bet, win, a duplicate, a rollback and a refusal with no receiver-side error, each reply read as meant', async () => {
    // Slotegrator's wallet refuses an X-Timestamp far from its own clock: play at the real time.
    clock = Date.now() - 10_000;
    receiver = await startReceiver({ credentials, players: [PLAYER] });
    const results = await playRounds(builtinDialect(name), credentials, {
      playerId: PLAYER.playerId,
      sessionToken: PLAYER.token,
    });
    expect(receiver.errors).toEqual([]);
    for (const [step, reply, expected] of results)
      expect({ name: step, ...reply }).toMatchObject({ name: step, ...(expected as object) });
    expect(receiver.balanceOf(PLAYER.playerId)).toBe('1014.50');
  });
});
