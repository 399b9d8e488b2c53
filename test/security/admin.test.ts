import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureRefusal, secureExposure } from '../../src/admin/exposure.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { startSmallAggmock } from '../api/helpers.ts';

/**
 * Any web page a developer visits can send requests to 127.0.0.1. The admin API and the UI's
 * actions therefore take only same-origin JSON: a cross-site form or text/plain POST, a foreign
 * Origin or a foreign Host (DNS rebinding) changes nothing.
 */
describe('admin API and UI actions refuse cross-site requests', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startSmallAggmock({ webhookUrl: 'http://127.0.0.1:9/hook', retrySchedule: [0, 3_600_000] });
  });
  afterAll(() => aggmock?.close());

  /** One event waits in the outbox; a reset would remove it. */
  async function seedEvent(): Promise<number> {
    const res = await fetch(`${aggmock.url}/__admin/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: aggmock.url },
      body: JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 }),
    });
    expect(res.status).toBe(202);
    return aggmock.engine.outbox.list({ limit: 1000 }).length;
  }

  const reset = (headers: Record<string, string>, body?: string) =>
    fetch(`${aggmock.url}/__admin/reset`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });

  it.each([
    ['JSON sent as text/plain (a form-free cross-site POST)', { 'content-type': 'text/plain' }, '{}', 415],
    ['a form post', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', 415],
    ['a foreign Origin', { 'content-type': 'application/json', origin: 'http://evil.invalid' }, '{}', 403],
    ['Origin: null (a sandboxed frame)', { 'content-type': 'application/json', origin: 'null' }, '{}', 403],
    ['Sec-Fetch-Site: cross-site', { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, '{}', 403],
  ])('refuses %s and resets nothing', async (_what, headers, body, status) => {
    const before = await seedEvent();
    const res = await reset(headers as Record<string, string>, body);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Type|Cross-(site|origin)/);
    expect(aggmock.engine.outbox.list({ limit: 1000 }).length).toBe(before);
  });

  it('refuses a foreign Host (DNS rebinding), for reads too', async () => {
    const app = (await import('../../src/admin/index.ts')).createAdminRoutes({
      engine: aggmock.engine,
      ledger: aggmock.ledger,
      config: aggmock.config,
    });
    const res = await app.request('http://rebound.invalid/deliveries', { headers: { host: 'rebound.invalid' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('not this server');
  });

  it('accepts same-origin JSON, as the UI sends it', async () => {
    await seedEvent();
    const res = await reset({ 'content-type': 'application/json', origin: aggmock.url, 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(200);
    expect(aggmock.engine.outbox.list({ limit: 10 })).toHaveLength(0);
  });

  it('refuses a cross-origin launch form and spin', async () => {
    const game = aggmock.catalog.games[0]!;
    const before = aggmock.sessions.size;
    const form = await fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.invalid' },
      body: new URLSearchParams({ gameId: game.id, username: 'p1', money: '10', platform: '1' }).toString(),
      redirect: 'manual',
    });
    expect(form.status).toBe(403);
    expect(aggmock.sessions.size).toBe(before);
    const spin = await fetch(`${aggmock.url}/play/x/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.invalid' },
      body: '{"bet":1}',
    });
    expect(spin.status).toBe(403);
  });
});

describe('binding beyond loopback', () => {
  const base = { db: ':memory:', port: 0 };

  it('generates an admin token and warns loudly when none is set', () => {
    const { config, warnings } = secureExposure(validateConfig({ ...base, host: '0.0.0.0' }));
    expect(config.admin.token).toMatch(/^[\w-]{32}$/);
    expect(warnings.join('\n')).toMatch(/WARNING: aggmock is bound to 0\.0\.0\.0[\s\S]*Admin token \(generated/);
    expect(warnings.join('\n')).toContain(config.admin.token);
  });

  it('keeps a configured token and says nothing on loopback', () => {
    expect(secureExposure(validateConfig({ ...base, host: '0.0.0.0', admin: { token: 'mine' } })).config.admin.token).toBe(
      'mine',
    );
    expect(secureExposure(validateConfig({ ...base, host: '127.0.0.1' })).warnings).toEqual([]);
  });

  it('will not start on a non-loopback address without a token (checked before binding)', async () => {
    const config = validateConfig({ ...base, host: '0.0.0.0' });
    expect(exposureRefusal(config)).toContain('admin.token');
    await expect(startAggmock(config)).rejects.toThrow(/admin\.token/);
  });
});
