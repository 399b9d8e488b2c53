import { describe, expect, it } from 'vitest';
import { checkThreshold, parseThreshold, ThresholdError, type ThresholdInputs } from './thresholds.ts';

const inputs = (over: Partial<ThresholdInputs> = {}): ThresholdInputs => ({
  latency: (stat, op) => (op === 'win' ? undefined : stat === 'p99' ? (op === 'bet' ? 40 : 312.4) : 5),
  errorsPercent: 0.05,
  latePercent: 0,
  droppedPercent: 2,
  ratePercent: 97,
  correct: true,
  ...over,
});

describe('--threshold', () => {
  it.each([
    ['p99<250ms', false, 'p99 = 312.4 ms'],
    ['p99<1s', true, 'p99 = 312.4 ms'],
    ['p99 <= 312400us', true, 'p99 = 312.4 ms'],
    ['p99(bet)<50ms', true, 'p99(bet) = 40.0 ms'],
    ['p99(win)<50ms', false, 'no win call was answered'],
    ['errors<0.1%', true, 'errors = 0.050%'],
    ['errors<0.01%', false, 'errors = 0.050%'],
    ['dropped<1%', false, 'dropped = 2.000%'],
    ['rate>=95%', true, 'rate = 97.000%'],
    ['correctness', true, 'every player proven correct'],
  ])('%s → ok %s (%s)', (text, ok, actual) => {
    const result = checkThreshold(parseThreshold(text), inputs());
    expect(result.ok).toBe(ok);
    expect(result.actual).toContain(actual);
  });

  it('correctness fails with the reason when the run is not proven correct', () => {
    const r = checkThreshold(parseThreshold('correctness'), inputs({ correct: false, correctnessReason: '2 violations' }));
    expect(r).toEqual({ threshold: 'correctness', ok: false, actual: '2 violations' });
  });

  it.each([
    ['p99<250', 'a latency needs a unit'],
    ['errors<0.1', 'a share is a percentage'],
    ['errors<120%', 'at most 100%'],
    ['p42<1s', 'expected p50|p90|p95|p99|p99.9|max|mean'],
    ['fast', 'or correctness'],
  ])('refuses %j naming what it expects', (text, message) => {
    expect(() => parseThreshold(text)).toThrow(ThresholdError);
    expect(() => parseThreshold(text)).toThrow(message);
  });
});
