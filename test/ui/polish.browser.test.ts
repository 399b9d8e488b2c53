import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchResponseSchema } from '../../src/aggregator/schemas.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { htmlReport, runVerify } from '../../src/verify/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { browserSkipReason, launchChromium } from '../browser/chromium.ts';

/** Outside CI a machine without any browser skips, saying why; under CI=true this never skips. */
const skipReason = await browserSkipReason();

describe.skipIf(skipReason)('the web UI at real screen sizes (Chromium)', () => {
  let browser: Browser;
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  beforeAll(async () => {
    const base = validateConfig({ port: 0, db: ':memory:', catalog: { providers: 12, games: 600 } });
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { ...base.callbacks, webhookUrl: wallet.webhookUrl } }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await aggmock?.close();
    await wallet?.close();
  });

  it('updates the catalog search as you type, without Enter', async () => {
    const game = aggmock.catalog.games[123]!;
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    await page.goto(`${aggmock.url}/`);
    const before = await page.getByTestId('result-count').textContent();
    await page.getByTestId('search').pressSequentially(game.name, { delay: 20 });
    await expect.poll(() => page.locator(`[data-testid=game-card][data-game-id="${game.id}"]`).count()).toBe(1);
    expect(await page.getByTestId('result-count').textContent()).not.toBe(before);
    expect(new URL(page.url()).searchParams.get('q')).toBe(game.name);
    // Still the same page and the same focused box: typing goes on.
    expect(await page.getByTestId('search').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.close();
  });

  it('fits the deliveries table at 1366 px wide, last column included', async () => {
    for (let i = 0; i < 6; i++) {
      await fetch(`${aggmock.url}/__admin/events?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: i % 2 ? 'credit' : 'debit', playerId: `p${(i % 3) + 1}`, amount: 1234.56 }),
      });
    }
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    await page.goto(`${aggmock.url}/ui/deliveries`);
    await expect.poll(() => page.locator('#rows tr').count()).toBeGreaterThanOrEqual(6);
    const fit = await page.locator('table[data-testid=deliveries]').evaluate((table) => {
      const box = table.parentElement as HTMLElement;
      const last = table.querySelector('thead th:last-child') as HTMLElement;
      return {
        overflow: box.scrollWidth - box.clientWidth,
        lastRight: last.getBoundingClientRect().right,
        boxRight: box.getBoundingClientRect().right,
      };
    });
    expect(fit.overflow).toBeLessThanOrEqual(0);
    expect(fit.lastRight).toBeLessThanOrEqual(fit.boxRight + 0.5);
    await page.close();
  });

  it('says where the play page’s balance comes from: the launch, then the wallet’s last reply', async () => {
    const res = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p4',
        gameId: aggmock.catalog.games[0]!.id,
        money: 1000,
        platform: 1,
        home_url: 'https://casino.example',
      }),
    });
    const url = launchResponseSchema.parse(await res.json()).payload.game_launch_url;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(url);
    expect(await page.getByTestId('balance-source').textContent()).toMatch(/^at launch/);
    await page.getByTestId('spin').click();
    await expect.poll(() => page.getByTestId('balance-source').textContent()).toMatch(/^as your wallet replied/);
    const shown = Math.round(Number(await page.getByTestId('balance').textContent()) * 100);
    expect(shown).toBe(wallet.store.balanceOf('p4'));
    await page.close();
  });

  it('shows the verify HTML report at 390 px wide without sideways scrolling, failures included', async () => {
    const broken = await startWallet({
      config: validateConfig({}),
      dbPath: ':memory:',
      port: 0,
      testEndpoints: true,
      fault: 'rollback-ignored',
    });
    try {
      const outcome = await runVerify({
        webhookUrl: broken.webhookUrl,
        stateUrl: `${broken.url}/__state`,
        only: ['debit-applies', 'rollback-restores', 'pact:rollback-restores'],
        reportDir: false,
      });
      expect(outcome.report?.summary.failed).toBeGreaterThan(0);
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.setContent(htmlReport(outcome.report as NonNullable<typeof outcome.report>));
      for (const open of await page.locator('details').all()) await open.evaluate((d) => d.setAttribute('open', ''));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.close();
    } finally {
      await broken.close();
    }
  });
});
