import type { CallbacksConfig } from '../callbacks/events.ts';
import type { Random } from '../callbacks/random.ts';
import { rollbackScenarioRefusal, SCENARIOS, type ScenarioName } from '../config/index.ts';
import { formatMinor } from '../money/index.ts';
import { positiveInt } from '../shared/index.ts';
import {
  betCall,
  type CallBase,
  PROFILE_WIRE,
  type RoundWire,
  rollbackCall,
  rollbackWinCall,
  roundIdFor,
  roundSteps,
  roundWireOf,
  type ScenarioStep,
  type StepDependency,
  winCall,
  withSessionCalls,
} from './round.ts';

/**
 * Scenario expansion is pure: a name, parameters, a seeded Random and an id source go in; a list
 * of steps with their dependencies comes out. Every id and amount is drawn here, at plan time,
 * so a run's events do not depend on how fast the wallet answers.
 */

export {
  PROFILE_WIRE,
  type RoundWire,
  roundWireOf,
  type ScenarioStep,
  type SessionCalls,
  type StepCondition,
  type StepDependency,
  sessionCallsOf,
} from './round.ts';
export { SCENARIOS, type ScenarioName };

export const SCENARIO_DESCRIPTIONS: Record<ScenarioName, string> = {
  'bet-win': 'DEBIT a bet, then CREDIT a win once the bet is accepted.',
  'bet-lose': 'DEBIT a bet and nothing else: the round is lost.',
  'bet-rollback': 'DEBIT a bet, then ROLLBACK it: the balance must be restored.',
  'duplicate-debit': 'DEBIT the same transactionId twice: the second must get the first reply and move no money.',
  'duplicate-credit': 'DEBIT, CREDIT, then the same CREDIT again: the second CREDIT must move no money.',
  'rollback-unknown': 'ROLLBACK a transactionId that was never sent: the balance must not move.',
  'insufficient-funds': 'DEBIT more than the player has: the bet must be rejected and the balance unchanged.',
  burst: 'N DEBITs for one player in parallel: the final balance must be start minus the accepted bets.',
  session: 'A run of spins (DEBIT, then CREDIT on a win) whose wins follow a seeded RTP.',
  'free-spins':
    'N free spins of a bonus: a DEBIT of 0 per spin, then one CREDIT of the winnings, all tagged with the bonus: a free spin moves no money, the win is paid once.',
  jackpot: 'DEBIT a bet, then CREDIT a jackpot win (50× to 500× the bet) tagged with the jackpot: paid once, exactly.',
  promotion:
    'CREDIT a promotional amount with no bet, tagged with the promotion (where every win must settle a bet and the wire has no promotion call, a free bet of 0 and its win): the balance moves up by exactly that.',
  'win-rollback':
    'DEBIT a bet, CREDIT a win, then roll the win back (a dialect with rollbackWin): the win is taken back once, the bet stays taken.',
};

/** A bet this size is more than any realistic test balance (1,000,000.00). */
export const UNAFFORDABLE_MINOR = 100_000_000;
export const DEFAULT_BURST_SIZE = 5;
export const DEFAULT_SESSION_SPINS = 10;
export const DEFAULT_FREE_SPINS = 5;
export const DEFAULT_RTP = 0.96;
/** Share of session spins that win; the win size is scaled so the mean return is the RTP. */
export const SESSION_HIT_RATE = 0.25;

export interface ScenarioParams {
  /** The run picks one of them with the Random. */
  players: readonly string[];
  /** Bet range in major units, e.g. `{min: 1, max: 20}`; bets are whole cents. */
  amount: { min: number; max: number };
  /** `burst`: parallel bets (default 5); `session`: spins (default 10). */
  size?: number;
  /** `session`: return to player as a fraction, e.g. 0.96. */
  rtp?: number;
  /** Known balances (minor units) per player, e.g. from the shadow ledger; `insufficient-funds` bets one cent more. */
  balances?: Readonly<Record<string, number | undefined>>;
  gameId?: string;
  /**
   * The configured wire's rounds ({@link roundWireOf}): its ROLLBACK (`bet-rollback` and
   * `rollback-unknown` need one), whole rounds, wins that name their bet, and a dialect's session
   * calls. Absent: the default profile's rounds, and no scenario is refused.
   */
  wire?: RoundWire;
}

/** What a scenario needs to know of the configured wire, for `planScenario`'s params. */
export function wireParamsOf(cfg: CallbacksConfig): { wire: RoundWire } {
  return { wire: roundWireOf(cfg) };
}

export interface ScenarioPlan {
  scenario: ScenarioName;
  playerId: string;
  steps: ScenarioStep[];
  /** Steps deliberately sent in parallel for one player (burst); the ledger checks them as a set. */
  concurrent: boolean;
}

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(name);
}

/**
 * Expands a scenario into steps. Pure: the same Random state and ids give the same plan.
 *
 * @example
 * const plan = planScenario('bet-win', { players: ['p1'], amount: { min: 1, max: 5 } }, seededRandom(42), () => `tx_${n++}`);
 * plan.steps.map((s) => s.request.kind) // ['debit', 'credit']
 */
export function planScenario(name: string, params: ScenarioParams, rng: Random, ids: () => string): ScenarioPlan {
  if (!isScenarioName(name)) {
    throw new ScenarioError(`Unknown scenario ${JSON.stringify(name)}: expected one of ${SCENARIOS.join(', ')}.`);
  }
  const wire = params.wire ?? PROFILE_WIRE;
  const refusal = params.wire && rollbackScenarioRefusal(name, wire.name, wire.hasRollback, wire.calls.rollbackWin);
  if (refusal) throw new ScenarioError(refusal);
  const range = amountRangeMinor(params.amount);
  if (params.players.length === 0) throw new ScenarioError('players: expected at least one player id, got an empty list.');
  const playerId = params.players[Math.floor(rng.next() * params.players.length)] as string;
  const base: CallBase = { playerId, source: `scenario:${name}`, ...(params.gameId ? { gameId: params.gameId } : {}) };
  const kit: PlanKit = {
    params,
    rng,
    ids,
    wire,
    base,
    playerId,
    bet: () => drawMinor(rng, range.min, range.max),
    debit: (key, amountMinor, after, purpose) => {
      const transactionId = ids();
      const roundId = roundIdFor(wire, `round-${transactionId}`);
      return { key, request: betCall(wire, base, { transactionId, amountMinor, roundId }), after, purpose };
    },
    credit: (key, of, amountMinor, after, purpose) => ({
      key,
      request: winCall(wire, base, of.request, { transactionId: ids(), amountMinor }),
      after,
      purpose,
    }),
    round: (key, betMinor, winMinor, after, purposes) =>
      roundSteps(wire, base, ids, { key, betMinor, winMinor, after }, purposes),
  };
  const planned = MONEY_PLANS[name](kit);
  const { steps, concurrent } = Array.isArray(planned) ? { steps: planned, concurrent: false } : planned;
  return { scenario: name, playerId, steps: withSessionCalls(steps, wire.calls, ids), concurrent };
}

/** What a scenario's entry in {@link MONEY_PLANS} plans with: the drawn player, the Random, and the round planner's steps. */
interface PlanKit {
  params: ScenarioParams;
  rng: Random;
  ids: () => string;
  wire: RoundWire;
  base: CallBase;
  playerId: string;
  /** A bet drawn from the amount range. */
  bet: () => number;
  /** A bet in a round of its own. */
  debit: (key: string, amountMinor: number, after: StepDependency[], purpose: string) => ScenarioStep;
  /** The win of `of`'s bet (naming it where the wire's wins do). */
  credit: (key: string, of: ScenarioStep, amountMinor: number, after: StepDependency[], purpose: string) => ScenarioStep;
  /** A whole round: its bet, and its win when it won (one callback on a wire with whole rounds). */
  round: (
    key: string,
    betMinor: number,
    winMinor: number,
    after: StepDependency[],
    purposes: { bet: string; win: string; whole: string },
  ) => ScenarioStep[];
}

type Planned = ScenarioStep[] | { steps: ScenarioStep[]; concurrent: boolean };

const BET_PURPOSE = 'a bet moves the balance down by its amount';

/** The money calls of each scenario; the compiler checks that every scenario has one. */
const MONEY_PLANS = {
  'bet-win': (k) => {
    const betMinor = k.bet();
    return k.round('', betMinor, winFor(k.rng, betMinor), [], {
      bet: BET_PURPOSE,
      win: 'a win moves the balance up by its amount',
      whole: 'a round moves the balance by its win minus its bet',
    });
  },
  'bet-lose': (k) => [k.debit('bet', k.bet(), [], 'a lost bet moves the balance down by its amount')],
  'bet-rollback': (k) => {
    const d = k.debit('bet', k.bet(), [], BET_PURPOSE);
    const after: StepDependency[] = [{ step: 'bet', when: 'settled' }];
    return [d, { key: 'rollback', request: rollbackCall(d.request, k.ids()), after, purpose: 'a rollback restores the bet' }];
  },
  'duplicate-debit': (k) => {
    const d = k.debit('bet', k.bet(), [], BET_PURPOSE);
    return [d, again('bet-again', d, 'the same DEBIT again gets the first reply and moves no money')];
  },
  'duplicate-credit': (k) => {
    const d = k.debit('bet', k.bet(), [], BET_PURPOSE);
    const win = winFor(k.rng, d.request.amountMinor);
    const c = k.credit('win', d, win, [{ step: 'bet', when: 'accepted' }], 'a win moves the balance up');
    return [d, c, again('win-again', c, 'the same CREDIT again gets the first reply and moves no money')];
  },
  'rollback-unknown': (k) => {
    const neverSent = k.ids();
    const bet = betCall(k.wire, k.base, {
      transactionId: neverSent,
      amountMinor: k.bet(),
      roundId: roundIdFor(k.wire, `round-${neverSent}`),
    });
    const request = rollbackCall(bet, k.ids());
    return [{ key: 'rollback', request, after: [], purpose: 'a ROLLBACK of a transaction never sent moves no money' }];
  },
  'insufficient-funds': (k) => {
    const known = k.params.balances?.[k.playerId];
    const amount = known !== undefined && known >= 0 ? known + 1 : UNAFFORDABLE_MINOR;
    return [k.debit('bet', amount, [], `a bet of ${formatMinor(amount)} is more than the balance: rejected, no money moves`)];
  },
  burst: (k) => {
    const size = positiveInt(k.params.size ?? DEFAULT_BURST_SIZE, 'size', ScenarioError, 10_000);
    const steps = Array.from({ length: size }, (_, i) => {
      const d = k.debit(`bet-${i + 1}`, k.bet(), [], 'parallel bets: the final balance is start minus the accepted bets');
      // A distinct ordering key per bet lets the engine send them at the same time for one player.
      d.request.orderingKey = `${k.playerId}~${d.request.transactionId}`;
      return d;
    });
    return { steps, concurrent: true };
  },
  session: (k) => {
    const spins = positiveInt(k.params.size ?? DEFAULT_SESSION_SPINS, 'size', ScenarioError, 10_000);
    const rtp = k.params.rtp ?? DEFAULT_RTP;
    if (!(rtp >= 0 && rtp <= 100)) throw new ScenarioError(`rtp: expected a fraction such as 0.96, got ${rtp}.`);
    const steps: ScenarioStep[] = [];
    let previous: string[] = [];
    for (let i = 1; i <= spins; i++) {
      const betMinor = k.bet();
      const after = previous.map((step) => ({ step, when: 'finished' as const }));
      const round = k.round(`spin-${i}-`, betMinor, sessionWin(k.rng, betMinor, rtp), after, {
        bet: `spin ${i}: the bet moves the balance down`,
        win: `spin ${i}: the win moves the balance up`,
        whole: `spin ${i}: one callback moves the balance by win − bet`,
      });
      steps.push(...round);
      previous = round.map((s) => s.key);
    }
    return steps;
  },
  'free-spins': (k) => freeSpins(positiveInt(k.params.size ?? DEFAULT_FREE_SPINS, 'size', ScenarioError, 10_000), k.bet(), k),
  jackpot: (k) => {
    const d = k.debit('bet', k.bet(), [], BET_PURPOSE);
    const c = k.credit('jackpot', d, d.request.amountMinor * drawMinor(k.rng, 50, 500), [{ step: 'bet', when: 'accepted' }], '');
    c.request.bonus = { kind: 'jackpot', id: `jp_${d.request.transactionId}` };
    c.purpose = `a jackpot win of ${formatMinor(c.request.amountMinor)} moves the balance up by exactly that, once`;
    return [d, c];
  },
  'win-rollback': (k) => {
    const d = k.debit('bet', k.bet(), [], BET_PURPOSE);
    const c = k.credit('win', d, winFor(k.rng, d.request.amountMinor), [{ step: 'bet', when: 'accepted' }], '');
    c.purpose = `a win of ${formatMinor(c.request.amountMinor)} moves the balance up by its amount`;
    const back: ScenarioStep = {
      key: 'win-rollback',
      request: rollbackWinCall(c.request, k.ids()),
      after: [{ step: 'win', when: 'settled' }],
      purpose: 'a rollback of the win takes exactly the win back, once; the bet stays taken',
    };
    return [d, c, back];
  },
  promotion: (k) => {
    const amountMinor = k.bet();
    const paid = `a promotional credit of ${formatMinor(amountMinor)} with no bet moves the balance up by exactly that`;
    if (!k.wire.calls.promoWin && k.wire.winsNameTheirBet && k.wire.freeBets) {
      // No promotion call, and every win settles a bet (Hub88's and Caleta's reference_transaction_uuid):
      // the promotion is paid as a free bet of 0 and its win, both tagged with the promotion, as a free
      // round of a reward is (Hub88's and Caleta's is_free with reward_uuid).
      const bet = k.debit('promotion-bet', 0, [], "the promotion's free bet of 0 moves no money");
      const win = k.credit('promotion', bet, amountMinor, [{ step: bet.key, when: 'accepted' }], '');
      win.purpose = `${paid}: "${k.wire.name}" pays it as the win of a free bet, since its wins settle a bet`;
      const bonus = { kind: 'free-spins' as const, id: roundIdFor(k.wire, `promo_${bet.request.transactionId}`) };
      bet.request.bonus = bonus;
      win.request.bonus = bonus;
      return [bet, win];
    }
    const transactionId = k.ids();
    const request = winCall(k.wire, k.base, undefined, { transactionId, amountMinor });
    // Digits where the wire's ids are numbers (Pragmatic's campaignId is a Long).
    request.bonus = { kind: 'promotion', id: roundIdFor(k.wire, `promo_${transactionId}`) };
    // The wire's own promotion call where it has one; else a win that settles no bet, said so.
    if (k.wire.calls.promoWin) request.operation = 'promoWin';
    const purpose =
      k.wire.calls.promoWin || !k.wire.winsNameTheirBet
        ? paid
        : `${paid}. "${k.wire.name}" has no promotion call, so it goes as a win that settles no bet: a wallet whose wins must settle a bet refuses it, and then nothing is paid`;
    return [{ key: 'promotion', request, after: [], purpose }];
  },
} satisfies Record<ScenarioName, (kit: PlanKit) => Planned>;

/** The same call again, once the first has settled: a true repeat (same ids, same amount). */
function again(key: string, first: ScenarioStep, purpose: string): ScenarioStep {
  return { key, request: { ...first.request }, after: [{ step: first.key, when: 'settled' }], purpose };
}

/**
 * A free-spin bonus: each spin is a DEBIT of 0 (the casino pays the stake), one after another;
 * then one CREDIT of what the spins won (possibly 0, which closes the bonus). Every event names
 * the bonus, so a wallet can tell free spins from paid ones.
 */
function freeSpins(spins: number, stakeMinor: number, { debit, credit, rng }: PlanKit): ScenarioStep[] {
  const steps: ScenarioStep[] = [];
  let winnings = 0;
  for (let i = 1; i <= spins; i++) {
    const after = steps.length > 0 ? [{ step: (steps.at(-1) as ScenarioStep).key, when: 'finished' as const }] : [];
    steps.push(debit(`free-spin-${i}`, 0, after, `free spin ${i}: a DEBIT of 0 moves no money`));
    winnings += sessionWin(rng, stakeMinor, DEFAULT_RTP);
  }
  const first = steps[0] as ScenarioStep;
  const bonus = { kind: 'free-spins' as const, id: `fs_${first.request.transactionId}` };
  const last = steps.at(-1) as ScenarioStep;
  const win = credit('free-spins-win', last, winnings, [{ step: last.key, when: 'finished' }], '');
  win.purpose = `the free spins' winnings of ${formatMinor(winnings)} move the balance up by exactly that, once`;
  for (const step of [...steps, win]) step.request.bonus = bonus;
  return [...steps, win];
}

/** A bet range in major units → whole cents; refuses a range with no whole cent in it. */
export function amountRangeMinor(amount: { min: number; max: number }): { min: number; max: number } {
  const min = Math.ceil(amount.min * 100 - 1e-6);
  const max = Math.floor(amount.max * 100 + 1e-6);
  if (!Number.isFinite(min) || !Number.isFinite(max) || min < 1 || max < min) {
    throw new ScenarioError(
      `amount: expected {min, max} in major units with 0.01 <= min <= max, e.g. {"min": 1, "max": 20}, got ${JSON.stringify(amount)}.`,
    );
  }
  return { min, max };
}

/** An integer in [min, max] from the Random's next(), so any Random works. */
export function drawMinor(rng: Random, min: number, max: number): number {
  return min + Math.floor(rng.next() * (max - min + 1));
}

/** A bet-win win: 1.1× to 5× the bet, in whole cents. */
function winFor(rng: Random, betMinor: number): number {
  const tenths = drawMinor(rng, 11, 50);
  return Math.max(1, Math.round((betMinor * tenths) / 10));
}

/**
 * A session spin's win: it hits with {@link SESSION_HIT_RATE}, and a hit pays bet × rtp / hitRate ×
 * u with u uniform in [0.5, 1.5), so the mean return per unit bet is the RTP.
 */
export function sessionWin(rng: Random, betMinor: number, rtp: number): number {
  const hit = rng.next() < SESSION_HIT_RATE;
  const u = 0.5 + rng.next();
  if (!hit) return 0;
  return Math.round((betMinor * rtp * u) / SESSION_HIT_RATE);
}
