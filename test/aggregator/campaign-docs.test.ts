import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp, launchCallbackUrls } from '../../src/app.ts';
import { validateConfig } from '../../src/config/index.ts';
import { DEV_RSA_PRIVATE_KEY } from '../../src/dialects/dev-keys.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog } from '../../src/runtime.ts';

/*
 * The worked free-bet campaign on docs/dialects/caleta.md and hub88.md is what `serve --dialect
 * <vendor>` does: each request read from the committed page and sent as printed (signed with the
 * development key) gets the reply the page prints; the same request with one body byte changed is
 * refused (the signature covers the body); the reward takes the campaign's game, rounds and stake.
 */

/** Each printed request with the reply printed after it. */
function exchanges(vendor: string): { path: string; headers: Record<string, string>; body: string; reply: unknown }[] {
  const page = readFileSync(new URL(`../../docs/dialects/${vendor}.md`, import.meta.url), 'utf8');
  const section = page.split('### Worked example: a free-bet campaign')[1]?.split('<!-- end hand-written -->')[0] ?? '';
  const blocks = [...section.matchAll(/```(http|json)\n([\s\S]*?)\n```/g)].map((m) => ({ kind: m[1], text: m[2] as string }));
  const out = [];
  for (let i = 0; i + 1 < blocks.length; i += 2) {
    const request = blocks[i] as { kind: string; text: string };
    const reply = blocks[i + 1] as { kind: string; text: string };
    expect([request.kind, reply.kind]).toEqual(['http', 'json']);
    const [head = '', body = ''] = request.text.split('\n\n');
    const [line = '', ...headerLines] = head.split('\n');
    const path = /^POST (\S+) HTTP\/1\.1$/.exec(line)?.[1] ?? '';
    const headers = Object.fromEntries(headerLines.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]));
    out.push({ path, headers, body, reply: JSON.parse(reply.text) });
  }
  return out;
}

describe.each([
  ['caleta', ['/api/freebet/campaigns/create', '/api/freebet/rewards/create']],
  [
    'hub88',
    [
      '/operator/generic/v2/freebet/campaigns/create',
      '/operator/generic/v2/freebet/campaigns/info',
      '/operator/generic/v2/freebet/rewards/create',
    ],
  ],
] as const)("the %s page's worked campaign", (vendor, paths) => {
  it('is answered as printed, request by request; a changed body is refused', async () => {
    const config = validateConfig({ db: ':memory:', callbacks: { dialect: vendor } });
    const sessions = new LaunchSessions();
    const app = createApp({ config, catalog: loadCatalog(config), sessions, callbackUrls: launchCallbackUrls(config) });
    const shown = exchanges(vendor);
    expect(shown.map((e) => e.path)).toEqual(paths);
    for (const { path, headers, body, reply } of shown) {
      const spoiled = await app.request(path, {
        method: 'POST',
        headers,
        body: body.replace('"operator_id":1', '"operator_id":1 '),
      });
      expect(spoiled.status).toBe(401);
      const res = await app.request(path, { method: 'POST', headers, body });
      expect([res.status, await res.json()]).toEqual([200, reply]);
    }
    expect(sessions.awards.get('welcome-1-player01')).toMatchObject({ rounds: 5, bet: '0.20000', players: ['player01'] });
  });
});

it("hub88's campaigns/info and /list: an unknown or missing campaign_uuid is refused the vendor's way; the list holds what was made", async () => {
  const config = validateConfig({ db: ':memory:', callbacks: { dialect: 'hub88' } });
  const sessions = new LaunchSessions();
  const app = createApp({ config, catalog: loadCatalog(config), sessions, callbackUrls: launchCallbackUrls(config) });
  const post = async (route: string, body: Record<string, unknown>) => {
    const text = JSON.stringify(body);
    const res = await app.request(`/operator/generic/v2/freebet/campaigns/${route}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-Hub88-Signature': createSign('RSA-SHA256').update(text).sign(DEV_RSA_PRIVATE_KEY, 'base64'),
      },
      body: text,
    });
    return [res.status, await res.json()];
  };
  expect(await post('list', { operator_id: 1 })).toEqual([200, []]);
  expect(await post('info', { campaign_uuid: 'nope', operator_id: 1 })).toEqual([
    404,
    { error: 'campaign_uuid "nope": no free-round campaign has this id' },
  ]);
  expect(await post('info', { operator_id: 1 })).toEqual([400, { error: 'campaign_uuid is required' }]);
  expect(await post('create', { prepaid_uuid: 'x', operator_id: 1 })).toEqual([400, { error: 'name is required' }]);
  const game = loadCatalog(config).games[2] as { id: string };
  const [status, made] = await post('create', { name: 'Ten', prepaid_uuid: game.id, end_time: 1_900_000_000, operator_id: 1 });
  expect([status, made]).toEqual([
    200,
    expect.objectContaining({
      name: 'Ten',
      game_code: game.id,
      bet_value: 100_000,
      bet_count: 10,
      end_time: '2030-03-17T17:46:40',
    }),
  ]);
  expect(await post('list', { operator_id: 1 })).toEqual([200, [made]]);
});
