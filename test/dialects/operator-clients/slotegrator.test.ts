/**
 * The Slotegrator GIS operator client proven against the signing rule of Slotegrator's document and
 * PHP SDK (no vector with a known merchant key is published) and a loopback stand-in that recomputes
 * X-Sign from the received parameters and headers the same way, checks the 30-second window of
 * Slotegrator's document, and refuses with 401 and the document's {name, message, code, status}.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { constantTimeEqual, type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor } from './kit.ts';
import { slotegratorClient, slotegratorSign, slotegratorSigningText } from './slotegrator.ts';

const MERCHANT = 'merchant-1';
const KEY = 'merchant-key';
const NOW = 1_767_225_600;

function slotegratorStandIn(call: ReceivedCall) {
  const params: Record<string, string> = Object.fromEntries(call.query);
  if (call.method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(call.rawBody.toString('utf8'))));
  const auth = {
    'X-Merchant-Id': String(call.headers['x-merchant-id'] ?? ''),
    'X-Timestamp': String(call.headers['x-timestamp'] ?? ''),
    'X-Nonce': String(call.headers['x-nonce'] ?? ''),
  };
  const sign = String(call.headers['x-sign'] ?? '');
  // The document: 401 "Authentication failed", errors as {name, message, code, status}.
  const forbidden = (message: string) => ({ status: 401, body: { name: 'Unauthorized', message, code: 0, status: 401 } });
  if (auth['X-Merchant-Id'] !== MERCHANT) return forbidden('Unknown merchant');
  if (Math.abs(Number(auth['X-Timestamp']) - NOW) > 30) return forbidden('Timestamp out of window');
  if (!sign || !constantTimeEqual(sign, slotegratorSign(params, auth, KEY))) return forbidden('Invalid sign');
  switch (`${call.method} ${call.path}`) {
    case 'GET /v1/games': {
      const page = Number(params.page);
      const item = (n: number) => ({
        uuid: `uuid-${n}`,
        name: `Game ${n}`,
        image: `https://x.invalid/${n}.png`,
        type: 'slots',
        provider: 'Test',
        is_mobile: 1,
      });
      return {
        status: 200,
        body: {
          items: [item(page * 2 - 1), item(page * 2)],
          _meta: { totalCount: 4, pageCount: 2, currentPage: page, perPage: 2 },
        },
      };
    }
    case 'POST /v1/games/init':
      return { status: 200, body: { url: `https://games.example.test/${params.game_uuid}?session=${params.session_id}` } };
    case 'POST /v1/games/init-demo':
      return { status: 200, body: { url: `https://games.example.test/${params.game_uuid}?demo=1` } };
    case 'GET /v1/games/lobby':
      return { status: 200, body: { lobby: [{ lobbyData: 'table-1', name: 'Table 1' }] } };
    case 'GET /v1/freespins/bets':
      return { status: 200, body: { denominations: ['0.01', '0.1', '1'], bets: [{ bet_id: '0', bet_per_line: 1, lines: 25 }] } };
    case 'POST /v1/freespins/set':
      if (!params.bet_id && !params.total_bet_id && !params.denomination) {
        return {
          status: 422,
          body: {
            name: 'Unprocessable entity',
            message: 'One of bet_id, total_bet_id, denomination is required',
            code: 0,
            status: 422,
          },
        };
      }
      return { status: 200, body: '' };
    case 'POST /v1/freespins/cancel':
      return { status: 200, body: '' };
    default:
      return { status: 404, body: { name: 'Not Found', message: 'Page not found.', code: 0, status: 404 } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  vendor = await startLoopbackVendor(slotegratorStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

let nonces = 0;
const client = (tamper?: 'wrong-key' | 'tampered-body' | 'no-signature', now = () => NOW) =>
  slotegratorClient({
    baseUrl: `${vendor.url}/v1`,
    merchantId: MERCHANT,
    merchantKey: KEY,
    tamper,
    now,
    nonce: () => `nonce-${++nonces}`,
  });

describe('slotegrator X-Sign rule (PHP SDK getAuthHeaders)', () => {
  const auth = { 'X-Merchant-Id': 'm', 'X-Timestamp': '1', 'X-Nonce': 'n' };

  it('signs ksort()ed params and headers as http_build_query: uppercase header names sort first, spaces as +', () => {
    const text = slotegratorSigningText({ player_name: 'John Doe', game_uuid: 'abc', email: null }, auth);
    expect(text).toBe('X-Merchant-Id=m&X-Nonce=n&X-Timestamp=1&game_uuid=abc&player_name=John+Doe');
    expect(slotegratorSign({ player_name: 'John Doe', game_uuid: 'abc' }, auth, 'k')).toBe(
      createHmac('sha1', 'k').update(text).digest('hex'),
    );
  });

  it('encodes URLs in values as PHP urlencode does', () => {
    expect(slotegratorSigningText({ return_url: 'https://c.test/a?b=1&c=~' }, auth)).toContain(
      'return_url=https%3A%2F%2Fc.test%2Fa%3Fb%3D1%26c%3D%7E',
    );
  });
});

describe('slotegrator operator client', () => {
  it('lists every page of games', async () => {
    const games = await client().listGames(2);
    expect(games.map((g) => g.uuid)).toEqual(['uuid-1', 'uuid-2', 'uuid-3', 'uuid-4']);
    expect(vendor.calls.map((c) => c.query.get('page'))).toEqual(['1', '2']);
  });

  it('inits a real session with the operator session id, and a demo session without a player', async () => {
    expect(
      await client().launch({
        player: 'p-1',
        token: 'sess-1',
        currency: 'EUR',
        gameId: 'uuid-1',
        mode: 'real',
        lobbyUrl: 'https://c.test/lobby',
      }),
    ).toBe('https://games.example.test/uuid-1?session=sess-1');
    const real = Object.fromEntries(new URLSearchParams(vendor.calls.at(-1)!.rawBody.toString('utf8')));
    expect(real).toMatchObject({
      game_uuid: 'uuid-1',
      player_id: 'p-1',
      player_name: 'p-1',
      currency: 'EUR',
      session_id: 'sess-1',
    });
    expect(vendor.calls.at(-1)!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(await client().launch({ player: 'p-1', token: 'sess-1', currency: 'EUR', gameId: 'uuid-1', mode: 'demo' })).toBe(
      'https://games.example.test/uuid-1?demo=1',
    );
  });

  it('reads the free-spin bets, sets a campaign with a bet id, cancels it, and reports a 422 without any bet', async () => {
    expect(await client().freeSpinBets('uuid-1', 'EUR')).toMatchObject({ denominations: ['0.01', '0.1', '1'] });
    const campaign = {
      freespinId: 'fs-1',
      player: 'p-1',
      currency: 'EUR',
      gameId: 'uuid-1',
      quantity: 10,
      validFrom: NOW,
      validUntil: NOW + 86400,
    };
    await client().awardFreeSpins({ ...campaign, betId: 0 });
    expect(Object.fromEntries(new URLSearchParams(vendor.calls.at(-1)!.rawBody.toString('utf8')))).toMatchObject({
      freespin_id: 'fs-1',
      player_id: 'p-1',
      quantity: '10',
      bet_id: '0',
      game_uuid: 'uuid-1',
    });
    await client().cancelFreeSpins('fs-1');
    await expect(client().awardFreeSpins(campaign)).rejects.toMatchObject({ status: 422 });
  });

  it('reads a game lobby', async () => {
    expect(await client().lobby('uuid-1', 'EUR')).toEqual({ lobby: [{ lobbyData: 'table-1', name: 'Table 1' }] });
  });

  it.each(['wrong-key', 'tampered-body', 'no-signature'] as const)('is refused with 401 when %s', async (tamper) => {
    const failure = await client(tamper)
      .launch({ player: 'p', token: 's', currency: 'EUR', gameId: 'uuid-1', mode: 'real' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({
      status: 401,
      body: { name: 'Unauthorized' },
      message: expect.stringContaining('Invalid sign'),
    });
  });

  it('is refused when its clock is outside the window', async () => {
    await expect(client(undefined, () => NOW - 31).listGames()).rejects.toMatchObject({
      status: 401,
      message: expect.stringContaining('window'),
    });
  });
});
