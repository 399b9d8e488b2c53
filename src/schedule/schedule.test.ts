import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../callbacks/clock.ts';
import { openDatabase } from '../callbacks/db.ts';
import { createCallbackEngine } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { type ScheduleEntry, scheduleEntrySchema, validateConfig } from '../config/index.ts';
import { startStubWallet } from '../ledger/test-wallet.ts';
import { createScheduler, type ScheduledRun, ScheduleError } from './index.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const entry = (e: Partial<ScheduleEntry> & Pick<ScheduleEntry, 'scenario'>): ScheduleEntry => scheduleEntrySchema.parse(e);

/** One complete scheduled run on a FakeClock, a fresh in-memory DB and a fresh real HTTP wallet. */
async function runSchedule(entries: ScheduleEntry[], seed: number | string = 42) {
  const wallet = await startStubWallet();
  const clock = new FakeClock();
  const config = validateConfig({
    seed,
    callbacks: { webhookUrl: wallet.url, retrySchedule: [0], jitter: 0, idNamespace: 'schedule-test' },
  });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db, clock });
  engine.start();
  const runs: ScheduledRun[] = [];
  const scheduler = createScheduler({
    entries,
    engine,
    clock,
    random: seededRandom(`${seed}:schedule`),
    onRun: (r) => runs.push(r),
  });
  cleanups.push(async () => {
    scheduler.stop();
    await engine.stop();
    db.close();
    await wallet.close();
  });
  const startedAt = clock.now();
  scheduler.start();
  for (let i = 0; i < 200 && (await clock.advanceToNext()); i++) await scheduler.idle();
  await scheduler.idle();
  const events = engine.outbox
    .list({ limit: 10_000 })
    .reverse()
    .map((e) => [e.kind, e.transactionId, e.amountMinor, e.playerId].join(' '));
  const received = wallet.received.map((b) => JSON.stringify(b)).sort();
  return { events, received, runs, startedAt, scheduler };
}

const mixed = (): ScheduleEntry[] => [
  entry({ scenario: 'bet-win', every: '2s', count: 4, players: ['p1', 'p2'] }),
  entry({ scenario: 'burst', every: '3s', count: 2, size: 3 }),
  entry({ scenario: 'session', cron: '*/5 * * * * *', count: 2, size: 4, players: ['p3'] }),
  entry({ scenario: 'duplicate-credit', every: '6s', count: 1 }),
];

describe('createScheduler', () => {
  it('gives the same events in the same order for the same seed and schedule, and different ones for another seed', async () => {
    const a = await runSchedule(mixed(), 42);
    const b = await runSchedule(mixed(), 42);
    expect(a.events.length).toBeGreaterThan(15);
    expect(b.events).toEqual(a.events);
    expect(b.received).toEqual(a.received);
    const c = await runSchedule(mixed(), 43);
    expect(c.events).not.toEqual(a.events);
  });

  it('fires an "every" entry once per interval on the injected clock and stops after count', async () => {
    const { runs, startedAt, scheduler } = await runSchedule([entry({ scenario: 'bet-lose', every: '2s', count: 3 })]);
    expect(runs.map((r) => [r.firing, r.at - startedAt])).toEqual([
      [1, 2_000],
      [2, 4_000],
      [3, 6_000],
    ]);
    expect(runs.every((r) => r.summary?.ok)).toBe(true);
    expect(scheduler.status()).toEqual([{ entry: 0, scenario: 'bet-lose', when: 'every 2s', fired: 3, count: 3 }]);
  });

  it("fires a cron entry at the pattern's matches", async () => {
    const { runs } = await runSchedule([entry({ scenario: 'bet-lose', cron: '*/5 * * * * *', count: 3 })]);
    expect(runs).toHaveLength(3);
    for (const r of runs) expect(new Date(r.at).getUTCSeconds() % 5).toBe(0);
    expect(runs[1]!.at - runs[0]!.at).toBe(5_000);
  });

  it('stops firing when stopped, and reports the next firing while running', async () => {
    const clock = new FakeClock();
    const enqueued: string[] = [];
    const engine = {
      enqueue: (req: { kind: string }) => {
        enqueued.push(req.kind);
        return {
          event: {} as never,
          settled: Promise.resolve({ status: 'delivered', reply: { status: 200, body: { balance: 1 } } } as never),
        };
      },
      nextTransactionId: (() => {
        let n = 0;
        return () => `tx_${n++}`;
      })(),
    };
    const scheduler = createScheduler({
      entries: [entry({ scenario: 'bet-lose', every: '1s' })],
      engine,
      clock,
      random: seededRandom(1),
    });
    scheduler.start();
    expect(scheduler.status()[0]?.nextAt).toBe(clock.now() + 1_000);
    await clock.advance(3_000);
    await scheduler.idle();
    expect(enqueued).toHaveLength(3);
    scheduler.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(10_000);
    expect(enqueued).toHaveLength(3);
    expect(scheduler.status()[0]?.nextAt).toBeUndefined();
  });

  it('refuses an interval or cron pattern it cannot use, naming the entry', () => {
    const engine = { enqueue: () => ({}) as never, nextTransactionId: () => 'x' };
    const bad = (e: Partial<ScheduleEntry>) => () =>
      createScheduler({
        entries: [{ ...entry({ scenario: 'bet-win', every: '1s' }), every: undefined, ...e }],
        engine,
        random: seededRandom(1),
      });
    expect(bad({ every: 'soon' })).toThrow(ScheduleError);
    expect(bad({ every: 'soon' })).toThrow(/schedule\[0\]\.every.*"2s"/);
    expect(bad({ every: '0s' })).toThrow(/positive duration/);
    expect(bad({ cron: 'every minute' })).toThrow(/schedule\[0\]\.cron/);
  });

  it('reports a firing whose scenario cannot be planned instead of stopping the schedule', async () => {
    const clock = new FakeClock();
    const runs: ScheduledRun[] = [];
    const engine = { enqueue: () => ({}) as never, nextTransactionId: () => 'x' };
    const broken = { ...entry({ scenario: 'bet-win', every: '1s', count: 2 }), amount: { min: 0.001, max: 0.002 } };
    const scheduler = createScheduler({ entries: [broken], engine, clock, random: seededRandom(1), onRun: (r) => runs.push(r) });
    scheduler.start();
    await clock.advance(2_000);
    expect(runs.map((r) => r.error?.slice(0, 7))).toEqual(['amount:', 'amount:']);
  });
});
