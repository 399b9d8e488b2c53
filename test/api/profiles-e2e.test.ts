import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/callbacks/random.ts';
import { demoSchedule } from '../../src/cli/commands/demo.ts';
import {
  type AggmockConfig,
  type AggmockConfigInput,
  dialectOf,
  type ScenarioName,
  validateConfig,
} from '../../src/config/index.ts';
import { recogniseCall } from '../../src/dialects/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { PROFILE_WIRE, planScenario, runScenario, ScenarioError } from '../../src/scenarios/index.ts';
import { type RunningWallet, startWallet, type WalletFault } from '../../src/wallet/index.ts';

/*
 * aggmock and the reference wallet in one process, as `aggmock demo` runs them, under each wire
 * profile: scenarios go out through the engine, the wallet reads them with the profile and
 * answers in its shape, and the shadow ledger must agree with the wallet to the cent.
 */

const BONUS: ScenarioName[] = ['free-spins', 'jackpot', 'promotion'];
const PROFILES: Record<string, AggmockConfigInput['callbacks']> = {
  default: { extraFields: ['bonus'] },
  betnex: { profile: 'betnex', apiKey: 'operator-key' },
};

/** The bonus a callback body carries, read by the dialect's reader (the wallet's). */
function bonusOf(config: AggmockConfig, body: string) {
  const reading = recogniseCall(
    dialectOf(config.callbacks),
    { method: 'POST', path: '', headers: {}, body },
    { currencyOf: () => config.callbacks.currency },
  );
  return reading.ok ? reading.facts.bonus : undefined;
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function loop(callbacks: AggmockConfigInput['callbacks'], fault?: WalletFault) {
  const base = validateConfig({ port: 0, db: ':memory:', seed: 11, callbacks });
  const wallet: RunningWallet = await startWallet({ config: base, dbPath: ':memory:', port: 0, ...(fault ? { fault } : {}) });
  stops.push(() => wallet.close());
  const config = validateConfig({
    port: 0,
    db: ':memory:',
    seed: 11,
    callbacks: { ...callbacks, webhookUrl: wallet.webhookUrl, retrySchedule: [0, 50], jitter: 0 },
  });
  const aggmock: Aggmock = await startAggmock(config);
  stops.push(() => aggmock.close());
  const rng = seededRandom(11);
  const run = (name: ScenarioName, players = ['p1', 'p2']) =>
    runScenario(
      aggmock.engine,
      planScenario(name, { players, amount: { min: 1, max: 20 }, size: 3, balances: aggmock.ledger.knownBalances() }, rng, () =>
        aggmock.engine.nextTransactionId(),
      ),
    );
  const agreed = () => {
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    const balances = aggmock.ledger.balances();
    expect(balances.length).toBeGreaterThan(0);
    for (const b of balances) expect(b.balanceMinor, b.playerId).toBe(wallet.store.balanceOf(b.playerId));
  };
  return { aggmock, wallet, config, run, agreed };
}

describe.each(Object.entries(PROFILES))('bonus rounds under the %s profile', (name, callbacks) => {
  it('free spins move no money, a jackpot and a promotion are paid once: every event delivered, 0 discrepancies', async () => {
    const { run, agreed, wallet, config } = await loop(callbacks);
    const opening = wallet.store.balanceOf('p1');
    for (const scenario of BONUS) {
      const summary = await run(scenario, ['p1']);
      expect(summary.ok, `${scenario}: ${JSON.stringify(summary.steps)}`).toBe(true);
      expect(summary.events.every((e) => e.status === 'delivered')).toBe(true);
      // The bonus travels in the body (the outbox keeps the bytes): read it back the way the wallet does.
      const kinds = summary.events.map((e) => bonusOf(config, e.body)?.kind);
      expect(kinds).toEqual(scenario === 'jackpot' ? [undefined, 'jackpot'] : kinds.map(() => scenario));
    }
    agreed();
    expect(wallet.store.balanceOf('p1')).toBeGreaterThan(opening ?? 0);
  });

  it('the other side: a wallet that charges a free spin the default stake is caught by the shadow ledger', async () => {
    const { run, aggmock } = await loop(callbacks, 'zero-as-default-stake');
    const summary = await run('free-spins', ['p1']);
    expect(summary.ok).toBe(true);
    const found = aggmock.ledger.discrepancies();
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]?.playerId).toBe('p1');
  });

  it('writes the bonus where the profile says', async () => {
    const { run } = await loop(callbacks);
    const summary = await run('free-spins', ['p1']);
    const body = JSON.parse(summary.events[0]?.body ?? '{}');
    const id = expect.stringMatching(/^fs_tx_/);
    if (name === 'betnex') {
      expect(body).toMatchObject({ bet_amount: 0, win_amount: 0, data: { bonus_type: 'free-spins', bonus_id: id } });
    } else {
      expect(body).toMatchObject({ type: 'DEBIT', amount: 0, bonus: { kind: 'free-spins', id } });
    }
  });
});

describe('aggmock demo under the betnex profile (in process)', () => {
  it('runs every scenario of the demo mix plus the bonus rounds: delivered or rightly rejected, 0 discrepancies', async () => {
    const { run, agreed, config } = await loop(PROFILES.betnex);
    const scenarios = [...demoSchedule(config).map((e) => e.scenario), ...BONUS];
    expect(scenarios).not.toContain('bet-rollback');
    for (const scenario of scenarios) {
      const summary = await run(scenario);
      expect(summary.ok, `${scenario}: ${JSON.stringify(summary.steps)}`).toBe(true);
      for (const event of summary.events) {
        // Only the unaffordable bet is refused; everything else the wallet takes.
        expect(event.status, `${scenario} ${event.kind}`).toBe(scenario === 'insufficient-funds' ? 'rejected' : 'delivered');
      }
    }
    agreed();
  });

  it('refuses a ROLLBACK scenario up front (admin API 400, planner error) and keeps the default demo mix whole', async () => {
    const { aggmock, config } = await loop(PROFILES.betnex);
    const res = await fetch(`${aggmock.url}/__admin/scenarios/bet-rollback/run`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /"bet-rollback" scenario sends a ROLLBACK, and the "betnex" profile has no ROLLBACK callback/,
    );
    const plan = () =>
      planScenario(
        'rollback-unknown',
        { players: ['p1'], amount: { min: 1, max: 2 }, wire: { ...PROFILE_WIRE, name: 'betnex', hasRollback: false } },
        seededRandom(1),
        () => 'tx',
      );
    expect(plan).toThrow(ScenarioError);
    expect(demoSchedule(config).length).toBe(demoSchedule(validateConfig({})).length - 1);
  });
});
