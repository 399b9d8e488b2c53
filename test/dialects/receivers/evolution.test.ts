/**
 * The Evolution receiver proven against requests built by hand from the "… example from specs"
 * bodies and the licensee integration-test expectations quoted in valkyrie's provider/evolution/
 * (see evolution.ts for the sources).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEvolutionReceiver } from './evolution.ts';
import type { VendorReceiver } from './receiver-kit.ts';

const AUTH_TOKEN = 'api-token-from-evolution';
let receiver: VendorReceiver;
let counter = 0;
const next = (prefix: string): string => `${prefix}${++counter}`;

beforeEach(async () => {
  receiver = await startEvolutionReceiver({
    credentials: { authToken: AUTH_TOKEN },
    players: [
      { playerId: 'euID-1', currency: 'EUR', balance: '1000.00', token: 'sid-1' },
      { playerId: 'euID-2', currency: 'EUR', balance: '2.00', token: 'sid-2' },
    ],
  });
});
afterEach(async () => {
  await receiver.stop();
});

async function post(
  path: string,
  body: unknown,
  options: { token?: string | null; raw?: string } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const token = options.token === undefined ? AUTH_TOKEN : options.token;
  const query = token === null ? '' : `?authToken=${encodeURIComponent(token)}`;
  const response = await fetch(`${receiver.url}${path}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: options.raw ?? JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The shape of the spec's debit/credit/cancel examples. */
function money(transaction: { id: string; refId: string; amount: number | string }, overrides: Record<string, unknown> = {}) {
  return {
    sid: 'sid-1',
    userId: 'euID-1',
    currency: 'EUR',
    game: {
      id: '7kfwqku4jb4mtas1n4k4irqa',
      type: 'blackjack',
      details: { table: { id: 'aaabbbcccdddeee111', vid: 'aaabbbcccdddeee111' } },
    },
    transaction,
    uuid: next('ce186440-'),
    ...overrides,
  };
}

describe('Evolution receiver', () => {
  it('answers the spec balance example with status OK, balance, bonus and the uuid', async () => {
    const reply = await post('/balance', {
      sid: 'sid-1',
      userId: 'euID-1',
      game: null,
      currency: 'EUR',
      uuid: 'ce186440-ed92-11e3-ac10-0800200c9a66',
    });
    expect(reply).toEqual({
      status: 200,
      json: { status: 'OK', balance: 1000, bonus: 0, uuid: 'ce186440-ed92-11e3-ac10-0800200c9a66' },
    });
    expect(receiver.errors).toEqual([]);
  });

  it('answers /check with OK and the same sid', async () => {
    const reply = await post('/check', { sid: 'sid-1', userId: 'euID-1', channel: { type: 'P' }, uuid: 'u-1' });
    expect(reply.json).toEqual({ status: 'OK', sid: 'sid-1', uuid: 'u-1' });
  });

  it('debits 1.556179 exactly and the credit with the same refId settles it', async () => {
    const debit = await post('/debit', money({ id: '9AotBIvi23', refId: '1459zzz', amount: 1.556179 }));
    expect(debit.json).toMatchObject({ status: 'OK', balance: 998.443821, bonus: 0 });
    expect(receiver.balanceOf('euID-1')).toBe('998.443821');
    const credit = await post('/credit', money({ id: 'K4FOqh17v0', refId: '1459zzz', amount: 2.556179 }));
    expect(credit.json).toMatchObject({ status: 'OK', balance: 1001 });
    expect(receiver.balanceOf('euID-1')).toBe('1001.00');
    expect(receiver.errors).toEqual([]);
  });

  it('answers a repeated debit OK and charges it once; the same id with another amount is BET_ALREADY_EXIST', async () => {
    const first = money({ id: 'd-1', refId: 'r-1', amount: 10 });
    await post('/debit', first);
    const again = await post('/debit', { ...first, uuid: 'retry' });
    expect(again.json).toMatchObject({ status: 'OK', balance: 990 });
    const changed = await post('/debit', money({ id: 'd-1', refId: 'r-1', amount: 11 }));
    expect(changed.json).toMatchObject({ status: 'BET_ALREADY_EXIST', balance: 990 });
    expect(receiver.balanceOf('euID-1')).toBe('990.00');
  });

  it('refuses a credit for an unknown refId with BET_DOES_NOT_EXIST and a second credit with BET_ALREADY_SETTLED', async () => {
    await post('/debit', money({ id: 'd-2', refId: 'r-2', amount: 2 }));
    const unknown = await post('/credit', money({ id: 'c-x', refId: 'r-unknown', amount: 5 }));
    expect(unknown.json).toMatchObject({ status: 'BET_DOES_NOT_EXIST', balance: 998 });
    await post('/credit', money({ id: 'c-2', refId: 'r-2', amount: 2 }));
    const second = await post('/credit', money({ id: 'c-3', refId: 'r-2', amount: 2 }));
    expect(second.json).toMatchObject({ status: 'BET_ALREADY_SETTLED', balance: 1000 });
    expect(receiver.balanceOf('euID-1')).toBe('1000.00');
  });

  it('cancels a debit once by its own id and refId; a second cancel and a later credit are BET_ALREADY_SETTLED', async () => {
    await post('/debit', money({ id: 'd-3', refId: 'r-3', amount: 10 }));
    const cancel = await post('/cancel', money({ id: 'd-3', refId: 'r-3', amount: 10 }));
    expect(cancel.json).toMatchObject({ status: 'OK', balance: 1000 });
    expect((await post('/cancel', money({ id: 'd-3', refId: 'r-3', amount: 10 }))).json.status).toBe('BET_ALREADY_SETTLED');
    expect((await post('/credit', money({ id: 'c-4', refId: 'r-3', amount: 300 }))).json.status).toBe('BET_ALREADY_SETTLED');
    expect(receiver.balanceOf('euID-1')).toBe('1000.00');
  });

  it('refuses a cancel after a credit, and a cancel of an unknown debit, without moving money', async () => {
    await post('/debit', money({ id: 'd-4', refId: 'r-4', amount: 2 }));
    await post('/credit', money({ id: 'c-5', refId: 'r-4', amount: 0 }));
    expect((await post('/cancel', money({ id: 'd-4', refId: 'r-4', amount: 2 }))).json).toMatchObject({
      status: 'BET_ALREADY_SETTLED',
      balance: 998,
    });
    expect((await post('/cancel', money({ id: 'd-x', refId: 'r-x', amount: 2 }))).json.status).toBe('BET_DOES_NOT_EXIST');
    expect(receiver.balanceOf('euID-1')).toBe('998.00');
  });

  it('refunds the debit amount, not the amount a cancel states', async () => {
    await post('/debit', money({ id: 'd-5', refId: 'r-5', amount: 3 }));
    await post('/cancel', money({ id: 'd-5', refId: 'r-5', amount: 47 }));
    expect(receiver.balanceOf('euID-1')).toBe('1000.00');
  });

  it('answers INSUFFICIENT_FUNDS with the unchanged balance', async () => {
    const reply = await post('/debit', money({ id: 'd-6', refId: 'r-6', amount: 2.000001 }, { sid: 'sid-2', userId: 'euID-2' }));
    expect(reply.json).toMatchObject({ status: 'INSUFFICIENT_FUNDS', balance: 2 });
    expect(receiver.balanceOf('euID-2')).toBe('2.00');
  });

  it('answers a wrong or missing authToken with HTTP 401 INVALID_TOKEN_ID and records it', async () => {
    const wrong = await post('/debit', money({ id: 'd-7', refId: 'r-7', amount: 1 }), { token: 'guess' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.status).toBe('INVALID_TOKEN_ID');
    const missing = await post('/balance', { sid: 'sid-1', userId: 'euID-1', currency: 'EUR' }, { token: null });
    expect(missing.status).toBe(401);
    expect(receiver.balanceOf('euID-1')).toBe('1000.00');
    expect(receiver.errors).toHaveLength(2);
    expect(receiver.errors[0]).toMatch(/authToken query parameter does not match/);
    expect(receiver.errors[1]).toMatch(/authToken query parameter missing/);
  });

  it('answers INVALID_SID for a userId the sid was not issued to, on debit, credit and cancel alike', async () => {
    await post('/debit', money({ id: 'd-8', refId: 'r-8', amount: 10 }));
    const fake = { userId: 'fakeUserId_x' };
    expect((await post('/debit', money({ id: 'd-9', refId: 'r-9', amount: 1 }, fake))).json.status).toBe('INVALID_SID');
    expect((await post('/credit', money({ id: 'c-8', refId: 'r-8', amount: 1 }, fake))).json.status).toBe('INVALID_SID');
    expect((await post('/cancel', money({ id: 'd-8', refId: 'r-8', amount: 10 }, fake))).json.status).toBe('INVALID_SID');
    expect((await post('/debit', money({ id: 'd-9', refId: 'r-9', amount: 1 }, { sid: 'sid-2' }))).json.status).toBe(
      'INVALID_SID',
    );
    expect(receiver.balanceOf('euID-1')).toBe('990.00');
    expect(receiver.errors).toEqual([]);
  });

  it('answers HTTP 400 INVALID_PARAMETER for a string amount, 7 decimals, a missing game or a 1-letter currency, naming the field', async () => {
    expect((await post('/debit', money({ id: 'd-a', refId: 'r-a', amount: '1.50' }))).status).toBe(400);
    expect((await post('/debit', money({ id: 'd-b', refId: 'r-b', amount: 1.0000001 }))).status).toBe(400);
    const { game: _game, ...withoutGame } = money({ id: 'd-c', refId: 'r-c', amount: 1 });
    const reply = await post('/debit', withoutGame);
    expect(reply).toMatchObject({ status: 400, json: { status: 'INVALID_PARAMETER' } });
    expect((await post('/debit', money({ id: 'd-d', refId: 'r-d', amount: 1 }, { currency: 'E' }))).status).toBe(400);
    expect(receiver.errors).toEqual([
      expect.stringMatching(/transaction\.amount: got string "1\.50"; expected a JSON number/),
      expect.stringMatching(/amount: got 1\.0000001; expected a non-negative amount with at most 6 decimals/),
      expect.stringMatching(/game: required by the docs but missing/),
      expect.stringMatching(/currency: got "E"; expected a 3-letter ISO 4217 code/),
    ]);
    expect(receiver.balanceOf('euID-1')).toBe('1000.00');
  });

  it('answers a body that is not JSON with HTTP 400 INVALID_PARAMETER', async () => {
    const reply = await post('/debit', undefined, { raw: 'sid=sid-1' });
    expect(reply).toMatchObject({ status: 400, json: { status: 'INVALID_PARAMETER' } });
    expect(receiver.errors[0]).toMatch(/body is not JSON/);
  });

  it('pays a promo payout once however often it is repeated', async () => {
    const payout = {
      sid: 'sid-1',
      userId: 'euID-1',
      currency: 'EUR',
      game: null,
      promoTransaction: {
        type: 'FreeRoundPlayableSpent',
        id: 'TD1459zzz',
        amount: 1.556179,
        voucherId: 'd82ce074-bd5a-11eb-8529-0242ac130003',
        remainingRounds: 0,
      },
      uuid: 'ce186440-ed92-11e3-ac10-0800200c9a66',
    };
    expect((await post('/promo_payout', payout)).json).toMatchObject({ status: 'OK', balance: 1001.556179 });
    expect((await post('/promo_payout', payout)).json).toMatchObject({ status: 'OK', balance: 1001.556179 });
    expect(receiver.errors).toEqual([]);
  });

  it('records a call to a path Evolution does not have and answers 404', async () => {
    expect((await post('/withdraw', {})).status).toBe(404);
    expect(receiver.errors[0]).toMatch(/not an Evolution wallet call/);
  });
});
