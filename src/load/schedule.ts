/**
 * The arrival schedule of an open model: a rate that holds or ramps linearly stage by stage
 * (k6's ramping-arrival-rate), and the exact time of the n-th arrival, so each call has a time it
 * was due whatever happened to the calls before it. Pure: no clock.
 */

/** One stage: over `durationMs`, the rate goes linearly from the previous stage's end rate to `rate` (per second). */
export interface Stage {
  durationMs: number;
  rate: number;
}

export interface Schedule {
  /** The rate at the start of the first stage (per second). */
  startRate: number;
  stages: readonly Stage[];
}

/** A schedule that is wrong as given: the message names the flag and what was expected. */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/** Total length of a schedule in ms. */
export function scheduleLength(s: Schedule): number {
  return s.stages.reduce((sum, st) => sum + st.durationMs, 0);
}

/** The rate (per second) asked for at `t` ms after the start. */
export function rateAt(s: Schedule, t: number): number {
  let from = s.startRate;
  let at = 0;
  for (const st of s.stages) {
    if (t < at + st.durationMs) return from + ((st.rate - from) * (t - at)) / st.durationMs;
    at += st.durationMs;
    from = st.rate;
  }
  return 0;
}

/** How many arrivals are due by `t` ms (the rate's integral; not rounded). */
export function arrivalsBy(s: Schedule, t: number): number {
  let from = s.startRate;
  let at = 0;
  let total = 0;
  for (const st of s.stages) {
    const span = Math.min(st.durationMs, Math.max(0, t - at));
    const end = from + ((st.rate - from) * span) / st.durationMs;
    total += ((from + end) / 2) * (span / 1000);
    if (t < at + st.durationMs) return total;
    at += st.durationMs;
    from = st.rate;
  }
  return total;
}

/**
 * The time (ms from the start) the `n`-th arrival (1-based) is due: when {@link arrivalsBy}
 * reaches `n`; undefined past the schedule's end.
 */
export function arrivalTime(s: Schedule, n: number): number | undefined {
  let from = s.startRate;
  let at = 0;
  let before = 0;
  for (const st of s.stages) {
    const seconds = st.durationMs / 1000;
    const inStage = ((from + st.rate) / 2) * seconds;
    if (before + inStage >= n) {
      const need = n - before;
      // need = from·x + (slope/2)·x², x in seconds, slope per second².
      const slope = (st.rate - from) / seconds;
      const x = Math.abs(slope) < 1e-12 ? need / from : (-from + Math.sqrt(Math.max(0, from * from + 2 * slope * need))) / slope;
      return at + Math.min(st.durationMs, Math.max(0, x * 1000));
    }
    before += inStage;
    at += st.durationMs;
    from = st.rate;
  }
  return undefined;
}

/** "250ms", "2s", "1.5m", "1h" → ms. */
export function parseMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) return undefined;
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms'];
  return Math.round(Number(m[1]) * factor);
}

/** "100", "100/s", "6000/m" → per second. */
export function parseRate(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|m))?\s*$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) / (m[2] === 'm' ? 60 : 1);
}

/**
 * The schedule of `--rate`, `--duration` and `--stages`: a constant rate for the duration, or the
 * stages (`10s:100,30s:500`: ramp to 100/s over 10 s, then to 500/s over 30 s) starting from
 * `--rate` (default 0), or from their first rate held when `--rate` is absent and the first stage says `hold`.
 *
 * @example parseSchedule({ rate: '50', duration: '10s' }) // { startRate: 50, stages: [{ durationMs: 10000, rate: 50 }] }
 */
export function parseSchedule(flags: {
  rate?: string | undefined;
  duration?: string | undefined;
  stages?: string | undefined;
}): Schedule {
  const rate = flags.rate === undefined ? undefined : parseRate(flags.rate);
  if (flags.rate !== undefined && (rate === undefined || rate <= 0))
    throw new ScheduleError(
      `--rate: expected a positive rate per second such as 100 or 100/s (or 6000/m), got ${JSON.stringify(flags.rate)}.`,
    );
  if (flags.stages !== undefined) {
    if (flags.duration !== undefined)
      throw new ScheduleError('--duration: --stages sets the length of the run; give one of --duration or --stages.');
    const stages = flags.stages.split(',').map((part, i) => {
      const [d, r, extra] = part.split(':');
      const durationMs = d === undefined ? undefined : parseMs(d);
      const target = r === undefined ? undefined : parseRate(r);
      if (extra !== undefined || durationMs === undefined || durationMs <= 0 || target === undefined)
        throw new ScheduleError(
          `--stages: stage ${i + 1} ${JSON.stringify(part)}: expected <duration>:<rate> such as 30s:500 (ramp to 500/s over 30 s), stages separated by commas.`,
        );
      return { durationMs, rate: target };
    });
    if (rate === undefined && stages.every((s) => s.rate === 0))
      throw new ScheduleError('--stages: every stage asks for 0 calls per second; expected a rate above 0 in some stage.');
    return { startRate: rate ?? 0, stages };
  }
  if (rate === undefined)
    throw new ScheduleError('--rate: expected the rate to hold, e.g. --rate 100 (per second), or --stages.');
  const durationMs = flags.duration === undefined ? 10_000 : parseMs(flags.duration);
  if (durationMs === undefined || durationMs <= 0)
    throw new ScheduleError(`--duration: expected a length such as 30s, 2m or 500ms, got ${JSON.stringify(flags.duration)}.`);
  return { startRate: rate, stages: [{ durationMs, rate }] };
}
