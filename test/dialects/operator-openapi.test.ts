import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { OPERATOR_VENDORS } from './operator-vendors.ts';
import { PLAYER } from './vendor-table.ts';

/** Each vendor's operator API documented at /operator-openapi.json, from the same data it is served from. */

afterEach(runCleanups);

async function serve(profile: string, credentials: Record<string, string> = {}) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 1, games: 3 },
      callbacks: { profile, webhookUrl: 'http://127.0.0.1:9/' },
      ...(Object.keys(credentials).length ? { operator: { credentials } } : {}),
    }),
  );
  onCleanup(() => aggmock.close());
  return aggmock;
}

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { securitySchemes: Record<string, { name?: string; scheme?: string }> };
  info: { description: string };
};
type Schema = { required?: string[]; properties?: Record<string, Schema> };

describe.each(BUILTIN_OPERATOR_APIS)('GET /operator-openapi.json under --dialect %s', (name) => {
  it("documents every route the vendor's API serves, its refusals, its auth and what is unknown", async () => {
    const aggmock = await serve(name);
    const res = await fetch(`${aggmock.url}/operator-openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Doc;
    const api = builtinOperatorApi(name);
    if (!api) throw new Error(name);
    for (const route of api.routes) {
      const path = `${api.basePath}${route.path}`.replace(/:([^/]+)/g, '{$1}');
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      for (const refusal of Object.values(api.refusals))
        expect(Object.keys(operation?.responses ?? {})).toContain(String(refusal.status));
    }
    expect(Object.keys(doc.paths)).not.toContain('/getgameurl');
    expect(doc.components.securitySchemes.operator).toBeDefined();
    for (const unknown of api.unknown) expect(doc.info.description).toContain(unknown);
  });
});

describe('the documented launch reply', () => {
  it("has the members Hub88's real reply carries", async () => {
    const hub88 = OPERATOR_VENDORS.find((v) => v.name === 'hub88');
    if (!hub88) throw new Error('hub88');
    const { credentials, client } = hub88.operator();
    const aggmock = await serve('hub88', credentials);
    const doc = (await (await fetch(`${aggmock.url}/operator-openapi.json`)).json()) as Doc;
    const schema = doc.paths['/operator/generic/v2/game/url']?.post?.responses['200']?.content?.['application/json']?.schema;
    expect(schema?.required).toEqual(['url']);
    const game = aggmock.catalog.games[0];
    const url = await client(aggmock.url).launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game?.id as string,
      mode: 'real',
      token: PLAYER.token as string,
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/play\/[0-9a-f]{32}$/);
  });

  it('is not served when the dialect is a profile: the seed API alone', async () => {
    const aggmock = await serve('default');
    expect((await fetch(`${aggmock.url}/operator-openapi.json`)).status).toBe(404);
    expect((await fetch(`${aggmock.url}/operator/generic/v2/game/list`, { method: 'POST' })).status).toBe(404);
  });
});
