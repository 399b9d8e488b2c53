import { describe, expect, it } from 'vitest';
import { readyMessage } from '../../src/cli/commands/serve.ts';
import { validateConfig } from '../../src/config/index.ts';

/** `aggmock serve --dialect <vendor>`'s banner names the vendor's operator API: its base URL, routes and OpenAPI URL. */
describe("the serve banner's operator line", () => {
  const banner = (extra: Record<string, unknown>) =>
    readyMessage(validateConfig({ db: ':memory:', ...extra }), 'http://127.0.0.1:4000').split('\n');

  it('names the base URL, the routes and the OpenAPI document of a vendor with an operator API', () => {
    const lines = banner({ callbacks: { profile: 'hub88', webhookUrl: 'http://127.0.0.1:9/' } });
    const line = lines.find((l) => l.startsWith('  operator '));
    expect(line).toBe(
      '  operator    http://127.0.0.1:4000/operator/generic/v2   (the hub88 operator API: POST /game/list, POST /game/url, POST /game/round, POST /freebet/prepaids/list, POST /freebet/rewards/create, POST /freebet/campaigns/create, POST /freebet/campaigns/list, POST /freebet/campaigns/info; OpenAPI: http://127.0.0.1:4000/operator-openapi.json)',
    );
    // Right after the seed's docs line.
    expect(lines[lines.indexOf(line as string) - 1]).toMatch(/^ {2}docs /);
  });

  it('uses the public URL when one is set, and the route methods of a GET listing (Evolution)', () => {
    const line = banner({
      publicUrl: 'https://games.example.test',
      callbacks: { profile: 'evolution', webhookUrl: 'http://127.0.0.1:9/' },
    }).find((l) => l.startsWith('  operator '));
    expect(line).toContain('https://games.example.test   (the evolution operator API: GET /api/lobby/v1/:casinoKey/state');
    expect(line).toContain('OpenAPI: https://games.example.test/operator-openapi.json');
  });

  it('has no operator line for a dialect without an operator API (the default, betnex)', () => {
    for (const profile of ['default', 'betnex']) {
      expect(banner({ callbacks: { profile } }).some((l) => l.startsWith('  operator '))).toBe(false);
    }
  });
});
