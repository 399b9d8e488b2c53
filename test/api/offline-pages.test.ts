import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchResponseSchema, providerGamesResponseSchema } from '../../src/aggregator/schemas.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { htmlReport, runVerify } from '../../src/verify/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { DEV_KEY_HEADERS } from './helpers.ts';

/**
 * Offline for real: no page loads anything from another origin (a CDN copy of a script is a
 * blank page on a plane). Every URL a page fetches or links to (src, href, action, srcset, CSS
 * url() and @import) is on the server's own origin; the only other one allowed is the casino's
 * own home_url the play page links back to, because the casino gave it.
 */
const URL_SITES = [
  /\b(?:src|href|action|poster|data|formaction)\s*=\s*["']([^"']*)["']/gi,
  /\bsrcset\s*=\s*["']([^"']*)["']/gi,
  /url\(\s*["']?([^"')]+)["']?\s*\)/gi,
  /@import\s+["']([^"']+)["']/gi,
];

function externalUrls(html: string, origin: string, allowed: readonly string[] = []): string[] {
  const urls = URL_SITES.flatMap((pattern) => [...html.matchAll(pattern)].map((m) => (m[1] as string).trim()));
  return urls.filter(
    (u) =>
      (/^(https?:)?\/\//i.test(u) && !u.startsWith(`${origin}/`) && u !== origin && !allowed.includes(u)) ||
      /^(ftp|ws|wss):/i.test(u),
  );
}

describe('every HTML page works offline: no URL outside the server’s own origin', () => {
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  const homeUrl = 'https://casino.example/lobby';
  let gameId: string;
  beforeAll(async () => {
    const base = validateConfig({ db: ':memory:', port: 0, catalog: { providers: 5, games: 60 } });
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0, testEndpoints: true });
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { ...base.callbacks, webhookUrl: wallet.webhookUrl } }));
    const listing = await fetch(`${aggmock.url}/getallgamesandprovider?provider=PGSOFT`, { headers: DEV_KEY_HEADERS });
    gameId = providerGamesResponseSchema.parse(await listing.json()).games[0]?.id as string;
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  async function page(path: string): Promise<string> {
    const res = await fetch(aggmock.url + path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get('content-type'), path).toMatch(/text\/html/);
    return res.text();
  }

  it.each(['/', '/?q=gold', '/ui/launch?gameId=', '/ui/deliveries', '/ui/discrepancies', '/docs'])('%s', async (path) => {
    const url = path.endsWith('=') ? path + gameId : path;
    expect(externalUrls(await page(url), aggmock.url)).toEqual([]);
  });

  it('/play/<session>, which links back only to the casino’s home_url', async () => {
    const launched = launchResponseSchema.parse(
      await (
        await fetch(`${aggmock.url}/getgameurl`, {
          method: 'POST',
          headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'p1', gameId, money: 10, platform: 1, home_url: homeUrl }),
        })
      ).json(),
    );
    const html = await page(new URL(launched.payload.game_launch_url).pathname);
    expect(externalUrls(html, aggmock.url, [homeUrl])).toEqual([]);
  });

  it('the verify HTML report', async () => {
    const outcome = await runVerify({
      webhookUrl: wallet.webhookUrl,
      stateUrl: `${wallet.url}/__state`,
      only: ['debit-applies'],
      reportDir: false,
    });
    expect(outcome.report).toBeDefined();
    // A file opened from disk has no origin of its own: every URL counts as external.
    expect(externalUrls(htmlReport(outcome.report as NonNullable<typeof outcome.report>), 'file://')).toEqual([]);
  });

  it('finds what it looks for (the scanner itself)', () => {
    const origin = 'http://127.0.0.1:1';
    const html = `<link href="https://cdn.example/x.css"><script src="//cdn.example/x.js"></script>
      <img src="${origin}/a.svg"><a href="/ui">x</a><style>body{background:url('https://img.example/b.png')}</style>`;
    expect(externalUrls(html, origin)).toEqual(['https://cdn.example/x.css', '//cdn.example/x.js', 'https://img.example/b.png']);
  });
});
