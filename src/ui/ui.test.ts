import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { type AggmockConfigInput, callbackFaultRuleSchema, validateConfig } from '../config/index.ts';
import { LaunchSessions } from '../launch/sessions.ts';
import { loadCatalog } from '../runtime.ts';
import { CALLBACK_FAULT_CHOICES } from './deliveries.ts';
import { PAGE_SIZE, searchCatalog } from './index.ts';

const EXAMPLE_FIXTURE = fileURLToPath(new URL('../../fixtures/catalog.example.json', import.meta.url));
const TRICKY_NAME = 'Tom & Jerry\'s <Big> "Quoted" Win';
const TRICKY_ESCAPED = 'Tom &amp; Jerry&#39;s &lt;Big&gt; &quot;Quoted&quot; Win';

function uiApp(overrides: AggmockConfigInput = {}) {
  const config = validateConfig({
    db: ':memory:',
    catalog: { providers: 12, games: 240, fixture: EXAMPLE_FIXTURE },
    ...overrides,
  });
  const catalog = loadCatalog(config);
  const sessions = new LaunchSessions();
  const app = createApp({ config, catalog, sessions });
  return { app, config, catalog, sessions };
}

const { app, catalog, sessions } = uiApp();
const tricky = catalog.games.find((g) => g.name === TRICKY_NAME)!;
const slot = catalog.games.find((g) => g.provider === 'ACMEGAMING' && g.type === 'slot')!;

async function page(path: string, init?: RequestInit) {
  const res = await app.request(path, init);
  return { res, html: await res.text() };
}

const cardIds = (html: string) =>
  [...html.matchAll(/data-testid="game-card" data-game-id="([0-9a-f]{32})"/g)].map((m) => m[1] as string);

function form(fields: Record<string, string>) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

const validLaunch = () => ({
  gameId: slot.id,
  username: 'p7',
  money: '250.50',
  platform: '2',
  currency: 'usd',
  lang: 'pt-BR',
  callback_url: '',
});

describe('GET / (the catalog browser)', () => {
  it('renders a page of game cards with their generated images, provider list and counts', async () => {
    const { res, html } = await page('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const ids = cardIds(html);
    expect(ids).toHaveLength(PAGE_SIZE);
    expect(ids).toEqual(catalog.games.slice(0, PAGE_SIZE).map((g) => g.id));
    expect(html).toContain(`src="/assets/games/${ids[0]}.svg"`);
    expect(html).toContain(`href="/ui/launch?gameId=${ids[0]}"`);
    expect(html).toContain(`Showing 1–60 of ${catalog.games.length} games`);
    for (const p of catalog.providers) expect(html).toContain(`(${p.totalGames})</option>`);
    // No external assets: every src and href is on this server (or a data: URL).
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it('serves the card images it links to', async () => {
    const res = await app.request(`/assets/games/${tricky.id}.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  });

  it('searches names case-insensitively and escapes what it renders', async () => {
    const { html } = await page(`/?q=${encodeURIComponent("jerry's <big>")}`);
    expect(cardIds(html)).toEqual([tricky.id]);
    expect(html).toContain(TRICKY_ESCAPED);
    expect(html).not.toContain('<Big>');
    // The query is echoed back into the search box, escaped.
    expect(html).toContain('value="jerry&#39;s &lt;big&gt;"');
    // The provider name from the fixture, "QA Studio & Sons <Test>", is escaped in the list and filter.
    expect(html).toContain('QA Studio &amp; Sons &lt;Test&gt;');
    expect(html).not.toContain('<Test>');
  });

  it('filters by provider (code or name) and by type', async () => {
    const { html } = await page('/?provider=ACMEGAMING&type=table');
    expect(cardIds(html)).toEqual([catalog.games.find((g) => g.name === 'Acme European Roulette')!.id]);
    const byName = await page('/?provider=acme+gaming');
    expect(cardIds(byName.html).sort()).toEqual(
      catalog.games
        .filter((g) => g.provider === 'ACMEGAMING')
        .map((g) => g.id)
        .sort(),
    );
    expect(byName.html).toContain('<option value="ACMEGAMING" selected>');
  });

  it('says so when a filter names no provider or type, instead of showing everything', async () => {
    const { res, html } = await page('/?provider=NOPE&type=poker');
    expect(res.status).toBe(200);
    expect(cardIds(html)).toEqual([]);
    expect(html).toContain('No provider &quot;NOPE&quot;');
    expect(html).toContain('No game type &quot;poker&quot;; expected one of slot, live');
  });

  it('pages through every game exactly once, keeping the filters in the page links', async () => {
    const slots = catalog.games.filter((g) => g.type === 'slot');
    const pages = Math.ceil(slots.length / PAGE_SIZE);
    expect(pages).toBeGreaterThan(1);
    const seen: string[] = [];
    for (let n = 1; n <= pages; n++) {
      const { html } = await page(`/?type=slot&page=${n}`);
      expect(html).toContain(`Page ${n} of ${pages}`);
      if (n < pages) expect(html).toContain(`href="/?type=slot&amp;page=${n + 1}"`);
      else expect(html).not.toContain('data-testid="next-page"');
      seen.push(...cardIds(html));
    }
    expect(seen).toEqual(slots.map((g) => g.id));
    // Out-of-range and junk page numbers land on a real page.
    expect(cardIds((await page(`/?type=slot&page=${pages + 5}`)).html)).toEqual(
      cardIds((await page(`/?type=slot&page=${pages}`)).html),
    );
    expect(cardIds((await page('/?type=slot&page=abc')).html)).toEqual(slots.slice(0, PAGE_SIZE).map((g) => g.id));
  });

  it('finds a game by its full id', () => {
    expect(searchCatalog(catalog, { q: tricky.id.toUpperCase() }).games).toEqual([tricky]);
  });
});

describe('the launch form', () => {
  it('shows the game, with p1…p10 suggested and the opening balance filled in', async () => {
    const { res, html } = await page(`/ui/launch?gameId=${tricky.id}`);
    expect(res.status).toBe(200);
    expect(html).toContain(`<h1 data-testid="launch-game-name">${TRICKY_ESCAPED}</h1>`);
    expect(html).toContain(`<title>Launch ${TRICKY_ESCAPED} — aggmock</title>`);
    for (let i = 1; i <= 10; i++) expect(html).toContain(`<option value="p${i}">`);
    expect(html).toMatch(/name="username"[^>]*value="p1"/);
    expect(html).toMatch(/name="money"[^>]*value="1000.00"/);
    expect(html).toContain(`name="gameId" value="${tricky.id}"`);
  });

  it('answers an unknown or missing gameId with a 404 page that says what is wrong', async () => {
    const unknown = await page('/ui/launch?gameId=ffffffffffffffffffffffffffffffff');
    expect(unknown.res.status).toBe(404);
    expect(unknown.res.headers.get('content-type')).toMatch(/text\/html/);
    expect(unknown.html).toContain('Unknown game');
    expect(unknown.html).toContain('No game with id &quot;ffffffffffffffffffffffffffffffff&quot;');
    const missing = await page('/ui/launch');
    expect(missing.res.status).toBe(404);
    expect(missing.html).toContain('needs a gameId');
    const posted = await page('/ui/launch', form({ ...validLaunch(), gameId: '<script>' }));
    expect(posted.res.status).toBe(404);
    expect(posted.html).toContain('&quot;&lt;script&gt;&quot;');
  });

  it('creates a launch session like POST /getgameurl and redirects (303) to its working play page', async () => {
    const before = sessions.size;
    const res = await app.request('/ui/launch', form(validLaunch()));
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/play\/[0-9a-f]{32}$/);
    expect(sessions.size).toBe(before + 1);
    const found = sessions.lookup(location.split('/').pop()!);
    expect(found.status).toBe('active');
    if (found.status !== 'active') return;
    expect(found.session).toMatchObject({
      playerId: 'p7',
      gameId: slot.id,
      balanceAtLaunchMinor: 25_050,
      platform: 2,
      currency: 'USD',
      lang: 'pt-BR',
      homeUrl: 'http://localhost/',
    });
    const play = await app.request(location, { headers: { accept: 'text/html' } });
    expect(play.status).toBe(200);
    expect(await play.text()).toContain(`data-testid="game-name">${slot.name}<`);
  });

  it('re-renders the form with the refused field named and the typed values kept', async () => {
    const before = sessions.size;
    const { res, html } = await page('/ui/launch', form({ ...validLaunch(), money: 'lots' }));
    expect(res.status).toBe(400);
    expect(html).toContain('data-testid="error-money">money: expected a number');
    expect(html).toMatch(/data-testid="form-error">The launch was refused; fix money\./);
    expect(html).toMatch(/name="money"[^>]*value="lots"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/name="username"[^>]*value="p7"/);
    expect(sessions.size).toBe(before);

    const threeDecimals = await page('/ui/launch', form({ ...validLaunch(), money: '1.005' }));
    expect(threeDecimals.html).toContain('data-testid="error-money">money: expected at most two decimals');
    const callback = await page('/ui/launch', form({ ...validLaunch(), callback_url: 'not a url' }));
    expect(callback.res.status).toBe(400);
    expect(callback.html).toContain('data-testid="error-callback_url">callback_url: expected an absolute http(s) URL');
    const blank = await page('/ui/launch', form({ ...validLaunch(), username: '  ', lang: 'english' }));
    expect(blank.html).toContain('data-testid="error-username">username:');
    expect(blank.html).toContain('data-testid="error-lang">lang: expected a language code');
  });

  it('refuses a body that is not the form with 415', async () => {
    const res = await app.request('/ui/launch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validLaunch()),
    });
    expect(res.status).toBe(415);
    expect(await res.text()).toContain('application/x-www-form-urlencoded');
  });

  it.each([
    ['hmac', { auth: { mode: 'hmac', signing: { scheme: 'standard-webhooks' } } }],
    ['api-key with custom keys', { auth: { mode: 'api-key', apiKeys: ['team-key'], apiKeyHeaders: ['x-rapidapi-key'] } }],
    ['none', { auth: { mode: 'none' } }],
  ] as const)('launches without the user giving an API key when inbound auth is %s', async (_, overrides) => {
    const { app: guarded, catalog: own } = uiApp(overrides as AggmockConfigInput);
    const game = own.games[0]!;
    const res = await guarded.request('/ui/launch', form({ ...validLaunch(), gameId: game.id }));
    expect(res.status).toBe(303);
    // …while the API itself still wants its credentials.
    if (overrides.auth.mode !== 'none') {
      const direct = await guarded.request('/getgameurl', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'p1', gameId: game.id, money: 1, platform: 1, home_url: 'https://c.example' }),
      });
      expect(direct.status).toBe(401);
    }
  });

  it('shows the API’s refusal when a rate limit is hit', async () => {
    const { app: limited, catalog: own } = uiApp({ limits: { rateLimit: { requests: 1, window: '1h' } } });
    const fields = { ...validLaunch(), gameId: own.games[0]!.id };
    expect((await limited.request('/ui/launch', form(fields))).status).toBe(303);
    const second = await limited.request('/ui/launch', form(fields));
    expect(second.status).toBe(429);
    expect(await second.text()).toContain('POST /getgameurl answered 429');
  });
});

describe('the inspector pages', () => {
  it('serve the deliveries, discrepancies and requests shells with the shared nav', async () => {
    for (const [path, title] of [
      ['/ui/deliveries', 'Deliveries'],
      ['/ui/discrepancies', 'Discrepancies'],
      ['/ui/requests', 'Requests'],
    ] as const) {
      const { res, html } = await page(path);
      expect(res.status).toBe(200);
      expect(html).toContain(`<title>${title} — aggmock</title>`);
      expect(html).toContain(`aria-current="page" data-testid="nav-${title.toLowerCase()}"`);
      expect(html).toContain('href="/docs"');
      expect(html).toContain('"tokenRequired":false');
    }
  });

  it('ask for the admin token up front when the admin API has one, without printing it', async () => {
    const { app: guarded } = uiApp({ admin: { token: 's3cret-token' } });
    const html = await (await guarded.request('/ui/deliveries')).text();
    expect(html).toContain('"tokenRequired":true');
    expect(html).not.toContain('s3cret-token');
  });

  it('highlight the signature headers of the configured scheme', async () => {
    const { app: sw } = uiApp({ callbacks: { signing: { scheme: 'standard-webhooks' } } });
    const html = await (await sw.request('/ui/deliveries')).text();
    expect(html).toContain('"signatureHeaders":["webhook-id","webhook-timestamp","webhook-signature"]');
    expect((await page('/ui/deliveries')).html).toContain('"signatureHeaders":["x-signature"]');
  });

  it('offer on the deliveries page only callback races the admin API accepts as rules, once and for one player', async () => {
    const { html } = await page('/ui/deliveries');
    for (const choice of CALLBACK_FAULT_CHOICES) {
      expect(html).toContain(`<option value="${choice.id}">`);
      const rule = callbackFaultRuleSchema.safeParse({ ...choice.rule, match: { ...choice.rule.match, player: 'p1' }, times: 1 });
      expect(rule.success, choice.id).toBe(true);
    }
  });
});
