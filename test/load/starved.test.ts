import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { builtinDialect, writeReply } from '../../src/dialects/index.ts';
import { judgeRun, parseMix, runLoad, type Schedule, type Sender, summarise } from '../../src/load/index.ts';
import { GENERATOR_BUSY_SHARE, latencyDrift, limitOf } from '../../src/load/report.ts';
import { arrivalTime } from '../../src/load/schedule.ts';

/**
 * The open model's honesty about itself: when aggmock cannot start a round on time (its event loop
 * blocked, or the in-flight cap reached) it counts the round late or dropped and says which side
 * was the limit. The wallet here is an in-memory sender (a correct wallet's replies, no network),
 * so the only thing that can be slow is what the test does to the generator.
 */

const config = configSchema.parse({ callbacks: { profile: 'softswiss' } });
const dialect = builtinDialect('softswiss');

/** A correct wallet in memory: every call accepted with the balance it leaves. */
function memoryWallet(delayMs = 0): Sender {
  const balances = new Map<string, number>();
  const seen = new Set<string>();
  return {
    async send(req) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const body = JSON.parse(req.body ?? '{}') as {
        user_id?: string;
        actions?: { action: string; amount: number; action_id: string }[];
      };
      const player = String(body.user_id ?? 'p1');
      let balance = balances.get(player) ?? 100_000;
      for (const a of body.actions ?? []) {
        if (seen.has(a.action_id)) continue;
        seen.add(a.action_id);
        balance += a.action === 'bet' ? -a.amount : a.amount;
      }
      balances.set(player, balance);
      const reply = writeReply(
        dialect,
        { operation: 'balance', currency: 'EUR' },
        { accepted: true, balanceMinor: balance },
        (m) => m,
      );
      return { ok: true, status: reply.status, text: JSON.stringify(reply.body) };
    },
    close: async () => {},
  };
}

/** Rounds due in each second, counted one by one from each round's time (a round due at 1000 ms is second 1's). */
function askedPerSecond(schedule: Schedule, total: number): number[] {
  const out: number[] = [];
  for (let n = 1; n <= total; n++) {
    const t = Math.floor((arrivalTime(schedule, n) as number) / 1000);
    while (out.length <= t) out.push(0);
    out[t] = (out[t] as number) + 1;
  }
  return out;
}

const base = {
  config,
  url: 'http://x.invalid/',
  players: ['p1', 'p2', 'p3', 'p4'],
  mix: parseMix('balance=1', dialect),
  stakeMinor: 100,
  currency: 'EUR',
};

describe('late and dropped starts', () => {
  it('a blocked event loop: the rounds due meanwhile start late or are dropped, and the report blames the generator', async () => {
    const schedule = { startRate: 100, stages: [{ durationMs: 1500, rate: 100 }] };
    // 600 ms into the run, the generator's own thread is busy for 500 ms.
    setTimeout(() => {
      const until = Date.now() + 500;
      while (Date.now() < until) {
        /* starve the generator */
      }
    }, 600);
    const result = await runLoad({ ...base, schedule, sender: memoryWallet(), lateMs: 20, dropMs: 200 });
    const { stats } = result;
    expect(stats.dropped).toBeGreaterThan(10);
    expect(stats.late + stats.dropped).toBeGreaterThan(20);
    expect(stats.droppedInFlight).toBe(0);
    // The ones started were late by more than the late bound, never by more than the drop bound.
    expect(stats.startLag.max).toBeGreaterThan(20_000);
    expect(stats.startLag.max).toBeLessThanOrEqual(200_000);
    expect(stats.roundsStarted + stats.dropped).toBe(stats.roundsDue);
    const summary = summarise(result, { url: base.url, players: 4, schedule }, judgeRun(dialect, result.records), []);
    expect(summary.starts.limit).toMatch(/^the generator: \d+ rounds started late and \d+ were dropped/);
    expect(summary.rate.achievedPerSecond).toBeLessThan(summary.rate.askedPerSecond);
  });

  it('the same run unhindered drops nothing and every round due is started', async () => {
    const schedule = { startRate: 100, stages: [{ durationMs: 1000, rate: 100 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: memoryWallet(), lateMs: 20, dropMs: 1000 });
    expect(stats.dropped).toBe(0);
    expect(stats.roundsStarted).toBe(stats.roundsDue);
    expect(stats.roundsDue).toBe(100);
  });

  it('a wallet that does not answer fast enough fills the in-flight cap: those rounds are dropped, and the wallet is the limit', async () => {
    const schedule = { startRate: 100, stages: [{ durationMs: 600, rate: 100 }] };
    const result = await runLoad({ ...base, schedule, sender: memoryWallet(200), maxInFlight: 5 });
    expect(result.stats.droppedInFlight).toBeGreaterThan(20);
    // The generator waited for the wallet most of the run.
    expect(result.loopBusy).toBeLessThan(GENERATOR_BUSY_SHARE);
    const summary = summarise(result, { url: base.url, players: 4, schedule }, judgeRun(dialect, result.records), []);
    expect(summary.starts.limit).toMatch(/^the wallet: \d+ rounds were dropped because the in-flight cap was reached/);
    expect(summary.starts.generatorBusyPercent).toBe(Math.round(100 * result.loopBusy));
  });

  it('a generator whose own work fills its event loop while rounds pile up at the cap is named as the limit, not the wallet', async () => {
    const schedule = { startRate: 500, stages: [{ durationMs: 600, rate: 500 }] };
    // Each call costs the generator's own thread 4 ms (as rendering and judging would on a slow machine); the wallet answers at once.
    const wallet = memoryWallet();
    const busy: Sender = {
      async send(req, timeoutMs) {
        await new Promise((r) => setImmediate(r));
        const until = performance.now() + 4;
        while (performance.now() < until) {
          /* the generator's own work */
        }
        return wallet.send(req, timeoutMs);
      },
      close: async () => {},
    };
    const result = await runLoad({ ...base, schedule, sender: busy, maxInFlight: 5 });
    expect(result.stats.droppedInFlight).toBeGreaterThan(0);
    expect(result.loopBusy).toBeGreaterThanOrEqual(GENERATOR_BUSY_SHARE);
    const summary = summarise(result, { url: base.url, players: 4, schedule }, judgeRun(dialect, result.records), []);
    expect(summary.starts.limit).toMatch(
      /^the generator: aggmock's event loop was busy \d+% of the run while \d+ rounds were dropped at the in-flight cap/,
    );
    expect(summary.starts.limit).toContain('--export');
  });

  it('a wallet that answers slower than the calls arrive, with room in flight for all of them, falls behind and is named the limit', async () => {
    // 50 rounds a second, then 400: the wallet serves one call at a time in 5 ms (200 a second).
    const schedule = {
      startRate: 50,
      stages: [
        { durationMs: 1000, rate: 50 },
        { durationMs: 1, rate: 400 },
        { durationMs: 999, rate: 400 },
      ],
    };
    const wallet = memoryWallet();
    let queue: Promise<unknown> = Promise.resolve();
    const oneAtATime: Sender = {
      send(req, timeoutMs) {
        const served = queue.then(() => new Promise((r) => setTimeout(r, 5))).then(() => wallet.send(req, timeoutMs));
        queue = served;
        return served;
      },
      close: async () => {},
    };
    const result = await runLoad({ ...base, schedule, sender: oneAtATime });
    expect(result.stats.droppedInFlight).toBe(0);
    expect(result.loopBusy).toBeLessThan(GENERATOR_BUSY_SHARE);
    const drift = latencyDrift(result.stats, 2000);
    expect(drift?.lastMs).toBeGreaterThan(100);
    const summary = summarise(result, { url: base.url, players: 4, schedule }, judgeRun(dialect, result.records), []);
    expect(summary.starts.limit).toMatch(
      /^the wallet: it fell behind the rate, its median latency climbing from [\d.]+ ms in the first second to [\d.]+ ms in the last/,
    );
  });

  it('says which side was the limit from the counts and how busy the generator was', () => {
    const counts = { late: 0, dropped: 0, droppedInFlight: 0, roundsDue: 1000 };
    expect(limitOf(counts, 0.3)).toBe('none: every round started on time');
    expect(limitOf(counts, 0.95)).toBe(
      "none: every round started on time, but aggmock's event loop was busy 95% of the run: a higher rate would find the generator's limit before the wallet's",
    );
    expect(limitOf({ ...counts, late: 5 }, 0.95)).toBe(
      "none: every round started on time, but aggmock's event loop was busy 95% of the run: a higher rate would find the generator's limit before the wallet's",
    );
    expect(limitOf({ ...counts, late: 40, dropped: 2 }, 0.5)).toBe(
      "the generator: 40 rounds started late and 2 were dropped (aggmock could not start them on time; aggmock's event loop was busy 50% of the run); the wallet was offered less than asked",
    );
    expect(limitOf({ ...counts, late: 40, dropped: 2 }, 0.99)).toMatch(
      /^the generator: 40 rounds started late and 2 were dropped \(aggmock could not start them on time; aggmock's event loop was busy 99% of the run\)/,
    );
    expect(limitOf({ ...counts, droppedInFlight: 7 }, 0.89)).toMatch(/^the wallet: 7 rounds were dropped/);
    expect(limitOf({ ...counts, droppedInFlight: 7 }, 0.9)).toMatch(
      /^the generator: aggmock's event loop was busy 90% of the run while 7 rounds/,
    );
    // A latency that climbs across the run: the wallet fell behind, unless the generator was busy all along.
    const climbing = { firstMs: 3, lastMs: 480 };
    expect(limitOf(counts, 0.4, climbing)).toBe(
      "the wallet: it fell behind the rate, its median latency climbing from 3 ms in the first second to 480 ms in the last (aggmock's event loop was busy 40% of the run)",
    );
    expect(limitOf({ ...counts, late: 40, dropped: 2 }, 0.4, climbing)).toMatch(
      /^the wallet: it fell behind .*; 40 rounds started late and 2 were dropped meanwhile\)$/,
    );
    expect(limitOf(counts, 0.95, climbing)).toMatch(/^none: every round started on time, but aggmock's event loop was busy 95%/);
    // A latency that stays within the noise, or climbs by little in absolute terms, is no queue.
    expect(limitOf(counts, 0.4, { firstMs: 20, lastMs: 60 })).toBe('none: every round started on time');
    expect(limitOf(counts, 0.4, { firstMs: 2, lastMs: 40 })).toBe('none: every round started on time');
    expect(limitOf(counts, 0.4, { firstMs: 60, lastMs: 170 })).toBe('none: every round started on time');
    expect(limitOf(counts, 0.4, { firstMs: 50, lastMs: 150 })).toMatch(/^the wallet: it fell behind the rate/);
    expect(limitOf({ ...counts, late: 40 }, 0.4, { firstMs: 20, lastMs: 60 })).toMatch(/^the generator: 40 rounds started late/);
  });
});

/**
 * Dropped rounds are counted in one step per second of the schedule instead of one by one; the counts
 * must be those of one by one: every round the schedule asks for is due once, started or dropped, in
 * the second it was due.
 */
describe('dropped rounds counted in bulk', () => {
  it('at the in-flight cap: each second asks exactly its rounds, and every one is started or dropped', async () => {
    // 3,000 rounds a second for 1.2 s with 4 in flight at most: almost all are dropped at the cap.
    const schedule = { startRate: 3000, stages: [{ durationMs: 1200, rate: 3000 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: memoryWallet(20), maxInFlight: 4 });
    expect(stats.roundsDue).toBe(3600);
    expect(stats.roundsStarted + stats.dropped).toBe(3600);
    expect(stats.dropped).toBeGreaterThan(3000);
    expect(stats.droppedInFlight).toBe(stats.dropped);
    expect(askedPerSecond(schedule, 3600)).toEqual([2999, 601]);
    expect(stats.series.map((s) => s.asked)).toEqual(askedPerSecond(schedule, 3600));
    expect(stats.series.reduce((n, s) => n + s.dropped, 0)).toBe(stats.dropped);
    expect(stats.series.reduce((n, s) => n + s.started, 0)).toBe(stats.roundsStarted);
    for (const s of stats.series) expect(s.started + s.dropped).toBe(s.asked);
  });

  it('a ramp: the rounds dropped in bulk are counted in the seconds they were due', async () => {
    // From 0 to 6,000 a second over 1.2 s: 2,500 rounds due by the end of the first second, 1,100 in the rest.
    const schedule = { startRate: 0, stages: [{ durationMs: 1200, rate: 6000 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: memoryWallet(20), maxInFlight: 4 });
    expect(askedPerSecond(schedule, 3600)).toEqual([2499, 1101]);
    expect(stats.series.map((s) => s.asked)).toEqual(askedPerSecond(schedule, 3600));
    for (const s of stats.series) expect(s.started + s.dropped).toBe(s.asked);
    expect(stats.roundsStarted + stats.dropped).toBe(3600);
    expect(stats.droppedInFlight).toBe(stats.dropped);
  });

  it('under the cap nothing is dropped: the same rate with room for every round starts them all', async () => {
    const schedule = { startRate: 300, stages: [{ durationMs: 500, rate: 300 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: memoryWallet(5), maxInFlight: 1000 });
    expect(stats.dropped).toBe(0);
    expect(stats.roundsStarted).toBe(150);
    expect(stats.series.map((s) => s.asked)).toEqual(askedPerSecond(schedule, 150));
  });
});
