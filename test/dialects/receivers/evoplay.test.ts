/**
 * Proves the Evoplay receiver before it judges anyone: requests built by hand from the sources cited in
 * `evoplay.ts` (t1softxxx `evoplay_seamless_service_api.php` + `game_api_evoplay_seamless.php` `getSignature`,
 * IqSoft `EvoplayController.cs`, TGG `TGGController.php`), signed by this file's own signer.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEvoplayReceiver, type VendorReceiver } from './evoplay.ts';

const PROJECT = '1234';
const SECRET = 's3cr3t';
const DETAILS = '{"game":{"game_id":1001,"absolute_name":"slot_book"}}';

type Body = Record<string, unknown>;

/** Evoplay's getSignature as the sources write it: md5 of project*version*fields…*key, objects as leaves joined by ':'. */
function sign(body: Body, version = '2', secret = SECRET): string {
  const leaves = (value: unknown): string[] =>
    typeof value === 'object' && value !== null
      ? Object.values(value).flatMap(leaves)
      : [value === true ? '1' : value === false || value == null ? '' : String(value)];
  const parts = Object.entries(body)
    .filter(([key]) => key !== 'signature')
    .map(([, value]) => (typeof value === 'object' && value !== null ? leaves(value).join(':') : leaves(value)[0]));
  return createHash('md5')
    .update([PROJECT, version, ...parts, secret].join('*'))
    .digest('hex');
}

function signed(body: Body, version?: string): Body {
  return { ...body, signature: sign(body, version) };
}

function bet(callbackId: string, amount: string, extra: Body = {}): Body {
  return {
    token: 'tok-alice',
    callback_id: callbackId,
    name: 'bet',
    data: { round_id: 'r-1', action_id: '1', final_action: '0', amount, currency: 'EUR', details: DETAILS, ...extra },
  };
}

function win(callbackId: string, amount: string, roundId = 'r-1'): Body {
  return {
    token: 'tok-alice',
    callback_id: callbackId,
    name: 'win',
    data: { round_id: roundId, action_id: '2', final_action: '1', amount, currency: 'EUR', details: DETAILS },
  };
}

function refund(callbackId: string, betCallbackId: string, amount: string, extra: Body = {}): Body {
  return {
    token: 'tok-alice',
    callback_id: callbackId,
    name: 'refund',
    data: {
      refund_round_id: 'r-1',
      refund_action_id: '1',
      refund_callback_id: betCallbackId,
      amount,
      currency: 'EUR',
      details: DETAILS,
      ...extra,
    },
  };
}

function phpForm(body: Body): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'object' && value !== null) {
      for (const [inner, v] of Object.entries(value)) params.append(`${key}[${inner}]`, String(v));
    } else params.append(key, String(value));
  }
  return params.toString();
}

let wallet: VendorReceiver;

/** Evoplay's reply envelope. */
interface Reply {
  status: string;
  data?: { balance: string; currency: string };
  error?: { scope: string; no_refund: number; message: string };
}

async function post(body: Body): Promise<{ status: number; json: Reply }> {
  const res = await fetch(wallet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Reply };
}

const okWith = (balance: string) => ({ status: 'ok', data: { balance, currency: 'EUR' } });

describe('Evoplay receiver', () => {
  beforeEach(async () => {
    wallet = await startEvoplayReceiver({
      credentials: { project: PROJECT, secretKey: SECRET },
      players: [
        { playerId: 'alice', currency: 'EUR', balance: '100.00', token: 'tok-alice' },
        { playerId: 'bob', currency: 'EUR', balance: '5.00', token: 'tok-bob' },
      ],
    });
  });
  afterEach(async () => {
    await wallet.stop();
  });

  it('signs the worked example exactly as getSignature does', () => {
    const body = bet('cb-1', '10.00');
    // 1234*2*tok-alice*cb-1*bet*r-1:1:0:10.00:EUR:{"game":{"game_id":1001,"absolute_name":"slot_book"}}*s3cr3t
    expect(sign(body)).toBe('71377fd86d9657aaf3205c2fa735dfe4');
    const nested = bet('cb-1', '10.00', { bonus: { id: 'b-7', spins: [3, true, null] } });
    const text = `1234*2*tok-alice*cb-1*bet*r-1:1:0:10.00:EUR:${DETAILS}:b-7:3:1:*s3cr3t`;
    expect(sign(nested)).toBe(createHash('md5').update(text).digest('hex'));
  });

  it('answers init with the balance and currency of the token’s player', async () => {
    const reply = await post(signed({ token: 'tok-alice', callback_id: 'cb-init', name: 'init', data: [] }));
    expect(reply).toEqual({ status: 200, json: okWith('100.00') });
    expect(wallet.errors).toEqual([]);
  });

  it('debits a bet and credits the win of its round', async () => {
    expect((await post(signed(bet('cb-1', '10.00')))).json).toEqual(okWith('90.00'));
    expect((await post(signed(win('cb-2', '25.50')))).json).toEqual(okWith('115.50'));
    expect(wallet.balanceOf('alice')).toBe('115.50');
    expect(wallet.errors).toEqual([]);
    expect(wallet.log.map((e) => e.fields.name)).toEqual(['bet', 'win']);
  });

  it('answers a duplicate bet with ok and the current balance and moves no money', async () => {
    await post(signed(bet('cb-1', '10.00')));
    const again = await post(signed(bet('cb-1', '10.00')));
    expect(again.json).toEqual(okWith('90.00'));
    expect(wallet.balanceOf('alice')).toBe('90.00');
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a callback_id reused by another operation', async () => {
    await post(signed(bet('cb-1', '10.00')));
    const reply = await post(signed(win('cb-1', '10.00')));
    expect(reply.json).toEqual({
      status: 'error',
      error: { scope: 'internal', no_refund: 0, message: 'Transaction already exists' },
    });
    expect(wallet.balanceOf('alice')).toBe('90.00');
    expect(wallet.errors).toHaveLength(1);
  });

  it('refunds a known bet once, whatever the refund’s own callback_id', async () => {
    await post(signed(bet('cb-1', '10.00')));
    expect((await post(signed(refund('cb-r1', 'cb-1', '10.00')))).json).toEqual(okWith('100.00'));
    expect((await post(signed(refund('cb-r1', 'cb-1', '10.00')))).json).toEqual(okWith('100.00'));
    expect((await post(signed(refund('cb-r2', 'cb-1', '10.00')))).json).toEqual(okWith('100.00'));
    expect(wallet.balanceOf('alice')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a refund of an unknown bet with ok, moves nothing, and does not charge that bet when it comes later', async () => {
    expect((await post(signed(refund('cb-r1', 'cb-late', '10.00')))).json).toEqual(okWith('100.00'));
    expect((await post(signed(bet('cb-late', '10.00')))).json).toEqual(okWith('100.00'));
    expect(wallet.balanceOf('alice')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a refund whose amount or round disagrees with its bet', async () => {
    await post(signed(bet('cb-1', '10.00')));
    expect((await post(signed(refund('cb-r1', 'cb-1', '12.00')))).json.error?.message).toBe('Invalid Amount');
    expect((await post(signed(refund('cb-r2', 'cb-1', '10.00', { refund_round_id: 'r-9' })))).json.error?.message).toBe(
      'Invalid Refund Round ID',
    );
    expect(wallet.balanceOf('alice')).toBe('90.00');
    expect(wallet.errors).toHaveLength(2);
  });

  it('refuses a bet over the balance with "Not enough money", scope user, no_refund 1, and keeps the balance', async () => {
    const reply = await post({ ...signed({ ...bet('cb-1', '5.01'), token: 'tok-bob' }) });
    expect(reply).toEqual({
      status: 200,
      json: { status: 'error', error: { scope: 'user', no_refund: 1, message: 'Not enough money' } },
    });
    expect(wallet.balanceOf('bob')).toBe('5.00');
    // The refused bet was not recorded: a retry with funds available goes through.
    expect((await post(signed({ ...bet('cb-1', '5.00'), token: 'tok-bob' }))).json).toEqual(okWith('0.00'));
  });

  it('refuses a bad signature, records why, and moves no money', async () => {
    const body = { ...bet('cb-1', '10.00'), signature: sign(bet('cb-1', '10.00'), '2', 'wrong-key') };
    const reply = await post(body);
    expect(reply.json).toEqual({ status: 'error', error: { scope: 'internal', no_refund: 0, message: 'Invalid Signature' } });
    expect(wallet.balanceOf('alice')).toBe('100.00');
    expect(wallet.errors).toHaveLength(1);
    expect(wallet.errors[0]).toContain('1234*2*tok-alice*cb-1*bet*r-1:1:0:10.00:EUR:');
  });

  it('refuses a body changed after signing', async () => {
    const body = signed(bet('cb-1', '10.00'));
    (body.data as Body).amount = '1.00';
    expect((await post(body)).json.error?.message).toBe('Invalid Signature');
    expect(wallet.balanceOf('alice')).toBe('100.00');
  });

  it('refuses an unknown token as an unknown player', async () => {
    const reply = await post(signed({ ...bet('cb-1', '10.00'), token: 'tok-nobody' }));
    expect(reply.json.error).toEqual({
      scope: 'internal',
      no_refund: 0,
      message: 'Player not found (Invalid Token) or Player is disabled',
    });
    expect(wallet.errors).toHaveLength(1);
  });

  it('refuses an unknown action', async () => {
    const reply = await post(signed({ token: 'tok-alice', callback_id: 'cb-x', name: 'balance', data: [] }));
    expect(reply.json.error?.message).toBe('Invalid Callback Type');
    expect(wallet.errors[0]).toContain('expected one of init, bet, win, refund');
  });

  it('refuses a win whose round has no bet, and a win on a refunded round', async () => {
    expect((await post(signed(win('cb-w1', '5.00', 'r-404')))).json.error?.message).toBe(
      'Bet transaction not found or Round is not exist.',
    );
    await post(signed(bet('cb-1', '10.00')));
    await post(signed(refund('cb-r1', 'cb-1', '10.00')));
    expect((await post(signed(win('cb-w2', '5.00')))).json.error?.message).toBe('Transaction already processed by refund.');
    expect(wallet.balanceOf('alice')).toBe('100.00');
    expect(wallet.errors).toHaveLength(2);
  });

  it('accepts a zero win that closes the round and a zero (free spin) bet', async () => {
    expect((await post(signed(bet('cb-1', '0')))).json).toEqual(okWith('100.00'));
    expect((await post(signed(win('cb-2', '0.00')))).json).toEqual(okWith('100.00'));
    expect(wallet.errors).toEqual([]);
  });

  it('names the missing or mistyped field', async () => {
    const noRound = bet('cb-1', '10.00');
    delete (noRound.data as Body).round_id;
    expect((await post(signed(noRound))).json.error?.message).toBe('Required round_id');
    expect((await post(signed(bet('cb-2', '10.001')))).json.error?.message).toBe('Invalid Amount');
    expect((await post(signed(bet('cb-3', '10.00', { currency: 'USD' })))).json.error?.message).toBe('Invalid Currency');
    expect((await post(signed(bet('cb-4', '10.00', { details: { game: { game_id: 1 } } })))).json.error?.message).toBe(
      'Invalid Data',
    );
    expect(wallet.errors.map((e) => e.split(':')[0] + ':' + e.split(':')[1])).toEqual([
      'bet: data.round_id is missing',
      'bet: data.amount is "10.001"; expected a non-negative decimal in major units with at most 2 decimals for EUR',
      'bet: data.currency is "USD"; the player plays in EUR',
      'bet: data.details is a object; expected a JSON-encoded string (wallets json_decode it)',
    ]);
    expect(wallet.balanceOf('alice')).toBe('100.00');
  });

  it('reads a form-urlencoded body with PHP brackets, as $_POST does', async () => {
    const body = signed(bet('cb-1', '10.00'));
    const res = await fetch(wallet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: phpForm(body),
    });
    expect(await res.json()).toEqual(okWith('90.00'));
    expect(wallet.log[0]!.fields.data).toMatchObject({ round_id: 'r-1', amount: '10.00', details: DETAILS });
    expect(wallet.errors).toEqual([]);
  });

  it('reads the same fields from a GET query, and flattens nested data leaves with ":" when signing', async () => {
    const body = signed(bet('cb-1', '10.00', { bonus: { id: 'b-7', spins: [3, true, null] } }));
    // the bonus object signs as its leaves, "…:b-7:3:1:" (true → 1, null → empty), after the documented fields
    expect((await post(body)).json).toEqual(okWith('90.00'));
    const get = signed(bet('cb-2', '1.00'));
    const viaGet = await fetch(`${wallet.url}/?${phpForm(get)}`);
    expect(await viaGet.json()).toEqual(okWith('89.00'));
    expect(wallet.errors).toEqual([]);
  });

  it('accepts a signature over the canonical field order when the body is sent in another order (t1 fallback)', async () => {
    const canonical = bet('cb-1', '10.00');
    const signature = sign(canonical);
    const data = canonical.data as Body;
    const shuffled = {
      signature,
      data: {
        details: data.details,
        currency: data.currency,
        amount: data.amount,
        final_action: '0',
        action_id: '1',
        round_id: 'r-1',
      },
      name: 'bet',
      callback_id: 'cb-1',
      token: 'tok-alice',
    };
    expect((await post(shuffled)).json).toEqual(okWith('90.00'));
  });

  it('accepts callback version 1 or 2 unless a version credential pins one', async () => {
    expect((await post(signed(bet('cb-1', '1.00'), '1'))).json).toEqual(okWith('99.00'));
    await wallet.stop();
    wallet = await startEvoplayReceiver({
      credentials: { project: PROJECT, secretKey: SECRET, version: '2' },
      players: [{ playerId: 'alice', currency: 'EUR', balance: '100.00', token: 'tok-alice' }],
    });
    expect((await post(signed(bet('cb-1', '1.00'), '1'))).json.error?.message).toBe('Invalid Signature');
    expect((await post(signed(bet('cb-1', '1.00'), '2'))).json).toEqual(okWith('99.00'));
  });

  it('answers 404 on another path and refuses a body that is not JSON or a form', async () => {
    const res = await fetch(`${wallet.url}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const xml = await fetch(wallet.url, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<bet/>' });
    expect((await xml.json()).status).toBe('error');
    expect(wallet.errors).toHaveLength(2);
    expect(wallet.errors[1]).toContain('content-type "application/xml" is not accepted');
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await fetch(wallet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    await res.arrayBuffer();
    expect(wallet.errors[0]).toContain('over 1048576 bytes');
  });
});
