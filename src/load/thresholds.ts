/**
 * `--threshold` gates: `p99<250ms`, `p99.9(bet)<1s`, `max<2s`, `errors<0.1%`, `late<1%`,
 * `dropped<1%`, `rate>=95%`, `correctness`. Each is checked against the run's summary; one that
 * fails makes the exit code 1. A threshold that cannot be read is a usage error.
 */

export type Threshold =
  | { text: string; kind: 'latency'; stat: LatencyStat; operation?: string | undefined; op: Comparison; ms: number }
  | { text: string; kind: 'share'; of: 'errors' | 'late' | 'dropped' | 'rate'; op: Comparison; percent: number }
  | { text: string; kind: 'correctness' };

export const LATENCY_STATS = ['p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'] as const;
export type LatencyStat = (typeof LATENCY_STATS)[number];
type Comparison = '<' | '<=' | '>' | '>=';

export class ThresholdError extends Error {
  override name = 'ThresholdError';
}

const EXPECTED =
  'expected p50|p90|p95|p99|p99.9|max|mean[(operation)]<duration (e.g. p99<250ms, p99(bet)<1s), errors|late|dropped<percent (e.g. errors<0.1%), rate>=percent (e.g. rate>=95%), or correctness';

/** Reads one `--threshold`. */
export function parseThreshold(text: string): Threshold {
  const t = text.trim();
  if (t === 'correctness') return { text: t, kind: 'correctness' };
  const latency = /^(p50|p90|p95|p99|p99\.9|max|mean)(?:\(([A-Za-z]+)\))?\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s)$/.exec(
    t,
  );
  if (latency) {
    const [, stat, operation, op, value, unit] = latency as unknown as [
      string,
      LatencyStat,
      string | undefined,
      Comparison,
      string,
      string,
    ];
    const ms = Number(value) * (unit === 's' ? 1000 : unit === 'ms' ? 1 : 0.001);
    return { text: t, kind: 'latency', stat, operation, op, ms };
  }
  const share = /^(errors|late|dropped|rate)\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (share) {
    const [, of, op, value] = share as unknown as [string, 'errors' | 'late' | 'dropped' | 'rate', Comparison, string];
    if (Number(value) > 100)
      throw new ThresholdError(`--threshold ${JSON.stringify(text)}: a percentage is at most 100%; ${EXPECTED}.`);
    return { text: t, kind: 'share', of, op, percent: Number(value) };
  }
  if (/^(p\d|max|mean)/.test(t) && !/(us|µs|ms|s)$/.test(t))
    throw new ThresholdError(`--threshold ${JSON.stringify(text)}: a latency needs a unit (us, ms or s), e.g. p99<250ms.`);
  if (/^(errors|late|dropped|rate)/.test(t) && !t.endsWith('%'))
    throw new ThresholdError(`--threshold ${JSON.stringify(text)}: a share is a percentage, e.g. errors<0.1%.`);
  throw new ThresholdError(`--threshold ${JSON.stringify(text)}: ${EXPECTED}.`);
}

/** What a threshold is checked against. */
export interface ThresholdInputs {
  /** Latency stats in ms, overall and per operation. */
  latency: (stat: LatencyStat, operation?: string) => number | undefined;
  /** Percentages 0–100. */
  errorsPercent: number;
  latePercent: number;
  droppedPercent: number;
  ratePercent: number;
  correct: boolean;
  /** Why the run is not proven correct, when it is not. */
  correctnessReason?: string | undefined;
}

export interface ThresholdResult {
  threshold: string;
  ok: boolean;
  /** What was measured, in words: "p99 = 312.4 ms". */
  actual: string;
}

const holds = (a: number, op: Comparison, b: number) => (op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b);

export function checkThreshold(th: Threshold, inputs: ThresholdInputs): ThresholdResult {
  if (th.kind === 'correctness')
    return {
      threshold: th.text,
      ok: inputs.correct,
      actual: inputs.correct ? 'every player proven correct' : (inputs.correctnessReason ?? 'not proven correct'),
    };
  if (th.kind === 'latency') {
    const value = inputs.latency(th.stat, th.operation);
    const name = `${th.stat}${th.operation ? `(${th.operation})` : ''}`;
    if (value === undefined)
      return { threshold: th.text, ok: false, actual: `${name}: no ${th.operation ?? ''} call was answered` };
    return { threshold: th.text, ok: holds(value, th.op, th.ms), actual: `${name} = ${value.toFixed(1)} ms` };
  }
  const value = {
    errors: inputs.errorsPercent,
    late: inputs.latePercent,
    dropped: inputs.droppedPercent,
    rate: inputs.ratePercent,
  }[th.of];
  return { threshold: th.text, ok: holds(value, th.op, th.percent), actual: `${th.of} = ${value.toFixed(3)}%` };
}
