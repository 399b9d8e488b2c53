import { createHash } from 'node:crypto';
import { mulberry32 } from '../shared/index.ts';

/** Randomness as the callback engine sees it: injected, so a seed reproduces a run. */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
}

/**
 * A deterministic generator: mulberry32 seeded with the first 32 bits of sha256(seed), so
 * `42`, `"42"` and `"demo-run"` are all usable seeds and nearby seeds are unrelated.
 *
 * @example seededRandom(42).int(1, 6) // the same die roll on every run
 */
export function seededRandom(seed: number | string): Random {
  const next = mulberry32(createHash('sha256').update(String(seed)).digest().readUInt32LE(0));
  return {
    next,
    int(min, max) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
        throw new RangeError(`int(min, max) expects integers with min <= max, got min=${min}, max=${max}`);
      }
      return min + Math.floor(next() * (max - min + 1));
    },
  };
}
