import { describe, expect, it } from 'vitest';
import { seededRandom } from '../callbacks/random.ts';
import { PROFILE_WIRE, planScenario, SCENARIOS, ScenarioError, type ScenarioParams, UNAFFORDABLE_MINOR } from './plan.ts';

const params: ScenarioParams = { players: ['p1', 'p2', 'p3'], amount: { min: 1, max: 20 } };
function counter() {
  let n = 0;
  return () => `tx_${++n}`;
}
const plan = (name: string, p: Partial<ScenarioParams> = {}, seed = 42) =>
  planScenario(name, { ...params, ...p }, seededRandom(seed), counter());

describe('planScenario', () => {
  it('is pure: the same seed and ids give the same plan, another seed a different one', () => {
    for (const name of SCENARIOS) expect(plan(name)).toEqual(plan(name));
    expect(plan('session', {}, 1)).not.toEqual(plan('session', {}, 2));
  });

  it('draws bets in whole cents inside the range, for one player picked from the list', () => {
    const players = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const p = plan('bet-lose', { amount: { min: 0.5, max: 0.55 } }, seed);
      const amount = p.steps[0]?.request.amountMinor as number;
      expect(Number.isInteger(amount)).toBe(true);
      expect(amount).toBeGreaterThanOrEqual(50);
      expect(amount).toBeLessThanOrEqual(55);
      players.add(p.playerId);
    }
    expect(players).toEqual(new Set(['p1', 'p2', 'p3']));
  });

  it('bet-win: a CREDIT of the same round that goes only when the DEBIT was accepted', () => {
    const { steps } = plan('bet-win');
    expect(steps.map((s) => [s.key, s.request.kind])).toEqual([
      ['bet', 'debit'],
      ['win', 'credit'],
    ]);
    expect(steps[1]?.after).toEqual([{ step: 'bet', when: 'accepted' }]);
    expect(steps[1]?.request.roundId).toBe(steps[0]?.request.roundId);
    expect(steps[1]?.request.amountMinor).toBeGreaterThan(steps[0]?.request.amountMinor as number);
  });

  it('bet-rollback: the ROLLBACK references the DEBIT and carries its amount', () => {
    const [bet, rollback] = plan('bet-rollback').steps;
    expect(rollback?.request).toMatchObject({
      kind: 'rollback',
      referenceTransactionId: bet?.request.transactionId,
      amountMinor: bet?.request.amountMinor,
    });
    expect(rollback?.after).toEqual([{ step: 'bet', when: 'settled' }]);
  });

  it('duplicate-debit and duplicate-credit send the same transactionId and amount twice, one after the other', () => {
    const d = plan('duplicate-debit').steps;
    expect(d[1]?.request).toEqual(d[0]?.request);
    expect(d[1]?.after).toEqual([{ step: 'bet', when: 'settled' }]);
    const c = plan('duplicate-credit').steps;
    expect(c.map((s) => s.request.kind)).toEqual(['debit', 'credit', 'credit']);
    expect(c[2]?.request).toEqual(c[1]?.request);
  });

  it('rollback-unknown references an id that no step sends', () => {
    const { steps } = plan('rollback-unknown');
    const [rollback] = steps;
    expect(steps).toHaveLength(1);
    expect(rollback?.request.kind).toBe('rollback');
    expect(rollback?.request.referenceTransactionId).not.toBe(rollback?.request.transactionId);
  });

  it('insufficient-funds bets one cent more than a known balance, or 1,000,000.00 when unknown', () => {
    const unknown = plan('insufficient-funds', { players: ['p1'] });
    expect(unknown.steps[0]?.request.amountMinor).toBe(UNAFFORDABLE_MINOR);
    const known = plan('insufficient-funds', { players: ['p1'], balances: { p1: 12_345 } });
    expect(known.steps[0]?.request.amountMinor).toBe(12_346);
  });

  it('burst: N independent bets for one player, each with its own ordering key so they go in parallel', () => {
    const p = plan('burst', { size: 7 });
    expect(p.concurrent).toBe(true);
    expect(p.steps).toHaveLength(7);
    expect(new Set(p.steps.map((s) => s.request.playerId))).toEqual(new Set([p.playerId]));
    expect(new Set(p.steps.map((s) => s.request.orderingKey)).size).toBe(7);
    expect(p.steps.every((s) => s.after.length === 0 && s.request.kind === 'debit')).toBe(true);
  });

  it('session: spins follow one another, wins only after their bet is accepted, and the return follows the RTP', () => {
    const p = plan('session', { size: 10_000, rtp: 0.96, amount: { min: 1, max: 1 } });
    const bets = p.steps.filter((s) => s.request.kind === 'debit');
    const wins = p.steps.filter((s) => s.request.kind === 'credit');
    expect(bets).toHaveLength(10_000);
    expect(bets[1]?.after.map((a) => a.step)).toContain(bets[0]?.key);
    expect(wins.every((w) => w.after.length === 1 && w.after[0]?.when === 'accepted')).toBe(true);
    const staked = bets.reduce((s, b) => s + b.request.amountMinor, 0);
    const paid = wins.reduce((s, w) => s + w.request.amountMinor, 0);
    expect(paid / staked).toBeGreaterThan(0.9);
    expect(paid / staked).toBeLessThan(1.02);
    const lowRtp = plan('session', { size: 10_000, rtp: 0.5, amount: { min: 1, max: 1 } }).steps.filter(
      (s) => s.request.kind === 'credit',
    );
    expect(lowRtp.reduce((s, w) => s + w.request.amountMinor, 0) / staked).toBeLessThan(0.55);
  });

  it('tags every event with its scenario as the source', () => {
    for (const name of SCENARIOS) for (const step of plan(name).steps) expect(step.request.source).toBe(`scenario:${name}`);
  });

  it('refuses an unknown scenario, an empty player list and an amount range with no whole cent, naming the field', () => {
    expect(() => plan('bet-big')).toThrow(ScenarioError);
    expect(() => plan('bet-big')).toThrow(/bet-win/);
    expect(() => plan('bet-win', { players: [] })).toThrow(/players/);
    expect(() => plan('bet-win', { amount: { min: 0.001, max: 0.004 } })).toThrow(/amount/);
    expect(() => plan('burst', { size: 0 })).toThrow(/size/);
  });

  it('free-spins: N DEBITs of 0 one after another, then one CREDIT of the winnings, all tagged with one bonus', () => {
    const { steps } = plan('free-spins', { size: 4 });
    expect(steps.map((s) => [s.key, s.request.kind, s.request.amountMinor === 0])).toEqual([
      ['free-spin-1', 'debit', true],
      ['free-spin-2', 'debit', true],
      ['free-spin-3', 'debit', true],
      ['free-spin-4', 'debit', true],
      ['free-spins-win', 'credit', steps[4]?.request.amountMinor === 0],
    ]);
    expect(steps[1]?.after).toEqual([{ step: 'free-spin-1', when: 'finished' }]);
    expect(steps[4]?.after).toEqual([{ step: 'free-spin-4', when: 'finished' }]);
    expect(new Set(steps.map((s) => JSON.stringify(s.request.bonus)))).toEqual(
      new Set([JSON.stringify({ kind: 'free-spins', id: `fs_${steps[0]?.request.transactionId}` })]),
    );
  });

  it('jackpot: a plain bet, then a CREDIT of 50× to 500× it tagged with the jackpot, only once the bet is accepted', () => {
    const { steps } = plan('jackpot');
    const [bet, win] = steps;
    expect(bet?.request.bonus).toBeUndefined();
    expect(win?.request).toMatchObject({ kind: 'credit', bonus: { kind: 'jackpot' }, roundId: bet?.request.roundId });
    const multiple = (win?.request.amountMinor as number) / (bet?.request.amountMinor as number);
    expect(multiple).toBeGreaterThanOrEqual(50);
    expect(multiple).toBeLessThanOrEqual(500);
    expect(win?.after).toEqual([{ step: 'bet', when: 'accepted' }]);
  });

  it('promotion: one CREDIT with no bet, tagged with the promotion', () => {
    const { steps } = plan('promotion');
    expect(steps).toHaveLength(1);
    expect(steps[0]?.request).toMatchObject({ kind: 'credit', bonus: { kind: 'promotion', id: 'promo_tx_1' } });
    expect(steps[0]?.after).toEqual([]);
  });

  it('promotion where every win settles a bet and there is no promotion call: a free bet of 0, then its win', () => {
    const named = { ...PROFILE_WIRE, name: 'hub88', winsNameTheirBet: true, freeBets: true };
    const { steps } = plan('promotion', { wire: named });
    expect(steps.map((s) => s.key)).toEqual(['promotion-bet', 'promotion']);
    const [bet, win] = steps;
    expect(bet?.request).toMatchObject({ kind: 'debit', amountMinor: 0, bonus: { kind: 'free-spins' } });
    expect(win?.request).toMatchObject({ kind: 'credit', referenceTransactionId: bet?.request.transactionId, roundClosed: true });
    expect(win?.request.amountMinor).toBeGreaterThan(0);
    expect(win?.request.bonus).toEqual(bet?.request.bonus);
    expect(win?.after).toEqual([{ step: 'promotion-bet', when: 'accepted' }]);
    // A wire with a promotion call, or one that cannot mark a bet free, keeps the one CREDIT.
    const withCall = { ...named, calls: { ...named.calls, promoWin: true } };
    expect(plan('promotion', { wire: withCall }).steps.map((s) => s.request.operation)).toEqual(['promoWin']);
    expect(plan('promotion', { wire: { ...named, freeBets: false } }).steps).toHaveLength(1);
  });

  it('refuses a ROLLBACK scenario on a profile without ROLLBACK, naming both, and plans the rest', () => {
    const wire = { ...PROFILE_WIRE, name: 'betnex', hasRollback: false };
    for (const name of ['bet-rollback', 'rollback-unknown']) {
      expect(() => plan(name, { wire })).toThrow(ScenarioError);
      expect(() => plan(name, { wire })).toThrow(`"${name}" scenario sends a ROLLBACK, and the "betnex" profile has no ROLLBACK`);
      expect(plan(name, { wire: PROFILE_WIRE }).steps.length).toBeGreaterThan(0);
    }
    expect(plan('bet-win', { wire }).steps).toHaveLength(2);
  });
});
