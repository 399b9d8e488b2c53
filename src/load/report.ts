import type { Histogram } from './histogram.ts';
import type { LoadResult } from './run.ts';
import { arrivalsBy, type Schedule, scheduleLength } from './schedule.ts';
import { ERROR_CLASSES } from './stats.ts';
import { checkThreshold, type LatencyStat, type Threshold, type ThresholdResult } from './thresholds.ts';
import type { Verdict } from './verdict.ts';

/** The run's summary: what `--json` prints, what the text and HTML reports are made of. */

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  'p99.9': number;
  max: number;
  mean: number;
}

export interface SeriesPoint {
  t: number;
  asked: number;
  started: number;
  late: number;
  dropped: number;
  answered: number;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
}

export interface LoadSummary {
  dialect: string;
  url: string;
  players: number;
  rate: {
    /** Rounds asked for by the schedule and started; per second over the schedule's length. */
    askedRounds: number;
    startedRounds: number;
    askedPerSecond: number;
    achievedPerSecond: number;
    calls: number;
    callsPerSecond: number;
    attempts: number;
  };
  starts: {
    late: number;
    dropped: number;
    droppedInFlight: number;
    lagP99Ms: number;
    lagMaxMs: number;
    /** How much of the run aggmock's event loop was busy (not waiting for replies or the schedule), in %. */
    generatorBusyPercent: number;
    limit: string;
  };
  latency: { all: LatencySummary; byOperation: Record<string, LatencySummary> };
  errors: {
    percent: number;
    byClass: Record<string, number>;
    refusals: Record<string, number>;
    retries: number;
    samples: Record<string, string>;
  };
  faults: { timeouts: number; duplicates: number };
  correctness: Verdict;
  series: SeriesPoint[];
  thresholds: ThresholdResult[];
  ok: boolean;
}

const ms = (micros: number) => Math.round(micros) / 1000;

/** At or above this share of the run busy, the generator's event loop is the limit: it, not the wallet, set the rate. */
export const GENERATOR_BUSY_SHARE = 0.9;

/** How the wallet's median latency moved over the schedule: its first second against its last whole one (ms). */
export interface LatencyDrift {
  firstMs: number;
  lastMs: number;
}

/**
 * The median latency of the schedule's first second and of its last whole second, when it ran two
 * or more and both had answers. A latency that climbs across the run is a queue growing: the wallet
 * answering slower than the calls arrive (or than the connections carry them).
 */
export function latencyDrift(stats: Pick<LoadResult['stats'], 'series'>, scheduleMs: number): LatencyDrift | undefined {
  // The schedule's length as asked (the run's own clock stops at its last arrival, a little before).
  const last = Math.floor(scheduleMs / 1000) - 1;
  const first = stats.series[0];
  const end = stats.series[last];
  if (last < 1 || !first || !end || first.latency.count === 0 || end.latency.count === 0) return undefined;
  return { firstMs: ms(first.latency.percentile(50)), lastMs: ms(end.latency.percentile(50)) };
}

/** A median latency at least this many times the first second's, and ≥ FELL_BEHIND_MS above it, is a growing queue. */
const FELL_BEHIND_FACTOR = 3;
const FELL_BEHIND_MS = 100;

/**
 * What held the run back, in the user's words: the generator when its event loop was busy all along
 * (a wallet that is the limit leaves it waiting for replies), else the wallet when rounds piled up
 * at the in-flight cap or its latency climbed across the run, else the generator when it could not
 * start rounds on time, else nothing.
 */
export function limitOf(
  stats: Pick<LoadResult['stats'], 'late' | 'dropped' | 'droppedInFlight' | 'roundsDue'>,
  loopBusy: number,
  drift?: LatencyDrift,
): string {
  const busy = loopBusy >= GENERATOR_BUSY_SHARE;
  const share = `aggmock's event loop was busy ${Math.round(100 * loopBusy)}% of the run`;
  const scaleOut = 'run it on a larger machine, or hand the run to k6 or Artillery with --export';
  const missed = stats.late + stats.dropped > 0.01 * Math.max(1, stats.roundsDue);
  const behind =
    drift !== undefined && drift.lastMs >= FELL_BEHIND_FACTOR * drift.firstMs && drift.lastMs - drift.firstMs >= FELL_BEHIND_MS;
  if (stats.droppedInFlight > 0)
    return busy
      ? `the generator: ${share} while ${stats.droppedInFlight} rounds were dropped at the in-flight cap, so the wallet may answer faster than this run could ask; ${scaleOut}`
      : `the wallet: ${stats.droppedInFlight} rounds were dropped because the in-flight cap was reached while the wallet had not answered`;
  if (behind && !busy)
    return `the wallet: it fell behind the rate, its median latency climbing from ${drift.firstMs} ms in the first second to ${drift.lastMs} ms in the last (${share}${missed ? `; ${stats.late} rounds started late and ${stats.dropped} were dropped meanwhile` : ''})`;
  if (missed)
    return `the generator: ${stats.late} rounds started late and ${stats.dropped} were dropped (aggmock could not start them on time; ${share}); the wallet was offered less than asked`;
  return busy
    ? `none: every round started on time, but ${share}: a higher rate would find the generator's limit before the wallet's`
    : 'none: every round started on time';
}

export function latencyOf(h: Histogram): LatencySummary {
  return {
    count: h.count,
    p50: ms(h.percentile(50)),
    p90: ms(h.percentile(90)),
    p99: ms(h.percentile(99)),
    'p99.9': ms(h.percentile(99.9)),
    max: ms(h.max),
    mean: ms(h.mean),
  };
}

export function summarise(
  result: LoadResult,
  context: { url: string; players: number; schedule: Schedule },
  verdict: Verdict,
  thresholds: readonly Threshold[],
): LoadSummary {
  const { stats } = result;
  const seconds = scheduleLength(context.schedule) / 1000;
  const asked = Math.floor(arrivalsBy(context.schedule, scheduleLength(context.schedule)) + 1e-9);
  const pct = (n: number, of: number) => (of === 0 ? 0 : (100 * n) / of);
  const byOperation = Object.fromEntries(
    [...stats.perOperation].sort(([a], [b]) => a.localeCompare(b)).map(([op, h]) => [op, latencyOf(h)]),
  );
  const all = latencyOf(stats.all);
  const limit = limitOf(stats, result.loopBusy, latencyDrift(stats, scheduleLength(context.schedule)));
  const summary: LoadSummary = {
    dialect: result.dialect.name,
    url: context.url,
    players: context.players,
    rate: {
      askedRounds: asked,
      startedRounds: stats.roundsStarted,
      askedPerSecond: round2(asked / seconds),
      achievedPerSecond: round2(stats.roundsStarted / seconds),
      calls: stats.calls,
      callsPerSecond: round2(stats.calls / (result.elapsedMs / 1000)),
      attempts: stats.attempts,
    },
    starts: {
      late: stats.late,
      dropped: stats.dropped,
      droppedInFlight: stats.droppedInFlight,
      lagP99Ms: ms(stats.startLag.percentile(99)),
      lagMaxMs: ms(stats.startLag.max),
      generatorBusyPercent: Math.round(100 * result.loopBusy),
      limit,
    },
    latency: { all, byOperation },
    errors: {
      percent: 100 * stats.errorRate,
      byClass: Object.fromEntries(ERROR_CLASSES.map((k) => [k, stats.errors[k]])),
      refusals: Object.fromEntries(stats.refusals),
      retries: stats.retries,
      samples: Object.fromEntries(stats.samples),
    },
    faults: { timeouts: stats.faultTimeouts, duplicates: stats.faultDuplicates },
    correctness: verdict,
    series: stats.series.map((s) => ({
      t: s.t,
      asked: s.asked,
      started: s.started,
      late: s.late,
      dropped: s.dropped,
      answered: s.answered,
      errors: s.errors,
      p50: ms(s.latency.percentile(50)),
      p90: ms(s.latency.percentile(90)),
      p99: ms(s.latency.percentile(99)),
    })),
    thresholds: [],
    ok: true,
  };
  const inputs = {
    latency: (stat: LatencyStat, operation?: string) => {
      const h = operation === undefined ? stats.all : stats.perOperation.get(operation);
      if (!h || h.count === 0) return undefined;
      return ms(stat === 'max' ? h.max : stat === 'mean' ? h.mean : h.percentile(Number(stat.slice(1))));
    },
    errorsPercent: summary.errors.percent,
    latePercent: pct(stats.late, stats.roundsDue),
    droppedPercent: pct(stats.dropped, stats.roundsDue),
    ratePercent: pct(stats.roundsStarted, asked),
    correct: verdict.ok,
    correctnessReason: correctnessLine(verdict),
  };
  summary.thresholds = thresholds.map((t) => checkThreshold(t, inputs));
  summary.ok = summary.thresholds.every((t) => t.ok);
  return summary;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The correctness verdict in one line. */
export function correctnessLine(v: Verdict): string {
  if (v.ok) return `correct: ${v.players} players, ${v.calls} calls explained; ${v.reconciled} final balances reconciled`;
  const parts = [];
  if (v.violations.length)
    parts.push(
      `${v.violations.length} violation${v.violations.length === 1 ? '' : 's'} in ${new Set(v.violations.map((x) => x.playerId)).size} players`,
    );
  if (v.undetermined.length) parts.push(`${v.undetermined.length} window${v.undetermined.length === 1 ? '' : 's'} undetermined`);
  return `NOT proven correct: ${parts.join(', ')}`;
}

/** The report a person reads at the terminal. */
export function renderText(s: LoadSummary): string {
  const lines: string[] = [];
  const r = s.rate;
  lines.push(`aggmock load: ${s.dialect} wallet at ${s.url}, ${s.players} players`);
  lines.push(
    `  rate      asked ${r.askedPerSecond}/s rounds (${r.askedRounds}), achieved ${r.achievedPerSecond}/s (${r.startedRounds}); ${r.calls} calls, ${r.callsPerSecond} calls/s, ${r.attempts} attempts`,
  );
  lines.push(
    `  starts    late ${s.starts.late}, dropped ${s.starts.dropped}; start lag p99 ${s.starts.lagP99Ms} ms, max ${s.starts.lagMaxMs} ms`,
  );
  lines.push(`  limit     ${s.starts.limit}`);
  lines.push('  latency (ms)        count      p50      p90      p99    p99.9      max');
  const row = (name: string, l: LatencySummary) =>
    `    ${name.padEnd(16)}${String(l.count).padStart(7)}${[l.p50, l.p90, l.p99, l['p99.9'], l.max].map((v) => v.toFixed(2).padStart(9)).join('')}`;
  lines.push(row('all', s.latency.all));
  for (const [op, l] of Object.entries(s.latency.byOperation)) lines.push(row(op, l));
  const errs = Object.entries(s.errors.byClass).filter(([, n]) => n > 0);
  lines.push(
    `  errors    ${s.errors.percent.toFixed(3)}% of attempts${errs.length ? `: ${errs.map(([k, n]) => `${k} ${n}`).join(', ')}` : ''}; retries ${s.errors.retries}`,
  );
  for (const [k, m] of Object.entries(s.errors.samples)) lines.push(`            e.g. ${k}: ${m}`);
  const refusals = Object.entries(s.errors.refusals);
  if (refusals.length) lines.push(`  refusals  ${refusals.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  if (s.faults.timeouts || s.faults.duplicates)
    lines.push(`  faults    ${s.faults.timeouts} timeouts, ${s.faults.duplicates} duplicates injected`);
  lines.push(`  verdict   ${correctnessLine(s.correctness)}`);
  for (const v of s.correctness.violations.slice(0, 5)) lines.push(`            ${v.message}`);
  if (s.correctness.violations.length > 5)
    lines.push(`            … and ${s.correctness.violations.length - 5} more (--json lists them all)`);
  for (const u of s.correctness.undetermined.slice(0, 3)) lines.push(`            ${u.playerId}: ${u.reason}`);
  for (const t of s.thresholds) lines.push(`  threshold ${t.ok ? 'ok  ' : 'FAIL'} ${t.threshold} (${t.actual})`);
  lines.push('  (in memory: no journal and no durable outbox in this mode; a call in flight when the run stops is not retried)');
  return `${lines.join('\n')}\n`;
}

/** One refreshed progress line for a terminal. */
export function progressLine(elapsedMs: number, stats: LoadResult['stats']): string {
  const last = stats.series.at(-2) ?? stats.series.at(-1);
  const p99 = last ? ms(last.latency.percentile(99)) : 0;
  return `  ${(elapsedMs / 1000).toFixed(0)}s  rounds ${stats.roundsStarted}/${stats.roundsDue}  calls ${stats.calls}  ${last ? last.answered : 0}/s answered  p99 ${p99} ms  late ${stats.late}  dropped ${stats.dropped}  errors ${Math.round(stats.errorRate * 10000) / 100}%`;
}
