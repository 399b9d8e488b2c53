import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { browserSkipReason, launchChromium } from '../browser/chromium.ts';

/** Screenshots go to /tmp (never the repository) for a human to look at. */
const SHOTS = process.env.AGGMOCK_UI_SHOTS ?? '/tmp/aggmock-ui';

async function startPair(options: { fault?: 'double-debit'; config?: AggmockConfigInput } = {}) {
  const base = validateConfig({ port: 0, db: ':memory:', catalog: { providers: 12, games: 600 }, ...options.config });
  const wallet = await startWallet({
    config: base,
    dbPath: ':memory:',
    port: 0,
    ...(options.fault ? { fault: options.fault } : {}),
  });
  const aggmock = await startAggmock(validateConfig({ ...base, callbacks: { webhookUrl: wallet.webhookUrl } }));
  return { wallet, aggmock };
}

const rowOf = (page: Page, id: number | string) => page.locator(`[data-testid=delivery-row][data-id="${id}"]`);

/** Outside CI a machine without any browser skips, saying why; under CI=true this never skips. */
const skipReason = await browserSkipReason();

describe.skipIf(skipReason)('the web UI against the reference wallet (Chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('a healthy wallet', () => {
    let wallet: RunningWallet;
    let aggmock: Aggmock;
    beforeAll(async () => {
      ({ wallet, aggmock } = await startPair());
    });
    afterAll(async () => {
      await aggmock?.close();
      await wallet?.close();
    });

    it('finds a game, launches it from the form, spins, and shows the signed DEBIT, its reply and a replay', async () => {
      const game = aggmock.catalog.games.find((g) => g.type === 'slot' && g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });

      await page.goto(aggmock.url + '/');
      await expect.poll(() => page.getByTestId('game-card').count()).toBe(60);
      await page.screenshot({ path: `${SHOTS}-home.png`, fullPage: false });

      await page.getByTestId('search').fill(game.name.slice(0, -1));
      await page.getByTestId('search').press('Enter');
      await page.waitForURL(/\?q=/);
      const card = page.locator(`[data-testid=game-card][data-game-id="${game.id}"]`);
      await expect.poll(() => card.count()).toBe(1);
      await card.getByTestId('launch-link').click();

      await page.waitForURL(/\/ui\/launch\?gameId=/);
      expect(await page.getByTestId('launch-game-name').textContent()).toBe(game.name);
      await page.getByTestId('field-money').fill('oops');
      await page.getByTestId('launch-submit').click();
      expect(await page.getByTestId('error-money').textContent()).toMatch(/^money: expected a number/);
      await page.getByTestId('field-username').fill('p3');
      await page.getByTestId('field-money').fill('1000');
      await page.screenshot({ path: `${SHOTS}-launch.png` });
      await page.getByTestId('launch-submit').click();

      await page.waitForURL(/\/play\/[0-9a-f]{32}$/);
      expect(await page.getByTestId('player').textContent()).toBe('p3');
      await page.getByTestId('bet').fill('1.00');
      await page.getByTestId('spin').click();
      await expect.poll(() => page.getByTestId('result').textContent()).toMatch(/won|No win/);
      await page.screenshot({ path: `${SHOTS}-play.png` });

      await page.goto(aggmock.url + '/');
      await page.getByTestId('nav-deliveries').click();
      await page.waitForURL(/\/ui\/deliveries$/);
      const debit = aggmock.engine.outbox.list({ playerId: 'p3', kind: 'debit', limit: 1 })[0]!;
      const row = rowOf(page, debit.id);
      await expect.poll(() => row.getAttribute('data-status')).toBe('delivered');
      expect(await row.locator('td').nth(2).textContent()).toBe('DEBIT');
      expect(await row.locator('td').nth(3).textContent()).toBe('p3');
      expect(await row.locator('td').nth(4).textContent()).toBe('1.00');
      expect(await row.getByTestId('reply-balance').textContent()).toBe('999.00');

      await row.click();
      const detail = page.getByTestId('detail');
      await expect.poll(() => detail.getByTestId('detail-status').textContent()).toBe('delivered');
      const signature = detail.getByTestId('signature-header');
      expect(await signature.count()).toBe(1);
      expect(await signature.locator('td').first().textContent()).toBe('X-Signature');
      expect(await signature.locator('td').nth(1).textContent()).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(JSON.parse((await detail.getByTestId('request-body').textContent())!)).toEqual({
        type: 'DEBIT',
        transactionId: debit.transactionId,
        amount: 1,
        playerId: 'p3',
      });
      expect(JSON.parse((await detail.getByTestId('response-body').textContent())!)).toMatchObject({ balance: 999 });
      await page.screenshot({ path: `${SHOTS}-deliveries.png`, fullPage: true });

      const before = await page.getByTestId('delivery-row').count();
      await detail.getByTestId('replay').click();
      await expect.poll(() => detail.getByTestId('action-result').textContent()).toMatch(/Replay queued as delivery #\d+/);
      const replayId = /#(\d+)/.exec((await detail.getByTestId('action-result').textContent())!)![1]!;
      await expect.poll(() => rowOf(page, replayId).getAttribute('data-status')).toBe('delivered');
      expect(await page.getByTestId('delivery-row').count()).toBe(before + 1);
      // The replay is the same DEBIT again: the wallet answers as the first time and moves no money.
      expect(await rowOf(page, replayId).getByTestId('reply-balance').textContent()).toBe('999.00');
      await rowOf(page, replayId).click();
      await expect.poll(() => detail.textContent()).toContain(`DEBIT #${replayId}`);
      expect(await detail.getByTestId('request-body').textContent()).toContain(debit.transactionId);
      await page.screenshot({ path: `${SHOTS}-replay.png` });

      const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await phone.goto(aggmock.url + '/');
      await phone.screenshot({ path: `${SHOTS}-home-phone.png` });
      await phone.goto(`${aggmock.url}/ui/deliveries?open=${debit.id}`);
      await expect.poll(() => phone.getByTestId('detail-status').textContent()).toBe('delivered');
      await phone.screenshot({ path: `${SHOTS}-deliveries-phone.png`, fullPage: true });
      await phone.close();
      await page.close();
    });
  });

  describe('a wallet that debits a duplicate twice, behind an admin token', () => {
    let wallet: RunningWallet;
    let aggmock: Aggmock;
    beforeAll(async () => {
      ({ wallet, aggmock } = await startPair({ fault: 'double-debit', config: { admin: { token: 'ui-test-token' } } }));
    });
    afterAll(async () => {
      await aggmock?.close();
      await wallet?.close();
    });

    it('asks for the token, runs duplicate-debit from the form, and lists the double-debit discrepancy', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(aggmock.url + '/ui/deliveries');
      await expect.poll(() => page.getByTestId('auth-prompt').isVisible()).toBe(true);
      expect(await page.getByTestId('auth-message').textContent()).toMatch(/wants a bearer token/);

      await page.getByTestId('auth-token').fill('wrong-token');
      await page.getByTestId('auth-token').press('Enter');
      await expect.poll(() => page.getByTestId('auth-message').textContent()).toMatch(/refused this token \(401\)/);
      await page.screenshot({ path: `${SHOTS}-token.png` });
      await page.getByTestId('auth-token').fill('ui-test-token');
      await page.getByTestId('auth-token').press('Enter');
      await expect.poll(() => page.getByTestId('auth-prompt').isVisible()).toBe(false);

      await expect.poll(() => page.getByTestId('scenario-name').locator('option').count()).toBeGreaterThan(5);
      await page.getByTestId('scenario-name').selectOption('duplicate-debit');
      expect(await page.getByTestId('scenario-description').textContent()).toMatch(/same transactionId twice/);
      await page.getByTestId('scenario-players').fill('p2');
      await page.getByTestId('scenario-amount').fill('7.5');
      await page.getByTestId('scenario-run').click();
      await expect.poll(() => page.getByTestId('scenario-result').textContent()).toMatch(/Started duplicate-debit for p2/);
      await expect.poll(() => page.locator('[data-testid=delivery-row][data-status=delivered]').count()).toBe(2);

      await page.getByTestId('nav-discrepancies').click();
      await page.waitForURL(/\/ui\/discrepancies$/);
      const found = page.locator('[data-testid=discrepancy-row][data-kind=double-debit]');
      await expect.poll(() => found.count()).toBe(1);
      const cells = await found.locator('td').allTextContents();
      expect(cells.slice(1, 5)).toEqual(['double-debit', 'p2', '992.50', '985.00']);
      expect(await page.getByTestId('discrepancy-total').textContent()).toBe('1 discrepancy');
      expect(await page.locator('[data-testid=balance-row][data-player=p2] td').nth(1).textContent()).toBe('985.00');
      await page.screenshot({ path: `${SHOTS}-discrepancies.png`, fullPage: true });

      // Its delivery links open the deliveries inspector on that delivery.
      const discrepancy = aggmock.ledger.discrepancies({ kind: 'double-debit' })[0]!;
      await found.getByTestId('discrepancy-delivery').last().click();
      await page.waitForURL(/\/ui\/deliveries\?open=\d+$/);
      await expect.poll(() => page.getByTestId('detail').textContent()).toContain(`DEBIT #${discrepancy.eventIds.at(-1)}`);
      await page.close();
    });
  });
});
