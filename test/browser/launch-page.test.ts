import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchResponseSchema, providerGamesResponseSchema } from '../../src/aggregator/schemas.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { browserSkipReason, launchChromium } from './chromium.ts';

/** Outside CI a machine without any browser skips, saying why; under CI=true this never skips. */
const skipReason = await browserSkipReason();

describe.skipIf(skipReason)('in a real browser (Chromium)', () => {
  let aggmock: Aggmock;
  let browser: Browser;
  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await aggmock?.close();
  });

  it('opens a launch URL, names the game and player, and loads the game image aggmock generated', async () => {
    const headers = { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' };
    const games = providerGamesResponseSchema.parse(
      await (await fetch(`${aggmock.url}/getallgamesandprovider?provider=PGSOFT`, { headers })).json(),
    );
    const game = games.games[0]!;
    const launched = launchResponseSchema.parse(
      await (
        await fetch(`${aggmock.url}/getgameurl`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            username: 'p7',
            gameId: game.id,
            money: 250.5,
            platform: 2,
            home_url: 'https://casino.example',
          }),
        })
      ).json(),
    );
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    await page.goto(launched.payload.game_launch_url);
    await expect.poll(() => page.getByTestId('game-name').textContent()).toBe(game.name);
    expect(await page.getByTestId('player').textContent()).toBe('p7');
    expect(await page.getByTestId('balance').textContent()).toContain('250.50');
    const size = await page
      .locator('img')
      .first()
      .evaluate((img: HTMLImageElement) => ({ w: img.naturalWidth, complete: img.complete }));
    expect(size.complete).toBe(true);
    expect(size.w).toBeGreaterThan(0);

    // The listing's img URL loads on its own too.
    const image = await page.goto(game.img);
    expect(image?.status()).toBe(200);
    expect(failed).toEqual([]);
  });

  it('renders /docs (Swagger UI) from the package’s own assets, the admin API included, and asks no other origin', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    // Anything not on aggmock's origin is refused, as on a machine without network.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${aggmock.url}/`) || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    await page.goto(`${aggmock.url}/docs`);
    await expect.poll(() => page.locator('.swagger-ui .info .title').textContent()).toContain('aggmock');
    await expect.poll(() => page.locator('.opblock-tag-section').count()).toBeGreaterThan(0);
    expect(await page.locator('#operations-tag-admin').count()).toBe(1);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
