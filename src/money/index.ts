/**
 * Money is integer minor units (cents) everywhere inside aggmock; only the wire format converts.
 * Two decimals is the contract of SPEC §3, so a major unit is always 100 minor units.
 *
 * Foundation: it imports nothing from aggmock.
 */
export const MINOR_PER_MAJOR = 100;

export type AmountFormat = 'decimal' | 'minor';

/**
 * The largest amount aggmock takes, in minor units (one trillion major units). Beyond it a double
 * no longer tells neighbouring cents apart reliably: `90071992547409.91` would be rounded off by a
 * cent. Larger amounts are refused, never rounded.
 */
export const MAX_AMOUNT_MINOR = 100_000_000_000_000;

/**
 * Converts a major-unit number such as `10.5` into minor units (`1050`) without float noise.
 * Returns `undefined` when the number has more than two decimals or is not finite, so callers
 * can report the field instead of silently rounding someone's money.
 *
 * @example toMinor(0.1 + 0.2) // 30 (the float noise is below half a cent and is absorbed)
 */
export function toMinor(major: number): number | undefined {
  if (!Number.isFinite(major)) return undefined;
  const scaled = major * MINOR_PER_MAJOR;
  if (Math.abs(scaled) > MAX_AMOUNT_MINOR) return undefined;
  const rounded = Math.round(scaled);
  // Anything further than a rounding error from a whole cent has a third decimal.
  if (Math.abs(scaled - rounded) > 1e-6 * Math.max(1, Math.abs(scaled))) return undefined;
  if (!Number.isSafeInteger(rounded)) return undefined;
  return rounded === 0 ? 0 : rounded; // never -0
}

/** Minor units to the major-unit JSON number the wire carries, e.g. 1050 → 10.5. */
export function toMajor(minor: number): number {
  return Number((minor / MINOR_PER_MAJOR).toFixed(2));
}

/** Minor units as a fixed two-decimal string for people: 1050 → "10.50". */
export function formatMinor(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / MINOR_PER_MAJOR)}.${String(abs % MINOR_PER_MAJOR).padStart(2, '0')}`;
}

/** Encodes minor units for the wire in the configured format. */
export function encodeAmount(minor: number, format: AmountFormat): number {
  return format === 'minor' ? minor : toMajor(minor);
}

/** Decodes a wire amount in the configured format; `undefined` when it is not a valid amount. */
export function decodeAmount(value: unknown, format: AmountFormat): number | undefined {
  if (typeof value !== 'number') return undefined;
  if (format === 'minor') return Number.isSafeInteger(value) && Math.abs(value) <= MAX_AMOUNT_MINOR ? value : undefined;
  return toMinor(value);
}

/** Parses a human amount such as "10", "10.5" or "10.50" (CLI flags, state strings) into minor units. */
export function parseMajorString(text: string): number | undefined {
  const match = /^\s*(-)?(\d+)(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, minus, whole = '0', frac = ''] = match;
  const minor = Number(whole) * MINOR_PER_MAJOR + Number(frac.padEnd(2, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_AMOUNT_MINOR) return undefined;
  return minus ? -minor : minor;
}
