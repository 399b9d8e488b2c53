import { performance } from 'node:perf_hooks';
import type { AggmockConfig, CallbackFaultRule } from '../config/index.ts';
import type { Dialect } from '../dialects/index.ts';
import { mulberry32 } from '../shared/index.ts';
import { poolSender, type Sender } from './client.ts';
import { type Mix, pickRound } from './mix.ts';
import type { CallRecord } from './record.ts';
import { roundPlayer } from './rounds.ts';
import { arrivalsBy, arrivalTime, type Schedule, scheduleLength } from './schedule.ts';
import { LoadStats } from './stats.ts';

/**
 * The load generator: an open model. Rounds arrive on the schedule's clock whether or not earlier
 * replies came back (no coordinated omission); a round that cannot start on time is counted late,
 * and dropped past a bound or when the in-flight cap is reached, so a report says whether the
 * wallet or the generator was the limit. Requests are built and signed by the dialect code
 * (`renderCall`), replies read by `readReply`, sent over one keep-alive pool. Everything is in
 * memory: no journal, no durable outbox — a crash loses the run, and nothing is retried after it.
 */

export interface LoadOptions {
  config: AggmockConfig;
  /** The wallet's base URL. */
  url: string;
  schedule: Schedule;
  players: readonly string[];
  mix: Mix;
  stakeMinor: number;
  currency: string;
  /** The session token a player's calls carry; default the configured or development one. */
  tokenOf?: (playerId: string) => string | undefined;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Delays before each retry of a call that got no usable answer (default 50, 200, 1000 ms). */
  retryDelaysMs?: readonly number[];
  /** A round starting later than this after its time is late (default 10 ms). */
  lateMs?: number;
  /** …and later than this is dropped (default 1 s). */
  dropMs?: number;
  /** Rounds in flight beyond this are dropped (default 10 000). */
  maxInFlight?: number;
  connections?: number;
  faults?: readonly CallbackFaultRule[];
  seed?: number;
  /** Tests pass a sender; default an undici pool to `url`. */
  sender?: Sender;
  /** Every second while it runs. */
  onProgress?: (stats: LoadStats, elapsedMs: number) => void;
  /** Stops scheduling early (Ctrl-C). */
  signal?: AbortSignal;
}

export interface LoadResult {
  stats: LoadStats;
  records: CallRecord[];
  /** ms the schedule ran, and until the last call settled. */
  scheduleMs: number;
  elapsedMs: number;
  /**
   * The share of the time from the schedule's start until the last call settled that aggmock's event
   * loop was busy (Node's event loop utilization, 0–1) rather than waiting for replies or the
   * schedule: near 1, the generator itself set the rate.
   */
  loopBusy: number;
  dialect: Dialect;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const sender = o.sender ?? poolSender(o.url, { connections: o.connections ?? 64 });
  const lateMs = o.lateMs ?? 10;
  const dropMs = o.dropMs ?? 1000;
  const maxInFlight = o.maxInFlight ?? 10_000;
  const random = mulberry32(o.seed ?? 42);
  const stats = new LoadStats();
  const records: CallRecord[] = [];
  // One clock for every record of the run (the sessions before the schedule included): the verdict orders calls by it.
  const t0 = performance.now();
  const clock = () => performance.now() - t0;
  /** When the schedule's clock started. */
  let s0 = 0;
  const player = roundPlayer({
    config: o.config,
    sender,
    stats,
    onRecord: (r) => records.push(r),
    clock,
    origin: () => s0,
    stakeMinor: o.stakeMinor,
    currency: o.currency,
    random,
    tokenOf: o.tokenOf,
    timeoutMs: o.timeoutMs,
    retryDelaysMs: o.retryDelaysMs,
    faults: o.faults,
    seed: o.seed,
  });
  const { dialect } = player;

  // ---- a session per player first: its balance is where the history starts ----
  await inBatches(o.players, 32, (p) => player.open(p));

  // ---- the open model ----
  const total = Math.floor(arrivalsBy(o.schedule, scheduleLength(o.schedule)) + 1e-9);
  /** Rounds started and not yet settled; `drained` is called when the last one settles. */
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  const settled = () => {
    if (--inFlight === 0) drained?.();
  };
  const failed = (error: unknown) => {
    failure ??= { error };
    settled();
  };
  const dueBy = (t: number) => Math.min(total, Math.floor(arrivalsBy(o.schedule, t) + 1e-9));
  s0 = clock();
  const loop0 = performance.eventLoopUtilization();
  let due = 0;
  let lastProgress = 0;
  await new Promise<void>((finish) => {
    /**
     * Drops every round due up to number `upto` in one step per second of the schedule (a generator
     * asked far beyond what it can start drops most rounds: one by one, the counting cost more than
     * the calls). `full`: dropped because the in-flight cap was reached, else because they are too late.
     */
    const dropThrough = (upto: number, full: boolean) => {
      while (due < upto) {
        const second = stats.second(arrivalTime(o.schedule, due + 1) as number);
        // The rounds due before this second ends (one due exactly at its end is the next second's), at least the first.
        const before = Math.ceil(arrivalsBy(o.schedule, (second.t + 1) * 1000) - 1e-9) - 1;
        const last = Math.min(upto, Math.max(due + 1, before));
        const n = last - due;
        due = last;
        stats.roundsDue += n;
        stats.dropped += n;
        second.asked += n;
        second.dropped += n;
        if (full) stats.droppedInFlight += n;
      }
    };
    const tick = () => {
      const now = clock() - s0;
      // Rounds due more than the drop bound ago are dropped, counted in one step.
      if (!o.signal?.aborted) dropThrough(dueBy(now - dropMs), false);
      while (due < total && !o.signal?.aborted) {
        if (inFlight >= maxInFlight) {
          // The cap is reached: every round due by now is dropped, counted in one step.
          dropThrough(dueBy(now), true);
          break;
        }
        const at = arrivalTime(o.schedule, due + 1) as number;
        if (at > now) break;
        due++;
        stats.roundsDue++;
        const second = stats.second(at);
        second.asked++;
        const lag = now - at;
        if (lag > lateMs) {
          stats.late++;
          second.late++;
        }
        stats.startLag.record(Math.round(lag * 1000));
        stats.roundsStarted++;
        second.started++;
        inFlight++;
        player
          .round(pickRound(o.mix, random()), o.players[Math.floor(random() * o.players.length)] as string)
          .then(settled, failed);
      }
      if (o.onProgress && now - lastProgress >= 1000) {
        lastProgress = now;
        o.onProgress(stats, now);
      }
      if (due >= total || o.signal?.aborted) return finish();
      const next = arrivalTime(o.schedule, due + 1) as number;
      setTimeout(tick, Math.max(0, Math.min(100, next - (clock() - s0) - 0.5)));
    };
    tick();
  });
  const scheduleMs = clock() - s0;
  if (inFlight > 0)
    await new Promise<void>((resolve) => {
      drained = resolve;
    });
  if (failure) throw failure.error;
  const loopBusy = performance.eventLoopUtilization(loop0).utilization;

  // ---- reconciliation: each player's balance read last ----
  await inBatches(o.players, 32, (p) => player.reconcile(p));
  const elapsedMs = clock() - s0;
  if (!o.sender) await sender.close();
  return { stats, records, scheduleMs, elapsedMs, loopBusy, dialect };
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}
