import { createHash } from 'node:crypto';
import { capabilitiesOf } from '../callbacks/call.ts';
import type { CallbacksConfig, EnqueueRequest, EventKind, NamedOperation } from '../callbacks/events.ts';
import type { Random } from '../callbacks/random.ts';
import { rollbackScenarioRefusal, SCENARIOS, type ScenarioName } from '../config/index.ts';
import type { Operation } from '../dialects/index.ts';
import { formatMinor } from '../money/index.ts';

/**
 * Scenario expansion is pure: a name, parameters, a seeded Random and an id source go in; a list
 * of steps with their dependencies comes out. Every id and amount is drawn here, at plan time,
 * so a run's events do not depend on how fast the wallet answers.
 */

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
  promotion: 'CREDIT a promotional amount with no bet, tagged with the promotion: the balance moves up by exactly that.',
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
  /** Whether the active profile has a ROLLBACK (default true); `bet-rollback` and `rollback-unknown` need one. */
  rollback?: { profile: string; available: boolean };
  /**
   * Whether the wire carries a bet and its win in one callback (betnex): then `bet-win` and each
   * `session` spin go out as one callback per round instead of a DEBIT and a CREDIT.
   */
  wholeRounds?: boolean;
  /** The calls a vendor dialect makes around the money (absent: none, as on a profile). */
  calls?: SessionCalls;
  /**
   * Rounds as a vendor dialect's wallet expects them: a win names its bet (referenceTransactionId)
   * and round ids are digits (Pragmatic's roundId is a Long; Red Tiger caps ids at 32 characters).
   * Absent on a profile, whose bodies stay as they were.
   */
  vendorRounds?: boolean;
}

/**
 * What a dialect's session sends besides money, as a real aggregator does: when a game opens, its
 * `authenticate` and `balance` calls before the first bet (a refused one ends the session: none of
 * its bets go out); after a round's last money call, `endRound`; and `rollbackWin` to take a win back.
 */
export interface SessionCalls {
  open: ('authenticate' | 'balance')[];
  endRound: boolean;
  rollbackWin: boolean;
}

/** The session calls of a wire with these operations (a profile has none of them). */
export function sessionCallsOf(operations: readonly Operation[]): SessionCalls {
  return {
    open: (['authenticate', 'balance'] as const).filter((op) => operations.includes(op)),
    endRound: operations.includes('endRound'),
    rollbackWin: operations.includes('rollbackWin'),
  };
}

/** What a scenario needs to know of the configured wire: its ROLLBACK, whole rounds, and a dialect's session calls. */
export function wireParamsOf(
  cfg: CallbacksConfig,
): Required<Pick<ScenarioParams, 'rollback' | 'wholeRounds' | 'calls' | 'vendorRounds'>> {
  const wire = capabilitiesOf(cfg);
  return {
    rollback: { profile: wire.name, available: wire.hasRollback },
    wholeRounds: wire.roundBody,
    calls: sessionCallsOf(wire.operations),
    vendorRounds: wire.winsNameTheirBet,
  };
}

/**
 * When a step may go: `accepted` = the step it waits for was delivered and the wallet accepted it
 * (a rejected bet gets no win); `settled` = it got any end state (a skipped step skips this one);
 * `finished` = settled or skipped (a session's next spin).
 */
export type StepCondition = 'accepted' | 'settled' | 'finished';

export interface StepDependency {
  step: string;
  when: StepCondition;
}

export interface ScenarioStep {
  /** Unique within the plan, e.g. `bet`, `win`, `spin-3-bet`. */
  key: string;
  /** The event to enqueue; `transactionId` is always set. */
  request: EnqueueRequest & { kind: EventKind; transactionId: string };
  after: StepDependency[];
  /** A sentence for people: what this step checks. */
  purpose: string;
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
  const plan = moneyPlan(name, params, rng, ids);
  return params.calls ? withSessionCalls(plan, params.calls, ids) : plan;
}

/** The money calls of a scenario. */
function moneyPlan(name: string, params: ScenarioParams, rng: Random, ids: () => string): ScenarioPlan {
  if (!isScenarioName(name)) {
    throw new ScenarioError(`Unknown scenario ${JSON.stringify(name)}: expected one of ${SCENARIOS.join(', ')}.`);
  }
  const refusal =
    params.rollback &&
    rollbackScenarioRefusal(name, params.rollback.profile, params.rollback.available, params.calls?.rollbackWin ?? false);
  if (refusal) throw new ScenarioError(refusal);
  const range = amountRangeMinor(params.amount);
  if (params.players.length === 0) throw new ScenarioError('players: expected at least one player id, got an empty list.');
  const playerId = params.players[Math.floor(rng.next() * params.players.length)] as string;
  const source = `scenario:${name}`;
  const base = { playerId, source, ...(params.gameId ? { gameId: params.gameId } : {}) };
  const bet = () => drawMinor(rng, range.min, range.max);
  const roundOf = params.vendorRounds ? numericRoundOf : namedRoundOf;

  const debit = (key: string, amountMinor: number, after: StepDependency[], purpose: string): ScenarioStep => {
    const transactionId = ids();
    return {
      key,
      request: { ...base, kind: 'debit', transactionId, amountMinor, roundId: roundOf(transactionId) },
      after,
      purpose,
    };
  };
  const credit = (
    key: string,
    of: ScenarioStep,
    amountMinor: number,
    after: StepDependency[],
    purpose: string,
  ): ScenarioStep => ({
    key,
    request: {
      ...base,
      kind: 'credit',
      transactionId: ids(),
      amountMinor,
      roundId: of.request.roundId as string,
      ...(params.vendorRounds && of.request.kind === 'debit' ? { referenceTransactionId: of.request.transactionId } : {}),
    },
    after,
    purpose,
  });
  const plan = (steps: ScenarioStep[], concurrent = false): ScenarioPlan => ({ scenario: name, playerId, steps, concurrent });
  /** A bet and its win in one callback (a DEBIT carrying `winMinor`). */
  const wholeRound = (d: ScenarioStep, winMinor: number, purpose: string): ScenarioStep => ({
    ...d,
    request: { ...d.request, winMinor },
    purpose,
  });

  switch (name) {
    case 'bet-win': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      const win = winFor(rng, d.request.amountMinor);
      if (params.wholeRounds) return plan([wholeRound(d, win, 'a round moves the balance by its win minus its bet')]);
      return plan([d, credit('win', d, win, [{ step: 'bet', when: 'accepted' }], 'a win moves the balance up by its amount')]);
    }
    case 'bet-lose':
      return plan([debit('bet', bet(), [], 'a lost bet moves the balance down by its amount')]);
    case 'bet-rollback': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      return plan([d, rollbackOf('rollback', d, ids, [{ step: 'bet', when: 'settled' }], 'a rollback restores the bet')]);
    }
    case 'duplicate-debit': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      const again: ScenarioStep = {
        key: 'bet-again',
        request: { ...d.request },
        after: [{ step: 'bet', when: 'settled' }],
        purpose: 'the same DEBIT again gets the first reply and moves no money',
      };
      return plan([d, again]);
    }
    case 'duplicate-credit': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      const c = credit(
        'win',
        d,
        winFor(rng, d.request.amountMinor),
        [{ step: 'bet', when: 'accepted' }],
        'a win moves the balance up',
      );
      const again: ScenarioStep = {
        key: 'win-again',
        request: { ...c.request },
        after: [{ step: 'win', when: 'settled' }],
        purpose: 'the same CREDIT again gets the first reply and moves no money',
      };
      return plan([d, c, again]);
    }
    case 'rollback-unknown': {
      const neverSent = ids();
      const step: ScenarioStep = {
        key: 'rollback',
        request: {
          ...base,
          kind: 'rollback',
          transactionId: ids(),
          referenceTransactionId: neverSent,
          amountMinor: bet(),
          roundId: roundOf(neverSent),
        },
        after: [],
        purpose: 'a ROLLBACK of a transaction never sent moves no money',
      };
      return plan([step]);
    }
    case 'insufficient-funds': {
      const known = params.balances?.[playerId];
      const amount = known !== undefined && known >= 0 ? known + 1 : UNAFFORDABLE_MINOR;
      return plan([
        debit('bet', amount, [], `a bet of ${formatMinor(amount)} is more than the balance: rejected, no money moves`),
      ]);
    }
    case 'burst': {
      const size = positiveInt(params.size ?? DEFAULT_BURST_SIZE, 'size');
      const steps = Array.from({ length: size }, (_, i) => {
        const d = debit(`bet-${i + 1}`, bet(), [], 'parallel bets: the final balance is start minus the accepted bets');
        // A distinct ordering key per bet lets the engine send them at the same time for one player.
        d.request.orderingKey = `${playerId}~${d.request.transactionId}`;
        return d;
      });
      return plan(steps, true);
    }
    case 'session': {
      const spins = positiveInt(params.size ?? DEFAULT_SESSION_SPINS, 'size');
      const rtp = params.rtp ?? DEFAULT_RTP;
      if (!(rtp >= 0 && rtp <= 100)) throw new ScenarioError(`rtp: expected a fraction such as 0.96, got ${rtp}.`);
      const steps: ScenarioStep[] = [];
      let previous: string[] = [];
      for (let i = 1; i <= spins; i++) {
        const after = previous.map((step) => ({ step, when: 'finished' as const }));
        const d = debit(`spin-${i}-bet`, bet(), after, `spin ${i}: the bet moves the balance down`);
        steps.push(d);
        previous = [d.key];
        const win = sessionWin(rng, d.request.amountMinor, rtp);
        if (win > 0 && params.wholeRounds) {
          steps[steps.length - 1] = wholeRound(d, win, `spin ${i}: one callback moves the balance by win − bet`);
        } else if (win > 0) {
          const c = credit(
            `spin-${i}-win`,
            d,
            win,
            [{ step: d.key, when: 'accepted' }],
            `spin ${i}: the win moves the balance up`,
          );
          steps.push(c);
          previous = [d.key, c.key];
        }
      }
      return plan(steps);
    }
    case 'free-spins':
      return plan(freeSpins(positiveInt(params.size ?? DEFAULT_FREE_SPINS, 'size'), bet(), { debit, credit, rng }));
    case 'jackpot': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      const c = credit('jackpot', d, d.request.amountMinor * drawMinor(rng, 50, 500), [{ step: 'bet', when: 'accepted' }], '');
      c.request.bonus = { kind: 'jackpot', id: `jp_${d.request.transactionId}` };
      c.purpose = `a jackpot win of ${formatMinor(c.request.amountMinor)} moves the balance up by exactly that, once`;
      return plan([d, c]);
    }
    case 'win-rollback': {
      const d = debit('bet', bet(), [], 'a bet moves the balance down by its amount');
      const c = credit('win', d, winFor(rng, d.request.amountMinor), [{ step: 'bet', when: 'accepted' }], '');
      c.purpose = `a win of ${formatMinor(c.request.amountMinor)} moves the balance up by its amount`;
      const back: ScenarioStep = {
        key: 'win-rollback',
        request: {
          ...c.request,
          kind: 'rollback',
          operation: 'rollbackWin',
          transactionId: ids(),
          referenceTransactionId: c.request.transactionId,
        },
        after: [{ step: 'win', when: 'settled' }],
        purpose: 'a rollback of the win takes exactly the win back, once; the bet stays taken',
      };
      return plan([d, c, back]);
    }
    case 'promotion': {
      const transactionId = ids();
      const amountMinor = bet();
      const step: ScenarioStep = {
        key: 'promotion',
        request: {
          ...base,
          kind: 'credit',
          transactionId,
          amountMinor,
          bonus: { kind: 'promotion', id: `promo_${transactionId}` },
        },
        after: [],
        purpose: `a promotional credit of ${formatMinor(amountMinor)} with no bet moves the balance up by exactly that`,
      };
      return plan([step]);
    }
  }
}

/**
 * The plan with a dialect's session calls around its money: the game-opening calls first, every
 * other step waiting for them to be accepted; and after the last money call of
 * each round that was not rolled back, its endRound, which the round's followers then wait for too.
 */
function withSessionCalls(plan: ScenarioPlan, calls: SessionCalls, ids: () => string): ScenarioPlan {
  const first = plan.steps[0];
  if (!first) return plan;
  const { playerId } = plan;
  const { source, gameId } = first.request;
  const read = (key: string, operation: NamedOperation, after: StepDependency[], purpose: string, extra = {}): ScenarioStep => ({
    key,
    request: {
      kind: 'credit',
      operation,
      playerId,
      amountMinor: 0,
      transactionId: ids(),
      ...(source === undefined ? {} : { source }),
      ...(gameId === undefined ? {} : { gameId }),
      ...extra,
    },
    after,
    purpose,
  });
  let steps = plan.steps;
  if (calls.endRound) {
    const lastOfRound = new Map<string, ScenarioStep>();
    const rolledBack = new Set<string>();
    for (const step of steps) {
      const round = step.request.roundId;
      if (round === undefined) continue;
      if (step.request.kind === 'rollback') rolledBack.add(round);
      else lastOfRound.set(round, step);
    }
    const ends = new Map<string, ScenarioStep>();
    for (const [round, last] of lastOfRound) {
      if (rolledBack.has(round)) continue;
      const end = read(
        `${last.key}-end-round`,
        'endRound',
        [{ step: last.key, when: last.request.kind === 'debit' ? 'accepted' : 'settled' }],
        'the round ends after its last money call: endRound moves no money',
        { roundId: round, ...(last.request.orderingKey === undefined ? {} : { orderingKey: last.request.orderingKey }) },
      );
      ends.set(last.key, end);
    }
    steps = steps.flatMap((step) => {
      // A step that follows a round's last call follows its endRound too, so the two never race.
      const after = step.after.flatMap((dep) => {
        const end = ends.get(dep.step);
        return end && end.key !== step.key ? [dep, { step: end.key, when: 'finished' as const }] : [dep];
      });
      const end = ends.get(step.key);
      return end ? [{ ...step, after }, end] : [{ ...step, after }];
    });
  }
  if (calls.open.length > 0) {
    const opening: ScenarioStep[] = [];
    for (const operation of calls.open) {
      const previous = opening.at(-1);
      opening.push(
        read(
          `open-${operation}`,
          operation,
          previous ? [{ step: previous.key, when: 'accepted' }] : [],
          operation === 'authenticate'
            ? 'the game opens: the session token is checked before any bet'
            : 'the game opens: the balance read moves no money',
        ),
      );
    }
    const gate = { step: (opening.at(-1) as ScenarioStep).key, when: 'accepted' as const };
    // Every step waits for the opening, not only the first: a session whose game did not open sends nothing.
    steps = [...opening, ...steps.map((step) => ({ ...step, after: [gate, ...step.after] }))];
  }
  return { ...plan, steps };
}

interface StepMakers {
  debit: (key: string, amountMinor: number, after: StepDependency[], purpose: string) => ScenarioStep;
  credit: (key: string, of: ScenarioStep, amountMinor: number, after: StepDependency[], purpose: string) => ScenarioStep;
  rng: Random;
}

/**
 * A free-spin bonus: each spin is a DEBIT of 0 (the casino pays the stake), one after another;
 * then one CREDIT of what the spins won (possibly 0, which closes the bonus). Every event names
 * the bonus, so a wallet can tell free spins from paid ones.
 */
function freeSpins(spins: number, stakeMinor: number, { debit, credit, rng }: StepMakers): ScenarioStep[] {
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

/** The ROLLBACK of a planned DEBIT: same amount, referencing its transactionId. */
function rollbackOf(key: string, d: ScenarioStep, ids: () => string, after: StepDependency[], purpose: string): ScenarioStep {
  const { orderingKey: _o, ...rest } = d.request;
  return {
    key,
    request: {
      ...rest,
      kind: 'rollback',
      transactionId: ids(),
      referenceTransactionId: d.request.transactionId,
    },
    after,
    purpose,
  };
}

function namedRoundOf(transactionId: string): string {
  return `round-${transactionId}`;
}

/** A round id of 15 digits drawn from the transaction id: a Long for Pragmatic, short enough for Red Tiger. */
function numericRoundOf(transactionId: string): string {
  return String(Number.parseInt(createHash('sha256').update(transactionId).digest('hex').slice(0, 12), 16) + 1e14).slice(0, 15);
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

function positiveInt(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 10_000) {
    throw new ScenarioError(`${field}: expected a whole number from 1 to 10000, got ${value}.`);
  }
  return value;
}
