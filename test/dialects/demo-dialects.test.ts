/**
 * `aggmock demo --profile <vendor>` in one process: aggmock and the reference wallet both speak the
 * vendor dialect, every scenario of the demo's mix goes out through the engine (calls carrying the
 * session tokens the wallet issued), and the shadow ledger agrees with the wallet to the cent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { READ_OPERATIONS } from '../../src/callbacks/events.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { demoSchedule, withWallet } from '../../src/cli/commands/demo.ts';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_DIALECTS, builtinDialect } from '../../src/dialects/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { planScenario, runScenario, wireParamsOf } from '../../src/scenarios/index.ts';
import { type RunningWallet, startWallet, type WalletFault } from '../../src/wallet/index.ts';
import { keepsTheWin, startBuggyProxy } from '../verify/dialect-receivers.ts';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function demoLoop(profile: string, fault?: WalletFault) {
  const base = validateConfig({ port: 0, db: ':memory:', seed: 7, callbacks: { profile, retrySchedule: [0, 50], jitter: 0 } });
  const wallet: RunningWallet = await startWallet({ config: base, dbPath: ':memory:', port: 0, ...(fault ? { fault } : {}) });
  stops.push(() => wallet.close());
  const config = { ...base, callbacks: withWallet(base.callbacks, wallet.webhookUrl, Object.keys(base.wallet.players)) };
  const aggmock: Aggmock = await startAggmock(config);
  stops.push(() => aggmock.close());
  const rng = seededRandom(7);
  const run = (scenario: Parameters<typeof planScenario>[0]) =>
    runScenario(
      aggmock.engine,
      planScenario(
        scenario,
        {
          players: ['p1', 'p2'],
          amount: { min: 1, max: 20 },
          size: 3,
          balances: aggmock.ledger.knownBalances(),
          ...wireParamsOf(config.callbacks),
        },
        rng,
        () => aggmock.engine.nextTransactionId(),
      ),
    );
  return { aggmock, wallet, config, run };
}

describe.each(BUILTIN_DIALECTS)('aggmock demo under the %s dialect (in process)', (name) => {
  it('plays the demo mix against the reference wallet in that dialect: delivered or rightly refused, 0 discrepancies', async () => {
    const { aggmock, wallet, config, run } = await demoLoop(name);
    const scenarios = demoSchedule(config).map((e) => e.scenario);
    expect(scenarios.length).toBeGreaterThanOrEqual(4);
    for (const scenario of scenarios) {
      const summary = await run(scenario);
      expect(summary.ok, `${scenario}: ${JSON.stringify(summary.steps)}`).toBe(true);
      for (const event of summary.events) {
        // The game-opening reads before the bet are answered; only the bet itself is refused.
        const read = (READ_OPERATIONS as readonly string[]).includes(event.facts?.operation ?? '');
        const expected = scenario === 'insufficient-funds' && !read ? 'rejected' : 'delivered';
        const name = event.facts?.operation ?? event.kind;
        expect(event.status, `${scenario} ${name}: ${event.error ?? JSON.stringify(event.reply?.body) ?? ''}`).toBe(expected);
      }
    }
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    const balances = aggmock.ledger.balances();
    expect(balances.length).toBeGreaterThan(0);
    for (const b of balances) expect(b.balanceMinor, b.playerId).toBe(wallet.store.balanceOf(b.playerId));
  });
});

describe('the other side', () => {
  it('a wallet that charges a repeated bet twice is caught by the shadow ledger under a vendor dialect', async () => {
    const { aggmock, run } = await demoLoop('pragmatic', 'double-debit');
    await run('duplicate-debit');
    const found = aggmock.ledger.discrepancies();
    expect(found.length).toBeGreaterThan(0);
  });
});

describe('the other side of a rollback of a win', () => {
  it.each(['groove', 'slotegrator'])(
    'under %s, a wallet that acknowledges a rollbackWin but keeps the win paid is caught by the shadow ledger',
    async (profile) => {
      const base = validateConfig({
        port: 0,
        db: ':memory:',
        seed: 7,
        callbacks: { profile, retrySchedule: [0, 50], jitter: 0 },
      });
      const wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
      stops.push(() => wallet.close());
      const proxy = await startBuggyProxy(wallet.webhookUrl.replace(/\/$/, ''), keepsTheWin(builtinDialect(profile)));
      stops.push(() => proxy.stop());
      const config = { ...base, callbacks: withWallet(base.callbacks, proxy.url, Object.keys(base.wallet.players)) };
      const aggmock = await startAggmock(config);
      stops.push(() => aggmock.close());
      const plan = planScenario(
        'win-rollback',
        { players: ['p1'], amount: { min: 1, max: 20 }, ...wireParamsOf(config.callbacks) },
        seededRandom(3),
        () => aggmock.engine.nextTransactionId(),
      );
      const summary = await runScenario(aggmock.engine, plan);
      expect(summary.events.map((e) => `${e.facts?.operation} ${e.status}`).at(-1)).toBe('rollbackWin delivered');
      const found = aggmock.ledger.discrepancies();
      expect(found.map((d) => d.kind)).toEqual(['rollback-not-restored']);
      expect(found[0]?.message).toMatch(/rollbackWin .* was accepted but .* the CREDIT .* was not taken back/);
    },
  );
});
