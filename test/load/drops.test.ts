import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { builtinDialect, writeReply } from '../../src/dialects/index.ts';
import { parseMix, runLoad, type Schedule, type Sender } from '../../src/load/index.ts';
import { arrivalTime } from '../../src/load/schedule.ts';

/**
 * A generator asked far beyond what it can start drops most rounds, and counts them in one step per
 * second of the schedule instead of one by one. The counts must be those of one by one: every round
 * the schedule asks for is due once, started or dropped, in the second it was due.
 */

const config = configSchema.parse({ callbacks: { profile: 'softswiss' } });
const dialect = builtinDialect('softswiss');

/** A wallet that answers every call accepted after `delayMs`, with a balance that never moves (balance rounds only). */
function slowWallet(delayMs: number): Sender {
  return {
    async send() {
      await new Promise((r) => setTimeout(r, delayMs));
      const reply = writeReply(
        dialect,
        { operation: 'balance', currency: 'EUR' },
        { accepted: true, balanceMinor: 100_000 },
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

describe('dropped rounds counted in bulk', () => {
  it('at the in-flight cap: each second asks exactly its rounds, and every one is started or dropped', async () => {
    // 3,000 rounds a second for 1.2 s with 4 in flight at most: almost all are dropped at the cap.
    const schedule = { startRate: 3000, stages: [{ durationMs: 1200, rate: 3000 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: slowWallet(20), maxInFlight: 4 });
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
    const { stats } = await runLoad({ ...base, schedule, sender: slowWallet(20), maxInFlight: 4 });
    expect(askedPerSecond(schedule, 3600)).toEqual([2499, 1101]);
    expect(stats.series.map((s) => s.asked)).toEqual(askedPerSecond(schedule, 3600));
    for (const s of stats.series) expect(s.started + s.dropped).toBe(s.asked);
    expect(stats.roundsStarted + stats.dropped).toBe(3600);
    expect(stats.droppedInFlight).toBe(stats.dropped);
  });

  it('under the cap nothing is dropped: the same rate with room for every round starts them all', async () => {
    const schedule = { startRate: 300, stages: [{ durationMs: 500, rate: 300 }] };
    const { stats } = await runLoad({ ...base, schedule, sender: slowWallet(5), maxInFlight: 1000 });
    expect(stats.dropped).toBe(0);
    expect(stats.roundsStarted).toBe(150);
    expect(stats.series.map((s) => s.asked)).toEqual(askedPerSecond(schedule, 150));
  });
});
