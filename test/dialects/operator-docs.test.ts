import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorAuth } from '../../src/dialects/operator.ts';
import { sortedParamsText } from '../../src/dialects/operator-auth.ts';
import { startAggmock } from '../../src/runtime.ts';

/**
 * The worked examples of docs/operator-apis.md, read from the committed page and sent exactly as
 * printed to `aggmock serve --dialect <vendor>` with the default seed and development credentials:
 * each opens a launch session for the player and token it names.
 */

afterEach(runCleanups);

const page = readFileSync(new URL('../../docs/operator-apis.md', import.meta.url), 'utf8');

function section(vendor: string): string {
  const start = page.indexOf(`### ${vendor}\n`);
  if (start < 0) throw new Error(`no section ### ${vendor}`);
  const end = page.indexOf('\n### ', start + 4);
  return page.slice(start, end < 0 ? undefined : end);
}

function exampleOf(vendor: string) {
  const block = /```http\n([\s\S]*?)\n```/.exec(section(vendor))?.[1];
  if (block === undefined) throw new Error(`no example request for ${vendor}`);
  const [head = '', body = ''] = block.split('\n\n');
  const [requestLine = '', ...headerLines] = head.split('\n');
  const [, method = '', target = ''] = /^(\S+) (\S+) HTTP\/1\.1$/.exec(requestLine) ?? [];
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const),
  );
  return { method, target, headers, body };
}

describe.each(['hub88', 'caleta', 'pragmatic', 'softswiss', 'blueocean', 'evolution'])(
  'the %s worked example in docs/operator-apis.md',
  (vendor) => {
    it('launches as printed, opening a session for the player it names', async () => {
      const aggmock = await startAggmock(
        validateConfig({ port: 0, db: ':memory:', callbacks: { profile: vendor, webhookUrl: 'http://127.0.0.1:9/' } }),
      );
      onCleanup(() => aggmock.close());
      const example = exampleOf(vendor);
      const res = await fetch(`${aggmock.url}${example.target}`, {
        method: example.method,
        headers: example.headers,
        body: example.body,
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const session = /\/play\/([0-9a-f]{32})/.exec(text)?.[1];
      expect(session, text).toBeDefined();
      expect(aggmock.sessions.lookup(session as string)).toMatchObject({
        status: 'active',
        session: { playerId: 'player01', currency: 'EUR' },
      });
      // One byte changed in the body: refused, no session.
      const spoiled = await fetch(`${aggmock.url}${example.target}`, {
        method: example.method,
        headers: example.headers,
        body: example.body.replace('player01', 'player02'),
      });
      const spoiledText = await spoiled.text();
      if (vendor === 'blueocean' || vendor === 'evolution')
        expect(spoiled.status).toBe(200); // no body signature
      else expect(/\/play\//.test(spoiledText), spoiledText).toBe(false);
    });
  },
);

describe('the slotegrator signing example in docs/operator-apis.md', () => {
  it('prints the text X-Sign covers for its parameters and headers', () => {
    const printed = /```text\n([\s\S]*?)\n```/.exec(section('slotegrator'))?.[1];
    const api = builtinOperatorApi('slotegrator');
    const game = /game_uuid=([0-9a-f]{32})/.exec(printed ?? '')?.[1] ?? '';
    const text = sortedParamsText(api?.auth as Extract<OperatorAuth, { kind: 'sorted-params' }>, {
      params: {
        game_uuid: game,
        player_id: 'player01',
        player_name: 'Player One',
        currency: 'EUR',
        session_id: 'tok-player01-0123456789',
      },
      headers: { 'x-merchant-id': 'aggmock-merchant', 'x-nonce': '5f0c2a', 'x-timestamp': '1764000000' },
    });
    expect(printed).toBe(text);
  });
});
