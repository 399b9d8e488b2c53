/**
 * The Caleta receiver proven against requests built by hand from Caleta's OAS 1.5 (see caleta.ts
 * for the sources): bodies signed RSA-SHA256 with a test key, amounts ×100000.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCaletaReceiver } from './caleta.ts';
import type { VendorReceiver } from './receiver-kit.ts';

const operatorKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const strangerKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = operatorKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

let receiver: VendorReceiver;
let counter = 0;
const uuid = (): string => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

beforeEach(async () => {
  receiver = await startCaletaReceiver({
    credentials: { publicKey },
    players: [
      { playerId: 'user1210', currency: 'EUR', balance: '1000.00', token: 'tok-alice' },
      { playerId: 'user2', currency: 'USD', balance: '5.00', token: 'tok-bob' },
    ],
  });
});
afterEach(async () => {
  await receiver.stop();
});

async function post(
  path: string,
  body: unknown,
  options: { key?: KeyObject; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const text = options.raw ?? JSON.stringify(body);
  const signature = sign('sha256', Buffer.from(text), options.key ?? operatorKeys.privateKey).toString('base64');
  const response = await fetch(`${receiver.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-signature': signature, ...options.headers },
    body: text,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function bet(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    token: 'tok-alice',
    transaction_uuid: uuid(),
    supplier_user: 'cg_user1210',
    round_closed: false,
    round: 'CG-1718271',
    request_uuid: uuid(),
    is_free: false,
    game_id: 132,
    game_code: 'cg_magicforest',
    currency: 'EUR',
    bet: 'Extra balls n1',
    amount: 356000,
    ...overrides,
  };
}

function win(betBody: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...bet({ round: betBody.round, round_closed: true, amount: 1005000 }),
    reference_transaction_uuid: betBody.transaction_uuid,
    ...overrides,
  };
}

function rollback(betBody: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    token: 'tok-alice',
    transaction_uuid: uuid(),
    round_closed: true,
    round: betBody.round,
    request_uuid: uuid(),
    reference_transaction_uuid: betBody.transaction_uuid,
    game_code: 'cg_magicforest',
    user: 'user1210',
    ...overrides,
  };
}

describe('Caleta receiver', () => {
  it('answers /wallet/balance with the player, currency, request_uuid and the balance ×100000', async () => {
    const request = { token: 'tok-alice', request_uuid: uuid(), supplier_user: null, game_code: 'cg_magicforest' };
    const reply = await post('/wallet/balance', request);
    expect(reply).toEqual({
      status: 200,
      json: { user: 'user1210', status: 'RS_OK', request_uuid: request.request_uuid, currency: 'EUR', balance: 100000000 },
    });
    expect(receiver.errors).toEqual([]);
  });

  it('debits a bet of 356000 (3.56) exactly and credits its win', async () => {
    const placed = bet();
    const debited = await post('/wallet/bet', placed, { headers: { 'x-msg-timestamp': '2023-01-17 08:13:17.985795+00:00' } });
    expect(debited.json).toMatchObject({ status: 'RS_OK', balance: 99644000, request_uuid: placed.request_uuid });
    expect(receiver.balanceOf('user1210')).toBe('996.44');
    const credited = await post('/wallet/win', win(placed));
    expect(credited.json).toMatchObject({ status: 'RS_OK', balance: 100649000 });
    expect(receiver.balanceOf('user1210')).toBe('1006.49');
    expect(receiver.errors).toEqual([]);
  });

  it('answers a repeated bet with RS_OK and charges it once; the same id in another round is a duplicate', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const again = await post('/wallet/bet', { ...placed, request_uuid: uuid() });
    expect(again.json).toMatchObject({ status: 'RS_OK', balance: 99644000 });
    const elsewhere = await post('/wallet/bet', { ...placed, round: 'CG-other', request_uuid: uuid() });
    expect(elsewhere.json).toEqual({ status: 'RS_ERROR_DUPLICATE_TRANSACTION', request_uuid: expect.any(String) });
    const otherUser = await post('/wallet/bet', { ...placed, token: 'tok-bob', currency: 'USD', request_uuid: uuid() });
    expect(otherUser.json.status).toBe('RS_ERROR_DUPLICATE_TRANSACTION');
    expect(receiver.balanceOf('user1210')).toBe('996.44');
    expect(receiver.balanceOf('user2')).toBe('5.00');
  });

  it('pays a repeated win once', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const paid = win(placed);
    await post('/wallet/win', paid);
    const again = await post('/wallet/win', { ...paid, request_uuid: uuid() });
    expect(again.json).toMatchObject({ status: 'RS_OK', balance: 100649000 });
  });

  it('refuses a win whose bet does not exist with RS_ERROR_TRANSACTION_DOES_NOT_EXIST and pays nothing', async () => {
    const reply = await post('/wallet/win', win(bet()));
    expect(reply.json).toEqual({ status: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST', request_uuid: expect.any(String) });
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
  });

  it('rolls a bet back once, and refuses a later win on it with RS_ERROR_TRANSACTION_ROLLED_BACK', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const first = await post('/wallet/rollback', rollback(placed));
    expect(first.json).toMatchObject({ status: 'RS_OK', balance: 100000000, user: 'user1210' });
    const repeated = await post('/wallet/rollback', rollback(placed));
    expect(repeated.json).toMatchObject({ status: 'RS_OK', balance: 100000000 });
    const late = await post('/wallet/win', win(placed));
    expect(late.json.status).toBe('RS_ERROR_TRANSACTION_ROLLED_BACK');
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
    expect(receiver.errors).toEqual([]);
  });

  it('answers a rollback of an unknown bet RS_OK without money, and does not charge that bet when it arrives late', async () => {
    const placed = bet();
    const reply = await post('/wallet/rollback', rollback(placed));
    expect(reply.json).toMatchObject({ status: 'RS_OK', balance: 100000000 });
    const late = await post('/wallet/bet', placed);
    expect(late.json.status).toBe('RS_ERROR_TRANSACTION_ROLLED_BACK');
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
  });

  it('refuses a bet above the balance with RS_ERROR_NOT_ENOUGH_MONEY and moves no money', async () => {
    const reply = await post('/wallet/bet', bet({ token: 'tok-bob', currency: 'USD', amount: 500001 }));
    expect(reply.json).toEqual({ status: 'RS_ERROR_NOT_ENOUGH_MONEY', request_uuid: expect.any(String) });
    expect(receiver.balanceOf('user2')).toBe('5.00');
    const exact = await post('/wallet/bet', bet({ token: 'tok-bob', currency: 'USD', amount: 500000 }));
    expect(exact.json).toMatchObject({ status: 'RS_OK', balance: 0 });
  });

  it('refuses a body signed with another key, or changed after signing, with RS_ERROR_INVALID_SIGNATURE and records it', async () => {
    const stranger = await post('/wallet/bet', bet(), { key: strangerKeys.privateKey });
    expect(stranger.json.status).toBe('RS_ERROR_INVALID_SIGNATURE');
    const placed = bet();
    const signedText = JSON.stringify(placed);
    const signature = sign('sha256', Buffer.from(signedText), operatorKeys.privateKey).toString('base64');
    const reformatted = await fetch(`${receiver.url}/wallet/bet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-signature': signature },
      body: JSON.stringify(placed, null, 2),
    });
    expect(((await reformatted.json()) as { status: string }).status).toBe('RS_ERROR_INVALID_SIGNATURE');
    const unsigned = await fetch(`${receiver.url}/wallet/balance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'tok-alice', request_uuid: uuid(), supplier_user: 'x', game_code: 'g' }),
    });
    expect(((await unsigned.json()) as { status: string }).status).toBe('RS_ERROR_INVALID_SIGNATURE');
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
    expect(receiver.errors).toHaveLength(3);
    expect(receiver.errors[0]).toMatch(/X-Auth-Signature does not verify/);
    expect(receiver.errors[2]).toMatch(/X-Auth-Signature header missing/);
  });

  it('refuses a decimal amount, a missing field and a string flag with RS_ERROR_WRONG_TYPES naming each field', async () => {
    const { round_closed: _omitted, ...withoutRoundClosed } = bet();
    const reply = await post('/wallet/bet', { ...withoutRoundClosed, amount: '3.56', is_free: 'false' });
    expect(reply.json.status).toBe('RS_ERROR_WRONG_TYPES');
    expect(receiver.errors.join('\n')).toMatch(/round_closed: required by the docs but missing/);
    expect(receiver.errors.join('\n')).toMatch(/amount: got string "3.56"; expected an integer >= 0/);
    expect(receiver.errors.join('\n')).toMatch(/is_free: got string "false"; expected true or false/);
    const fraction = await post('/wallet/bet', bet({ amount: 3.56 }));
    expect(fraction.json.status).toBe('RS_ERROR_WRONG_TYPES');
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
  });

  it('answers a body that is not JSON with RS_ERROR_WRONG_SYNTAX', async () => {
    const reply = await post('/wallet/bet', undefined, { raw: '{"token":' });
    expect(reply.json.status).toBe('RS_ERROR_WRONG_SYNTAX');
    expect(receiver.errors[0]).toMatch(/body is not JSON/);
  });

  it('refuses an unknown token with RS_ERROR_INVALID_TOKEN and a foreign currency with RS_ERROR_WRONG_CURRENCY', async () => {
    expect((await post('/wallet/bet', bet({ token: 'never-issued' }))).json.status).toBe('RS_ERROR_INVALID_TOKEN');
    expect((await post('/wallet/bet', bet({ currency: 'USD' }))).json.status).toBe('RS_ERROR_WRONG_CURRENCY');
    expect(receiver.balanceOf('user1210')).toBe('1000.00');
    expect(receiver.errors).toEqual([]);
  });

  it('issues a new token on /wallet/check; the old one is expired for bets only and still settles its bet', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const checked = await post('/wallet/check', { token: 'tok-alice' });
    const fresh = checked.json.token as string;
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post('/wallet/bet', bet())).json.status).toBe('RS_ERROR_TOKEN_EXPIRED');
    expect((await post('/wallet/win', win(placed))).json).toMatchObject({ status: 'RS_OK', balance: 100649000 });
    expect((await post('/wallet/bet', bet({ token: fresh }))).json).toMatchObject({ status: 'RS_OK', balance: 100293000 });
    expect((await post('/wallet/check', { token: 'never-issued' })).json).toEqual({ status: 'RS_ERROR_INVALID_TOKEN' });
  });

  it('records a rollback of a win as a problem (Caleta only rolls back bets) and moves no money', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const paid = win(placed);
    await post('/wallet/win', paid);
    const reply = await post('/wallet/rollback', rollback(paid));
    expect(reply.json).toMatchObject({ status: 'RS_OK', balance: 100649000 });
    expect(receiver.errors).toEqual([expect.stringMatching(/is a win; Caleta only rolls back bets/)]);
  });

  it('records a win whose round differs from its bet round, and still pays it', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    const reply = await post('/wallet/win', win(placed, { round: 'CG-elsewhere' }));
    expect(reply.json.status).toBe('RS_OK');
    expect(receiver.errors).toEqual([expect.stringMatching(/round "CG-elsewhere" differs from its bet's round "CG-1718271"/)]);
  });

  it('moves no cash for a free bet (no bonus wallet) and pays its win in cash', async () => {
    const placed = bet({ is_free: true, campaign_uuid: uuid(), reward_uuid: uuid() });
    expect((await post('/wallet/bet', placed)).json).toMatchObject({ status: 'RS_OK', balance: 100000000 });
    expect((await post('/wallet/win', win(placed, { is_free: true }))).json).toMatchObject({
      status: 'RS_OK',
      balance: 101005000,
    });
    expect((await post('/wallet/rollback', rollback(placed))).json).toMatchObject({ status: 'RS_OK', balance: 101005000 });
  });

  it('records a call to a path Caleta does not have and answers 404', async () => {
    const reply = await post('/transaction/bet', bet());
    expect(reply.status).toBe(404);
    expect(receiver.errors[0]).toMatch(/not a Caleta Wallet API call/);
  });

  it('logs each answered request with its parsed fields and reply', async () => {
    const placed = bet();
    await post('/wallet/bet', placed);
    expect(receiver.log).toEqual([
      { method: 'POST', path: '/wallet/bet', fields: placed, status: 200, reply: expect.objectContaining({ status: 'RS_OK' }) },
    ]);
  });
});
