/**
 * The shadow ledger's cost per settled event: a 10,000-event demo history (players betting and
 * winning one callback after another, with bursts of parallel bets that overlap sequential
 * callbacks of the same player), fed as it arrives — each event announced when stored, judged
 * when settled — to the ledger with the one history checker, against the reducer it replaced
 * (bench/ledger-before: sequential arithmetic, bursts judged as a set). Alternating rounds, the
 * median ratio. In-process, no HTTP: only the judging is measured.
 */
import { openDatabase } from '../src/callbacks/db.ts';
import type { StoredEvent } from '../src/callbacks/events.ts';
import {
  createShadowLedger,
  type LedgerTx,
  type LedgerView,
  type PlayerLedger,
  type SettlementOutcome,
} from '../src/ledger/index.ts';
import { mulberry32 } from '../src/shared/index.ts';
import { evaluateConcurrentGroup, evaluateSettlement } from './ledger-before/reducer.ts';
import { type Benchmark, fmt, median, round } from './lib.ts';

const EVENTS = 10_000;
const PLAYERS = 8;
const BURST = 10;

/** One step of the demo: an event stored, or an event settled. */
type Step = { stored: StoredEvent } | { settled: StoredEvent };

/** A correct wallet's run: the wallet applies each event when it settles; bursts settle in a shuffled order. */
function demoHistory(seed: number): { steps: Step[]; events: number } {
  const random = mulberry32(seed);
  const balances = new Map<string, number>();
  const steps: Step[] = [];
  let id = 0;
  let clock = 0;
  const make = (kind: 'debit' | 'credit', playerId: string, orderingKey: string, group?: string): StoredEvent => {
    id += 1;
    return {
      id,
      kind,
      transactionId: `tx${id}`,
      playerId,
      amountMinor: 1 + Math.floor(random() * 500),
      source: 'bench',
      orderingKey,
      ...(group ? { group } : {}),
      url: 'http://127.0.0.1/webhook',
      body: '{}',
      status: 'pending',
      attemptCount: 1,
      createdAt: clock,
    };
  };
  const settle = (e: StoredEvent) => {
    const before = balances.get(e.playerId) ?? 100_000;
    const refused = e.kind === 'debit' && e.amountMinor > before;
    const after = refused ? before : e.kind === 'debit' ? before - e.amountMinor : before + e.amountMinor;
    balances.set(e.playerId, after);
    clock += 1;
    const reply = refused
      ? { status: 402, body: { error: 'INSUFFICIENT_FUNDS', balance: after / 100 } }
      : { status: 200, body: { balance: after / 100 } };
    steps.push({ settled: { ...e, status: refused ? 'rejected' : 'delivered', settledAt: clock, reply } });
  };
  while (id < EVENTS) {
    const player = `p${1 + Math.floor(random() * PLAYERS)}`;
    if (random() < 0.1) {
      // A burst on its own ordering keys, overlapping two sequential callbacks of the same player.
      const group = `burst-${id}`;
      const burst = Array.from({ length: BURST }, (_, i) => make('debit', player, `${player}~${group}~${i}`, group));
      const sequential = [make('debit', player, player), make('credit', player, player)];
      for (const e of [...burst, ...sequential]) steps.push({ stored: e });
      const order = [...burst].sort(() => random() - 0.5);
      order.splice(3, 0, sequential[0] as StoredEvent);
      order.splice(7, 0, sequential[1] as StoredEvent);
      for (const e of order) settle(e);
    } else {
      const e = make(random() < 0.6 ? 'debit' : 'credit', player, player);
      steps.push({ stored: e });
      settle(e);
    }
  }
  return { steps, events: id };
}

/** The ledger with the history checker, fed through the engine's two notifications. */
function runHistory(steps: readonly Step[]): { ms: number; found: number } {
  const db = openDatabase(':memory:');
  const stored: ((e: StoredEvent) => void)[] = [];
  const settled: ((e: StoredEvent) => void)[] = [];
  const engine = {
    onEnqueued: (l: (e: StoredEvent) => void) => {
      stored.push(l);
      return () => {};
    },
    onSettled: (l: (e: StoredEvent) => void) => {
      settled.push(l);
      return () => {};
    },
  };
  const ledger = createShadowLedger({ engine, db });
  const t0 = performance.now();
  for (const step of steps) {
    if ('stored' in step) for (const l of stored) l(step.stored);
    else for (const l of settled) l(step.settled);
  }
  const ms = performance.now() - t0;
  const found = ledger.discrepancyCount();
  ledger.close();
  db.close();
  return { ms, found };
}

/**
 * The ledger before the history checker, as its index.ts ran it: players and transactions in
 * Maps, each event judged on its own, a burst as a set once all of it settled.
 */
function runBefore(steps: readonly Step[]): { ms: number; found: number } {
  const players = new Map<string, PlayerLedger>();
  const transactions = new Map<string, LedgerTx>();
  const view: LedgerView = { player: (id) => players.get(id), transaction: (key) => transactions.get(key) };
  let found = 0;
  const commit = (outcome: SettlementOutcome) => {
    players.set(outcome.player.playerId, outcome.player);
    for (const tx of outcome.transactions) transactions.set(tx.key, tx);
    found += outcome.discrepancies.length;
  };
  const groups = new Map<string, StoredEvent[]>();
  const sizes = new Map<string, number>();
  for (const step of steps)
    if ('stored' in step && step.stored.group) sizes.set(step.stored.group, (sizes.get(step.stored.group) ?? 0) + 1);
  const t0 = performance.now();
  for (const step of steps) {
    if (!('settled' in step)) continue;
    const e = step.settled;
    const group = e.orderingKey === e.playerId ? undefined : e.group;
    if (group === undefined) {
      commit(evaluateSettlement(view, e));
      continue;
    }
    const open = groups.get(group) ?? [];
    open.push(e);
    groups.set(group, open);
    if (open.length < (sizes.get(group) ?? 0)) continue;
    groups.delete(group);
    commit(evaluateConcurrentGroup(view, open));
  }
  return { ms: performance.now() - t0, found };
}

const benchmark: Benchmark = {
  name: 'ledger',
  description:
    'shadow ledger: per-event cost of the one history checker on a 10,000-event demo history, vs the reducer it replaced',
  async run(options) {
    const { steps, events } = demoHistory(42);
    runHistory(steps); // warm-up of both
    runBefore(steps);
    const rounds: { historyMs: number; beforeMs: number; ratio: number; historyFound: number; beforeFound: number }[] = [];
    for (let r = 0; r < options.rounds; r++) {
      // Alternate which goes first, so neither always runs on a warmer process.
      let a: { ms: number; found: number };
      let b: { ms: number; found: number };
      if (r % 2 === 0) {
        a = runHistory(steps);
        b = runBefore(steps);
      } else {
        b = runBefore(steps);
        a = runHistory(steps);
      }
      rounds.push({ historyMs: a.ms, beforeMs: b.ms, ratio: a.ms / b.ms, historyFound: a.found, beforeFound: b.found });
    }
    const historyMs = median(rounds.map((r) => r.historyMs));
    const beforeMs = median(rounds.map((r) => r.beforeMs));
    const ratio = median(rounds.map((r) => r.ratio));
    const perEventUs = (ms: number) => round((ms * 1000) / events, 2);
    const markdown = [
      '### Shadow ledger: one history checker',
      '',
      `${fmt(events)} settled events (8 players, 10 % of them in bursts of ${BURST} parallel bets overlapping sequential callbacks), judged as they arrive; ${options.rounds} alternating rounds, medians.`,
      '',
      '| | events/s | µs per event | discrepancies on a correct wallet |',
      '|---|---:|---:|---:|',
      `| history checker (this ledger) | ${fmt((events / historyMs) * 1000)} | ${perEventUs(historyMs)} | ${rounds[0]?.historyFound ?? 0} |`,
      `| reducer before it | ${fmt((events / beforeMs) * 1000)} | ${perEventUs(beforeMs)} | ${rounds[0]?.beforeFound ?? 0} |`,
      '',
      `Median per-round ratio (history ÷ before): ${round(ratio, 2)}×. The history checker's time includes storing nothing (no discrepancy); the one before it counts its false alarms in memory only.`,
    ].join('\n');
    return { markdown, data: { events, rounds, historyMs, beforeMs, ratio } };
  },
};

export default benchmark;
