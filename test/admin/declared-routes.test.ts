import { afterAll, describe, expect, it } from 'vitest';
import { closeInstances, instance } from './instance.ts';

/**
 * The admin API is served by its declarations (`createRoute` + `.openapi`), mounted at /__admin as
 * the runtime mounts it: the routes /openapi.json lists are the routes served, and every one of
 * them is behind the same credentials, checked before any input is read.
 */

afterAll(closeInstances);

interface Doc {
  paths: Record<string, Record<string, { security?: unknown[] }>>;
}

let documented: Promise<[string, string, string | undefined][]> | undefined;

/** Every admin route the served document lists, as [METHOD, concrete path, body] (the document is the same whatever the token: read once). */
function documentedRoutes(app: ReturnType<typeof instance>['app']): Promise<[string, string, string | undefined][]> {
  documented ??= readDocumentedRoutes(app);
  return documented;
}

async function readDocumentedRoutes(app: ReturnType<typeof instance>['app']): Promise<[string, string, string | undefined][]> {
  const doc = (await (await app.request('/openapi.json')).json()) as Doc;
  const routes: [string, string, string | undefined][] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/__admin/')) continue;
    for (const method of Object.keys(methods)) {
      const concrete = path.replace('{id}', '1').replace('{name}', 'bet-win');
      // Bodies that would move money or add rules if anything let them through.
      const body =
        method !== 'post'
          ? undefined
          : path.endsWith('/events')
            ? JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 })
            : path.endsWith('faults')
              ? JSON.stringify({ fault: { kind: 'status', status: 503 } })
              : '{}';
      routes.push([method.toUpperCase(), concrete, body]);
    }
  }
  return routes;
}

const send = (app: ReturnType<typeof instance>['app'], method: string, path: string, body?: string, headers = {}) =>
  app.request(path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
  });

describe('the admin API in /openapi.json is the admin API served', () => {
  it('lists every capability’s routes once, under /__admin, each naming the optional bearer scheme', async () => {
    const { app } = instance();
    const routes = await documentedRoutes(app);
    expect(routes.map(([m, p]) => `${m} ${p}`)).toEqual(
      expect.arrayContaining([
        'POST /__admin/events',
        'POST /__admin/scenarios/bet-win/run',
        'GET /__admin/deliveries/1',
        'GET /__admin/discrepancies',
        'DELETE /__admin/faults/1',
        'POST /__admin/callback-faults',
        'POST /__admin/requests/count',
        'POST /__admin/reset',
      ]),
    );
    expect(routes).toHaveLength(23);
    const doc = (await (await app.request('/openapi.json')).json()) as Doc;
    for (const [path, methods] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/__admin/')))
      for (const op of Object.values(methods)) expect(op.security, path).toEqual([{}, { adminBearer: [] }]);
  });

  it('serves every documented route (none falls through to “No admin route”)', async () => {
    const { app } = instance();
    for (const [method, path, body] of await documentedRoutes(app)) {
      const res = await send(app, method, path, body);
      const answer = (await res.json()) as { message?: string };
      expect(answer.message ?? '', `${method} ${path}`).not.toMatch(/^No (admin )?route/);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
  });

  it('does not serve a route it does not document', async () => {
    const { app } = instance();
    for (const [method, path] of [
      ['PUT', '/__admin/events'],
      ['GET', '/__admin/reset'],
      ['POST', '/__admin/deliveries'],
    ] as const) {
      const res = await send(app, method, path, method === 'GET' ? undefined : '{}');
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('input, judged by the declaration before the handler runs', () => {
  it('refuses a query parameter a route does not name (a misspelt wait would not wait), naming it, and enqueues nothing', async () => {
    const { app, state } = instance();
    const event = JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 });
    const res = await send(app, 'POST', '/__admin/events?wiat=true', event);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ field: 'wiat', message: 'unknown query parameter; expected one of wait, timeout' }),
    ]);
    const badWait = await send(app, 'POST', '/__admin/events?wait=maybe', event);
    expect(badWait.status).toBe(400);
    expect(state().deliveries).toBe(0);
    for (const query of ['', '?wait=false', '?wait=0&timeout=0']) {
      expect((await send(app, 'POST', `/__admin/events${query}`, event)).status, query).toBe(202);
    }
    expect(state().deliveries).toBe(3);
  });

  it('reads a body through the one strict JSON reader: malformed, not an object or invalid UTF-8 is a 400 on (body)', async () => {
    const { app, state } = instance();
    for (const body of ['{"type":', '[1]', '"debit"', 'null', Buffer.from([0x7b, 0xff, 0x7d])]) {
      const res = await app.request('/__admin/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status, String(body)).toBe(400);
      expect(((await res.json()) as { errors: { field: string }[] }).errors[0]?.field, String(body)).toBe('(body)');
    }
    // An optional body may be absent or empty: a scenario run with its defaults.
    expect((await send(app, 'POST', '/__admin/scenarios/bet-win/run')).status).toBe(202);
    expect((await send(app, 'POST', '/__admin/scenarios/bet-win/run', '')).status).toBe(202);
    expect((await send(app, 'POST', '/__admin/scenarios/lottery/run', '{}')).status).toBe(404);
    expect(state().deliveries).toBeGreaterThan(0);
  });
});

describe('admin credentials, for every documented route', () => {
  it('with admin.token set: no token or a wrong one is a 401 on every route, before its input is read, and changes nothing', async () => {
    const { app, state } = instance({ admin: { token: 's3cret' } });
    const before = state();
    for (const [method, path, body] of await documentedRoutes(app)) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret' }]) {
        const res = await send(app, method, path, body, headers);
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
      }
      // Bad input too: the credentials are judged first, so a 400 cannot tell anything to a stranger.
      const bad = await send(app, method, `${path}?limit=0&wiat=true`, body === undefined ? undefined : '{"type":', {});
      expect(bad.status, `${method} ${path} with bad input`).toBe(401);
    }
    expect(state()).toEqual(before);
  });

  it('with admin.token set: the right token passes on every route', async () => {
    const { app } = instance({ admin: { token: 's3cret' } });
    const statuses: Record<string, number> = {};
    for (const [method, path, body] of await documentedRoutes(app)) {
      const res = await send(app, method, path, body, { authorization: 'Bearer s3cret' });
      statuses[`${method} ${path}`] = res.status;
      expect(res.status, `${method} ${path}`).not.toBe(401);
      expect(res.status, `${method} ${path}`).not.toBe(403);
    }
    expect(statuses).toMatchObject({ 'POST /__admin/events': 202, 'POST /__admin/faults': 201, 'POST /__admin/reset': 200 });
  });

  it('exposed (a public URL) without a token: every route is refused outright (403) and nothing changes', async () => {
    const { app, state } = instance({ publicUrl: 'https://aggmock.example.invalid' });
    const before = state();
    for (const [method, path, body] of await documentedRoutes(app)) {
      const res = await send(app, method, path, body, { host: 'aggmock.example.invalid' });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(state()).toEqual(before);
  });

  it('on loopback without a token: open, as before', async () => {
    const { app } = instance();
    expect((await send(app, 'GET', '/__admin/ledger')).status).toBe(200);
  });
});
