/**
 * The Hub88 operator client proven against a loopback stand-in that checks requests the way Hub88's
 * docs say Hub88 does (see hub88.ts for the pages): RSA-SHA256 of the body with the operator's
 * registered public key, else HTTP 401 {"error": …}. Hub88 publishes no signature vector that can
 * be read, so the signing is proven by verification with the public half (and, for the same
 * algorithm, by Caleta's published vector in caleta.test.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HUB88_DEMO_CURRENCY, hub88Client } from './hub88.ts';
import { type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor, verifyRsaSha256Base64 } from './kit.ts';

const operatorKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = operatorKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const GAME = {
  game_code: 'clt_dragonrising',
  name: 'Dragon Rising',
  product: 'Crazy Tooth Studio',
  category: 'Video Slots',
  enabled: true,
  platforms: ['GPL_DESKTOP', 'GPL_MOBILE'],
  url_thumb: 'https://cdn.example.test/dragonrising/thumb.png',
  url_background: 'https://cdn.example.test/dragonrising/bg.png',
  freebet_support: true,
  demo_game_support: true,
  rtp: '96.05',
  blocked_countries: [],
};

function hub88StandIn(call: ReceivedCall) {
  const signature = call.headers['x-hub88-signature'];
  if (!verifyRsaSha256Base64(call.rawBody, typeof signature === 'string' ? signature : undefined, operatorKeys.publicKey)) {
    return { status: 401, body: { error: 'Request signature is invalid' } };
  }
  const body = JSON.parse(call.rawBody.toString('utf8')) as Record<string, unknown>;
  if (body.operator_id !== 42)
    return { status: 404, body: { error: 'The operator_id does not correspond to any existing Operator.' } };
  switch (call.path) {
    case '/operator/generic/v2/game/list':
      return { status: 200, body: [GAME] };
    case '/operator/generic/v2/game/url':
      return { status: 200, body: { url: `https://games.example.test/launch?token=${String(body.token ?? 'demo')}` } };
    case '/operator/generic/v2/game/round':
      return { status: 200, body: { url: `https://backoffice.example.test/round/${String(body.round)}` } };
    case '/operator/generic/v2/freebet/prepaids/list':
      return {
        status: 200,
        body: [{ prepaid_uuid: 'p-1', game_code: GAME.game_code, currency: 'EUR', bet_value: 100000, bet_count: 10 }],
      };
    case '/operator/generic/v2/freebet/rewards/create':
      return { status: 200, body: { ...body, game_code: GAME.game_code } };
    default:
      return { status: 404, body: { error: 'The resource requested wasn\u2019t found.' } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  vendor = await startLoopbackVendor(hub88StandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const lastBody = () => JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8')) as Record<string, unknown>;

describe('hub88 operator client', () => {
  it('lists games with a body of {operator_id}, signed by a PEM key or a KeyObject alike', async () => {
    for (const privateKey of [privatePem, operatorKeys.privateKey]) {
      const games = await hub88Client({ baseUrl: vendor.url, operatorId: 42, privateKey }).listGames();
      expect(games.map((g) => g.game_code)).toEqual(['clt_dragonrising']);
      expect(lastBody()).toEqual({ operator_id: 42 });
      expect(vendor.calls.at(-1)!.headers['content-type']).toBe('application/json');
    }
  });

  it('launches in real mode with the user, token and currency named, and returns the landing url', async () => {
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 42, privateKey: privatePem });
    const url = await client.launch({
      player: 'john12345',
      token: 'f562a685-a160-4d17-876d-ab3363db331c',
      gameId: 'clt_dragonrising',
      currency: 'EUR',
      mode: 'real',
      platform: 'mobile',
      lobbyUrl: 'https://casino.example.test/lobby',
      depositUrl: 'https://casino.example.test/deposit',
    });
    expect(url).toBe('https://games.example.test/launch?token=f562a685-a160-4d17-876d-ab3363db331c');
    expect(lastBody()).toMatchObject({
      user: 'john12345',
      token: 'f562a685-a160-4d17-876d-ab3363db331c',
      game_code: 'clt_dragonrising',
      currency: 'EUR',
      game_currency: 'EUR',
      platform: 'GPL_MOBILE',
      lobby_url: 'https://casino.example.test/lobby',
      deposit_url: 'https://casino.example.test/deposit',
      operator_id: 42,
    });
  });

  it('launches in demo mode with currency XXX and no user or token', async () => {
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 42, privateKey: privatePem });
    await client.launch({
      player: 'john12345',
      token: 'ignored-token',
      gameId: 'clt_dragonrising',
      currency: 'EUR',
      mode: 'demo',
    });
    const body = lastBody();
    expect(body.currency).toBe(HUB88_DEMO_CURRENCY);
    expect(body).not.toHaveProperty('user');
    expect(body).not.toHaveProperty('token');
  });

  it('asks for a round detail url and awards a reward from a prepaid', async () => {
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 42, privateKey: operatorKeys.privateKey });
    expect(await client.roundDetails({ user: 'john12345', round: 'rNEMwgzJAOZ6eR3V' })).toBe(
      'https://backoffice.example.test/round/rNEMwgzJAOZ6eR3V',
    );
    const [prepaid] = await client.listPrepaids({ gameCode: 'clt_dragonrising' });
    const reward = await client.awardFreeSpins({
      user: 'john12345',
      prepaidUuid: String(prepaid!.prepaid_uuid),
      rewardUuid: 'r-1',
    });
    expect(reward).toMatchObject({ user: 'john12345', prepaid_uuid: 'p-1', reward_uuid: 'r-1', operator_id: 42 });
  });

  it.each(['wrong-key', 'tampered-body', 'no-signature'] as const)('is refused with 401 {error} when %s', async (tamper) => {
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 42, privateKey: privatePem, tamper });
    const failure = await client.listGames().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({ status: 401, body: { error: 'Request signature is invalid' } });
  });

  it('reports a refusal other than the signature with its status and Hub88 error text', async () => {
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 7, privateKey: privatePem });
    await expect(client.listGames()).rejects.toMatchObject({ status: 404, message: expect.stringContaining('operator_id') });
  });
});
