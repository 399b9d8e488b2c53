/**
 * Every scenario under every built-in dialect, planned by the one round planner and sent through
 * the engine with the shadow ledger watching:
 * - to the vendor's own wallet as written from its documentation (test/dialects/receivers): 0
 *   receiver errors, no call refused but the ones a scenario means to be refused, 0 discrepancies;
 * - every call carries what the dialect's request reads (a win names its bet, a round's bets have
 *   ids of their own);
 * - and, the other side: where a vendor's win names its bet, its wallet refuses a win that does not.
 * `default` and `betnex` have no vendor wallet but aggmock's reference wallet, which plays the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callFactsOf } from '../../src/callbacks/call.ts';
import { FakeClock } from '../../src/callbacks/clock.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { withWallet } from '../../src/cli/commands/demo.ts';
import { type AggmockConfig, scheduleEntrySchema, validateConfig } from '../../src/config/index.ts';
import {
  BUILTIN_DIALECTS,
  builtinDialect,
  type Dialect,
  type Fact,
  type Field,
  factValue,
  type Operation,
} from '../../src/dialects/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import {
  betCall,
  type CallBase,
  type PlannedCall,
  planScenario,
  type RoundWire,
  readCall,
  roundIdFor,
  roundWireOf,
  runScenario,
  SCENARIOS,
  ScenarioError,
  type ScenarioName,
  type ScenarioRunSummary,
  winCall,
  wireParamsOf,
} from '../../src/scenarios/index.ts';
import { createScheduler, type ScheduledRun } from '../../src/schedule/index.ts';
import { startWallet } from '../../src/wallet/index.ts';
import { PLAYER, started, VENDORS } from './vendor-table.ts';

afterEach(runCleanups);

/** The facts a field reads with nothing to fall back on: a single `from` without a default. */
function requiredFacts(field: Field, into: Set<Fact>): void {
  if ('from' in field) {
    if (typeof field.from === 'string' && field.default === undefined) into.add(field.from);
  } else if ('object' in field) {
    if (!field.omitWhenEmpty) for (const inner of Object.values(field.object)) requiredFacts(inner, into);
  } else if ('list' in field) for (const inner of field.list) requiredFacts(inner, into);
  else if ('json' in field) requiredFacts(field.json, into);
  else if ('template' in field) for (const m of field.template.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)) into.add(m[1] as Fact);
}

/** Facts a call carries only when it has them: a bonus, a game's name, its provider. */
const OPTIONAL_FACTS: ReadonlySet<Fact> = new Set<Fact>([
  'bonusKind',
  'bonusId',
  'freeRoundId',
  'freeRoundsLeft',
  'gameName',
  'provider',
  'roundClosed',
]);

/** What the dialect's request for `operation` reads with no fallback (its fields, headers and path). */
function requiredOf(dialect: Dialect, operation: Operation): Fact[] {
  const op = dialect.operations[operation];
  if (!op) return [];
  const found = new Set<Fact>();
  for (const field of [...Object.values(op.fields), ...Object.values(op.headers), ...Object.values(dialect.request.headers)])
    requiredFacts(field, found);
  requiredFacts({ template: op.path }, found);
  return [...found].filter((f) => !OPTIONAL_FACTS.has(f));
}

/** Whether the dialect's request for a win reads the bet it settles (at all, even as a fallback). */
function winNamesItsBet(dialect: Dialect): boolean {
  const reads = (field: Field): boolean => {
    if ('from' in field) return (typeof field.from === 'string' ? [field.from] : field.from).includes('betTransactionId');
    if ('object' in field) return Object.values(field.object).some(reads);
    if ('list' in field) return field.list.some(reads);
    if ('json' in field) return reads(field.json);
    return false;
  };
  return Object.values(dialect.operations.win?.fields ?? {}).some(reads);
}

/** Each event's operation on the wire, and what its request lacks of what the dialect reads with no fallback. */
function missingFacts(config: AggmockConfig, dialect: Dialect, events: readonly StoredEvent[]): string[] {
  const problems: string[] = [];
  for (const event of events) {
    const facts = callFactsOf(event, config.callbacks);
    // A promotion is a win of no bet: it has no betTransactionId to give.
    const promotion = facts.bonus?.kind === 'promotion';
    for (const fact of requiredOf(dialect, facts.operation).filter((f) => !(promotion && f === 'betTransactionId')))
      if (factValue(dialect, facts, fact) === undefined)
        problems.push(`${facts.operation} ${event.transactionId}: no ${fact}, which the dialect's request reads`);
  }
  return problems;
}

/** A win names a bet sent before it in the same round; two bets never share an id. */
function roundProblems(config: AggmockConfig, events: readonly StoredEvent[]): string[] {
  const problems: string[] = [];
  const bets = new Map<string, StoredEvent>();
  for (const event of events) {
    const operation = callFactsOf(event, config.callbacks).operation;
    if (operation === 'bet' || operation === 'betWin') {
      const seen = bets.get(event.transactionId);
      if (seen && seen.amountMinor !== event.amountMinor) problems.push(`two bets share the id ${event.transactionId}`);
      bets.set(event.transactionId, event);
    }
    if (operation === 'win' && callFactsOf(event, config.callbacks).bonus?.kind !== 'promotion') {
      const bet = event.referenceTransactionId === undefined ? undefined : bets.get(event.referenceTransactionId);
      if (!bet) problems.push(`win ${event.transactionId} names no bet sent before it (${event.referenceTransactionId})`);
      else if (bet.roundId !== event.roundId)
        problems.push(`win ${event.transactionId} is in round ${event.roundId}, its bet in ${bet.roundId}`);
    }
  }
  return problems;
}

/** Whether a call was meant to be refused: the bet of insufficient-funds, the rollback of a transaction never sent. */
function refusalMeant(scenario: ScenarioName, event: StoredEvent, config: AggmockConfig): boolean {
  const operation = callFactsOf(event, config.callbacks).operation;
  if (scenario === 'insufficient-funds') return operation === 'bet';
  if (scenario === 'rollback-unknown') return operation === 'rollback';
  return false;
}

async function aggmockFor(name: string, url: string, credentials: Record<string, string>): Promise<Aggmock> {
  const config = validateConfig({
    port: 0,
    db: ':memory:',
    callbacks: {
      profile: name,
      webhookUrl: url,
      credentials,
      sessionTokens: { [PLAYER.playerId]: PLAYER.token },
      retrySchedule: [0],
      jitter: 0,
    },
  });
  const aggmock = await startAggmock(config);
  onCleanup(() => aggmock.close());
  return aggmock;
}

/** Opens the game, then sends the calls `plan` makes with the round planner's builders, one after another. */
async function betsAndWins<K extends string>(
  aggmock: Aggmock,
  dialect: Dialect,
  plan: (wire: RoundWire, base: CallBase) => Record<K, PlannedCall>,
): Promise<Record<K, StoredEvent>> {
  const wire = roundWireOf(aggmock.config.callbacks);
  const base: CallBase = { playerId: PLAYER.playerId, currency: 'EUR', gameId: 'vs20fruitsw', source: 'test' };
  for (const operation of (['authenticate', 'balance'] as const).filter((op) => dialect.operations[op]))
    expect((await aggmock.engine.enqueue(readCall(base, operation, `open-${operation}`)).settled).status).toBe('delivered');
  const out = {} as Record<K, StoredEvent>;
  for (const [key, call] of Object.entries(plan(wire, base)) as [K, PlannedCall][])
    out[key] = await aggmock.engine.enqueue(call).settled;
  return out;
}

interface Played {
  scenario: ScenarioName;
  summary?: ScenarioRunSummary;
  refused?: string;
  /** What the receiver found wrong in this scenario's requests. */
  errors?: string[];
}

async function playEvery(aggmock: Aggmock, players: string[], errors: () => readonly string[] = () => []): Promise<Played[]> {
  const rng = seededRandom(31);
  const played: Played[] = [];
  for (const scenario of SCENARIOS) {
    let plan: ReturnType<typeof planScenario>;
    try {
      plan = planScenario(
        scenario,
        {
          players,
          amount: { min: 1, max: 5 },
          size: 3,
          balances: aggmock.ledger.knownBalances(),
          ...wireParamsOf(aggmock.config.callbacks),
        },
        rng,
        () => aggmock.engine.nextTransactionId(),
      );
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      played.push({ scenario, refused: error.message });
      continue;
    }
    const before = errors().length;
    const summary = await runScenario(aggmock.engine, plan);
    played.push({ scenario, summary, errors: errors().slice(before) });
  }
  return played;
}

/** What went wrong in a run, as lines; empty when every call went as the scenario meant. */
function unmeant(config: AggmockConfig, played: readonly Played[]): string[] {
  const problems: string[] = [];
  for (const { scenario, summary } of played) {
    if (!summary) continue;
    if (!summary.ok) problems.push(`${scenario}: ${JSON.stringify(summary.steps)}`);
    for (const step of summary.steps)
      if (step.status !== 'sent' && scenario !== 'insufficient-funds') problems.push(`${scenario} ${step.key}: ${step.status}`);
    for (const event of summary.events) {
      const operation = callFactsOf(event, config.callbacks).operation;
      if (refusalMeant(scenario, event, config)) continue;
      if (event.status !== 'delivered')
        problems.push(
          `${scenario} ${operation} ${event.transactionId}: ${event.status} ${event.error ?? JSON.stringify(event.reply?.body)}`,
        );
    }
  }
  return problems;
}

/** Scenarios a wire cannot play, and why: a ROLLBACK it has not, a rollbackWin it has not. */
function expectedRefusals(dialect: Dialect | undefined, profileHasRollback: boolean): ScenarioName[] {
  const refused: ScenarioName[] = [];
  const hasRollback = dialect ? dialect.operations.rollback !== undefined : profileHasRollback;
  if (!hasRollback) refused.push('bet-rollback', 'rollback-unknown');
  if (!dialect?.operations.rollbackWin) refused.push('win-rollback');
  return refused;
}

describe.each(VENDORS)('every scenario under $name, against its vendor’s wallet', ({ name, receiver, credentials }) => {
  const dialect = builtinDialect(name);

  it('is played with 0 receiver errors, 0 refusals but the meant ones, 0 discrepancies, every call carrying what the dialect reads', async () => {
    const rx = await started(receiver());
    const config = validateConfig({
      port: 0,
      db: ':memory:',
      seed: 31,
      callbacks: {
        profile: name,
        webhookUrl: rx.url,
        credentials,
        sessionTokens: { [PLAYER.playerId]: PLAYER.token },
        retrySchedule: [0, 50],
        jitter: 0,
      },
    });
    const aggmock = await startAggmock(config);
    onCleanup(() => aggmock.close());
    const played = await playEvery(aggmock, [PLAYER.playerId], () => rx.errors);

    expect(
      played.filter((p) => p.refused).map((p) => p.scenario),
      'scenarios the wire cannot play',
    ).toEqual(expectedRefusals(dialect, true).sort((a, b) => SCENARIOS.indexOf(a) - SCENARIOS.indexOf(b)));
    const known = KNOWN[name] ?? {};
    const events = played.flatMap((p) => p.summary?.events ?? []);
    const promotion = played.find((p) => p.scenario === 'promotion')?.summary?.events ?? [];
    expect(missingFacts(config, dialect, events)).toEqual([]);
    expect(roundProblems(config, events)).toEqual([]);
    // Every receiver error, refusal and discrepancy is one of the findings below, and each finding still shows.
    // A promotion is paid on every wire: Pragmatic, 100HP, Evolution (/promo_payout) and Groove (a result with
    // frbid) through their promotion call; Hub88 and Caleta, whose wins must settle a bet, as a free bet and its win.
    const errors = played.flatMap((p) => p.errors ?? []);
    expect(errors).toEqual([]);
    expect(errors.length).toBe(rx.errors.length);
    const refusals = unmeant(config, played);
    expect(refusals.filter((line) => !known.repeatJudged?.some((r) => line.startsWith(r)))).toEqual([]);
    const discrepancies = aggmock.ledger.discrepancies();
    expect(discrepancies.filter((d) => !known.discrepancies?.includes(d.kind)).map((d) => d.message)).toEqual([]);
    expect([...new Set(discrepancies.map((d) => d.kind))].sort()).toEqual([...(known.discrepancies ?? [])].sort());
    const promotionWin = promotion.find((e) => ['win', 'promoWin'].includes(callFactsOf(e, config.callbacks).operation));
    expect(promotionWin?.status).toBe('delivered');
    for (const r of known.repeatJudged ?? [])
      expect(
        unmeant(config, played).some((line) => line.startsWith(r)),
        r,
      ).toBe(true);
    const [balance] = aggmock.ledger.balances();
    expect((balance?.balanceMinor ?? Number.NaN) / 100).toBe(Number(rx.balanceOf(PLAYER.playerId)));
  });

  it('plays a round with two bets: each has its own id, each win names one of them, the wallet takes all four', async () => {
    const rx = await started(receiver());
    const aggmock = await aggmockFor(name, rx.url, credentials);
    const events = await betsAndWins(aggmock, dialect, (wire, base) => {
      const roundId = roundIdFor(wire, 'round-two-bets');
      const first = betCall(wire, base, { transactionId: 'tx9101', amountMinor: 100, roundId });
      const second = betCall(wire, base, { transactionId: 'tx9102', amountMinor: 200, roundId });
      return {
        first,
        second,
        firstWin: { ...winCall(wire, base, first, { transactionId: 'tx9103', amountMinor: 150 }), roundClosed: false },
        secondWin: winCall(wire, base, second, { transactionId: 'tx9104', amountMinor: 250 }),
      };
    });
    const statuses = Object.fromEntries(Object.entries(events).map(([key, e]) => [key, e.status]));
    expect(statuses).toEqual({ first: 'delivered', second: 'delivered', firstWin: 'delivered', secondWin: 'delivered' });
    expect(rx.errors).toEqual([]);
    expect(aggmock.ledger.discrepancies().filter((d) => !KNOWN[name]?.discrepancies?.includes(d.kind))).toEqual([]);
  });
});

describe.each(VENDORS.filter(({ name }) => winNamesItsBet(builtinDialect(name))))(
  'the other side: $name, whose win request names its bet',
  ({ name, receiver, credentials }) => {
    const dialect = builtinDialect(name);

    it('refuses a win that does not name its bet and takes the same win naming it a win that does not name its bet (the other side)', async () => {
      const rx = await started(receiver());
      const aggmock = await aggmockFor(name, rx.url, credentials);
      const { bare, named } = await betsAndWins(aggmock, dialect, (wire, base) => {
        const a = betCall(wire, base, { transactionId: 'tx9001', amountMinor: 100, roundId: roundIdFor(wire, 'round-a') });
        const b = betCall(wire, base, { transactionId: 'tx9011', amountMinor: 100, roundId: roundIdFor(wire, 'round-b') });
        const { referenceTransactionId: _bet, ...bareWin } = winCall(wire, base, a, {
          transactionId: 'tx9002',
          amountMinor: 300,
        });
        return { a, b, bare: bareWin, named: winCall(wire, base, b, { transactionId: 'tx9012', amountMinor: 300 }) };
      });
      // A refused win is sent again until the retry schedule ends where the vendor re-sends refused wins
      // (Caleta's "WIN ERROR": every status but its final list), so it ends `failed` there.
      const refused = dialect.operations.win?.reply?.finalCodes === undefined ? 'rejected' : 'failed';
      expect({ bare: bare.status, named: named.status }).toEqual(
        KNOWN[name]?.bareWinTaken ? { bare: 'delivered', named: 'delivered' } : { bare: refused, named: 'delivered' },
      );
    });
  },
);

describe.each(VENDORS)('the schedule under $name', ({ name, receiver, credentials }) => {
  it('plans its rounds as the scenarios do: the vendor’s wallet takes every scheduled call (a win names its bet)', async () => {
    const rx = await started(receiver());
    const aggmock = await aggmockFor(name, rx.url, credentials);
    const clock = new FakeClock();
    const runs: ScheduledRun[] = [];
    const scheduler = createScheduler({
      entries: [
        scheduleEntrySchema.parse({ scenario: 'bet-win', every: '1s', count: 2, players: [PLAYER.playerId] }),
        scheduleEntrySchema.parse({ scenario: 'session', every: '1s', count: 1, size: 3, rtp: 1, players: [PLAYER.playerId] }),
      ],
      engine: aggmock.engine,
      clock,
      random: seededRandom('schedule'),
      ...wireParamsOf(aggmock.config.callbacks),
      onRun: (run) => runs.push(run),
    });
    onCleanup(() => scheduler.stop());
    scheduler.start();
    for (let i = 0; i < 10 && (await clock.advanceToNext()); i++) await scheduler.idle();
    await scheduler.idle();
    expect(runs.map((r) => r.error ?? r.summary?.ok)).toEqual([true, true, true]);
    const events = runs.flatMap((r) => r.summary?.events ?? []);
    const wins = events.filter((e) => ['win', 'betWin'].includes(callFactsOf(e, aggmock.config.callbacks).operation));
    expect(wins.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.status !== 'delivered').map((e) => `${e.transactionId} ${e.error}`)).toEqual([]);
    expect(rx.errors).toEqual([]);
    expect(roundProblems(aggmock.config, events)).toEqual([]);
  });
});

/**
 * What this test found that the round planner cannot fix, per dialect. Each entry is checked to
 * still show (remove it when its fix lands); nothing here loosens a receiver.
 */
interface Known {
  /**
   * Discrepancy kinds the shadow ledger raises on a correct wallet, judged by the ledger against
   * verify's rules (issue 31 item 2, "one judge per rule"): an authenticate reply documented without
   * a balance (missing-balance); a repeat answered "already processed" or with another status text.
   */
  discrepancies?: string[];
  /** Refusals of a correct repeat ("already settled") that the same judge decides: `<scenario> <operation>` prefixes. */
  repeatJudged?: string[];
  /**
   * The vendor's wallet takes a win that names no bet, as the vendor allows (Habanero: a credit without
   * initialdebittransferid is a free-spin or jackpot payout, paid: see test/dialects/receivers/habanero.ts).
   */
  bareWinTaken?: boolean;
}

const KNOWN: Record<string, Known> = {
  evolution: { repeatJudged: ['duplicate-credit win'] },
  habanero: { bareWinTaken: true },
};

describe.each(['default', 'betnex'])('every scenario under %s, against aggmock’s reference wallet', (name) => {
  it('is played with no call refused but the meant ones and 0 discrepancies; the wallet and the ledger agree', async () => {
    const base = validateConfig({
      port: 0,
      db: ':memory:',
      seed: 31,
      callbacks: { profile: name, retrySchedule: [0, 50], jitter: 0 },
    });
    const wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    onCleanup(() => wallet.close());
    const config = { ...base, callbacks: withWallet(base.callbacks, wallet.webhookUrl, Object.keys(base.wallet.players)) };
    const aggmock = await startAggmock(config);
    onCleanup(() => aggmock.close());
    const played = await playEvery(aggmock, ['p1']);
    const hasRollback = wireParamsOf(config.callbacks).wire.hasRollback;
    expect(played.filter((p) => p.refused).map((p) => p.scenario)).toEqual(
      expectedRefusals(undefined, hasRollback).sort((a, b) => SCENARIOS.indexOf(a) - SCENARIOS.indexOf(b)),
    );
    expect(unmeant(config, played)).toEqual([]);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    for (const b of aggmock.ledger.balances()) expect(b.balanceMinor, b.playerId).toBe(wallet.store.balanceOf(b.playerId));
  });
});

it('covers every built-in dialect', () => {
  expect(VENDORS.map((v) => v.name).sort()).toEqual([...BUILTIN_DIALECTS].sort());
});
