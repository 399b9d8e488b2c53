/**
 * A log-bucketed latency histogram in the manner of HdrHistogram: values (integers, microseconds
 * here) are counted in buckets whose width grows with the value, so every recorded value is known
 * to within 1/{@link SUB_BUCKETS} of itself (under 1 %) at a fixed, small memory cost, and
 * percentiles are read without keeping the samples. Values below {@link SUB_BUCKETS} are exact.
 *
 * Bucket `i` for `i < 2·S` (S = SUB_BUCKETS) holds exactly the value `i`; above, each power of two
 * `[2^k, 2^(k+1))` with `2^k ≥ 2·S` is cut into S buckets of width `2^k / S`.
 *
 * @example
 * const h = new Histogram();
 * h.record(1500); h.record(2500);
 * h.percentile(50); // 1500 (within 1 %)
 */
export const SUB_BUCKET_BITS = 7;
export const SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
/** Largest value kept as it is; larger ones are counted at this value (an hour in microseconds and beyond). */
export const MAX_VALUE = 2 ** 40;

export class Histogram {
  private counts: Float64Array = new Float64Array(2 * SUB_BUCKETS);
  count = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;
  private sum = 0;

  /** Counts one value (negatives count as 0, fractions are rounded). */
  record(value: number, times = 1): void {
    const v = Math.min(MAX_VALUE, Math.max(0, Math.round(value)));
    const i = bucketOf(v);
    if (i >= this.counts.length) this.grow(i + 1);
    this.counts[i] = (this.counts[i] as number) + times;
    this.count += times;
    this.sum += v * times;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /** Adds another histogram's counts to this one. */
  add(other: Histogram): void {
    if (other.counts.length > this.counts.length) this.grow(other.counts.length);
    for (let i = 0; i < other.counts.length; i++) this.counts[i] = (this.counts[i] as number) + (other.counts[i] as number);
    this.count += other.count;
    this.sum += other.sum;
    if (other.count > 0) {
      this.min = Math.min(this.min, other.min);
      this.max = Math.max(this.max, other.max);
    }
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /**
   * The value at percentile `p` (0–100): the smallest recorded value such that `p` % of the values
   * are at or below it, reported as the highest value of its bucket (never above the maximum), as
   * HdrHistogram does. 0 when empty.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    if (p >= 100) return this.max;
    const wanted = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] as number;
      if (seen >= wanted) return Math.max(this.min, Math.min(this.max, highestOf(i)));
    }
    return this.max;
  }

  private grow(length: number): void {
    const bigger = new Float64Array(Math.max(length, this.counts.length * 2));
    bigger.set(this.counts);
    this.counts = bigger;
  }
}

/** The bucket a non-negative integer falls in. */
export function bucketOf(v: number): number {
  if (v < 2 * SUB_BUCKETS) return v;
  if (v < 2 ** 32) {
    // Integer arithmetic for values under 2³² µs (71 minutes): every latency a run records.
    const exp = 31 - Math.clz32(v);
    return 2 * SUB_BUCKETS + (exp - SUB_BUCKET_BITS - 1) * SUB_BUCKETS + (v >>> (exp - SUB_BUCKET_BITS)) - SUB_BUCKETS;
  }
  const k = Math.floor(Math.log2(v));
  // Guard against log2's rounding at exact powers of two.
  const exp = 2 ** k > v ? k - 1 : 2 ** (k + 1) <= v ? k + 1 : k;
  const shift = exp - SUB_BUCKET_BITS;
  const sub = Math.floor(v / 2 ** shift) - SUB_BUCKETS;
  return 2 * SUB_BUCKETS + (exp - SUB_BUCKET_BITS - 1) * SUB_BUCKETS + sub;
}

/** The lowest value of a bucket. */
export function lowestOf(i: number): number {
  if (i < 2 * SUB_BUCKETS) return i;
  const j = i - 2 * SUB_BUCKETS;
  const exp = Math.floor(j / SUB_BUCKETS) + SUB_BUCKET_BITS + 1;
  const sub = (j % SUB_BUCKETS) + SUB_BUCKETS;
  return sub * 2 ** (exp - SUB_BUCKET_BITS);
}

/** The highest value of a bucket. */
export function highestOf(i: number): number {
  return lowestOf(i + 1) - 1;
}
