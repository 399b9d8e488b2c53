import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * Evolution's round render (GET /api/render/v1/details?gameId=<round>, HTTP Basic casinoKey:apiToken,
 * an HTML page; valkyrie's provider/evolution/provider_service.go): aggmock answers a small HTML page
 * naming the round and linking to its callbacks, escaped; a wrong token gets Evolution's G.2 refusal.
 */

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Evolution round render', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 1, games: 2 },
        callbacks: { profile: 'evolution', webhookUrl: 'http://127.0.0.1:9/' },
        operator: { credentials: { casinoKey: 'casino0000000042', apiToken: 'evo-operator-token' } },
      }),
    );
  });
  afterAll(() => aggmock?.close());

  const render = (round: string, authorization?: string) =>
    fetch(`${aggmock.url}/api/render/v1/details?gameId=${encodeURIComponent(round)}`, {
      headers: authorization ? { authorization } : {},
    });

  it('answers an HTML page naming the round and linking to its callbacks', async () => {
    const res = await render('R-77', basic('casino0000000042', 'evo-operator-token'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    const html = await res.text();
    expect(html).toContain('<h1>Round R-77</h1>');
    expect(html).toContain(`href="${aggmock.url}/ui/deliveries?round=R-77"`);
  });

  it('escapes the round id it shows', async () => {
    const html = await (await render('<b>"x"</b>', basic('casino0000000042', 'evo-operator-token'))).text();
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;');
  });

  it("refuses a wrong token with Evolution's G.2, and no Basic header at all", async () => {
    const wrong = await render('R-77', basic('casino0000000042', 'nope'));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ errors: [{ code: 'G.2' }] });
    expect((await render('R-77')).status).toBe(401);
  });

  it('refuses a request without gameId, naming it', async () => {
    const res = await fetch(`${aggmock.url}/api/render/v1/details`, {
      headers: { authorization: basic('casino0000000042', 'evo-operator-token') },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-aggmock-refusal')).toBe('gameId is required');
  });
});
