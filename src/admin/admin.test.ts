import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../callbacks/db.ts';
import { createCallbackEngine } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { type AggmockConfigInput, deepMerge, validateConfig } from '../config/index.ts';
import { createShadowLedger } from '../ledger/index.ts';
import { startStubWallet, type WalletBug } from '../ledger/test-wallet.ts';
import { createAdminRoutes } from './index.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(options: { bugs?: WalletBug[]; config?: AggmockConfigInput } = {}) {
  const wallet = await startStubWallet({ bugs: options.bugs ?? [], types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } });
  const config = validateConfig(
    deepMerge(
      {
        seed: 11,
        callbacks: {
          webhookUrl: wallet.url,
          retrySchedule: [0],
          jitter: 0,
          types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' },
        },
      },
      (options.config ?? {}) as Record<string, unknown>,
    ),
  );
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db });
  engine.start();
  const internal: unknown[] = [];
  const app = createAdminRoutes({
    engine,
    ledger,
    config,
    random: seededRandom(1),
    catalog: { games: [{ id: 'a'.repeat(32) }] },
    onInternalError: (e) => internal.push(e),
  });
  cleanups.push(async () => {
    ledger.close();
    await engine.stop();
    db.close();
    await wallet.close();
  });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON replies
    return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
  };
  return { app, call, engine, ledger, wallet, internal };
}

describe('admin API', () => {
  it('triggers a DEBIT (any case or the configured type) and answers 202 with the stored event, or 200 settled with wait=true', async () => {
    const { call, wallet } = await setup();
    const queued = await call('POST', '/events', { type: 'Debit', playerId: 'p1', amount: 5 });
    expect(queued.status).toBe(202);
    expect(queued.body.event).toMatchObject({ kind: 'debit', playerId: 'p1', amountMinor: 500, amount: 5, status: 'pending' });
    const settled = await call('POST', '/events?wait=true', {
      type: 'bet',
      playerId: 'p1',
      amount: '2.50',
      transactionId: 'manual-1',
    });
    expect(settled.status).toBe(200);
    expect(settled.body.event).toMatchObject({
      status: 'delivered',
      transactionId: 'manual-1',
      reply: { status: 200, body: { balance: 992.5 } },
    });
    expect(wallet.received.at(-1)).toEqual({ type: 'BET', transactionId: 'manual-1', amount: 2.5, playerId: 'p1' });
  });

  it('sends a ROLLBACK of a known DEBIT with its amount when none is given', async () => {
    const { call } = await setup();
    await call('POST', '/events?wait=true', { type: 'debit', playerId: 'p1', amount: 7, transactionId: 'd-1' });
    const res = await call('POST', '/events?wait=true', { type: 'REFUND', playerId: 'p1', referenceTransactionId: 'd-1' });
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({ kind: 'rollback', amountMinor: 700, reply: { body: { balance: 1000 } } });
  });

  it('answers bad input with a 400 that names the field', async () => {
    const { call } = await setup();
    const cases: Array<[unknown, string]> = [
      [{ type: 'jackpot', playerId: 'p1', amount: 1 }, 'type'],
      [{ type: 'debit', playerId: '', amount: 1 }, 'playerId'],
      [{ type: 'debit', playerId: 'p1', amount: 1.005 }, 'amount'],
      [{ type: 'debit', playerId: 'p1', amount: 'ten' }, 'amount'],
      [{ type: 'debit', playerId: 'p1' }, 'amount'],
      [{ type: 'rollback', playerId: 'p1', amount: 1 }, 'referenceTransactionId'],
      [{ type: 'rollback', playerId: 'p1', referenceTransactionId: 'never-sent' }, 'amount'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/events', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors?.[0]?.field, JSON.stringify(body)).toBe(field);
      expect(res.body).toMatchObject({ success: false, code: 400 });
    }
    expect((await call('POST', '/events', '{"type":')).status).toBe(400);
    expect((await call('POST', '/events', '[1]')).status).toBe(400);
    expect((await call('GET', '/deliveries?status=lost')).body.errors[0].field).toBe('status');
    expect((await call('GET', '/deliveries?limit=0')).body.errors[0].field).toBe('limit');
    expect((await call('GET', '/deliveries/abc')).body.errors[0].field).toBe('id');
    // A filter the list does not take is refused, naming it, not ignored (which would list everything).
    const unknown = await call('GET', '/deliveries?playerId=p1');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      field: 'playerId',
      message: expect.stringContaining('expected one of player,'),
    });
    expect((await call('GET', '/discrepancies?type=double-debit')).body.errors[0].field).toBe('type');
    expect((await call('GET', '/deliveries?player=p1&limit=5')).status).toBe(200);
    expect((await call('GET', '/discrepancies?kind=double-debit&player=p1')).status).toBe(200);
  });

  it('runs a scenario: 202 with the group and its first events, or 200 with the settled summary', async () => {
    const { call } = await setup();
    const list = await call('GET', '/scenarios');
    expect(list.body.scenarios).toHaveLength(13);
    expect(list.body.scenarios[0]).toEqual({ name: 'bet-win', description: expect.stringContaining('DEBIT') });
    // A rollback of a win is a vendor dialect's call: the default profile refuses the scenario, saying which have it.
    const refused = await call('POST', '/scenarios/win-rollback/run', { players: ['p4'] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(
      /rollbackWin call, and \\"default\\" has none \(groove and slotegrator have one\)/,
    );

    const queued = await call('POST', '/scenarios/burst/run', { players: ['p4'], size: 3, amount: 2 });
    expect(queued.status).toBe(202);
    expect(queued.body.events).toHaveLength(3);
    expect(queued.body.events[0]).toMatchObject({ playerId: 'p4', amountMinor: 200, gameId: 'a'.repeat(32) });

    const done = await call('POST', '/scenarios/bet-win/run?wait=true', { players: ['p2'], amount: { min: 1, max: 2 } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ scenario: 'bet-win', playerId: 'p2', ok: true });
    expect(done.body.steps.map((s: { status: string }) => s.status)).toEqual(['delivered', 'delivered']);

    const group = await call('GET', `/deliveries?group=${encodeURIComponent(done.body.group)}`);
    expect(group.body.deliveries).toHaveLength(2);

    expect((await call('POST', '/scenarios/lottery/run', {})).status).toBe(404);
    const bad = await call('POST', '/scenarios/burst/run', { size: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('size');
    expect((await call('POST', '/scenarios/bet-lose/run?wait=true')).status).toBe(200); // no body: defaults
  });

  it('lists deliveries newest first with filters and a cursor, and shows one with its attempts', async () => {
    const { call } = await setup();
    for (let i = 1; i <= 3; i++) await call('POST', '/events?wait=true', { type: 'debit', playerId: 'p1', amount: i });
    await call('POST', '/events?wait=true', { type: 'credit', playerId: 'p2', amount: 1 });
    const page1 = await call('GET', '/deliveries?player=p1&limit=2');
    expect(page1.body.deliveries.map((d: { amount: number }) => d.amount)).toEqual([3, 2]);
    const page2 = await call('GET', `/deliveries?player=p1&limit=2&before=${page1.body.nextBefore}`);
    expect(page2.body.deliveries.map((d: { amount: number }) => d.amount)).toEqual([1]);
    expect(page2.body.nextBefore).toBeNull();
    expect((await call('GET', '/deliveries?type=WIN')).body.deliveries).toHaveLength(1);
    expect((await call('GET', '/deliveries?status=delivered')).body.deliveries).toHaveLength(4);

    const id = page2.body.deliveries[0].id;
    const one = await call('GET', `/deliveries/${id}`);
    expect(one.body.delivery.id).toBe(id);
    expect(one.body.attempts).toEqual([expect.objectContaining({ n: 1, outcome: 'delivered', responseStatus: 200 })]);
    expect(one.body.attempts[0].requestHeaders['X-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await call('GET', '/deliveries/999')).status).toBe(404);
  });

  it('replays a delivery as a new event with the same body, and rolls back a DEBIT (409 for anything else)', async () => {
    const { call, ledger } = await setup();
    const debit = (await call('POST', '/events?wait=true', { type: 'debit', playerId: 'p3', amount: 4 })).body.event;
    const replay = await call('POST', `/deliveries/${debit.id}/replay?wait=true`);
    expect(replay.status).toBe(200);
    expect(replay.body.event).toMatchObject({ body: debit.body, source: `replay:${debit.id}`, reply: debit.reply });
    const rollback = await call('POST', `/deliveries/${debit.id}/rollback?wait=true`);
    expect(rollback.body.event).toMatchObject({
      kind: 'rollback',
      referenceTransactionId: debit.transactionId,
      amountMinor: 400,
    });
    expect(ledger.balance('p3')?.balance).toBe(1000);
    const notDebit = await call('POST', `/deliveries/${rollback.body.event.id}/rollback`);
    expect(notDebit.status).toBe(409);
    expect(notDebit.body.message).toContain('only a DEBIT');
    expect((await call('GET', '/discrepancies')).body).toMatchObject({ discrepancies: [], total: 0 });
  });

  it('shows discrepancies and ledger balances, and clears everything on reset', async () => {
    const { call } = await setup({ bugs: ['double-debit-on-duplicate'] });
    await call('POST', '/scenarios/duplicate-debit/run?wait=true', { players: ['p1'], amount: 3 });
    const found = await call('GET', '/discrepancies?kind=double-debit');
    expect(found.body.total).toBe(1);
    expect(found.body.discrepancies[0]).toMatchObject({ kind: 'double-debit', playerId: 'p1', expected: 997, actual: 994 });
    expect((await call('GET', '/discrepancies?player=p2')).body.total).toBe(0);
    expect((await call('GET', '/discrepancies?kind=odd')).status).toBe(400);
    const ledger = await call('GET', '/ledger');
    expect(ledger.body.balances).toEqual([expect.objectContaining({ playerId: 'p1', balance: 994, uncertain: false })]);

    const reset = await call('POST', '/reset');
    expect(reset.body).toEqual({ reset: true, removedDeliveries: 2 });
    expect((await call('GET', '/deliveries')).body.deliveries).toEqual([]);
    expect((await call('GET', '/discrepancies')).body.total).toBe(0);
    expect((await call('GET', '/ledger')).body.balances).toEqual([]);
  });

  it('wants the bearer token when one is configured: 401 JSON without it or with a wrong one', async () => {
    const { call } = await setup({ config: { admin: { token: 's3cret' } } });
    const missing = await call('GET', '/ledger');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, code: 401, message: expect.stringContaining('Bearer') });
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    expect((await call('GET', '/ledger', undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await call('GET', '/ledger', undefined, { authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it('answers unknown routes with JSON 404 and its own failures with a JSON 500 that leaks no stack', async () => {
    const { call, ledger, internal } = await setup();
    expect((await call('GET', '/nothing')).body).toMatchObject({ success: false, code: 404 });
    ledger.balances = () => {
      throw new Error('boom at /secret/path.ts:12');
    };
    const res = await call('GET', '/ledger');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain('secret');
    expect(res.body).toMatchObject({ success: false, code: 500 });
    expect(internal).toHaveLength(1);
  });

  it('works over real HTTP when mounted under /__admin', async () => {
    const { app } = await setup();
    const { Hono } = await import('hono');
    const root = new Hono().route('/__admin', app);
    const server = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/__admin`;
    const res = await fetch(`${base}/events?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'debit', playerId: 'p5', amount: 1.25 }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { event: { status: string } }).event.status).toBe('delivered');
    const ledger = (await (await fetch(`${base}/ledger`)).json()) as { balances: Array<{ playerId: string; balance: number }> };
    expect(ledger.balances).toEqual([expect.objectContaining({ playerId: 'p5', balance: 998.75 })]);
  });
});
