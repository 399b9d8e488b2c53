import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../shared/index.ts';
import { bucketOf, Histogram, highestOf, lowestOf, SUB_BUCKETS } from './histogram.ts';

/** The exact percentile of sorted samples, by the same definition (smallest value with p % at or below it). */
function exact(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

describe('Histogram', () => {
  it('keeps small values exactly and every bucket holds the values between its bounds', () => {
    for (let v = 0; v < 2 * SUB_BUCKETS; v++) expect(bucketOf(v)).toBe(v);
    for (const v of [256, 257, 511, 512, 1000, 1023, 1024, 65_535, 65_536, 123_456_789, 2 ** 33 + 5]) {
      const i = bucketOf(v);
      expect(lowestOf(i)).toBeLessThanOrEqual(v);
      expect(highestOf(i)).toBeGreaterThanOrEqual(v);
      expect((highestOf(i) - lowestOf(i) + 1) / lowestOf(i)).toBeLessThanOrEqual(1 / SUB_BUCKETS);
      // Buckets tile the line: the next one starts right after.
      expect(lowestOf(i + 1)).toBe(highestOf(i) + 1);
    }
  });

  it('puts every value in the bucket whose bounds hold it, on both sides of each power of two and of 2³²', () => {
    const random = mulberry32(11);
    const values: number[] = [];
    for (let k = 8; k <= 40; k++) values.push(2 ** k - 1, 2 ** k, 2 ** k + 1, Math.floor(2 ** k * (1 + random())));
    for (let n = 0; n < 2000; n++) values.push(Math.floor(2 ** (8 + 30 * random())));
    for (const v of values) {
      const i = bucketOf(v);
      expect(lowestOf(i), `value ${v}`).toBeLessThanOrEqual(v);
      expect(highestOf(i), `value ${v}`).toBeGreaterThanOrEqual(v);
    }
    // The integer path (under 2³²) and the float path (above) meet: consecutive buckets, no gap.
    expect(bucketOf(2 ** 32)).toBe(bucketOf(2 ** 32 - 1) + 1);
    expect(bucketOf(2 ** 32 - 1)).toBeGreaterThan(bucketOf(2 ** 31));
  });

  it('reads percentiles within 1 % of the exact ones on skewed random latencies', () => {
    const random = mulberry32(7);
    const samples: number[] = [];
    const h = new Histogram();
    for (let n = 0; n < 20_000; n++) {
      // Log-normal-ish: most near 2 ms, a long tail to seconds.
      const v = Math.round(2000 * Math.exp(1.5 * (random() + random() + random() - 1.5)) + (random() < 0.01 ? 900_000 : 0));
      samples.push(v);
      h.record(v);
    }
    samples.sort((a, b) => a - b);
    for (const p of [50, 90, 99, 99.9]) {
      const want = exact(samples, p);
      expect(Math.abs(h.percentile(p) - want) / want).toBeLessThan(0.01);
    }
    expect(h.percentile(100)).toBe(samples.at(-1));
    expect(h.max).toBe(samples.at(-1));
    expect(h.min).toBe(samples[0]);
    expect(h.count).toBe(20_000);
  });

  it('an empty histogram reads 0; one value reads as itself at every percentile', () => {
    expect(new Histogram().percentile(99)).toBe(0);
    const h = new Histogram();
    h.record(777_777);
    for (const p of [0, 50, 99.9, 100]) expect(h.percentile(p)).toBe(777_777);
  });

  it('adds histograms: the sum reads as if every value had been recorded in one', () => {
    const a = new Histogram();
    const b = new Histogram();
    const both = new Histogram();
    for (let v = 1; v <= 1000; v++) {
      (v % 2 ? a : b).record(v * 37);
      both.record(v * 37);
    }
    b.record(5_000_000_000);
    both.record(5_000_000_000);
    a.add(b);
    for (const p of [10, 50, 99, 99.9, 100]) expect(a.percentile(p)).toBe(both.percentile(p));
    expect(a.count).toBe(both.count);
    expect(a.mean).toBeCloseTo(both.mean, 6);
  });
});
