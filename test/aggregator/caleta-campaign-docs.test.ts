import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createApp, launchCallbackUrls } from '../../src/app.ts';
import { validateConfig } from '../../src/config/index.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog } from '../../src/runtime.ts';

/*
 * The worked free-bet campaign on docs/dialects/caleta.md is what `serve --dialect caleta` does: each
 * request read from the committed page and sent as printed (signed with the development key) gets the
 * reply the page prints; the same requests with one body byte changed are refused (the signature
 * covers the body), and the reward names the campaign's game and rounds.
 */

const page = readFileSync(new URL('../../docs/dialects/caleta.md', import.meta.url), 'utf8');
const section = page.split('### Worked example: a free-bet campaign')[1]?.split('<!-- end hand-written -->')[0] ?? '';

/** Each printed request with the reply printed after it. */
function exchanges(): { path: string; headers: Record<string, string>; body: string; reply: unknown }[] {
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

it("sends the page's campaign and reward as printed and gets the printed replies; a changed body is refused", async () => {
  const config = validateConfig({ db: ':memory:', callbacks: { dialect: 'caleta' } });
  const sessions = new LaunchSessions();
  const app = createApp({ config, catalog: loadCatalog(config), sessions, callbackUrls: launchCallbackUrls(config) });
  const shown = exchanges();
  expect(shown.map((e) => e.path)).toEqual(['/api/freebet/campaigns/create', '/api/freebet/rewards/create']);
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
  const list = await app.request('/api/freebet/campaigns/list', { method: 'POST', headers: shown[0]?.headers, body: '{}' });
  // The list is signed too: the create's signature does not cover another body.
  expect(list.status).toBe(401);
});
