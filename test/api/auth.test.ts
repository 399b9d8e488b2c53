import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { requestPayload, type SigningScheme, signPayload } from '../../src/signing/index.ts';
import { expectApiError, json, testApp } from './helpers.ts';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/signing-vectors.json', import.meta.url), 'utf8')) as {
  inboundRequests: Array<{ timestamp: number; method: string; pathQuery: string; body: string; header: string }>;
};

const NOW_S = 1_763_800_200;

function signed(
  scheme: SigningScheme,
  method: string,
  pathQuery: string,
  body = '',
  secrets = ['aggmock-dev-secret'],
  t = NOW_S,
) {
  return signPayload({ scheme, secrets, payload: requestPayload(method, pathQuery, body), timestamp: t, id: 'msg_test' });
}

describe('inbound auth, mode either (the default)', () => {
  const clock = { now: NOW_S * 1000 };

  it('refuses a request with no credentials, saying what to send', async () => {
    const { app } = testApp({}, clock);
    const res = await app.request('/getallproviders');
    expect(res.status).toBe(401);
    const body = await json(res);
    expectApiError(body, 401);
    expect(body.error).toBe('MISSING_CREDENTIALS');
    expect(body.message).toMatch(/x-betnex-key/);
    expect(body.message).toMatch(/X-Signature/);
  });

  it.each(['x-betnex-key', 'x-turnkeyxgaming-key', 'x-rapidapi-key'])('accepts the dev API key in %s', async (header) => {
    const { app } = testApp({}, clock);
    expect((await app.request('/getallproviders', { headers: { [header]: 'aggmock-dev-key' } })).status).toBe(200);
  });

  it('refuses a wrong API key', async () => {
    const { app } = testApp({}, clock);
    const res = await app.request('/getallproviders', { headers: { 'x-betnex-key': 'aggmock-dev-kez' } });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe('INVALID_API_KEY');
  });

  it.each(vectors.inboundRequests)('accepts the published vector $method $pathQuery', async (v) => {
    const { app } = testApp({}, { now: v.timestamp * 1000 });
    const res = await app.request(v.pathQuery, {
      method: v.method,
      headers: {
        'x-signature': v.header.slice('X-Signature: '.length),
        ...(v.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(v.body ? { body: v.body } : {}),
    });
    // The vector's gameId is not in this seed's catalog, so a signed launch reaches the 404; auth passed.
    expect([200, 404]).toContain(res.status);
    if (res.status === 404) expect((await json(res)).errors).toEqual([expect.objectContaining({ field: 'gameId' })]);
  });

  it.each(['timestamped', 'hmac-hex', 'standard-webhooks'] as const)(
    'accepts a %s-signed GET when that scheme is configured',
    async (scheme) => {
      const { app } = testApp({ auth: { signing: { scheme } } }, clock);
      const path = '/casino/getallgamesandprovider?provider=PRAGMATIC+PLAY';
      expect((await app.request(path, { headers: signed(scheme, 'GET', path) })).status).toBe(200);
    },
  );

  it('refuses a signature over a different query, and explains what to sign when asked', async () => {
    const { app } = testApp({ auth: { explain: true } }, clock);
    const res = await app.request('/getallgamesandprovider?provider=SPRIBE', {
      headers: signed('timestamped', 'GET', '/getallgamesandprovider?provider=PGSOFT'),
    });
    expect(res.status).toBe(401);
    const body = await json(res);
    expect(body.error).toBe('INVALID_SIGNATURE');
    expect(body.reason).toBe('NO_MATCHING_SIGNATURE');
    // The string to sign up to the body, and the body's digest and length (the sender hashes its own body).
    expect(body.explain).toMatchObject({
      signedPrefix: `${NOW_S}.GET./getallgamesandprovider?provider=SPRIBE.`,
      bodySha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      bodyBytes: 0,
    });
    expect((body.explain as { hint: string }).hint).toContain('hash your body to compare');
  });

  it('does not explain unless configured, and then says where the string to sign is', async () => {
    const { app } = testApp({}, clock);
    const res = await app.request('/getallproviders', { headers: signed('timestamped', 'GET', '/other') });
    const body = await json(res);
    expect(body.explain).toBeUndefined();
    expect(body.message).toContain('GET /__admin/requests shows it');
    expect(body.message).toContain('--explain-auth');
    // With explain on, the reply carries it: no pointer elsewhere.
    const explained = testApp({ auth: { explain: true } }, clock).app;
    const shown = await json(await explained.request('/getallproviders', { headers: signed('timestamped', 'GET', '/other') }));
    expect(shown.message).not.toContain('/__admin/requests');
  });

  it('refuses a tampered POST body even with a valid signature for the original', async () => {
    const { app, catalog } = testApp({}, clock);
    const body = JSON.stringify({
      username: 'p1',
      gameId: catalog.games[0]!.id,
      money: 10,
      platform: 1,
      home_url: 'https://x.test',
    });
    const headers = { ...signed('timestamped', 'POST', '/getgameurl', body), 'content-type': 'application/json' };
    expect((await app.request('/getgameurl', { method: 'POST', body, headers })).status).toBe(200);
    const tampered = await app.request('/getgameurl', {
      method: 'POST',
      body: body.replace('"money":10', '"money":99'),
      headers,
    });
    expect(tampered.status).toBe(401);
  });

  it('refuses stale and future timestamps beyond 300 s on both sides', async () => {
    const { app } = testApp({}, clock);
    const old = await app.request('/getallproviders', {
      headers: signed('timestamped', 'GET', '/getallproviders', '', undefined, NOW_S - 301),
    });
    expect(old.status).toBe(401);
    expect((await json(old)).reason).toBe('TIMESTAMP_TOO_OLD');
    const future = await app.request('/getallproviders', {
      headers: signed('timestamped', 'GET', '/getallproviders', '', undefined, NOW_S + 301),
    });
    expect((await json(future)).reason).toBe('TIMESTAMP_TOO_NEW');
    const edge = await app.request('/getallproviders', {
      headers: signed('timestamped', 'GET', '/getallproviders', '', undefined, NOW_S - 300),
    });
    expect(edge.status).toBe(200);
  });

  it('accepts any active secret (rotation)', async () => {
    const { app } = testApp({ auth: { signing: { secrets: ['new-secret', 'aggmock-dev-secret'] } } }, clock);
    expect((await app.request('/getallproviders', { headers: signed('timestamped', 'GET', '/getallproviders') })).status).toBe(
      200,
    );
    expect(
      (await app.request('/getallproviders', { headers: signed('timestamped', 'GET', '/getallproviders', '', ['new-secret']) }))
        .status,
    ).toBe(200);
    expect(
      (await app.request('/getallproviders', { headers: signed('timestamped', 'GET', '/getallproviders', '', ['retired']) }))
        .status,
    ).toBe(401);
  });
});

describe('inbound auth modes', () => {
  const clock = { now: NOW_S * 1000 };
  const keyHeaders = { 'x-betnex-key': 'aggmock-dev-key' };
  const sigHeaders = () => signed('timestamped', 'GET', '/getallproviders');

  it('hmac: refuses an API key alone', async () => {
    const { app } = testApp({ auth: { mode: 'hmac' } }, clock);
    expect((await app.request('/getallproviders', { headers: keyHeaders })).status).toBe(401);
    expect((await app.request('/getallproviders', { headers: sigHeaders() })).status).toBe(200);
  });

  it('api-key: refuses a signature alone', async () => {
    const { app } = testApp({ auth: { mode: 'api-key' } }, clock);
    expect((await app.request('/getallproviders', { headers: sigHeaders() })).status).toBe(401);
    expect((await app.request('/getallproviders', { headers: keyHeaders })).status).toBe(200);
  });

  it('none: needs nothing', async () => {
    const { app } = testApp({ auth: { mode: 'none' } }, clock);
    expect((await app.request('/getallproviders')).status).toBe(200);
  });

  it('uses configured API keys instead of the dev key', async () => {
    const { app } = testApp({ auth: { apiKeys: ['k-live-1'] } }, clock);
    expect((await app.request('/getallproviders', { headers: keyHeaders })).status).toBe(401);
    expect((await app.request('/getallproviders', { headers: { 'x-betnex-key': 'k-live-1' } })).status).toBe(200);
  });

  it('leaves health, docs, images and play pages open', async () => {
    const { app } = testApp({}, clock);
    expect((await app.request('/health')).status).toBe(200);
    expect((await app.request('/openapi.json')).status).toBe(200);
    expect((await app.request('/docs')).status).toBe(200);
  });
});
