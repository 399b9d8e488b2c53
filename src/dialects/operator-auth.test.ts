import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi, isOperatorRoutePath } from './builtin/operator/index.ts';
import { type OperatorAuth, operatorApiSchema, operatorAuthSchema } from './operator.ts';

type SortedParams = Extract<OperatorAuth, { kind: 'sorted-params' }>;

import { type OperatorRequestParts, phpUrlencode, sortedParamsText, verifyOperator } from './operator-auth.ts';

/** The operator recipes, each proved both ways: what the vendor's client sends passes, a spoiled request fails. */

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

function parts(over: Partial<OperatorRequestParts>): OperatorRequestParts {
  return { rawBody: Buffer.alloc(0), headers: {}, params: {}, fields: {}, ...over };
}

describe('rsa-body (Hub88, Caleta)', () => {
  const recipe = operatorAuthSchema.parse({ kind: 'rsa-body', header: 'X-Hub88-Signature', publicKey: 'publicKey' });
  const publicKey = createPublicKey(HUB88_EXAMPLE_PRIVATE_KEY).export({ type: 'spki', format: 'pem' }) as string;

  it("accepts Hub88's published signing example, byte for byte", () => {
    const request = parts({
      rawBody: Buffer.from(HUB88_EXAMPLE_BODY),
      headers: { 'x-hub88-signature': HUB88_EXAMPLE_SIGNATURE },
    });
    expect(verifyOperator(recipe, request, { publicKey })).toEqual({ ok: true });
  });

  it('refuses the example with one byte changed, a missing header, or another key, showing the text to sign', () => {
    const changed = HUB88_EXAMPLE_BODY.replace('"EUR"', '"EUX"');
    const verdict = verifyOperator(
      recipe,
      parts({ rawBody: Buffer.from(changed), headers: { 'x-hub88-signature': HUB88_EXAMPLE_SIGNATURE } }),
      { publicKey },
    );
    expect(verdict).toMatchObject({ ok: false, expectedSigned: changed, message: expect.stringContaining('X-Hub88-Signature') });
    expect(verifyOperator(recipe, parts({ rawBody: Buffer.from(HUB88_EXAMPLE_BODY) }), { publicKey })).toMatchObject({
      ok: false,
      message: 'X-Hub88-Signature is missing',
    });
    const other = createPublicKey(builtinOperatorApi('hub88')?.credentials.publicKey?.default as string).export({
      type: 'spki',
      format: 'pem',
    }) as string;
    const request = parts({
      rawBody: Buffer.from(HUB88_EXAMPLE_BODY),
      headers: { 'x-hub88-signature': HUB88_EXAMPLE_SIGNATURE },
    });
    expect(verifyOperator(recipe, request, { publicKey: other }).ok).toBe(false);
    expect(verifyOperator(recipe, { ...request, headers: { 'x-hub88-signature': 'not base64 at all' } }, { publicKey }).ok).toBe(
      false,
    );
  });
});

describe('hmac-body (SoftSwiss)', () => {
  const recipe = operatorAuthSchema.parse({ kind: 'hmac-body', header: 'X-REQUEST-SIGN', secret: 'authToken' });
  // PHP's json_encode writes "/" as "\/": the signature covers the raw bytes, never a re-serialisation.
  const body = '{"casino_id":"c","urls":{"return_url":"https:\\/\\/casino.example\\/lobby"}}';
  const sign = (key: string) => createHmac('sha256', key).update(body).digest('hex');

  it('accepts the HMAC-SHA256 hex of the raw bytes, in either letter case', () => {
    for (const signature of [sign('t0k'), sign('t0k').toUpperCase()])
      expect(
        verifyOperator(recipe, parts({ rawBody: Buffer.from(body), headers: { 'x-request-sign': signature } }), {
          authToken: 't0k',
        }),
      ).toEqual({ ok: true });
  });

  it('refuses another key, a re-serialised body, and no header', () => {
    const request = (raw: string, signature?: string) =>
      parts({ rawBody: Buffer.from(raw), headers: signature ? { 'x-request-sign': signature } : {} });
    expect(verifyOperator(recipe, request(body, sign('other')), { authToken: 't0k' }).ok).toBe(false);
    expect(verifyOperator(recipe, request(JSON.stringify(JSON.parse(body)), sign('t0k')), { authToken: 't0k' }).ok).toBe(false);
    expect(verifyOperator(recipe, request(body), { authToken: 't0k' })).toMatchObject({
      ok: false,
      message: 'X-REQUEST-SIGN is missing',
    });
  });
});

describe('sorted-params (Pragmatic: MD5 with the secret appended; Slotegrator: HMAC-SHA1 with headers)', () => {
  const pragmatic = operatorAuthSchema.parse({
    kind: 'sorted-params',
    place: { field: 'hash' },
    hash: 'md5',
    mode: 'append-secret',
    secret: 'secretKey',
  }) as SortedParams;
  const params = { secureLogin: 'casino_one', symbol: 'vs20doghouse', token: '', language: 'en' };
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');

  it('signs the sorted k=v pairs without hash and empty values, secret appended', () => {
    const text = 'language=en&secureLogin=casino_one&symbol=vs20doghouse';
    expect(sortedParamsText(pragmatic, { params: { ...params, hash: 'x' }, headers: {} })).toBe(text);
    const hash = md5(`${text}s3cret`);
    expect(verifyOperator(pragmatic, parts({ params: { ...params, hash } }), { secretKey: 's3cret' })).toEqual({ ok: true });
    const refused = verifyOperator(pragmatic, parts({ params: { ...params, symbol: 'vs20doghousX', hash } }), {
      secretKey: 's3cret',
    });
    expect(refused).toMatchObject({
      ok: false,
      expectedSigned: 'language=en&secureLogin=casino_one&symbol=vs20doghousX<secretKey>',
    });
    expect(verifyOperator(pragmatic, parts({ params }), { secretKey: 's3cret' })).toMatchObject({ ok: false });
  });

  const slotegrator = operatorAuthSchema.parse({
    kind: 'sorted-params',
    place: { header: 'X-Sign' },
    hash: 'sha1',
    mode: 'hmac',
    encodeValues: 'php-urlencode',
    skipEmpty: false,
    includeHeaders: ['X-Merchant-Id', 'X-Timestamp', 'X-Nonce'],
    secret: 'merchantKey',
    timestamp: { header: 'X-Timestamp', toleranceSeconds: 30 },
  }) as SortedParams;
  const now = 1_764_000_000_000;
  const headers = { 'x-merchant-id': 'm', 'x-timestamp': String(now / 1000), 'x-nonce': 'n' };

  it("signs ksort()ed http_build_query text with the three headers, capitals first (the document's example order)", () => {
    const text = sortedParamsText(slotegrator, { params: { player_name: 'John Doe', game_uuid: 'abc' }, headers });
    expect(text).toBe(`X-Merchant-Id=m&X-Nonce=n&X-Timestamp=${now / 1000}&game_uuid=abc&player_name=John+Doe`);
    const sign = createHmac('sha1', 'key').update(text).digest('hex');
    const request = parts({ params: { player_name: 'John Doe', game_uuid: 'abc' }, headers: { ...headers, 'x-sign': sign } });
    expect(verifyOperator(slotegrator, request, { merchantKey: 'key' }, now)).toEqual({ ok: true });
    expect(verifyOperator(slotegrator, request, { merchantKey: 'other' }, now).ok).toBe(false);
  });

  it('refuses a timestamp more than 30 s off, or none, before looking at the signature', () => {
    const request = parts({ params: {}, headers: { ...headers, 'x-sign': 'x' } });
    expect(verifyOperator(slotegrator, request, { merchantKey: 'key' }, now + 31_000)).toMatchObject({
      ok: false,
      message: expect.stringContaining('more than 30 s'),
    });
    expect(verifyOperator(slotegrator, parts({ headers: { 'x-sign': 'x' } }), { merchantKey: 'key' }, now)).toMatchObject({
      ok: false,
      message: expect.stringContaining('X-Timestamp: expected Unix seconds'),
    });
  });

  it("encodes as PHP's urlencode does", () => {
    expect(phpUrlencode("a b*c~d!e'(f)")).toBe('a+b%2Ac%7Ed%21e%27%28f%29');
  });
});

describe('static and basic (Blue Ocean, Evolution)', () => {
  const statics = operatorAuthSchema.parse({ kind: 'static', fields: { api_login: 'apiLogin', api_password: 'apiPassword' } });
  const credentials = { apiLogin: 'l', apiPassword: 'p' };

  it('accepts the configured credentials and names the field that is missing or wrong', () => {
    expect(verifyOperator(statics, parts({ fields: { api_login: 'l', api_password: 'p' } }), credentials)).toEqual({ ok: true });
    expect(verifyOperator(statics, parts({ fields: { api_login: 'l' } }), credentials)).toMatchObject({
      ok: false,
      message: 'api_password is missing',
    });
    expect(verifyOperator(statics, parts({ fields: { api_login: 'l', api_password: 'q' } }), credentials)).toMatchObject({
      ok: false,
      message: 'api_password is not the configured apiPassword',
    });
  });

  it("checks HTTP Basic as Evolution's published example writes it", () => {
    const basic = operatorAuthSchema.parse({ kind: 'basic', user: 'casinoKey', password: 'apiToken' });
    const keys = { casinoKey: 'diyft40000000001', apiToken: 'test123' };
    const ok = parts({ headers: { authorization: 'Basic ZGl5ZnQ0MDAwMDAwMDAwMTp0ZXN0MTIz' } });
    expect(verifyOperator(basic, ok, keys)).toEqual({ ok: true });
    expect(verifyOperator(basic, ok, { ...keys, apiToken: 'test124' }).ok).toBe(false);
    expect(verifyOperator(basic, parts({}), keys).ok).toBe(false);
  });
});

describe('the operator section schema', () => {
  it('validates every built-in operator API', () => {
    expect(BUILTIN_OPERATOR_APIS.length).toBeGreaterThanOrEqual(6);
    for (const name of BUILTIN_OPERATOR_APIS) {
      const api = builtinOperatorApi(name);
      expect(api?.sources.length, name).toBeGreaterThan(0);
      expect(api?.unknown.length, name).toBeGreaterThan(0);
    }
  });

  it('refuses a recipe or a route with a clear message naming the field', () => {
    const bad = operatorApiSchema.safeParse({
      auth: { kind: 'rsa-body', header: 'X-Sig' },
      routes: [{ path: 'game/url', does: 'launch', reply: {} }],
    });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['auth.publicKey', 'routes.0.path']));
    const good = operatorApiSchema.safeParse({
      auth: { kind: 'static', fields: { key: 'apiKey' } },
      routes: [
        {
          path: '/launch',
          does: 'launch',
          request: { game: { to: 'gameId' } },
          reply: { body: { object: { url: { from: 'launch.url' } } } },
        },
      ],
    });
    expect(good.success).toBe(true);
  });

  it('names the built-in routes a fault rule may match, and no other path', () => {
    expect(isOperatorRoutePath('/operator/generic/v2/game/url')).toBe(true);
    expect(isOperatorRoutePath('/IntegrationService/v3/http/CasinoGameAPI/game/url')).toBe(true);
    expect(isOperatorRoutePath('/ua/v1/casino0000000042/token')).toBe(true);
    expect(isOperatorRoutePath('/operator/generic/v2/game/urls')).toBe(false);
    expect(isOperatorRoutePath('/getgameurl')).toBe(false);
  });
});
