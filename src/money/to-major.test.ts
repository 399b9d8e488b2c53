import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toMajor } from './index.ts';

/** What toMajor computed before its fast path: the amount written to `exponent` decimals and read back. */
const printedAndRead = (minor: number, exponent: number) => Number((minor / 10 ** exponent).toFixed(exponent));

describe('toMajor', () => {
  it('gives exactly the number the decimal text reads as, for every whole amount below 2^52 in every exponent up to 18', () => {
    const minor = fc.oneof(
      fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
      fc.maxSafeInteger().filter((n) => Math.abs(n) < 2 ** 52),
      fc.constantFrom(1, -1, 5, 15, 105, 1005, 2 ** 52 - 1, -(2 ** 52 - 1), 999_999_999_999_999),
    );
    fc.assert(
      fc.property(minor, fc.integer({ min: 0, max: 18 }), (m, e) => Object.is(toMajor(m, e), printedAndRead(m, e))),
      { numRuns: 20_000 },
    );
  });

  it('reads the usual amounts as the wire writes them, and never gives -0', () => {
    expect([toMajor(1050), toMajor(1), toMajor(-1050), toMajor(123456789, 8), toMajor(1050, 0)]).toEqual([
      10.5, 0.01, -10.5, 1.23456789, 1050,
    ]);
    expect(Object.is(toMajor(-0), 0)).toBe(true);
    expect(Object.is(toMajor(0, 3), 0)).toBe(true);
  });

  it('rounds what is not a whole number of minor units, or too large for the fast path, as before', () => {
    for (const [m, e] of [
      [1050.4, 2],
      [1050.6, 2],
      [0.5, 0],
      [2 ** 52, 2],
      [2 ** 60, 8],
      [-(2 ** 53), 2],
    ] as const)
      expect(Object.is(toMajor(m, e), printedAndRead(m, e)), `${m} at ${e}`).toBe(true);
  });
});
