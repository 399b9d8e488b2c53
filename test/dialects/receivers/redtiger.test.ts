/**
 * The Red Tiger receiver proven against requests built by hand from the request shapes and
 * expectations in valkyrie's provider/redtiger/ (see redtiger.ts for the sources).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VendorReceiver } from './receiver-kit.ts';
import { startRedTigerReceiver } from './redtiger.ts';

/** The reply fields these tests read; the rest is compared with toMatchObject. */
interface RedTigerReply {
  success?: boolean;
  error?: { code?: number; message?: string };
  result?: unknown;
}

const API_KEY = 'red-tiger-api-key';
const RECON_TOKEN = 'recon-token-0123456789abcdef0123456789';
const ALICE_TOKEN = 'alice-session-token-0123456789abcdef';
const BOB_TOKEN = 'bob-session-token-0123456789abcdef01';
let receiver: VendorReceiver;
let counter = 0;
const next = (prefix: string): string => `${prefix}${++counter}`;

beforeEach(async () => {
  receiver = await startRedTigerReceiver({
    credentials: { apiKey: API_KEY, reconToken: RECON_TOKEN },
    players: [
      { playerId: 'alice', currency: 'EUR', balance: '1000.00', token: ALICE_TOKEN },
      { playerId: 'bob', currency: 'EUR', balance: '5.00', token: BOB_TOKEN },
    ],
  });
});
afterEach(async () => {
  await receiver.stop();
});

async function post(
  path: string,
  body: unknown,
  options: { authorization?: string | null; raw?: string } = {},
): Promise<{ status: number; json: RedTigerReply }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const authorization = options.authorization === undefined ? `Basic ${API_KEY}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const response = await fetch(`${receiver.url}${path}`, { method: 'POST', headers, body: options.raw ?? JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as RedTigerReply };
}

const base = (overrides: Record<string, unknown> = {}) => ({
  token: ALICE_TOKEN,
  userId: 'alice',
  casino: 'Kongo',
  currency: 'EUR',
  ip: '1.2.3.4',
  ...overrides,
});

function stake(id: string, round: string, amount: unknown, overrides: Record<string, unknown> = {}) {
  return {
    ...base(),
    transaction: { id, stake: amount, stakePromo: '0.00', details: { game: amount, jackpot: '0.00' } },
    round: { id: round, starts: true, ends: false },
    game: { key: 'dragonsLuck' },
    ...overrides,
  };
}

function payout(id: string, round: string, amount: string, overrides: Record<string, unknown> = {}) {
  return {
    ...base(),
    transaction: {
      id,
      payout: amount,
      payoutPromo: '0.00',
      details: { game: amount, jackpot: '0.000000' },
      sources: { lines: amount, features: '0.00' },
    },
    round: { id: round, starts: false, ends: true },
    game: { type: 'slot', key: 'dragonsLuck' },
    retry: false,
    ...overrides,
  };
}

describe('Red Tiger receiver', () => {
  it('answers /auth with the token, currency, user and cash balance as a decimal string', async () => {
    const reply = await post('/auth', { ...base(), channel: 'APP', affiliate: '' });
    expect(reply).toEqual({
      status: 200,
      json: {
        success: true,
        result: {
          token: ALICE_TOKEN,
          currency: 'EUR',
          userId: 'alice',
          casino: 'Kongo',
          balance: { cash: '1000.00', bonus: '0.00' },
        },
      },
    });
    expect(receiver.errors).toEqual([]);
  });

  it('debits a stake of "10.00" and credits its payout', async () => {
    const round = next('round-');
    const staked = await post('/stake', stake(next('tx-'), round, '10.00'));
    expect(staked.json).toMatchObject({
      success: true,
      result: {
        token: ALICE_TOKEN,
        currency: 'EUR',
        stake: { cash: '10.00', bonus: '0.00' },
        balance: { cash: '990.00', bonus: '0.00' },
      },
    });
    const paid = await post('/payout', payout(next('tx-'), round, '25.50'));
    expect(paid.json).toMatchObject({ success: true, result: { payout: { cash: '25.50' }, balance: { cash: '1015.50' } } });
    expect(receiver.balanceOf('alice')).toBe('1015.50');
    expect(receiver.errors).toEqual([]);
  });

  it('answers a repeated stake or payout id with success, the same id and the balance unchanged', async () => {
    const round = next('round-');
    const first = await post('/stake', stake('tx-dup', round, '10.00'));
    const again = await post('/stake', stake('tx-dup', round, '10.00'));
    expect(again.json.result).toEqual(first.json.result);
    await post('/payout', payout('tx-pay', round, '4.00'));
    const paidAgain = await post('/payout', payout('tx-pay', round, '4.00'));
    expect(paidAgain.json).toMatchObject({ success: true, result: { balance: { cash: '994.00' } } });
    expect(receiver.balanceOf('alice')).toBe('994.00');
  });

  it('refuses a transaction id reused with other details with HTTP 400 code 401', async () => {
    await post('/stake', stake('tx-reused', next('round-'), '10.00'));
    const reply = await post('/stake', stake('tx-reused', next('round-'), '11.00'));
    expect(reply).toMatchObject({ status: 400, json: { success: false, error: { code: 401 } } });
    expect(receiver.balanceOf('alice')).toBe('990.00');
  });

  it('refunds the stake amount once, whatever amount the refund states; a second refund succeeds without money', async () => {
    const round = next('round-');
    await post('/stake', stake('tx-refund', round, '10.00'));
    const refunded = await post('/refund', stake('tx-refund', round, '47.00'));
    expect(refunded).toMatchObject({
      status: 200,
      json: { success: true, result: { stake: { cash: '10.00' } }, balance: { cash: '1000.00', bonus: '0.00' }, currency: 'EUR' },
    });
    const again = await post('/refund', stake('tx-refund', round, '10.00'));
    expect(again.json).toMatchObject({ success: true, balance: { cash: '1000.00' } });
    expect(receiver.balanceOf('alice')).toBe('1000.00');
  });

  it('refuses a refund of an unknown stake with HTTP 400 code 400', async () => {
    const reply = await post('/refund', stake('tx-never', next('round-'), '10.00'));
    expect(reply).toMatchObject({ status: 400, json: { success: false, error: { code: 400 } } });
    expect(receiver.balanceOf('alice')).toBe('1000.00');
  });

  it('refuses a stake above the balance with code 304 and moves no money; a stake of 0 is fine', async () => {
    const bob = { token: BOB_TOKEN, userId: 'bob' };
    const reply = await post('/stake', { ...stake(next('tx-'), next('round-'), '5.01'), ...bob });
    expect(reply).toMatchObject({ status: 400, json: { success: false, error: { code: 304 } } });
    expect(receiver.balanceOf('bob')).toBe('5.00');
    expect((await post('/stake', { ...stake(next('tx-'), next('round-'), '0.00'), ...bob })).json.success).toBe(true);
  });

  it('refuses another stake on a round a payout ended', async () => {
    const round = next('round-');
    await post('/stake', stake(next('tx-'), round, '10.00'));
    expect((await post('/stake', stake(next('tx-'), round, '10.00'))).json.success).toBe(true);
    await post('/payout', payout(next('tx-'), round, '10.00'));
    const late = await post('/stake', stake(next('tx-'), round, '10.00'));
    expect(late).toMatchObject({ status: 400, json: { error: { code: 200 } } });
    expect(receiver.balanceOf('alice')).toBe('990.00');
  });

  it('answers a wrong or missing API key with HTTP 401 code 100 and records it; the bare key is accepted', async () => {
    const wrong = await post('/stake', stake(next('tx-'), next('round-'), '10.00'), { authorization: 'Basic guess' });
    expect(wrong).toMatchObject({ status: 401, json: { success: false, error: { code: 100 } } });
    const missing = await post('/auth', base(), { authorization: null });
    expect(missing.status).toBe(401);
    expect(receiver.errors).toHaveLength(2);
    expect(receiver.errors[1]).toMatch(/Authorization header missing/);
    expect((await post('/auth', base(), { authorization: API_KEY })).status).toBe(200);
    expect(receiver.balanceOf('alice')).toBe('1000.00');
  });

  it('answers an unknown token or a userId the token does not belong to with code 301, a foreign currency with 305', async () => {
    const unknown = await post('/stake', stake(next('tx-'), next('round-'), '1.00', { token: 'x'.repeat(40) }));
    expect(unknown.json.error?.code).toBe(301);
    expect((await post('/stake', stake(next('tx-'), next('round-'), '1.00', { userId: 'bob' }))).json.error?.code).toBe(301);
    expect((await post('/payout', payout(next('tx-'), next('round-'), '1.00', { currency: 'FIM' }))).json.error?.code).toBe(305);
    expect(receiver.balanceOf('alice')).toBe('1000.00');
    expect(receiver.errors).toEqual([]);
  });

  it('refuses the recon token on a stake but accepts it on a payout naming the user', async () => {
    const stakeReply = await post('/stake', stake(next('tx-'), next('round-'), '1.00', { token: RECON_TOKEN }));
    expect(stakeReply).toMatchObject({ status: 401, json: { error: { code: 301 } } });
    const payoutReply = await post('/payout', payout(next('tx-'), next('round-'), '3.00', { token: RECON_TOKEN }));
    expect(payoutReply.json).toMatchObject({ success: true, result: { balance: { cash: '1003.00' } } });
  });

  it('refuses money as a JSON number, a negative amount, 3 decimals and a short token with code 200, naming the field', async () => {
    expect((await post('/stake', stake(next('tx-'), next('round-'), 10))).json.error?.code).toBe(200);
    expect((await post('/stake', stake(next('tx-'), next('round-'), '-10.00'))).json.error?.code).toBe(200);
    expect((await post('/payout', payout(next('tx-'), next('round-'), '1.005'))).json.error?.code).toBe(200);
    expect((await post('/auth', base({ token: 'short' }))).json.error?.code).toBe(200);
    // details.game carries the same amount in these requests, so it is named too.
    expect(receiver.errors).toEqual([
      'POST /stake: transaction.stake: got number 10; expected a string',
      'POST /stake: transaction.details.game: got number 10; expected a string',
      expect.stringMatching(
        /\/stake: transaction\.stake: got "-10\.00"; expected a non-negative decimal string with at most 2 decimals/,
      ),
      expect.stringMatching(/\/stake: transaction\.details\.game: got "-10\.00"/),
      expect.stringMatching(/\/payout: transaction\.payout: got "1\.005"/),
      expect.stringMatching(/\/payout: transaction\.details\.game: got "1\.005"/),
      'POST /auth: token: got 5 characters; expected 32–128',
    ]);
    expect(receiver.balanceOf('alice')).toBe('1000.00');
  });

  it('refuses a stake without its round with code 200', async () => {
    const { round: _round, ...withoutRound } = stake(next('tx-'), 'r', '1.00');
    const reply = await post('/stake', withoutRound);
    expect(reply).toMatchObject({ status: 400, json: { error: { code: 200 } } });
    expect(receiver.errors[0]).toMatch(/round: required by the docs but missing/);
  });

  it('records a call to a path Red Tiger does not have and answers 404', async () => {
    expect((await post('/bet', {})).status).toBe(404);
    expect(receiver.errors[0]).toMatch(/not a Red Tiger wallet call/);
  });

  it('refuses player tokens Red Tiger could never send (outside 32–128 characters) at start', async () => {
    await expect(
      startRedTigerReceiver({
        credentials: { apiKey: API_KEY },
        players: [{ playerId: 'p', currency: 'EUR', balance: '1.00', token: 't' }],
      }),
    ).rejects.toThrow(/token must be 32–128 characters/);
  });
});
