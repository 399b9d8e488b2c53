/**
 * The Hub88 operator client proven two ways (sources in hub88.ts):
 * - against Hub88's published signing example: its body, signed with the example key the docs
 *   link, must give the printed signature — through the client itself, header and all;
 * - against a loopback stand-in that checks requests the way Hub88's docs say Hub88 does:
 *   RSA-SHA256 of the body with the operator's registered public key, else HTTP 401 {"error": …}.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HUB88_DEMO_CURRENCY, hub88Client } from './hub88.ts';
import {
  type LoopbackVendor,
  OperatorCallError,
  type ReceivedCall,
  rsaSha256Base64,
  startLoopbackVendor,
  verifyRsaSha256Base64,
} from './kit.ts';

/**
 * Hub88's signing example (docs.hub88.io …/supplier-api-reference/supplier-api-overview, "Request
 * signing logic": the example request body and "Correct signature: FFdiceKls…"); the example's
 * private key, linked from that page, as copied in a C# demo (search index id 28442272220), and the
 * full signature as a Java test asserts it (id 12710240722). The signed body has "game_id":39 where
 * the page now prints "game_code":"ctl_dragonrising".
 */
const HUB88_EXAMPLE_PRIVATE_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAx3IRpSri/9SjA7f9me35v6LtJzn8drb1vg/UeGaPPFR16KsU',
  'OPqbGJ2r1pRPJMedqqbO7Agt/HavWDcQhNZlc9VrVQcWK/w2HD9PflQYv0oQMiPK',
  '5Mut/eIdFOpwwwaRAU4s6WOkJdSmP9F4cfr/amTZZoY59/t3SZWYjgZ9/LDI2X8S',
  '3uLW/JPiH+6dm2bU8ykhxoWwLE/piJxynS73EzM0tgjHyTUMkarhK9qRVZk581/k',
  'zmtJLLBZQl9XrQQcIfQ+zFZj7ijddOptxpxqCmq8gQNohB56p34yjVH3uAJAaFvI',
  'Vg5mEkprrvNVDJwGonHSaaq7AICmzrF6h/r5dwIDAQABAoIBAFNIGIIlpGA7hE57',
  'N9RdANq6x9iHaBqST48rwQb9nHYOtqWPOoSIcNcYj7ase1faWsX1nZYF3F39mT52',
  'z9kIRZjW11jL+sAnMtkcvq77otHNtXGabJCZVHAdSROAydFGHqqy4CIcz2BUqY8g',
  'gvDlZF4i+nzLM82PHcKGSwuTPmyTED37RqtscSxd7cGQkuL6OnohSFpW+5tvZcGZ',
  'Ui4oVRrX4oVXz//3TDESRfondwQVKPoqQr7aiyYSKOJJMngIXmCvJ6p3XNiEW+dP',
  'uXxm5N9QRkkX00v3vPTdsuwUjt3wepDJhR9BecRERRYNJIrqsgNxkJTJEDlsGqi5',
  'kIKPb/ECgYEA8nKLPCfIaZ4G/7pUXQ64MMemS7qH17aU7Eb+mqDpFRt2bNr/yw12',
  'qIhUkb6XyI/ZwOF2gdhPzte25CuZzNsMu3GqlEQ77AR1XCyu1AY8oiJS4TSmRovJ',
  'x86BK8C8OY75myYcmRIvsusxviZfUCunDaexVGOqIKMRNrgJ2i8194UCgYEA0pgp',
  'nzxI4H/Ej+5KOmEw9P2xstIXpW+CcEDbrh5pqW+PwNP/TUxC445Rn4R8AVXFVnbH',
  '6DLrW35A9KBcA7Ve37vkVUILxPC+S967+gdRAd3BQTuUmi31+7cBjmNLKJMMC8Fl',
  'DZ5S8zwRuVrU6o3bbPUbC5gDb/cN/7GVtb/D18sCgYEA2ma+8LCxxBr8GRAkATRK',
  'Tn77WgqtZm/uVa5amrbLYR09IDBj7umw837kF+qGVsDnGu6/z5Ypxp3h/kccpELL',
  'hGuPi0KwbBtUEXWbBBqeMjwTRxYjlzdDzP9Es0JLDNq0FcROTMHqQBXI2I8+mzzH',
  'nvBqOSgS0JW04wMEtQyEY/UCgYBNMDKJR9paVtpf+vJABaGhGl+IcJL0MzP3Gv6q',
  'CkGmNdrVzZ5U4a/eoipusmuVPa/P6keJZyh254a9Yw122oKEtOSTD1sq+yZ0vpXd',
  'pdLeQT51P3ZPMKtpcIFkhCZnH8aZhHAalr5GouzIKG/D7OzROeGI1VXlMwNxhdCe',
  'xkPtEwKBgG8IJGHMuzBGDtykqPwOdz7llWwzl3GgWiEDqt6kbIEr8F7CbbnlvrhJ',
  'HRmd9tFEtYz2/3x9VTv9NCjd8FiWyPcivkd4dvMInfgBoCBJxw0I+nyjqQpiLuhx',
  'x4xyX1tFKW+sAN+Mb9dO+ZHGpcz2FpPz5uXv6oCzTG9BLcgg0mwx',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const HUB88_EXAMPLE_BODY =
  '{"user":"3nYTOSjdlF6UTz9Ir","country":"XX","currency":"EUR","operator_id":1,"token":"cd6bd8560f3bb8f84325152101adeb45","platform":"GPL_DESKTOP","game_id":39,"lang":"en","lobby_url":"https://examplecasino.io","ip":"::ffff:10.0.0.39"}';
const HUB88_EXAMPLE_SIGNATURE =
  'FFdiceKlsnmrBMhWopZYQXrJSMqxJWkynbaiOnuUE1p4mrg2UydlSAdKbOWQZ7o5USbA3SHPum3XuRCa9INWbcp+fdcOhjz0S0JLKF6uXJR2T8zlF+L+8v2lkBzPOvLg6yRuUyspxtcHB6Vlyd0Sj4v8vk5HxoVv1ZV7EpJglzHs7xKchuifjjhUwkX7AAZwvJCNKo/VZrhtfxHd/k8aq7+9h7AztiiiLO7CXbEbo8snDqMqoB/tBAImv45NcAuReBZGb3QY37MbRoOT/uQGj+9ae5VRNpJ74qs3COraDqZ5kqzsa5SjN1cML2foP13Deqp0FTY0Ek521d8CPWQY6A==';

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

/** The operator Hub88 knows: its id and registered public key. */
let registered = { operatorId: 42, publicKey: operatorKeys.publicKey };
function hub88StandIn(call: ReceivedCall) {
  const signature = call.headers['x-hub88-signature'];
  if (!verifyRsaSha256Base64(call.rawBody, typeof signature === 'string' ? signature : undefined, registered.publicKey)) {
    return { status: 401, body: { error: 'Request signature is invalid' } };
  }
  const body = JSON.parse(call.rawBody.toString('utf8')) as Record<string, unknown>;
  if (body.operator_id !== registered.operatorId)
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
  registered = { operatorId: 42, publicKey: operatorKeys.publicKey };
  vendor = await startLoopbackVendor(hub88StandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const lastBody = () => JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8')) as Record<string, unknown>;

describe('hub88 signature vector (docs "Request signing logic")', () => {
  it('signs the example body to the published signature, and the public half verifies it', () => {
    expect(rsaSha256Base64(HUB88_EXAMPLE_BODY, HUB88_EXAMPLE_PRIVATE_KEY)).toBe(HUB88_EXAMPLE_SIGNATURE);
    expect(verifyRsaSha256Base64(HUB88_EXAMPLE_BODY, HUB88_EXAMPLE_SIGNATURE, createPublicKey(HUB88_EXAMPLE_PRIVATE_KEY))).toBe(
      true,
    );
  });

  it('does not match the body as the page prints it today ("game_code":"ctl_dragonrising")', () => {
    const printed = HUB88_EXAMPLE_BODY.replace('"game_id":39', '"game_code":"ctl_dragonrising"');
    expect(rsaSha256Base64(printed, HUB88_EXAMPLE_PRIVATE_KEY)).not.toBe(HUB88_EXAMPLE_SIGNATURE);
  });

  it('sends exactly the example body and signature when launching with the example values', async () => {
    registered = { operatorId: 1, publicKey: createPublicKey(HUB88_EXAMPLE_PRIVATE_KEY) };
    const client = hub88Client({ baseUrl: vendor.url, operatorId: 1, privateKey: HUB88_EXAMPLE_PRIVATE_KEY });
    await client.launch({
      player: '3nYTOSjdlF6UTz9Ir',
      country: 'XX',
      currency: 'EUR',
      token: 'cd6bd8560f3bb8f84325152101adeb45',
      platform: 'desktop',
      gameId: '39',
      gameIdField: 'game_id',
      language: 'en',
      lobbyUrl: 'https://examplecasino.io',
      ip: '::ffff:10.0.0.39',
      mode: 'real',
    });
    const sent = vendor.calls.at(-1)!;
    expect(sent.rawBody.toString('utf8')).toBe(HUB88_EXAMPLE_BODY);
    expect(sent.headers['x-hub88-signature']).toBe(HUB88_EXAMPLE_SIGNATURE);
  });
});

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
      gameCurrency: 'EUR',
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
