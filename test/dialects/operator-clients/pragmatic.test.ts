/**
 * The Pragmatic Play operator client proven against the hash rule as integrators state it (no
 * published vector with a known secret exists) and a loopback stand-in that recomputes `hash` from
 * the received parameters with the shared secret, the way PP checks its own wallet calls.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { constantTimeEqual, type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor } from './kit.ts';
import { pragmaticClient, pragmaticHash } from './pragmatic.ts';

const SECURE_LOGIN = 'tg_casino';
const SECRET = 'testKey';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

function pragmaticStandIn(call: ReceivedCall) {
  const params = new URLSearchParams(call.query);
  if ((call.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    for (const [key, value] of new URLSearchParams(call.rawBody.toString('utf8'))) params.append(key, value);
  }
  const fields = Object.fromEntries(params);
  const expected = pragmaticHash(fields, SECRET);
  // GameURL's documented codes: 2 bad login/hash, 14 required parameter empty.
  if (!fields.hash || !constantTimeEqual(fields.hash, expected))
    return { status: 200, body: { error: '2', description: 'Invalid login or hash' } };
  if (fields.secureLogin !== SECURE_LOGIN) return { status: 200, body: { error: '2', description: 'secureLogin unknown' } };
  switch (call.path) {
    case '/IntegrationService/v3/http/CasinoGameAPI/getCasinoGames/':
      return {
        status: 200,
        body: {
          error: '0',
          description: 'OK',
          gameList: [
            { gameID: 'vs20doghouse', gameName: 'The Dog House', gameTypeID: 'vs', demoGameAvailable: true, frbAvailable: true },
          ],
        },
      };
    case '/IntegrationService/v3/http/CasinoGameAPI/game/url/':
      if (!fields.country || !fields.externalPlayerId || (!fields.token && fields.playMode !== 'DEMO')) {
        return { status: 200, body: { error: '14', description: 'Required parameter is empty' } };
      }
      return {
        status: 200,
        body: {
          error: '0',
          description: 'OK',
          gameURL: `https://games.example.test/?symbol=${fields.symbol}&mode=${fields.playMode}`,
        },
      };
    case '/IntegrationService/v3/http/FreeRoundsBonusAPI/v2/bonus/player/create': {
      const games = JSON.parse(call.rawBody.toString('utf8')) as { gameList: { gameId: string }[] };
      return { status: 200, body: { error: '0', description: `created for ${games.gameList[0]?.gameId}` } };
    }
    case '/IntegrationService/v3/http/HistoryAPI/OpenHistoryExtended/':
      return {
        status: 200,
        body: { error: '0', description: 'OK', url: `https://history.example.test/${fields.gameId}/${fields.roundId}` },
      };
    case '/IntegrationService/v3/http/FreeRoundsBonusAPI/v2/bonus/cancel/':
      return { status: 200, body: { error: '0', description: 'OK' } };
    default:
      return { status: 404, body: { error: '1', description: 'not found' } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  vendor = await startLoopbackVendor(pragmaticStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const client = (tamper?: 'wrong-key' | 'tampered-body' | 'no-signature') =>
  pragmaticClient({ baseUrl: vendor.url, secureLogin: SECURE_LOGIN, secretKey: SECRET, tamper });
const lastForm = () => Object.fromEntries(new URLSearchParams(vendor.calls.at(-1)!.rawBody.toString('utf8')));

describe('pragmatic hash rule', () => {
  it('sorts by name, joins k=v with &, appends the secret, MD5 hex; hash and empty values left out', () => {
    expect(pragmaticHash({ secureLogin: 'tg_casino' }, 'testKey')).toBe(md5('secureLogin=tg_casinotestKey'));
    expect(pragmaticHash({ symbol: 'vs20', currency: 'EUR', hash: 'old', lobbyUrl: '' }, 'k')).toBe(
      md5('currency=EUR&symbol=vs20k'),
    );
  });

  it('hashes the values as they are, not URL-encoded', () => {
    expect(pragmaticHash({ lobbyUrl: 'https://c.test/a b' }, 'k')).toBe(md5('lobbyUrl=https://c.test/a bk'));
  });
});

describe('pragmatic operator client', () => {
  it('lists games over a form POST carrying secureLogin and hash', async () => {
    const games = await client().listGames();
    expect(games[0]).toMatchObject({ gameID: 'vs20doghouse', demoGameAvailable: true });
    expect(vendor.calls.at(-1)!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(lastForm()).toMatchObject({ secureLogin: SECURE_LOGIN, hash: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('launches real play with player, token, country and currency, and demo play without a token', async () => {
    expect(
      await client().launch({
        player: 'p-1',
        token: 'tok-1',
        currency: 'EUR',
        gameId: 'vs20doghouse',
        mode: 'real',
        lobbyUrl: 'https://c.test/lobby?x=1&y=2',
      }),
    ).toBe('https://games.example.test/?symbol=vs20doghouse&mode=REAL');
    expect(lastForm()).toMatchObject({
      externalPlayerId: 'p-1',
      token: 'tok-1',
      currency: 'EUR',
      lobbyUrl: 'https://c.test/lobby?x=1&y=2',
    });
    await client().launch({ player: 'p-1', token: 'tok-1', currency: 'EUR', gameId: 'vs20doghouse', mode: 'demo' });
    expect(lastForm()).toMatchObject({ playMode: 'DEMO' });
    expect(lastForm()).not.toHaveProperty('token');
  });

  it('opens a round history url with player, game and round', async () => {
    expect(await client().roundDetails({ player: 'p-1', gameId: 'vs20doghouse', round: '2147483647' })).toBe(
      'https://history.example.test/vs20doghouse/2147483647',
    );
    expect(lastForm()).toMatchObject({ playerId: 'p-1', gameId: 'vs20doghouse', roundId: '2147483647' });
  });

  it('awards free rounds (signed query + JSON game list) and cancels them', async () => {
    const created = await client().awardFreeSpins({
      bonusCode: 'b-1',
      player: 'p-1',
      currency: 'EUR',
      gameId: 'vs20doghouse',
      rounds: 10,
      totalBet: 0.2,
      startDate: 1767225600,
      expirationDate: 1769904000,
    });
    expect(created.description).toBe('created for vs20doghouse');
    expect(vendor.calls.at(-1)!.query.get('rounds')).toBe('10');
    expect(await client().cancelFreeSpins('b-1')).toMatchObject({ error: '0' });
  });

  it.each(['wrong-key', 'tampered-body', 'no-signature'] as const)('is refused with error 2 when %s', async (tamper) => {
    const failure = await client(tamper)
      .listGames()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({ body: { error: '2' } });
  });
});
