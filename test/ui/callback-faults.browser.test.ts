import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { browserSkipReason, launchChromium } from '../browser/chromium.ts';

const skipReason = await browserSkipReason();

/**
 * The deliveries page's callback fault rules, in real Chromium against aggmock and the reference
 * wallet on loopback: a rule added from the page makes the next callback race, the page shows it
 * fire, and its buttons remove one rule or every rule.
 */
describe.skipIf(skipReason)('the callback fault rules on the Deliveries page (Chromium)', () => {
  let browser: Browser;
  let aggmock: Aggmock;
  let wallet: RunningWallet;
  beforeAll(async () => {
    browser = await launchChromium();
    const base = validateConfig({ port: 0, db: ':memory:' });
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 3, games: 12 },
        callbacks: { webhookUrl: wallet.webhookUrl, retrySchedule: [0, 50], jitter: 0 },
      }),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await aggmock?.close();
    await wallet?.close();
  });

  const debit = (playerId: string, amountMinor: number) => aggmock.engine.enqueue({ kind: 'debit', playerId, amountMinor });

  it('"time out the next DEBIT after the wallet applied it" fails that DEBIT once, rolls it back, and shows the rule fired and spent', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${aggmock.url}/ui/deliveries`);
      await expect.poll(() => page.getByTestId('no-race-rules').isVisible()).toBe(true);
      await page.getByTestId('race-choice').selectOption('debit-timeout-rollback');
      await page.getByTestId('race-player').fill('p2');
      await page.getByTestId('race-add').click();
      await expect
        .poll(() => page.getByTestId('race-result').textContent())
        .toMatch(/^Rule cf_\w+: time out the next DEBIT .*\(player p2\)\.$/);
      await expect.poll(() => page.getByTestId('race-rule').count()).toBe(1);
      expect(aggmock.callbackFaults.list()).toEqual([
        expect.objectContaining({ match: { event: 'debit', player: 'p2' }, fault: { kind: 'timeout', giveUp: true }, times: 1 }),
      ]);

      const opening = wallet.store.balanceOf('p2') as number;
      // Another player's DEBIT does not match; p2's first does, its second goes through.
      expect((await debit('p1', 100).settled).status).toBe('delivered');
      const timedOut = await debit('p2', 200).settled;
      expect(timedOut.status).toBe('failed');
      expect((await debit('p2', 300).settled).status).toBe('delivered');
      await expect.poll(() => page.getByTestId('race-rule-state').textContent()).toBe('next 1; fired 1, spent');
      await expect
        .poll(() =>
          aggmock.engine.outbox.list({ playerId: 'p2', kind: 'rollback' }).map((e) => [e.referenceTransactionId, e.status]),
        )
        .toEqual([[timedOut.transactionId, 'delivered']]);
      expect(wallet.store.balanceOf('p2')).toBe(opening - 300);
      expect(aggmock.ledger.discrepancies()).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('"duplicate the next DEBIT" sends it twice, and Remove and Remove every rule clear the rules', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${aggmock.url}/ui/deliveries`);
      await expect.poll(() => page.getByTestId('race-rule').count()).toBe(1);
      await page.getByTestId('race-choice').selectOption('debit-duplicate');
      await page.getByTestId('race-add').click();
      await expect.poll(() => page.getByTestId('race-rule').count()).toBe(2);

      const opening = wallet.store.balanceOf('p3') as number;
      const first = await debit('p3', 150).settled;
      await expect
        .poll(() => aggmock.engine.outbox.list({ playerId: 'p3', kind: 'debit' }).map((e) => [e.transactionId, e.status]))
        .toEqual([
          [first.transactionId, 'delivered'],
          [first.transactionId, 'delivered'],
        ]);
      expect(wallet.store.balanceOf('p3')).toBe(opening - 150);

      const [spent] = aggmock.callbackFaults.list();
      await page.locator(`[data-testid="race-rule"][data-id="${spent?.id}"] [data-testid="race-remove"]`).click();
      await expect.poll(() => page.getByTestId('race-result').textContent()).toBe(`Removed rule ${spent?.id}.`);
      await expect.poll(() => page.getByTestId('race-rule').count()).toBe(1);
      expect(aggmock.callbackFaults.list().map((r) => r.fault.kind)).toEqual(['duplicate']);
      await page.getByTestId('race-choice').selectOption('credit-timeout-retry');
      await page.getByTestId('race-add').click();
      await expect.poll(() => page.getByTestId('race-rule').count()).toBe(2);
      await page.getByTestId('race-clear').click();
      await expect.poll(() => page.getByTestId('race-result').textContent()).toBe('Removed 2 rules.');
      await expect.poll(() => page.getByTestId('no-race-rules').isVisible()).toBe(true);
      expect(aggmock.callbackFaults.list()).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
