import { describe, expect, it } from 'vitest';
import { requestResponseSchema, requestsResponseSchema } from '../../src/admin/responses.ts';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../src/dialects/operator.ts';
import { operatorRequest, operatorRouteFor } from '../../src/dialects/operator-client.ts';
import { startAggmock } from '../../src/runtime.ts';

/**
 * A request to a vendor's operator API is journaled with `auth.method: "operator"`: the admin API's
 * documented schema (openapi.json) names that method too, so a client generated from it reads the
 * journal of an operator-API run (the schema listed none, api-key and hmac only).
 */
describe('the request journal of a vendor operator API, read through the admin API', () => {
  it('answers as its documented schema says, with auth.method "operator"', async () => {
    const aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 5 },
        callbacks: { dialect: 'hub88', webhookUrl: 'http://x.invalid/' },
      }),
    );
    try {
      const api = builtinOperatorApi('hub88') as OperatorApi;
      const call = operatorRequest(api, operatorRouteFor(api, 'list-games') as never, {}, operatorCredentials(api, {}, 'hub88'));
      const res = await fetch(`${aggmock.url}${call.path}`, { method: call.method, headers: call.headers, body: call.body });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      let listed: unknown;
      for (let i = 0; i < 50; i++) {
        listed = await (await fetch(`${aggmock.url}/__admin/requests`)).json();
        if ((listed as { requests: unknown[] }).requests.length > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const page = requestsResponseSchema.parse(listed);
      expect(page.requests[0]?.auth).toEqual({ ok: true, method: 'operator', header: 'X-Hub88-Signature' });
      const one = await (await fetch(`${aggmock.url}/__admin/requests/${page.requests[0]?.id}`)).json();
      expect(requestResponseSchema.parse(one).request.auth).toMatchObject({ method: 'operator' });
    } finally {
      await aggmock.close();
    }
  });
});
