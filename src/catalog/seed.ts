import { createHash } from 'node:crypto';

/** The catalog seed as configured: `42` and `"42"` name the same catalog. */
export type Seed = number | string;

/**
 * A 32-bit integer derived from (seed, key), for seeding one entity's generator.
 * Hashing the pair (rather than advancing one shared generator) is what keeps an entity the same
 * when others are added or removed around it.
 *
 * @example faker.seed(hashToInt(42, 'provider:37'))
 */
export function hashToInt(seed: Seed, key: string): number {
  return digest(seed, key).readUInt32BE(0);
}

/** Lower-case hex MD5 of a string: the 32-character game id format of SPEC §2. */
export function md5Hex(text: string): string {
  return md5(text).toString('hex');
}

/** The 16 raw bytes of the MD5 of a string. */
export function md5(text: string): Buffer {
  return createHash('md5').update(text).digest();
}

/**
 * A small seeded random source (sfc32, Chris Doty-Humphrey's Small Fast Counting generator);
 * every draw is deterministic for the (seed, key) it was made from.
 *
 * Games use this rather than faker: re-seeding faker's Mersenne Twister costs ~45 µs, which is
 * 4.5 s for 100,000 games, and faker's draw mapping may change between its releases, while this
 * stream depends on nothing but the seed text.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(state: Buffer) {
    this.a = state.readUInt32LE(0);
    this.b = state.readUInt32LE(4);
    this.c = state.readUInt32LE(8);
    this.d = state.readUInt32LE(12);
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick needs at least one item');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One key of `weights`, chosen in proportion to its weight (keys in insertion order). */
  weighted<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K {
    let total = 0;
    for (const key in weights) total += weights[key] ?? 0;
    let roll = this.next() * total;
    let last: K | undefined;
    for (const key in weights) {
      last = key;
      roll -= weights[key] ?? 0;
      if (roll < 0) return key;
    }
    if (last === undefined) throw new Error('Rng.weighted needs at least one weight');
    return last;
  }
}

/**
 * A generator for one entity, seeded from (seed, key).
 *
 * @example createRng(42, 'game:PGSOFT:0').int(1, 6)
 */
export function createRng(seed: Seed, key: string): Rng {
  return new Rng(digest(seed, key));
}

function digest(seed: Seed, key: string): Buffer {
  // The unit separator keeps ("4", "2x") and ("42", "x") apart.
  return createHash('sha256')
    .update(`${String(seed)}\u001f${key}`)
    .digest();
}
