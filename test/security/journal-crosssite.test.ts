import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { isCrossSiteRequest } from '../../src/http/same-origin.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * L-6 (review 2026-11-27): any web page open in the developer's browser could write the local
 * request journal (no-cors text/plain POSTs); its requests counted in a test's
 * `requests.count(...)` and spent `times`/`nth` fault rules meant for the client under test. Now
 * such requests are journaled marked `crossSite: true`, no fault rule fires for them, and `count`
 * leaves them out unless the matcher asks (`crossSite: true`).
 */
describe('L-6: cross-site browser writes to the aggregator API', () => {
  let aggmock: Aggmock;
  const body = '{"username":"p1","currency":"EUR"}';
  const launch = (headers: Record<string, string>) =>
    fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
      body,
    });
  const matcher = { method: 'POST', path: '/getgameurl', body: { username: 'p1', currency: 'EUR' } };
  const FOREIGN = [
    ['a no-cors page with Origin and Sec-Fetch-Site', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: cross-site alone (an image or form GET/POST)', { 'sec-fetch-site': 'cross-site' }],
    ['an Origin of another host alone (an older browser)', { origin: 'http://evil.example:8080' }],
    ['an opaque Origin: null (a sandboxed page)', { origin: 'null' }],
  ] as const;

  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 } }));
  });
  beforeEach(() => {
    aggmock.requests.clear();
    aggmock.faults.clear();
  });
  afterAll(async () => {
    await aggmock?.close();
  });

  it.each(FOREIGN)('does not count %s, and journals it marked', async (_what, headers) => {
    for (let i = 0; i < 3; i++) await (await launch(headers)).arrayBuffer();
    await (await launch({})).arrayBuffer(); // the client under test (a script: no Origin, no Sec-Fetch-*)
    expect(aggmock.requests.count(matcher)).toBe(1);
    expect(aggmock.requests.count({ ...matcher, crossSite: true })).toBe(3);
    expect(aggmock.requests.count({ ...matcher, crossSite: false })).toBe(1);
    const entries = aggmock.requests.list({ limit: 10 });
    expect(entries).toHaveLength(4);
    expect(entries.filter((e) => e.crossSite === true)).toHaveLength(3);
  });

  it('counts its own requests in every style a client or a same-site page sends them', async () => {
    const own: Record<string, string>[] = [
      {},
      { 'sec-fetch-site': 'same-origin', origin: aggmock.url },
      { 'sec-fetch-site': 'same-site', origin: aggmock.url.replace(/:\d+$/, ':3000') }, // a dev server on another port
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of own) await (await launch(headers)).arrayBuffer();
    expect(aggmock.requests.count(matcher)).toBe(own.length);
    expect(aggmock.requests.count({ ...matcher, crossSite: true })).toBe(0);
    expect(aggmock.requests.list({ limit: 10 }).some((e) => e.crossSite)).toBe(false);
  });

  it('fires no times/nth rule for a cross-site request: the client under test still meets it', async () => {
    const once = aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 503 }, times: 1 });
    const second = aggmock.faults.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 502 }, nth: 2 });
    for (const [, headers] of FOREIGN) expect((await launch(headers)).status).not.toBe(503);
    expect(aggmock.faults.list().find((r) => r.id === once.id)).toMatchObject({ matched: 0, spent: false });
    expect((await launch({})).status).toBe(503);
    expect((await launch({})).status).toBe(502);
    const listed = aggmock.faults.list();
    expect(listed.find((r) => r.id === once.id)).toMatchObject({ matched: 1, spent: true });
    expect(listed.find((r) => r.id === second.id)).toMatchObject({ matched: 2 });
  });

  it('tells cross-site requests from the rest by Sec-Fetch-Site and Origin against Host', () => {
    expect(isCrossSiteRequest({ 'sec-fetch-site': 'cross-site', host: '127.0.0.1:4000' })).toBe(true);
    expect(isCrossSiteRequest({ 'sec-fetch-site': 'Cross-Site' })).toBe(true);
    expect(isCrossSiteRequest({ origin: 'https://evil.example', host: '127.0.0.1:4000' })).toBe(true);
    expect(isCrossSiteRequest({ origin: 'http://localhost:4000', host: '127.0.0.1:4000' })).toBe(true);
    expect(isCrossSiteRequest({ origin: 'null', host: '127.0.0.1:4000' })).toBe(true);
    expect(isCrossSiteRequest({ host: '127.0.0.1:4000' })).toBe(false);
    expect(isCrossSiteRequest({ origin: 'http://127.0.0.1:3000', host: '127.0.0.1:4000' })).toBe(false);
    expect(isCrossSiteRequest({ origin: 'http://LOCALHOST:4000', host: 'localhost:4000', 'sec-fetch-site': 'same-origin' })).toBe(
      false,
    );
    expect(isCrossSiteRequest({ 'sec-fetch-site': 'same-site', host: 'a' })).toBe(false);
  });
});

describe('L-6: the admin API shows and counts cross-site requests', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 } }));
  });
  afterAll(async () => {
    await aggmock?.close();
  });

  it('lists the entry marked and counts it only when asked', async () => {
    await (
      await fetch(`${aggmock.url}/getgameurl`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' }, body: '{}' })
    ).arrayBuffer();
    const list = (await (await fetch(`${aggmock.url}/__admin/requests`)).json()) as { requests: { crossSite?: boolean }[] };
    expect(list.requests.map((r) => r.crossSite)).toEqual([true]);
    const count = async (body: object) =>
      (
        await (
          await fetch(`${aggmock.url}/__admin/requests/count`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()
      ).count;
    expect(await count({ path: '/getgameurl' })).toBe(0);
    expect(await count({ path: '/getgameurl', crossSite: true })).toBe(1);
    const bad = await fetch(`${aggmock.url}/__admin/requests/count`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"crossSite":"yes"}',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('crossSite');
  });
});
