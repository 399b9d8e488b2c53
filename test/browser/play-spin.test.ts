import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchResponseSchema } from '../../src/aggregator/schemas.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { browserSkipReason, launchChromium } from './chromium.ts';

/** Outside CI a machine without any browser skips, saying why; under CI=true this never skips. */
const skipReason = await browserSkipReason();

describe.skipIf(skipReason)('the play page, spinning against the reference wallet (Chromium)', () => {
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  let browser: Browser;
  beforeAll(async () => {
    const base = validateConfig({ port: 0, db: ':memory:', wallet: { players: { p1: 100, broke: 0.5 } } });
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { webhookUrl: wallet.webhookUrl } }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await aggmock?.close();
    await wallet?.close();
  });

  async function launch(player: string, money: number): Promise<string> {
    const game = aggmock.catalog.games.find((g) => g.type === 'slot' && g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
    const res = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({ username: player, gameId: game.id, money, platform: 1, home_url: 'https://casino.example' }),
    });
    return launchResponseSchema.parse(await res.json()).payload.game_launch_url;
  }

  it('sends a bet on Spin, then a win only on a win, and shows the balance the wallet replied', async () => {
    const page = await browser.newPage();
    await page.goto(await launch('p1', 100));
    await page.getByTestId('bet').fill('1.00');
    for (let spin = 1; spin <= 5; spin++) {
      await page.getByTestId('spin').click();
      await expect.poll(() => page.getByTestId('result').textContent()).toMatch(/won|No win/);
      await expect.poll(() => page.getByTestId('spin').isEnabled()).toBe(true);
    }
    const replies = await page.getByTestId('reply').allTextContents();
    expect(replies.filter((r) => r.startsWith('bet 1.00 → delivered'))).toHaveLength(5);
    const wins = replies.filter((r) => r.startsWith('win'));
    // What the page shows is what the wallet holds, to the cent.
    const shown = Number(await page.getByTestId('balance').textContent());
    expect(Math.round(shown * 100)).toBe(wallet.store.balanceOf('p1'));
    const winTotal = wins.reduce((sum, r) => sum + Math.round(Number(/win ([\d.]+)/.exec(r)![1]) * 100), 0);
    expect(wallet.store.balanceOf('p1')).toBe(10_000 - 500 + winTotal);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });

  it('shows the wallet’s refusal and sends no win when the bet is more than the balance', async () => {
    const page = await browser.newPage();
    await page.goto(await launch('broke', 0.5));
    await page.getByTestId('bet').fill('1.00');
    await page.getByTestId('spin').click();
    await expect.poll(() => page.getByTestId('result').textContent()).toMatch(/refused the bet: INSUFFICIENT_FUNDS/);
    const replies = await page.getByTestId('reply').allTextContents();
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatch(/^bet 1\.00 → rejected 402/);
    expect(wallet.store.balanceOf('broke')).toBe(50);
  });
});
