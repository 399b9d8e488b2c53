import { afterEach, describe, expect, it } from 'vitest';
import { readingOf } from '../callbacks/call.ts';
import { openDatabase } from '../callbacks/db.ts';
import { type CallbackEngine, createCallbackEngine } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { rollbackScenarioRefusal, validateConfig } from '../config/index.ts';
import { planScenario, runScenario, SCENARIOS, type ScenarioName } from '../scenarios/index.ts';
import { createShadowLedger, type ShadowLedger } from './index.ts';
import { startStubWallet, type TestWallet, type WalletBug } from './test-wallet.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(bugs: WalletBug[] = [], walletOptions: { delayMs?: number; players?: Record<string, number> } = {}) {
  const wallet: TestWallet = await startStubWallet({ bugs, ...walletOptions });
  cleanups.push(() => wallet.close());
  const config = validateConfig({ seed: 7, callbacks: { webhookUrl: wallet.url, retrySchedule: [0], jitter: 0 } });
  const db = openDatabase(':memory:');
  const engine: CallbackEngine = createCallbackEngine({ config, db });
  const ledger: ShadowLedger = createShadowLedger({ engine, db, reading: readingOf(config.callbacks) });
  engine.start();
  cleanups.push(async () => {
    ledger.close();
    await engine.stop();
    db.close();
  });
  const rng = seededRandom(7);
  const ids = () => engine.nextTransactionId();
  const play = (name: ScenarioName, extra: { size?: number; players?: string[] } = {}) =>
    runScenario(
      engine,
      planScenario(
        name,
        { players: extra.players ?? ['p1'], amount: { min: 1, max: 20 }, ...extra, balances: ledger.knownBalances() },
        rng,
        ids,
      ),
    );
  return { wallet, engine, ledger, db, play };
}

describe('shadow ledger against a real wallet over HTTP', () => {
  it('finds zero discrepancies across every scenario when the wallet is correct, and tracks its balances exactly', async () => {
    const { ledger, wallet, play } = await setup([], { delayMs: 2 });
    // Every scenario the default profile can send (a rollback of a win is a vendor dialect's call).
    for (const name of SCENARIOS.filter((s) => !rollbackScenarioRefusal(s, 'default', true))) {
      for (let i = 0; i < 2; i++) {
        const summary = await play(name, { players: ['p1', 'p2'], size: 4 });
        expect(summary.ok, `${name}: ${JSON.stringify(summary.steps)}`).toBe(true);
      }
    }
    expect(ledger.discrepancies()).toEqual([]);
    for (const b of ledger.balances()) expect(b.balanceMinor).toBe(wallet.balanceMinor(b.playerId));
  });

  it('flags a wallet that takes the money again on a duplicate DEBIT', async () => {
    const { ledger, play } = await setup(['double-debit-on-duplicate']);
    await play('bet-win');
    const summary = await play('duplicate-debit');
    const found = ledger.discrepancies();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'double-debit', playerId: 'p1', eventIds: [summary.events[1]?.id] });
    expect(found[0]?.message).toContain('must move no money');
    expect(ledger.discrepancies({ kind: 'double-debit', playerId: 'p1' })).toHaveLength(1);
    expect(ledger.discrepancies({ playerId: 'p2' })).toEqual([]);
  });

  it('flags a wallet whose rollback does not give the bet back', async () => {
    const { ledger, play } = await setup(['rollback-does-not-restore']);
    const summary = await play('bet-rollback');
    const debit = summary.events[0];
    expect(ledger.discrepancies()).toEqual([
      expect.objectContaining({
        kind: 'rollback-not-restored',
        expectedMinor: (ledger.balance('p1')?.balanceMinor ?? 0) + (debit?.amountMinor ?? 0),
        actualMinor: ledger.balance('p1')?.balanceMinor,
      }),
    ]);
  });

  it('flags a wallet that loses updates under parallel bets, judging the burst as one set', async () => {
    const { ledger, play } = await setup(['lost-update'], { delayMs: 20 });
    await play('bet-lose'); // baseline
    const summary = await play('burst', { size: 4 });
    expect(summary.events.every((e) => e.status === 'delivered')).toBe(true);
    const found = ledger.discrepancies();
    expect(found.map((d) => d.kind)).toEqual(['balance-drift']);
    expect(found[0]?.eventIds).toHaveLength(4);
  });

  it('accepts a burst that a correct wallet partly refuses for lack of funds', async () => {
    const { ledger, wallet, engine } = await setup([], { delayMs: 5, players: { p1: 30 } });
    await engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 0, source: 'test' }).settled; // baseline 30.00
    const plan = planScenario('burst', { players: ['p1'], amount: { min: 10, max: 10 }, size: 5 }, seededRandom(1), () =>
      engine.nextTransactionId(),
    );
    const summary = await runScenario(engine, plan);
    expect(summary.events.map((e) => e.status).sort()).toEqual(['delivered', 'delivered', 'delivered', 'rejected', 'rejected']);
    expect(ledger.discrepancies()).toEqual([]);
    expect(ledger.balance('p1')?.balanceMinor).toBe(0);
    expect(wallet.balanceMinor('p1')).toBe(0);
  });

  it('stores discrepancies in the same SQLite database and forgets everything on reset', async () => {
    const { ledger, db, play } = await setup(['double-debit-on-duplicate']);
    await play('duplicate-debit');
    const row = db.prepare('SELECT COUNT(*) AS n FROM ledger_discrepancies').get() as { n: number };
    expect(row.n).toBe(1);
    expect(ledger.discrepancyCount()).toBe(1);
    ledger.reset();
    expect(ledger.discrepancies()).toEqual([]);
    expect(ledger.balances()).toEqual([]);
  });

  it('resets itself when the outbox is reset', async () => {
    const { ledger, engine, play } = await setup(['double-debit-on-duplicate']);
    await play('duplicate-debit');
    engine.outbox.reset();
    expect(ledger.discrepancyCount()).toBe(0);
    expect(ledger.balances()).toEqual([]);
  });

  it('marks the balance uncertain after a delivery fails and re-baselines on the next reply', async () => {
    const { ledger, engine, wallet } = await setup();
    const first = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100, source: 'test' });
    await first.settled;
    // Another URL nobody listens on: the DEBIT fails, and the engine rolls it back (also failing).
    await wallet.close();
    const failed = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100, source: 'test' });
    expect((await failed.settled).status).toBe('failed');
    expect(ledger.balance('p1')?.uncertain).toBe(true);
    expect(ledger.balance('p1')?.note).toContain('failed');
    expect(ledger.discrepancies()).toEqual([]);
  });
});
