import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * Bad input on every vendor route: an empty body, text that is not what the route's encoding says,
 * a JSON array, deep nesting, a huge body, an unknown selector. Each is answered as the vendor
 * refuses (never a 500, never a session), naming what was expected.
 */

const BAD_BODIES: [string, string | undefined, string][] = [
  ['no body', undefined, 'application/json'],
  ['not JSON', '{"user": ', 'application/json'],
  ['a JSON array', '[1,2,3]', 'application/json'],
  ['deep nesting', `${'['.repeat(5000)}${']'.repeat(5000)}`, 'application/json'],
  ['form text to a JSON route', 'a=1&b=2', 'application/x-www-form-urlencoded'],
  ['bytes that are not UTF-8', '\u00ff\u00fe', 'application/json'],
];

describe.each(BUILTIN_OPERATOR_APIS)('bad input on the %s operator routes', (name) => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 1, games: 3 },
        callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
      }),
    );
  });
  afterAll(() => aggmock.close());

  it('refuses each the vendor\u2019s way: no 500, no session, a reason in X-Aggmock-Refusal', async () => {
    const api = builtinOperatorApi(name);
    if (!api) throw new Error(name);
    for (const route of api.routes) {
      const path = `${api.basePath}${route.path}`.replace(/:([^/]+)/g, 'x');
      for (const [label, body, type] of BAD_BODIES) {
        if (route.method === 'GET' && body !== undefined) continue;
        const res = await fetch(`${aggmock.url}${path}`, {
          method: route.method,
          headers: { 'content-type': type },
          ...(body === undefined || route.method === 'GET'
            ? {}
            : { body: label === 'bytes that are not UTF-8' ? Buffer.from([0xff, 0xfe, 0x7b]) : body }),
        });
        const text = await res.text();
        expect(res.status, `${route.method} ${path} with ${label}: ${text}`).toBeLessThan(500);
        expect(text, `${route.method} ${path} with ${label}`).not.toMatch(/\/play\//);
        const reason = res.headers.get('x-aggmock-refusal');
        if (res.status < 400) expect(reason, `${route.method} ${path} with ${label}: ${text}`).toBeTruthy();
      }
    }
    expect(aggmock.sessions.size).toBe(0);
  });

  it('refuses a body over limits.bodyBytes with 413', async () => {
    const api = builtinOperatorApi(name);
    const route = api?.routes.find((r) => r.method === 'POST');
    if (!api || !route) return;
    const path = `${api.basePath}${route.path}`.replace(/:([^/]+)/g, 'x');
    const res = await fetch(`${aggmock.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"x":"${'a'.repeat(2_000_000)}"}`,
    });
    expect(res.status).toBe(413);
  });
});
