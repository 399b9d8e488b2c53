import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { maskedBody } from '../../src/requests/describe.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * M-1 (review 2026-11-27, tools/mask-probe.sh): the request journal kept client credentials
 * unmasked — in custom auth headers, deeper than 16 levels, under array or object values, in
 * non-form bodies, in BOM'd or malformed JSON and in the 400 that quotes it, under query names the
 * rule missed. One rule now masks names in headers, query, form and JSON at any depth and of any
 * value type; what cannot be parsed is masked by pattern or kept as its digest only.
 */
describe('M-1: the journal never keeps a credential a client sent, wherever it sent it', () => {
  let aggmock: Aggmock;
  let game: string;
  const KEY = { 'x-betnex-key': 'aggmock-dev-key' };
  /** Everything the journal holds: the admin listing and the stored rows. */
  const journalText = async () =>
    (await (await fetch(`${aggmock.url}/__admin/requests?limit=100`)).text()) +
    JSON.stringify(aggmock.db.prepare('SELECT * FROM api_requests').all());

  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 } }));
    game = aggmock.catalog.games[0]?.id as string;
  });
  afterAll(async () => {
    await aggmock?.close();
  });

  const post = (body: BodyInit, headers: Record<string, string>, path = '/getgameurl') =>
    fetch(`${aggmock.url}${path}`, { method: 'POST', headers: { ...KEY, ...headers }, body });

  it('masks custom credential headers, deep, array- and object-valued, form-as-text, multipart, BOM and malformed bodies, and the 400 that quotes them', async () => {
    await fetch(`${aggmock.url}/__admin/requests`, { method: 'DELETE' });
    await fetch(`${aggmock.url}/getallproviders`, {
      headers: {
        ...KEY,
        'X-Auth-Token': 'HDR-AUTH-TOKEN-1',
        'X-Access-Token': 'HDR-ACCESS-2',
        'Api-Key': 'HDR-APIKEY-3',
        'X-Session-Token': 'HDR-SESSION-4',
      },
    });
    const json = { 'content-type': 'application/json' };
    const launch = { gameId: game, username: 'p1', money: 100, platform: 1, home_url: 'https://c.example' };
    await post(JSON.stringify({ ...launch, token: `REPLY-ECHO-TOKEN-5${'x'.repeat(200)}` }), json);
    await post(`{"gameId":"${game}","username":"p1","token":"MALFORMED-TOKEN-6",}`, json);
    let deep = '{"token":"DEEP-TOKEN-7"}';
    for (let i = 0; i < 16; i++) deep = `{"b":${deep}}`;
    await post(`{"a":${deep}}`, json);
    await post('{"token":["ARRAY-TOKEN-8"],"apiKeys":{"primary":"OBJ-KEY-9"}}', json);
    await post('username=p1&token=PLAIN-FORM-TOKEN-10', { 'content-type': 'text/plain' });
    const form = new FormData();
    form.set('token', 'MULTIPART-TOKEN-11');
    form.set('username', 'p1');
    await post(form, {});
    await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"username":"p1","token":"BOM-TOKEN-12"}')]), json);
    await fetch(`${aggmock.url}/getallproviders?access=ACCESS-13&jwt=JWT-14&sid=SID-15&bearer=BEARER-16&credential=CRED-17`, {
      headers: KEY,
    });
    // 5,000 levels: too deep to walk, masked by pattern all the same.
    await post(`${'['.repeat(5000)}{"password":"VERY-DEEP-18"}${']'.repeat(5000)}`, json);
    const stored = await journalText();
    for (const secret of [
      'HDR-AUTH-TOKEN-1',
      'HDR-ACCESS-2',
      'HDR-APIKEY-3',
      'HDR-SESSION-4',
      'REPLY-ECHO-TOKEN-5',
      'MALFORMED-TOKEN-6',
      'DEEP-TOKEN-7',
      'ARRAY-TOKEN-8',
      'OBJ-KEY-9',
      'PLAIN-FORM-TOKEN-10',
      'MULTIPART-TOKEN-11',
      'BOM-TOKEN-12',
      'ACCESS-13',
      'JWT-14',
      'SID-15',
      'BEARER-16',
      'CRED-17',
      'VERY-DEEP-18',
    ]) {
      expect(stored, secret).not.toContain(secret);
    }
    // What is not a credential stays readable: the player, the game, the fields around the secrets.
    const entries = aggmock.requests.list({ limit: 100 });
    expect(entries.some((e) => e.body?.includes('"username":"p1"'))).toBe(true);
    expect(entries.some((e) => e.headers['x-auth-token'] === '[masked]')).toBe(true);
    expect(entries.some((e) => e.headers['user-agent'] !== undefined && e.headers['user-agent'] !== '[masked]')).toBe(true);
    const malformed = entries.find((e) => e.body?.includes('MALFORMED') || e.body?.includes(',}'));
    expect(malformed?.body).toContain('"token":"[masked]"');
    expect(malformed?.status).toBe(400);
  });

  it('one rule in both directions: catches each secret-looking name, passes ordinary ones as they are', () => {
    for (const name of [
      'token',
      'apiKey',
      'api_key',
      'X-Auth',
      'password',
      'passwd',
      'sessionId',
      'jwt',
      'bearer',
      'credential',
      'sid',
      'access_token',
      'signature',
      'client_secret',
    ]) {
      expect(JSON.parse(maskedBody(JSON.stringify({ [name]: 'v', keep: 'k' }))), name).toEqual({ [name]: '[masked]', keep: 'k' });
    }
    for (const name of ['username', 'gameId', 'money', 'currency', 'home_url', 'platform', 'lang', 'provider', 'inside']) {
      const body = JSON.stringify({ [name]: 'v' });
      expect(maskedBody(body), name).toBe(body);
    }
    // Formatting kept when there is nothing to mask; a BOM dropped.
    expect(maskedBody('{ "username": "p1" }')).toBe('{ "username": "p1" }');
    expect(maskedBody('\uFEFF{"token":"t"}')).toBe('{"token":"[masked]"}');
    // A URL in a field keeps its host and path; its token query is masked.
    expect(JSON.parse(maskedBody('{"home_url":"https://c.example/x?token=abc&lang=en"}'))).toEqual({
      home_url: 'https://c.example/x?token=[masked]&lang=en',
    });
    // Unparseable with a structured secret: only its length and digest.
    expect(maskedBody('{"apiKeys":{"a":"OBJ"},')).toMatch(/^\[\d+ bytes, sha256 [0-9a-f]{64}: not kept/);
  });
});
