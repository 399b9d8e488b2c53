import { createHash } from 'node:crypto';
import { capabilitiesOf } from '../callbacks/call.ts';
import type { CallbacksConfig, EnqueueRequest, EventKind, NamedOperation } from '../callbacks/events.ts';
import type { Operation } from '../dialects/index.ts';

/*
 * The one round planner. Every surface that makes money calls — scenarios (and through them the
 * schedule, the demo and the admin API's runs), the play page's spins and `aggmock send` — builds
 * its calls here, so a round looks the same whoever plays it:
 * - a bet has its own transaction id and the round's id (digits where the wire wants a number);
 * - on a wire whose wins name their bet (every vendor dialect), a win carries the bet it settles
 *   (`referenceTransactionId`, the dialect's `betTransactionId`) and closes its round (`roundClosed`);
 *   a round with two bets has two bet ids, and each win names one of them;
 * - a rollback reverses one bet by its id, a rollbackWin one win by its id;
 * - the game opens with the dialect's authenticate/balance calls before any bet, and after the
 *   last money call of a round that was not rolled back, its endRound follows (where the dialect
 *   has one).
 * Pure: the ids come from the caller, nothing is sent here.
 */

/** What a round needs to know of the configured wire. */
export interface RoundWire {
  /** The wire's name, for messages ("hub88", "default"). */
  name: string;
  /** Whether the wire has a ROLLBACK of a bet. */
  hasRollback: boolean;
  /** Whether a DEBIT may carry its win (betnex): a whole round in one callback. */
  wholeRounds: boolean;
  /**
   * Whether a win names the bet it settles and closes its round (a vendor dialect's
   * `betTransactionId` and `roundClosed`). Round ids are then digits too: Pragmatic's roundId is a
   * Long and Red Tiger caps ids at 32 characters.
   */
  winsNameTheirBet: boolean;
  /** Whether a bet can say it is free (Hub88's `is_free`): a promotion is then paid as a free bet and its win. */
  freeBets: boolean;
  /** The calls a dialect makes around the money (a profile: none). */
  calls: SessionCalls;
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
  /** A call that pays a promotion settling no bet (Pragmatic's promoWin, 100HP's bonusWin). */
  promoWin: boolean;
}

/** The session calls of a wire with these operations (a profile has none of them). */
export function sessionCallsOf(operations: readonly Operation[]): SessionCalls {
  return {
    open: (['authenticate', 'balance'] as const).filter((op) => operations.includes(op)),
    endRound: operations.includes('endRound'),
    rollbackWin: operations.includes('rollbackWin'),
    promoWin: operations.includes('promoWin'),
  };
}

/** The default profile's rounds: a ROLLBACK, a DEBIT and a CREDIT per round, nothing around them. */
export const PROFILE_WIRE: RoundWire = Object.freeze({
  name: 'default',
  hasRollback: true,
  wholeRounds: false,
  winsNameTheirBet: false,
  freeBets: false,
  calls: Object.freeze({ open: [], endRound: false, rollbackWin: false, promoWin: false }),
});

/** The rounds of the configured wire, asked of its capabilities (the one place that reads them for planning). */
export function roundWireOf(cfg: CallbacksConfig): RoundWire {
  const wire = capabilitiesOf(cfg);
  return {
    name: wire.name,
    hasRollback: wire.hasRollback,
    wholeRounds: wire.roundBody,
    winsNameTheirBet: wire.winsNameTheirBet,
    freeBets: wire.freeBets,
    calls: sessionCallsOf(wire.operations),
  };
}

/** What every call of a session carries besides its player: where it goes, what it is part of. */
const BASE_KEYS = ['source', 'gameId', 'currency', 'url', 'sessionToken'] as const;

/** What every call of a session carries: who plays, where it goes, what it is part of. */
export type CallBase = Pick<EnqueueRequest, 'playerId' | (typeof BASE_KEYS)[number]>;

/** A call as planned: an engine request whose kind and transaction id are always set. */
export type PlannedCall = EnqueueRequest & { kind: EventKind; transactionId: string };

/**
 * The round id of a round named `name` on this wire: the name itself, or on a wire whose rounds are
 * numbers, 15 digits drawn from it (a Long for Pragmatic, short enough for Red Tiger).
 */
export function roundIdFor(wire: RoundWire, name: string): string {
  if (!wire.winsNameTheirBet) return name;
  return String(Number.parseInt(createHash('sha256').update(name).digest('hex').slice(0, 12), 16) + 1e14).slice(0, 15);
}

/** A bet of a round; with `winMinor`, a whole round in one callback (only on a wire with whole rounds). */
export function betCall(
  wire: RoundWire,
  base: CallBase,
  bet: { transactionId: string; amountMinor: number; roundId: string; winMinor?: number | undefined },
): PlannedCall {
  if (bet.winMinor !== undefined && !wire.wholeRounds)
    throw new RangeError(`a bet carries its win only on a wire with whole rounds, and "${wire.name}" has none`);
  return {
    ...base,
    kind: 'debit',
    transactionId: bet.transactionId,
    amountMinor: bet.amountMinor,
    roundId: bet.roundId,
    ...(bet.winMinor === undefined ? {} : { winMinor: bet.winMinor }),
  };
}

/**
 * The win of a bet, in the bet's round. Where the wire's wins name their bet, it carries the bet's
 * transaction id and closes the round; a win that settles no bet (a promotion) has neither.
 */
export function winCall(
  wire: RoundWire,
  base: CallBase,
  bet: Pick<PlannedCall, 'kind' | 'transactionId' | 'roundId'> | undefined,
  win: { transactionId: string; amountMinor: number },
): PlannedCall {
  const settles = bet !== undefined && bet.kind === 'debit' && wire.winsNameTheirBet;
  return {
    ...base,
    kind: 'credit',
    transactionId: win.transactionId,
    amountMinor: win.amountMinor,
    ...(bet?.roundId === undefined ? {} : { roundId: bet.roundId }),
    ...(settles ? { referenceTransactionId: bet.transactionId, roundClosed: true } : {}),
  };
}

/** The ROLLBACK of a bet: its amount and round, naming it by its transaction id. */
export function rollbackCall(bet: PlannedCall, transactionId: string): PlannedCall {
  const { orderingKey: _o, winMinor: _w, roundClosed: _c, ...rest } = bet;
  return { ...rest, kind: 'rollback', transactionId, referenceTransactionId: bet.transactionId };
}

/** The rollbackWin of a win: its amount and round, naming the win by its transaction id. */
export function rollbackWinCall(win: PlannedCall, transactionId: string): PlannedCall {
  const { roundClosed: _c, ...rest } = win;
  return { ...rest, kind: 'rollback', operation: 'rollbackWin', transactionId, referenceTransactionId: win.transactionId };
}

/**
 * One call on its own (`aggmock send`), planned as it would be inside a round: a bet; the win of
 * the bet `betTransactionId` names (naming it and closing the round where the wire's wins do); or
 * the rollback of that bet.
 */
export function singleCall(
  wire: RoundWire,
  kind: EventKind,
  base: CallBase,
  call: { transactionId: string; amountMinor: number; betTransactionId?: string | undefined; roundId?: string | undefined },
): PlannedCall {
  const { transactionId, amountMinor, betTransactionId, roundId } = call;
  const round = roundId === undefined ? {} : { roundId };
  if (kind === 'debit') return { ...base, kind, transactionId, amountMinor, ...round };
  const bet = betTransactionId === undefined ? undefined : { kind: 'debit' as const, transactionId: betTransactionId, ...round };
  if (kind === 'credit') return { ...winCall(wire, base, bet, { transactionId, amountMinor }), ...round };
  if (bet === undefined) throw new RangeError('a rollback names the bet it reverses');
  return rollbackCall({ ...base, ...bet, amountMinor }, transactionId);
}

/** A call that moves no money (a game opening's authenticate or balance, a round's endRound): a CREDIT of 0 by its operation. */
export function readCall(
  base: CallBase,
  operation: Exclude<NamedOperation, 'rollbackWin' | 'promoWin'>,
  transactionId: string,
  extra: Pick<EnqueueRequest, 'roundId' | 'orderingKey'> = {},
): PlannedCall {
  return { ...base, kind: 'credit', operation, amountMinor: 0, transactionId, ...extra };
}

/** The base of a planned call: what every other call of its session carries too. */
export function baseOf(call: EnqueueRequest): CallBase {
  const base: CallBase = { playerId: call.playerId };
  for (const key of BASE_KEYS) if (call[key] !== undefined) base[key] = call[key];
  return base;
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
  request: PlannedCall;
  after: StepDependency[];
  /** A sentence for people: what this step checks. */
  purpose: string;
}

/**
 * One round as steps: its bet, then — when it won — its win once the bet is accepted; on a wire
 * with whole rounds, one callback carrying both. The calls around it (opening, endRound) are added
 * by {@link withSessionCalls}.
 */
export function roundSteps(
  wire: RoundWire,
  base: CallBase,
  ids: () => string,
  round: { key: string; roundName?: string; betMinor: number; winMinor: number; after: StepDependency[] },
  purposes: { bet: string; win: string; whole: string },
): ScenarioStep[] {
  const transactionId = ids();
  const roundId = roundIdFor(wire, round.roundName ?? `round-${transactionId}`);
  const whole = round.winMinor > 0 && wire.wholeRounds;
  const bet: ScenarioStep = {
    key: `${round.key}bet`,
    request: betCall(wire, base, {
      transactionId,
      amountMinor: round.betMinor,
      roundId,
      ...(whole ? { winMinor: round.winMinor } : {}),
    }),
    after: round.after,
    purpose: whole ? purposes.whole : purposes.bet,
  };
  if (round.winMinor <= 0 || whole) return [bet];
  const win: ScenarioStep = {
    key: `${round.key}win`,
    request: winCall(wire, base, bet.request, { transactionId: ids(), amountMinor: round.winMinor }),
    after: [{ step: bet.key, when: 'accepted' }],
    purpose: purposes.win,
  };
  return [bet, win];
}

/**
 * The steps with a dialect's session calls around their money: the game-opening calls first, every
 * other step waiting for them to be accepted; and after the last money call of each round that was
 * not rolled back, its endRound, which the round's followers then wait for too.
 */
export function withSessionCalls(steps: ScenarioStep[], calls: SessionCalls, ids: () => string): ScenarioStep[] {
  const first = steps[0];
  if (!first) return steps;
  const base = baseOf(first.request);
  if (calls.endRound) steps = withEndRounds(steps, base, ids);
  if (calls.open.length === 0) return steps;
  const opening: ScenarioStep[] = [];
  for (const operation of calls.open) {
    const previous = opening.at(-1);
    opening.push({
      key: `open-${operation}`,
      request: readCall(base, operation, ids()),
      after: previous ? [{ step: previous.key, when: 'accepted' }] : [],
      purpose:
        operation === 'authenticate'
          ? 'the game opens: the session token is checked before any bet'
          : 'the game opens: the balance read moves no money',
    });
  }
  const gate = { step: (opening.at(-1) as ScenarioStep).key, when: 'accepted' as const };
  // Every step waits for the opening, not only the first: a session whose game did not open sends nothing.
  return [...opening, ...steps.map((step) => ({ ...step, after: [gate, ...step.after] }))];
}

/** An endRound after the last money call of each round not rolled back; the round's followers wait for it. */
function withEndRounds(steps: ScenarioStep[], base: CallBase, ids: () => string): ScenarioStep[] {
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
    const { orderingKey } = last.request;
    ends.set(last.key, {
      key: `${last.key}-end-round`,
      request: readCall(base, 'endRound', ids(), { roundId: round, ...(orderingKey === undefined ? {} : { orderingKey }) }),
      after: [{ step: last.key, when: last.request.kind === 'debit' ? 'accepted' : 'settled' }],
      purpose: 'the round ends after its last money call: endRound moves no money',
    });
  }
  return steps.flatMap((step) => {
    // A step that follows a round's last call follows its endRound too, so the two never race.
    const after = step.after.flatMap((dep) => {
      const end = ends.get(dep.step);
      return end && end.key !== step.key ? [dep, { step: end.key, when: 'finished' as const }] : [dep];
    });
    const end = ends.get(step.key);
    return end ? [{ ...step, after }, end] : [{ ...step, after }];
  });
}
