import { describe, expect, it } from 'vitest';
import type { LaunchSession } from '../../src/launch/sessions.ts';
import { playPage } from '../../src/play/page.ts';
import { DEV_KEY_HEADERS, testApp } from '../api/helpers.ts';

/** No page runs script it did not write itself: http(s)-only URLs, a nonce CSP, no framing. */
describe('HTML pages resist script injection and framing', () => {
  const { app, catalog } = testApp();
  const game = catalog.games[0]!;

  const launch = (homeUrl: string) =>
    app.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'p1', gameId: game.id, money: 10, platform: 1, home_url: homeUrl }),
    });

  it.each(['javascript:alert(document.cookie)', 'JAVASCRIPT:alert(1)', 'data:text/html,<script>alert(1)</script>'])(
    'refuses home_url %s with a 400 naming the field',
    async (homeUrl) => {
      const res = await launch(homeUrl);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Array<{ field: string; message: string }> }).errors[0]).toMatchObject({
        field: 'home_url',
        message: expect.stringContaining('http(s)'),
      });
    },
  );

  it('never renders a non-http URL as a link, even one that reached a session some other way', () => {
    const session = { id: 's', gameName: 'G', playerId: 'p', provider: 'P', currency: 'EUR', lang: 'en' } as LaunchSession;
    const html = playPage({ ...session, homeUrl: 'javascript:alert(1)', balanceAtLaunchMinor: 0 }, undefined, false);
    expect(html).not.toContain('javascript:');
  });

  it.each(['/', `/ui/launch?gameId=${'0'.repeat(32)}`, '/ui/deliveries', '/ui/discrepancies', '/play/unknown-session'])(
    '%s carries CSP with a nonce on every script, frame-ancestors, X-Frame-Options and nosniff',
    async (path) => {
      const res = await app.request(path, { headers: { accept: 'text/html' } });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'nonce-[\w+/=]+'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("script-src 'unsafe-inline'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      const html = await res.text();
      for (const tag of html.match(/<script[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
    },
  );

  it('the play page of a launched game has the same headers', async () => {
    const res = await launch('https://casino.example');
    const id = ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
    const page = await app.request(`/play/${id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('href="https://casino.example"');
  });
});
