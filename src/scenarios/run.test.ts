import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../callbacks/db.ts';
import { createCallbackEngine } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { validateConfig } from '../config/index.ts';
import { startStubWallet } from '../ledger/test-wallet.ts';
import { planScenario, type ScenarioParams } from './plan.ts';
import { runScenario, startScenario } from './run.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(players?: Record<string, number>) {
  const wallet = await startStubWallet(players ? { players } : {});
  const config = validateConfig({ seed: 3, callbacks: { webhookUrl: wallet.url, retrySchedule: [0], jitter: 0 } });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  engine.start();
  cleanups.push(async () => {
    await engine.stop();
    db.close();
    await wallet.close();
  });
  const rng = seededRandom(3);
  const plan = (name: string, p: Partial<ScenarioParams> = {}) =>
    planScenario(name, { players: ['p1'], amount: { min: 1, max: 5 }, ...p }, rng, () => engine.nextTransactionId());
  return { wallet, engine, plan };
}

describe('runScenario', () => {
  it('sends a bet, waits for it to be accepted, then sends the win, all in one group', async () => {
    const { engine, wallet, plan } = await setup();
    const summary = await runScenario(engine, plan('bet-win'));
    expect(summary.ok).toBe(true);
    expect(summary.events.map((e) => [e.kind, e.status])).toEqual([
      ['debit', 'delivered'],
      ['credit', 'delivered'],
    ]);
    expect(wallet.received.map((b) => b.type)).toEqual(['DEBIT', 'CREDIT']);
    expect(engine.outbox.list({ group: summary.group })).toHaveLength(2);
  });

  it('gives a rejected bet no win', async () => {
    const { engine, wallet, plan } = await setup({ p1: 0.5 });
    const summary = await runScenario(engine, plan('bet-win'));
    expect(summary.events.map((e) => e.status)).toEqual(['rejected']);
    expect(summary.steps[1]).toMatchObject({ key: 'win', status: 'skipped' });
    expect(summary.steps[1]?.status === 'skipped' && summary.steps[1].reason).toContain('not accepted');
    expect(wallet.received).toHaveLength(1);
    expect(summary.ok).toBe(true);
  });

  it('sends a duplicate DEBIT with the same body bytes after the first settled', async () => {
    const { engine, wallet, plan } = await setup();
    const summary = await runScenario(engine, plan('duplicate-debit'));
    const [first, second] = summary.events;
    expect(second?.body).toBe(first?.body);
    expect(second?.reply).toEqual(first?.reply);
    expect(wallet.received).toHaveLength(2);
  });

  it('enqueues the independent steps before returning and reports the rest when done', async () => {
    const { engine, plan } = await setup();
    const started = startScenario(engine, plan('burst', { size: 3 }));
    expect(started.enqueued).toHaveLength(3);
    expect(new Set(started.enqueued.map((e) => e.orderingKey)).size).toBe(3);
    const summary = await started.done;
    expect(summary.group).toBe(started.group);
    expect(summary.events).toHaveLength(3);
  });

  it('reports a step the engine refuses as an error, not a crash', async () => {
    const { engine, plan } = await setup();
    const p = plan('bet-lose');
    (p.steps[0] as { request: { playerId: string } }).request.playerId = '';
    const summary = await runScenario(engine, p);
    expect(summary.ok).toBe(false);
    expect(summary.steps[0]).toMatchObject({ status: 'error' });
  });

  it('reports a ROLLBACK of an unknown transaction as rejected by a correct wallet', async () => {
    const { engine, plan } = await setup();
    const summary = await runScenario(engine, plan('rollback-unknown'));
    expect(summary.events[0]?.status).toBe('rejected');
    expect(summary.events[0]?.reply?.body).toMatchObject({ error: 'TRANSACTION_NOT_FOUND' });
  });
});
