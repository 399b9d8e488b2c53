import { describe, expect, it } from 'vitest';
import { allGamesResponseSchema, providerGamesResponseSchema, providersResponseSchema } from '../../src/aggregator/schemas.ts';
import { DEV_KEY_HEADERS, expectApiError, json, testApp } from './helpers.ts';

const launchBody = (gameId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ username: 'p1', gameId, money: 1000, platform: 1, home_url: 'https://casino.example', ...extra });

function post(app: ReturnType<typeof testApp>['app'], path: string, body: string, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: 'POST',
    body,
    headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json', ...headers },
  });
}

describe('GET /getallproviders', () => {
  it('answers success, message, games and providers holding the same codes, and data per provider', async () => {
    const { app, catalog } = testApp();
    const res = await app.request('/getallproviders', { headers: DEV_KEY_HEADERS });
    expect(res.status).toBe(200);
    const body = providersResponseSchema.parse(await res.json());
    expect(body.providers).toEqual(catalog.providers.map((p) => p.code));
    expect(body.games).toEqual(body.providers);
    expect(body.data[0]).toMatchObject({
      code: catalog.providers[0]!.code,
      name: catalog.providers[0]!.name,
      totalGames: catalog.providers[0]!.totalGames,
    });
    expect(body.providers.every((c) => c === c.toUpperCase())).toBe(true);
  });

  it('is served under /casino too, byte for byte', async () => {
    const { app } = testApp();
    const root = await (await app.request('/getallproviders', { headers: DEV_KEY_HEADERS })).text();
    const casino = await (await app.request('/casino/getallproviders', { headers: DEV_KEY_HEADERS })).text();
    expect(casino).toBe(root);
  });

  it('sends an ETag and answers 304 to If-None-Match', async () => {
    const { app } = testApp();
    const first = await app.request('/getallproviders', { headers: DEV_KEY_HEADERS });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await app.request('/getallproviders', { headers: { ...DEV_KEY_HEADERS, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await app.request('/getallproviders', { headers: { ...DEV_KEY_HEADERS, 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
  });
});

describe('GET /getallgamesandprovider', () => {
  it('lists one provider’s games, matching the code trimmed and case-insensitively', async () => {
    const { app, catalog } = testApp();
    const code = catalog.providers[1]!.code;
    for (const query of [code, code.toLowerCase(), `  ${code}  `]) {
      const res = await app.request(`/getallgamesandprovider?provider=${encodeURIComponent(query)}`, {
        headers: DEV_KEY_HEADERS,
      });
      const body = providerGamesResponseSchema.parse(await json(res));
      expect(body.provider).toBe(code);
      expect(body.games.map((g) => g.id)).toEqual(catalog.gamesByProvider.get(code)!.map((g) => g.id));
    }
  });

  it('reads + in the query string as a space (PRAGMATIC+PLAY is PRAGMATIC PLAY)', async () => {
    const { app } = testApp();
    const res = await app.request('/casino/getallgamesandprovider?provider=PRAGMATIC+PLAY', { headers: DEV_KEY_HEADERS });
    expect(res.status).toBe(200);
    expect(providerGamesResponseSchema.parse(await res.json()).provider).toBe('PRAGMATICPLAY');
  });

  it('gives every game a 32-hex id, an absolute image URL, a type and its provider', async () => {
    const { app } = testApp();
    const body = providerGamesResponseSchema.parse(
      await (await app.request('http://games.test/getallgamesandprovider?provider=PGSOFT', { headers: DEV_KEY_HEADERS })).json(),
    );
    for (const game of body.games) {
      expect(game.id).toMatch(/^[0-9a-f]{32}$/);
      expect(game.img).toBe(`http://games.test/assets/games/${game.id}.svg`);
      expect(['slot', 'live', 'crash', 'table', 'fishing', 'bingo', 'virtual']).toContain(game.type);
      expect(game.provider).toBe('PGSOFT');
    }
  });

  it('groups all games by provider without a provider parameter', async () => {
    const { app, catalog } = testApp();
    const body = allGamesResponseSchema.parse(
      await (await app.request('/getallgamesandprovider', { headers: DEV_KEY_HEADERS })).json(),
    );
    expect(body.totalGames).toBe(catalog.games.length);
    expect(body.providers.map((p) => p.provider)).toEqual(catalog.providers.map((p) => p.code));
    expect(body.providers.reduce((n, p) => n + p.games.length, 0)).toBe(catalog.games.length);
  });

  it('answers an API route asked with another method with 405 and the method it takes, and a path it does not have with 404', async () => {
    const { app } = testApp();
    for (const [method, path, allow] of [
      ['GET', '/getgameurl', 'POST'],
      ['PUT', '/casino/getgameurl', 'POST'],
      ['POST', '/getallproviders', 'GET'],
      ['DELETE', '/casino/getallgamesandprovider', 'GET'],
    ] as const) {
      const res = await app.request(path, { method, headers: DEV_KEY_HEADERS });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      const body = await json(res);
      expectApiError(body, 405);
      expect(body.message).toBe(`${method} is not allowed on ${path}: it takes ${allow}. GET /docs lists the API.`);
    }
    expect((await app.request('/getallproviders', { method: 'HEAD', headers: DEV_KEY_HEADERS })).status).toBe(200);
    expect((await app.request('/getgameurls', { method: 'POST', headers: DEV_KEY_HEADERS })).status).toBe(404);
  });

  it('answers an unknown provider with 404 {success:false, message, msg}', async () => {
    const { app } = testApp();
    const res = await app.request('/getallgamesandprovider?provider=NOPE', { headers: DEV_KEY_HEADERS });
    expect(res.status).toBe(404);
    const body = await json(res);
    expectApiError(body, 404);
    expect(body.message).toContain('"NOPE"');
  });

  it('uses the configured public URL for images', async () => {
    const { app } = testApp({ publicUrl: 'https://games.example.test/' });
    const body = providerGamesResponseSchema.parse(
      await (await app.request('/getallgamesandprovider?provider=PGSOFT', { headers: DEV_KEY_HEADERS })).json(),
    );
    expect(body.games[0]!.img.startsWith('https://games.example.test/assets/games/')).toBe(true);
  });
});

describe('POST /getgameurl', () => {
  it('launches a game and returns code 0, Success and the payload', async () => {
    const { app, catalog, sessions } = testApp({ publicUrl: 'https://games.example.test' });
    const game = catalog.games[5]!;
    const res = await post(app, '/getgameurl', launchBody(game.id, { currency: 'usd', lang: 'pt-BR' }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ code: 0, msg: 'Success', success: true });
    const payload = body.payload as Record<string, unknown>;
    expect(payload).toMatchObject({ game_name: game.name, provider: game.provider, expires_in: 3600 });
    expect(payload.game_launch_url).toBe(`https://games.example.test/play/${payload.session_id}`);
    const found = sessions.lookup(payload.session_id as string);
    expect(found.status).toBe('active');
    if (found.status === 'active') {
      expect(found.session).toMatchObject({
        playerId: 'p1',
        gameId: game.id,
        currency: 'USD',
        balanceAtLaunchMinor: 100_000,
        platform: 1,
      });
    }
  });

  it('answers an unknown game with 404 naming gameId', async () => {
    const { app } = testApp();
    const res = await post(app, '/getgameurl', launchBody('0'.repeat(32)));
    expect(res.status).toBe(404);
    const body = await json(res);
    expectApiError(body, 404);
    expect(body.errors).toEqual([expect.objectContaining({ field: 'gameId' })]);
  });

  it.each([
    ['a missing username', { username: undefined }, 'username'],
    ['a numeric username', { username: 5 }, 'username'],
    ['a short gameId', { gameId: 'abc' }, 'gameId'],
    ['a string money', { money: '1000' }, 'money'],
    ['negative money', { money: -1 }, 'money'],
    ['three decimals of money', { money: 1.005 }, 'money'],
    ['platform 3', { platform: 3 }, 'platform'],
    ['a relative home_url', { home_url: '/home' }, 'home_url'],
    ['a bad currency', { currency: 'EURO$' }, 'currency'],
  ])('answers %s with 400 naming the field', async (_, change, field) => {
    const { app, catalog } = testApp();
    const res = await post(app, '/getgameurl', launchBody(catalog.games[0]!.id, change));
    expect(res.status).toBe(400);
    const body = await json(res);
    expectApiError(body, 400);
    expect((body.errors as Array<{ field: string }>).map((e) => e.field)).toContain(field);
    expect(body.message).toContain(field);
  });

  describe('the launch currency', () => {
    const launch = async (
      overrides: Parameters<typeof testApp>[0],
      pick: (g: { currencies: readonly string[] }) => boolean,
      extra: Record<string, unknown>,
    ) => {
      const { app, catalog, sessions } = testApp(overrides);
      const game = catalog.games.find(pick)!;
      const res = await post(app, '/getgameurl', launchBody(game.id, extra));
      const body = await json(res);
      const id = (body.payload as { session_id?: string } | undefined)?.session_id;
      const found = id ? sessions.lookup(id) : undefined;
      return { res, body, game, session: found?.status === 'active' ? found.session : undefined };
    };

    it('lists the currencies every game takes: EUR, USD and GBP always, seeded others (JPY, KWD…) on some', () => {
      const { catalog } = testApp();
      expect(catalog.games.every((g) => ['EUR', 'USD', 'GBP'].every((c) => g.currencies.includes(c)))).toBe(true);
      expect(catalog.games.some((g) => g.currencies.includes('JPY'))).toBe(true);
      expect(catalog.games.some((g) => !g.currencies.includes('JPY'))).toBe(true);
    });

    it('keeps a currency the game takes, and the balance in its decimals (JPY whole yen, KWD three decimals)', async () => {
      const yen = await launch({}, (g) => g.currencies.includes('JPY'), { currency: 'jpy', money: 5000 });
      expect(yen.res.status).toBe(200);
      expect(yen.session).toMatchObject({ currency: 'JPY', balanceAtLaunchMinor: 5000 });
      const dinar = await launch({}, (g) => g.currencies.includes('KWD'), { currency: 'KWD', money: 10.125 });
      expect(dinar.session).toMatchObject({ currency: 'KWD', balanceAtLaunchMinor: 10_125 });
      const fraction = await launch({}, (g) => g.currencies.includes('JPY'), { currency: 'JPY', money: 1.5 });
      expect(fraction.res.status).toBe(400);
      expect(fraction.body.message).toMatch(/^money: expected a balance with at most 0 decimals \(JPY\)/);
    });

    it('refuses a currency the game does not list, naming currency and what the game takes', async () => {
      const refused = await launch({}, (g) => !g.currencies.includes('JPY'), { currency: 'JPY' });
      expect(refused.res.status).toBe(400);
      expectApiError(refused.body, 400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'currency', received: 'JPY' })]);
      expect(refused.body.message).toMatch(
        new RegExp(`^currency: game ${refused.game.id} .* does not take JPY; it takes EUR, USD, GBP`),
      );
    });

    it('refuses a code aggmock does not know, and takes it once configured in callbacks.currencies (and callbacks.currency)', async () => {
      const unknown = await launch({}, () => true, { currency: 'USDT' });
      expect(unknown.res.status).toBe(400);
      expect(unknown.body.message).toMatch(/^currency: expected an ISO 4217 code or one of callbacks.currencies, got "USDT"/);
      const configured = await launch({ callbacks: { currencies: { USDT: 6 } } }, () => true, {
        currency: 'USDT',
        money: 1.000001,
      });
      expect(configured.session).toMatchObject({ currency: 'USDT', balanceAtLaunchMinor: 1_000_001 });
      const byDefault = await launch({ callbacks: { currency: 'CHF' } }, (g) => !g.currencies.includes('CHF'), {});
      expect(byDefault.session).toMatchObject({ currency: 'CHF' });
    });
  });

  it('answers malformed JSON with 400 and the parser’s reason', async () => {
    const { app } = testApp();
    const res = await post(app, '/getgameurl', '{"username": "p1",');
    expect(res.status).toBe(400);
    const body = await json(res);
    expectApiError(body, 400);
    expect(body.message).toMatch(/Malformed JSON/);
  });

  it('answers a JSON array or an empty body with 400', async () => {
    const { app } = testApp();
    expect((await post(app, '/getgameurl', '[]')).status).toBe(400);
    expect((await post(app, '/getgameurl', '')).status).toBe(400);
  });

  it('answers a wrong content type with 415', async () => {
    const { app, catalog } = testApp();
    const res = await post(app, '/getgameurl', launchBody(catalog.games[0]!.id), { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expectApiError(await json(res), 415);
  });

  it('takes JSON by its media type: application/json or a +json type, with any parameters; not a lookalike', async () => {
    const { app, catalog } = testApp();
    const body = launchBody(catalog.games[0]!.id);
    for (const type of ['application/json', 'Application/JSON; charset=UTF-8', 'application/vnd.casino+json;v=2']) {
      expect((await post(app, '/getgameurl', body, { 'content-type': type })).status, type).toBe(200);
    }
    // JSON text sequences (RFC 7464) and made-up lookalikes are not JSON: the wallet refuses them too (one rule).
    for (const type of ['application/json-seq', 'application/jsonx', 'text/json', 'application/x-json+xml']) {
      expect((await post(app, '/getgameurl', body, { 'content-type': type })).status, type).toBe(415);
    }
  });

  it('answers a body over the limit with 413 before parsing it', async () => {
    const { app } = testApp({ limits: { bodyBytes: 1024 } });
    const res = await post(app, '/getgameurl', JSON.stringify({ username: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    const body = await json(res);
    expectApiError(body, 413);
    expect(body.message).toMatch(/1024 bytes/);
  });
});

describe('launch sessions', () => {
  it('answers an unknown session with 404 and an expired one with 410', async () => {
    const clock = { now: 1_763_800_000_000 };
    const { app, catalog } = testApp({ launch: { expiresIn: 60 } }, clock);
    const res = await post(app, '/getgameurl', launchBody(catalog.games[0]!.id));
    const url = new URL(((await json(res)).payload as { game_launch_url: string }).game_launch_url);
    expect((await app.request(url.pathname)).status).toBe(200);
    clock.now += 60_000;
    const expired = await app.request(url.pathname);
    expect(expired.status).toBe(410);
    expect((await json(expired)).message).toMatch(/expired/);
    const html = await app.request(url.pathname, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(410);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    const unknown = await app.request('/play/nope');
    expect(unknown.status).toBe(404);
    expectApiError(await json(unknown), 404);
  });
});

describe('errors', () => {
  it('answers an unknown route with a JSON 404', async () => {
    const { app } = testApp();
    const res = await app.request('/nope');
    expect(res.status).toBe(404);
    expectApiError(await json(res), 404);
  });

  it('answers 429 with Retry-After when the configured rate limit is hit', async () => {
    const clock = { now: 1_000_000 };
    const { app } = testApp({ limits: { rateLimit: { requests: 2, window: '10s' } } }, clock);
    expect((await app.request('/getallproviders', { headers: DEV_KEY_HEADERS })).status).toBe(200);
    expect((await app.request('/getallproviders', { headers: DEV_KEY_HEADERS })).status).toBe(200);
    const limited = await app.request('/getallproviders', { headers: DEV_KEY_HEADERS });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
    expectApiError(await json(limited), 429);
    clock.now += 10_000;
    expect((await app.request('/getallproviders', { headers: DEV_KEY_HEADERS })).status).toBe(200);
  });
});

describe('health and images', () => {
  it('reports health', async () => {
    const { app, catalog } = testApp();
    expect(await json(await app.request('/health'))).toMatchObject({ status: 'ok', catalog: { games: catalog.games.length } });
  });

  it('serves a generated SVG per game and provider, and 404 for unknown ones', async () => {
    const { app, catalog } = testApp();
    const game = catalog.games[0]!;
    const res = await app.request(`/assets/games/${game.id}.svg`);
    expect(res.headers.get('content-type')).toMatch(/image\/svg\+xml/);
    expect(await res.text()).toContain('<svg');
    expect((await app.request(`/assets/providers/${game.provider}.svg`)).status).toBe(200);
    expect((await app.request('/assets/games/nope.svg')).status).toBe(404);
  });
});
