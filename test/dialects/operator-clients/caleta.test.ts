/**
 * The Caleta operator client proven two ways (sources in caleta.ts):
 * - against Caleta's published signature vector: the OAS "# Request signing" example body, signed
 *   with the key of Caleta's sample project, must give the printed signature — through the client
 *   itself, header and all;
 * - against a loopback stand-in that verifies X-Auth-Signature with the operator's public key.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALETA_DEMO_CURRENCY, caletaClient } from './caleta.ts';
import {
  type LoopbackVendor,
  OperatorCallError,
  type ReceivedCall,
  rsaSha256Base64,
  startLoopbackVendor,
  verifyRsaSha256Base64,
} from './kit.ts';

/**
 * Caleta's sample signing key (bitbucket.org/paulocaleta/signaturetest, keys/key), as copied into
 * valkyrie-fnd/valkyrie provider/caleta/auth_signature_test.go. A published test key, not a secret.
 */
const CALETA_SAMPLE_PRIVATE_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEpAIBAAKCAQEAwUlXX2eDngAIDlH8XX1N4kCff98Ev2ulCXMpu1wvR7LrmZ5G',
  'QpPtt5VCr7mcy0C8tUe8UZli/jYbicdAYGAGb8t4d3TqDpewx9igSvWTLMwvZi7+',
  'f0fudpdUA3cFZOpKiWdOQSlbIKuf3IAgP/g1ETb46mOjSSsd7b8gL17m3xUZMnza',
  'vGujM4H6t3tTKLnn2CFLmlxXyk/El/FQohQps6ihr+MBQxwwnVY9BT0vPxXf2pw5',
  'hoHgzqsayT5IDGkqCB3h0Ng6QWumNfzqiJZDeodNhuW80MZjCThgqC1F2yZukvcM',
  'BWHLYnmnYIFZaOPEFuzW9OLJZMdc+XCXmixMRwIDAQABAoIBAQCGpKV1szEvXkw+',
  'VYRcR856XpP9SokPI1hbBds7RhM1egC/CU9eT5gX+6TxrnX37IfILEmV+ijIdz6l',
  'sqQ4voudUvr/E/V75tVh0ZiPvxQf77jREMl+Nsh52h7PLxkV3FPB9bHAmKN/Va7N',
  'tn9AsJGfBVFOTcxQSvXVSP+NoClpmh3VDjZQKCjEON+0p0gjsqTKYG1EzASTAAP3',
  'pU3dj/HwNMptzJZFblu6K5m4DQxfm5ZYyfAXO+2dl0D59GzgM5Bf4fGwbGPZT7nv',
  'rOSRklqS66VG5kHZMUW775pvEnBIqa8xfPkqL8azHysK/3mMmhASkC7u9LLfiPs1',
  'tBnoSz4JAoGBAOYbdLvMNDHxE5irkBEZRlt+5HOq3VE/CpBjsV5MVLicK3ssTl0X',
  '4j2REL2xEONaAPlUN+f7XvDlKQcxfelFp8Z2GI49bJLLMTME6GeDoS0CXw/90OQe',
  'AxifvEwatKWjeNoa1WqFNAAklNy/FGGGU6LnlNbLDhRHMPjJVFVzgs7FAoGBANcJ',
  'Nuy7b5uVOPumfBLHI1Xns3eHo0POWYl2c1vs3anZppNB3EV1MQykrpU3hokubC6H',
  'bAvef2rMSE9wzhNxBQYKREGlhWne2xNvfLWV2bd3G3tvDc96HXLhXaybnqMgkdRD',
  '2I+t2jnIiOOVRXGF2bl52uIHH1bBrlqM5W+WJl+bAoGBALaYUPB5IW4D9F3wvhij',
  'as5OCjCzBH5lPRfI1EWU4qG/400RonmC61eZlqRALruKfz1alCZ0tSkJX55CqryC',
  'NplouyGcIlz1+muW2GjT7gEOYasJ6Uorep9+mef2RSUvbEX+hx3I57O5U5s70Yt2',
  'EUYy6Evtw5VZzMWO1WodiE5VAoGAAMIIjocOmqbI/6ITl+FZz4i0ijxRKAEHMcPY',
  'Hj/UfC/HNYeq5hfGp3vBHceHUt52BSf3CoerPU4hBx6nq0vfr6jDmtOhh8EAVq4y',
  '61Tu4oWp9CJtEwkkJ26B7QTTZ1HLEct3bPI47bE2Qk8ZYpANN2kli1xpEN435hvP',
  'BzipQ/cCgYAoqQ3mzetmq269RcxfsTBkomiWCzAToTQkSzsHA/0xgB6USl0hS7QU',
  'nXCBBByQvWA9o+aXjAw78hV2A0l1HFfTOM9hfuhDn7LPhYbxW8XGiwcxFxrOZcbH',
  'xjPlYOmP9CJrLdnqWaF0nkUHToq8eI/bpu47AwLMofA5ClJR66tRBw==',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

/** The OAS example's signature; valkyrie's test proves it is over "currency":"BTC", not the printed "EUR". */
const CALETA_SAMPLE_SIGNATURE =
  'eLAVF38xYGp4KyHnybr3vEkKY9l7+G3VJusrY5k+FbseYBXZsRcH6EDP9PTUCkAQNftnq61HAo3fyjPKPxJpRQwBJjZpvSHgf5K/VLquf3GU92kXxQwVC1UQzhboKSfk9Ub9tRRt0sQlfRUdYtLSWYDRrWGuDElTOAgE5uhR6Mlkc5UXSKye1JaQHPxrJyVryHCTgFJd+HCy2QYVMQeEl7yF6RYRqmQPGZuawTbvTvz8nRVu5/z5zFFmEHZc2MPQMQAuweP28FjaGnljMWUE89KH5PxiY5CAYZJmez2WXoL9/Voc4c3PJjntAlIOEzLLQ26NNGRKMLwjUsq8ScEEmA==';
const CALETA_SAMPLE_BODY =
  '{"user":"test","country":"BR","currency":"BTC","operator_id":1,"token":"d5dcb4f6-db06-4ab1-9c63-d1f7dc12694e","game_id":10,"lang":"en","lobby_url":"https://casinosample.com","deposit_url":"https://casinosample.com/deposit"}';

const samplePublicKey = createPublicKey(CALETA_SAMPLE_PRIVATE_KEY);
const operatorKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });

let registeredKey = operatorKeys.publicKey;
function caletaStandIn(call: ReceivedCall) {
  const signature = call.headers['x-auth-signature'];
  if (!verifyRsaSha256Base64(call.rawBody, typeof signature === 'string' ? signature : undefined, registeredKey)) {
    // unknown: the OAS gives no status or body for a bad signature on the Games API; 401 + {error} here.
    return { status: 401, body: { error: 'RS_ERROR_INVALID_SIGNATURE' } };
  }
  const body = JSON.parse(call.rawBody.toString('utf8')) as Record<string, unknown>;
  if (body.operator_id !== 1)
    return { status: 404, body: { error: 'The operator_id does not correspond to any existing Operator.' } };
  switch (call.path) {
    case '/api/game/list':
      return {
        status: 200,
        body: [
          {
            url_thumb: 'https://cdn.example.test/torchoffire/icon.jpg',
            url_background: 'https://cdn.example.test/torchoffire/bg.jpg',
            product: 'Caleta',
            platforms: ['GPL_DESKTOP', 'GPL_MOBILE'],
            name: 'Torch of Fire',
            game_id: 1,
            game_code: 'cg_torchoffire',
            enabled: true,
            category: 'Video Slots',
            blocked_countries: ['PL', 'BG'],
          },
        ],
      };
    case '/api/game/url':
      return { status: 200, body: { url: `https://games.example.test/games/?token=${String(body.token ?? 'fun')}` } };
    case '/api/game/round':
      return body.round === 'unknown'
        ? { status: 405, body: { code: '100,', message: 'Invalid Round' } }
        : { status: 200, body: { url: `https://backoffice.example.test/round_details/${String(body.round)}` } };
    case '/api/freebet/rewards/create':
    case '/api/freebet/rewards/cancel':
      return { status: 200, body: { game_id: 1, prepaid_uuid: 'p-1', user: 'test', ...body } };
    default:
      return { status: 404, body: { error: 'not found' } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  registeredKey = operatorKeys.publicKey;
  vendor = await startLoopbackVendor(caletaStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const lastBody = () => JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8')) as Record<string, unknown>;

describe('caleta signature vector (OAS "Request signing")', () => {
  it('signs the example body to the published signature, and the public half verifies it', () => {
    expect(rsaSha256Base64(CALETA_SAMPLE_BODY, CALETA_SAMPLE_PRIVATE_KEY)).toBe(CALETA_SAMPLE_SIGNATURE);
    expect(verifyRsaSha256Base64(CALETA_SAMPLE_BODY, CALETA_SAMPLE_SIGNATURE, samplePublicKey)).toBe(true);
  });

  it('does not match the body as the OAS prints it ("currency":"EUR"): the vector is over BTC', () => {
    const printed = CALETA_SAMPLE_BODY.replace('"BTC"', '"EUR"');
    expect(rsaSha256Base64(printed, CALETA_SAMPLE_PRIVATE_KEY)).not.toBe(CALETA_SAMPLE_SIGNATURE);
  });

  it('sends exactly the example body and signature when launching with the example values', async () => {
    registeredKey = samplePublicKey;
    const client = caletaClient({ baseUrl: vendor.url, operatorId: 1, privateKey: CALETA_SAMPLE_PRIVATE_KEY });
    await client.launch({
      player: 'test',
      country: 'BR',
      currency: 'BTC',
      token: 'd5dcb4f6-db06-4ab1-9c63-d1f7dc12694e',
      gameId: '10',
      gameIdField: 'game_id',
      language: 'en',
      lobbyUrl: 'https://casinosample.com',
      depositUrl: 'https://casinosample.com/deposit',
      mode: 'real',
    });
    const sent = vendor.calls.at(-1)!;
    expect(sent.rawBody.toString('utf8')).toBe(CALETA_SAMPLE_BODY);
    expect(sent.headers['x-auth-signature']).toBe(CALETA_SAMPLE_SIGNATURE);
  });
});

describe('caleta operator client', () => {
  const client = (tamper?: 'wrong-key' | 'tampered-body' | 'no-signature') =>
    caletaClient({ baseUrl: vendor.url, operatorId: 1, privateKey: operatorKeys.privateKey, subPartnerId: 'my-casino', tamper });

  it('lists games with their ids, codes, platforms and thumbnails', async () => {
    const games = await client().listGames();
    expect(games[0]).toMatchObject({ game_id: 1, game_code: 'cg_torchoffire', platforms: ['GPL_DESKTOP', 'GPL_MOBILE'] });
    expect(lastBody()).toEqual({ operator_id: 1 });
  });

  it('launches real play with token, user and sub-partner, and demo play with FUN and neither', async () => {
    const real = await client().launch({
      player: 'u1',
      token: 'tok-1234567890',
      gameId: 'cg_torchoffire',
      currency: 'EUR',
      mode: 'real',
    });
    expect(real).toBe('https://games.example.test/games/?token=tok-1234567890');
    expect(lastBody()).toMatchObject({ user: 'u1', token: 'tok-1234567890', currency: 'EUR', sub_partner_id: 'my-casino' });
    await client().launch({ player: 'u1', token: 'tok-1234567890', gameId: 'cg_torchoffire', currency: 'EUR', mode: 'demo' });
    expect(lastBody().currency).toBe(CALETA_DEMO_CURRENCY);
    expect(lastBody()).not.toHaveProperty('user');
    expect(lastBody()).not.toHaveProperty('token');
  });

  it('gets a round url, and reports an unknown round with the 405 {code, message} Caleta documents', async () => {
    expect(await client().roundDetails({ round: 'r-9', user: 'u1' })).toBe('https://backoffice.example.test/round_details/r-9');
    await expect(client().roundDetails({ round: 'unknown' })).rejects.toMatchObject({
      status: 405,
      message: expect.stringContaining('Invalid Round'),
    });
  });

  it('creates and cancels a reward', async () => {
    const reward = await client().awardFreeSpins({
      user: 'u1',
      prepaidUuid: 'p-1',
      rewardUuid: 'r-1',
      betCount: 5,
      betValue: 100000,
    });
    expect(reward).toMatchObject({ reward_uuid: 'r-1', bet_count: 5, bet_value: 100000, sub_partner_id: 'my-casino' });
    expect(await client().cancelFreeSpins('r-1')).toMatchObject({ reward_uuid: 'r-1' });
  });

  it.each(['wrong-key', 'tampered-body', 'no-signature'] as const)('is refused when %s', async (tamper) => {
    const failure = await client(tamper)
      .listGames()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({ status: 401 });
  });
});
