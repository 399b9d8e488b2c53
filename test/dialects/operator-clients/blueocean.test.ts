/**
 * The Blue Ocean operator client proven against a loopback stand-in that answers one endpoint by
 * `method`, checks api_login/api_password, and replies in the shapes Blue Ocean's getGame page shows
 * (see blueocean.ts). No signature exists to check against a vector: the credentials are the proof.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blueOceanClient } from './blueocean.ts';
import { constantTimeEqual, type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor } from './kit.ts';

const LOGIN = 'casino_s';
const PASSWORD = '12345678';
const players = new Map<string, string>();

function blueOceanStandIn(call: ReceivedCall) {
  if (call.method !== 'POST' || call.path !== '/api') return { status: 404, body: 'not found', contentType: 'text/plain' };
  const body = JSON.parse(call.rawBody.toString('utf8')) as Record<string, string | number | undefined>;
  if (body.api_login !== LOGIN || typeof body.api_password !== 'string' || !constantTimeEqual(body.api_password, PASSWORD)) {
    // unknown: Blue Ocean's reply to bad API credentials; {error: 1, message} like its other errors here.
    return { status: 200, body: { error: 1, message: 'Invalid api_login or api_password' } };
  }
  switch (body.method) {
    case 'getGameList':
      return {
        status: 200,
        body: {
          error: 0,
          response: [
            {
              id: 2759,
              name: 'Jingle Spin',
              type: 'video-slots',
              category: 'netent',
              id_hash: 'ne#ne-jingle-spin',
              play_for_fun_supported: true,
              freerounds_supported: true,
            },
          ],
        },
      };
    case 'createPlayer':
      players.set(String(body.user_username), String(body.user_password));
      return { status: 200, body: { error: 0, response: { id: 928747, username: body.user_username } } };
    case 'getGame': {
      if (String(body.gameid) !== '2759' && body.gameid !== 'ne#ne-jingle-spin')
        return { status: 200, body: { error: 1, message: 'Game not found! Incorrect id:0' } };
      if (body.play_for_fun === '1')
        return { status: 200, body: { error: 0, response: 'https://games.example.test/demo/2759', currency: body.currency } };
      if (players.get(String(body.user_username)) !== body.user_password) {
        return { status: 200, body: { error: 1, message: 'Invalid player username or password! (2)' } };
      }
      return {
        status: 200,
        body: {
          error: 0,
          response: 'https://games.example.test/real/2759',
          gamesession_id: 'bs_928747-bs5c763a5b5e213_2759',
          sessionid: '5c763a5a24983',
          currency: body.currency,
        },
      };
    }
    case 'addFreeRounds':
      return { status: 200, body: { error: 0, response: { created: 1, freeround_id: '5b8fc08970d5544676009e24' } } };
    case 'logoutPlayer':
      return { status: 200, body: { error: 0, response: true } };
    default:
      return { status: 200, body: { error: 1, message: `Unknown method ${String(body.method)}` } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  players.clear();
  vendor = await startLoopbackVendor(blueOceanStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const client = (tamper?: 'wrong-key' | 'no-signature') =>
  blueOceanClient({ baseUrl: `${vendor.url}/api`, apiLogin: LOGIN, apiPassword: PASSWORD, tamper });
const lastBody = () => JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8')) as Record<string, unknown>;

describe('blue ocean operator client', () => {
  it('lists games with id, id_hash and demo/free-round support', async () => {
    const games = await client().listGames('EUR');
    expect(games[0]).toMatchObject({ id: 2759, id_hash: 'ne#ne-jingle-spin', play_for_fun_supported: true });
    expect(lastBody()).toMatchObject({ api_login: LOGIN, api_password: PASSWORD, method: 'getGameList', currency: 'EUR' });
  });

  it('creates the player, then launches real play with username and password', async () => {
    await client().createPlayer({ player: 'testing', playerPassword: '687ee8d9', currency: 'EUR' });
    const url = await client().launch({
      player: 'testing',
      playerPassword: '687ee8d9',
      token: 'not-sent',
      currency: 'EUR',
      gameId: '2759',
      mode: 'real',
      lobbyUrl: 'https://c.test',
    });
    expect(url).toBe('https://games.example.test/real/2759');
    expect(lastBody()).toMatchObject({
      method: 'getGame',
      user_username: 'testing',
      play_for_fun: '0',
      homeurl: 'https://c.test',
    });
  });

  it('launches demo play with play_for_fun "1" and no player credentials', async () => {
    expect(
      await client().launch({
        player: 'x',
        playerPassword: 'y',
        token: 'not-sent',
        currency: 'EUR',
        gameId: 'ne#ne-jingle-spin',
        mode: 'demo',
      }),
    ).toBe('https://games.example.test/demo/2759');
    expect(lastBody()).not.toHaveProperty('user_password');
    expect(lastBody().play_for_fun).toBe('1');
  });

  it('reports Blue Ocean\u2019s documented errors: unknown game, wrong player password', async () => {
    await expect(
      client().launch({ player: 'x', playerPassword: 'y', token: 'not-sent', currency: 'EUR', gameId: '1', mode: 'real' }),
    ).rejects.toThrow(/Game not found/);
    await expect(
      client().launch({ player: 'ghost', playerPassword: 'y', token: 'not-sent', currency: 'EUR', gameId: '2759', mode: 'real' }),
    ).rejects.toThrow(/Invalid player username or password/);
  });

  it('awards free rounds and logs the player out', async () => {
    expect(
      await client().awardFreeSpins({
        title: 'welcome',
        players: ['928747'],
        gameIds: ['2759'],
        available: 10,
        validTo: '2027-01-31',
      }),
    ).toMatchObject({
      response: { created: 1 },
    });
    expect(lastBody()).toMatchObject({ playerids: '928747', gameids: '2759', available: 10 });
    expect(await client().closeSession({ player: 'testing', playerPassword: 'p', currency: 'EUR' })).toMatchObject({ error: 0 });
  });

  it.each(['wrong-key', 'no-signature'] as const)('is refused when %s', async (tamper) => {
    const failure = await client(tamper)
      .listGames('EUR')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({ body: { error: 1 } });
  });

  it('declines to tamper with a body nothing signs', () => {
    expect(() =>
      blueOceanClient({ baseUrl: vendor.url, apiLogin: LOGIN, apiPassword: PASSWORD, tamper: 'tampered-body' }),
    ).toThrow(/signs nothing/);
  });
});
