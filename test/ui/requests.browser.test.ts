import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { browserSkipReason, launchChromium } from '../browser/chromium.ts';

const skipReason = await browserSkipReason();

describe.skipIf(skipReason)('the Requests page (Chromium)', () => {
  let browser: Browser;
  let aggmock: Aggmock;
  beforeAll(async () => {
    browser = await launchChromium();
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 3, games: 12 } }));
  });
  afterAll(async () => {
    await browser?.close();
    await aggmock?.close();
  });

  it('shows the client calls live, and "Break the next call" makes the next one fail once', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${aggmock.url}/ui/requests`);
      await fetch(`${aggmock.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
      await expect.poll(() => page.getByTestId('request-row').count()).toBe(1);
      await page.getByTestId('break-path').selectOption('/getallproviders');
      await page.getByTestId('break-fault').selectOption('status-503');
      await page.getByTestId('break-send').click();
      await expect.poll(() => page.getByTestId('break-result').textContent()).toContain('the next call to /getallproviders');
      const broken = await fetch(`${aggmock.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
      expect(broken.status).toBe(503);
      await expect.poll(() => page.getByTestId('request-row').count()).toBe(2);
      await expect.poll(() => page.getByTestId('request-fault').first().textContent()).toContain('status');
      await page.getByTestId('request-row').first().click();
      await expect.poll(() => page.getByTestId('detail').textContent()).toContain('[masked]');
      const next = await fetch(`${aggmock.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
      expect(next.status).toBe(200);
    } finally {
      await page.close();
    }
  });
});
