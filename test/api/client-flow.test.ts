import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchResponseSchema, providerGamesResponseSchema, providersResponseSchema } from '../../src/aggregator/schemas.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

// A client written for the public service, run unchanged against a real aggmock on loopback.
describe('a client written for the public aggregator', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:' }));
  });
  afterAll(async () => {
    await aggmock.close();
  });

  it('lists providers, reads games.games[0].id for PRAGMATIC+PLAY, launches it and opens the launch URL', async () => {
    const headers = { 'x-betnex-key': 'aggmock-dev-key' };
    const providers = providersResponseSchema.parse(
      await (await fetch(`${aggmock.url}/casino/getallproviders`, { headers })).json(),
    );
    expect(providers.providers).toEqual(providers.games);
    expect(providers.providers).toContain('PRAGMATICPLAY');

    const res = await fetch(`${aggmock.url}/casino/getallgamesandprovider?provider=PRAGMATIC+PLAY`, { headers });
    expect(res.status).toBe(200);
    const games = providerGamesResponseSchema.parse(await res.json());
    expect(games.provider).toBe('PRAGMATICPLAY');
    expect(games.totalGames).toBe(games.games.length);
    const first = games.games[0]!;
    expect(first.id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.img.startsWith(`${aggmock.url}/assets/games/`)).toBe(true);

    const launch = await fetch(`${aggmock.url}/casino/getgameurl`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'player123',
        gameId: first.id,
        money: 1000,
        platform: 1,
        home_url: 'https://example.com',
        currency: 'EUR',
        lang: 'en',
      }),
    });
    expect(launch.status).toBe(200);
    const launched = launchResponseSchema.parse(await launch.json());
    expect(launched.payload.game_name).toBe(first.name);
    expect(launched.payload.provider).toBe('PRAGMATICPLAY');

    const page = await fetch(launched.payload.game_launch_url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(first.name.replace(/&/g, '&amp;').replace(/'/g, '&#39;'));
    expect(html).toContain('player123');

    const image = await fetch(first.img);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await image.text()).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});
