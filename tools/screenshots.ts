/**
 * `npm run screenshots`: every page at desktop (1366×800) and phone (390×844) width, as docs/ui.md
 * shows them, into docs/screenshots/. Runs aggmock, the reference wallet (one with a double-debit
 * bug, so the discrepancies page has something to show) and Chromium found as the browser tests
 * find it. Run after a UI change and commit the images.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateConfig } from '../src/config/index.ts';
import { startAggmock } from '../src/runtime.ts';
import { htmlReport, runVerify } from '../src/verify/index.ts';
import { startWallet } from '../src/wallet/index.ts';
import { launchChromium } from '../test/browser/chromium.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const SIZES = { desktop: { width: 1366, height: 800 }, phone: { width: 390, height: 844 } } as const;

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const base = validateConfig({ port: 0, db: ':memory:', callbacks: { retrySchedule: [0], jitter: 0 } });
  const wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0, testEndpoints: true, fault: 'double-debit' });
  const aggmock = await startAggmock(
    validateConfig({ ...base, callbacks: { ...base.callbacks, webhookUrl: wallet.webhookUrl } }),
  );
  const browser = await launchChromium();
  try {
    const admin = (path: string, body?: unknown) =>
      fetch(`${aggmock.url}/__admin${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    for (const scenario of ['bet-win', 'bet-lose', 'bet-rollback', 'duplicate-debit'])
      await admin(`/scenarios/${scenario}/run?wait=true`);
    const game = aggmock.catalog.games.find((g) => g.type === 'slot') ?? aggmock.catalog.games[0];
    const launched = (await (
      await fetch(`${aggmock.url}/getgameurl`, {
        method: 'POST',
        headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'p1', gameId: game?.id, money: 1000, platform: 1, home_url: aggmock.url }),
      })
    ).json()) as { payload: { game_launch_url: string } };
    // The Requests page: a few calls of a client, one broken by a fault rule, one to a mistyped route.
    await admin('/faults', { match: { path: '/getallproviders' }, fault: { kind: 'status', status: 503 }, times: 1 });
    for (const path of ['/getallproviders', '/getallproviders', '/getallgamesandprovider?provider=PGSOFT', '/getgameurls'])
      await fetch(`${aggmock.url}${path}`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
    const verify = await runVerify({ webhookUrl: wallet.webhookUrl, stateUrl: `${wallet.url}/__state`, reportDir: false });
    const report = verify.report ? htmlReport(verify.report) : '';

    const pages: Record<string, string> = {
      home: `${aggmock.url}/`,
      launch: `${aggmock.url}/ui/launch?gameId=${game?.id}`,
      play: launched.payload.game_launch_url,
      deliveries: `${aggmock.url}/ui/deliveries`,
      requests: `${aggmock.url}/ui/requests`,
      discrepancies: `${aggmock.url}/ui/discrepancies`,
      docs: `${aggmock.url}/docs`,
      'verify-report': '',
    };
    for (const [size, viewport] of Object.entries(SIZES)) {
      for (const [name, url] of Object.entries(pages)) {
        const page = await browser.newPage({ viewport });
        if (url) await page.goto(url, { waitUntil: 'networkidle' });
        else await page.setContent(report);
        if (name === 'play') await page.getByTestId('spin').click();
        if (['deliveries', 'requests', 'discrepancies', 'docs', 'play'].includes(name)) await page.waitForTimeout(1_500);
        await page.screenshot({ path: `${OUT}${name}-${size}.jpg`, type: 'jpeg', quality: 70 });
        await page.close();
        console.log(`wrote docs/screenshots/${name}-${size}.jpg`);
      }
    }
  } finally {
    await browser.close();
    await aggmock.close();
    await wallet.close();
  }
}

await main();
