import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  callbackFaultCreatedResponseSchema,
  callbackFaultsResponseSchema,
  deliveriesResponseSchema,
  deliveryResponseSchema,
  discrepanciesResponseSchema,
  enqueuedResponseSchema,
  faultCreatedResponseSchema,
  faultsRemovedResponseSchema,
  faultsResponseSchema,
  ledgerResponseSchema,
  requestCountResponseSchema,
  requestResponseSchema,
  requestsClearedResponseSchema,
  requestsResponseSchema,
  resetResponseSchema,
  scenarioRunResponseSchema,
  scenariosResponseSchema,
  scheduleResponseSchema,
} from '../../src/admin/responses.ts';
import { validateConfig } from '../../src/config/index.ts';
import { renderOpenApiDocument } from '../../src/openapi/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

interface OpenApiDoc {
  paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('the admin API in /openapi.json', () => {
  const doc = JSON.parse(renderOpenApiDocument()) as OpenApiDoc;

  it('names its schemas and the optional bearer token', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['AdminDelivery', 'AdminAttempt', 'AdminDiscrepancy', 'AdminPlayerBalance']),
    );
    expect(doc.components.securitySchemes.adminBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/__admin/events']?.post?.responses).toHaveProperty('202');
  });
});

describe('the admin API answers as its documented schemas say', () => {
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  beforeAll(async () => {
    const base = validateConfig({ db: ':memory:', port: 0, callbacks: { retrySchedule: [0], jitter: 0 } });
    // A double-debit wallet, so the ledger has a discrepancy to list.
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0, fault: 'double-debit' });
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { ...base.callbacks, webhookUrl: wallet.webhookUrl } }));
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  async function call<S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown): Promise<z.infer<S>> {
    const res = await fetch(`${aggmock.url}/__admin${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, path).toBeLessThan(300);
    return schema.parse(await res.json());
  }

  it('for fault rules and the request journal', async () => {
    const created = await call(faultCreatedResponseSchema, 'POST', '/faults', {
      match: { path: '/getallproviders' },
      fault: { kind: 'delay', uniform: { min: 1, max: 2 } },
      times: 1,
    });
    await fetch(`${aggmock.url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
    await fetch(`${aggmock.url}/getgameurls`, { method: 'POST', body: '{}' });
    expect((await call(faultsResponseSchema, 'GET', '/faults')).faults[0]?.fired).toBe(1);
    const page = await call(requestsResponseSchema, 'GET', '/requests?limit=10');
    expect(page.requests.map((r) => r.path)).toEqual(['/getgameurls', '/getallproviders']);
    await call(requestResponseSchema, 'GET', `/requests/${page.requests[0]?.id}`);
    expect((await call(requestCountResponseSchema, 'POST', '/requests/count', { path: '/getallproviders' })).count).toBe(1);
    await call(faultsRemovedResponseSchema, 'DELETE', `/faults/${created.fault.id}`);
    await call(faultsRemovedResponseSchema, 'DELETE', '/faults');
    await call(requestsClearedResponseSchema, 'DELETE', '/requests');
  });

  it('for callback fault rules', async () => {
    const created = await call(callbackFaultCreatedResponseSchema, 'POST', '/callback-faults', {
      match: { event: 'debit', player: 'p9' },
      fault: { kind: 'duplicate', afterMs: 5 },
      times: 1,
    });
    expect((await call(callbackFaultsResponseSchema, 'GET', '/callback-faults')).faults.map((f) => f.id)).toEqual([
      created.fault.id,
    ]);
    await call(faultsRemovedResponseSchema, 'DELETE', `/callback-faults/${created.fault.id}`);
    expect((await call(faultsRemovedResponseSchema, 'DELETE', '/callback-faults')).removed).toBe(0);
  });

  it('for events, scenarios, deliveries, attempts, replays, rollbacks, discrepancies, the ledger, the schedule and reset', async () => {
    const debit = await call(enqueuedResponseSchema, 'POST', '/events?wait=true', { type: 'debit', playerId: 'p1', amount: 5 });
    expect(debit.event.status).toBe('delivered');
    await call(enqueuedResponseSchema, 'POST', '/events', { type: 'credit', playerId: 'p1', amount: 2.5 });
    await call(scenariosResponseSchema, 'GET', '/scenarios');
    await call(scenarioRunResponseSchema, 'POST', '/scenarios/bet-win/run');
    const run = await call(scenarioRunResponseSchema, 'POST', '/scenarios/duplicate-debit/run?wait=true', { players: ['p2'] });
    expect(run.ok).toBeDefined();
    const page = await call(deliveriesResponseSchema, 'GET', '/deliveries?limit=2');
    expect(page.deliveries).toHaveLength(2);
    const one = await call(deliveryResponseSchema, 'GET', `/deliveries/${debit.event.id}`);
    expect(one.attempts.length).toBeGreaterThan(0);
    await call(enqueuedResponseSchema, 'POST', `/deliveries/${debit.event.id}/replay?wait=true`);
    await call(enqueuedResponseSchema, 'POST', `/deliveries/${debit.event.id}/rollback?wait=true`);
    const discrepancies = await call(discrepanciesResponseSchema, 'GET', '/discrepancies');
    expect(discrepancies.total).toBeGreaterThan(0);
    const ledger = await call(ledgerResponseSchema, 'GET', '/ledger');
    expect(ledger.balances.map((b) => b.playerId)).toContain('p1');
    await call(scheduleResponseSchema, 'GET', '/schedule');
    expect((await call(resetResponseSchema, 'POST', '/reset')).reset).toBe(true);
  });
});
