/**
 * Money is integer minor units everywhere inside aggmock; only the wire format converts. How many
 * decimals a major unit has is the currency's (ISO 4217 exponent: EUR 2, JPY 0, KWD 3; extra
 * currencies such as crypto are configured); two is the default of SPEC §3.
 *
 * Foundation: it imports nothing from aggmock.
 */
/** The decimals of a major unit when nothing else is known (EUR, USD…). */
export const DEFAULT_EXPONENT = 2;

export type AmountFormat = 'decimal' | 'minor';

/** How an amount is written on the wire: in major units (`decimal`) or minor units, as a JSON number or string, with the currency's decimals. */
export interface AmountCodec {
  format: AmountFormat;
  as: 'number' | 'string';
  /** Decimals of the currency's major unit (ISO 4217 exponent). */
  exponent: number;
}

/** A bare format means today's wire: a JSON number with two decimals. */
export function amountCodec(codec: AmountFormat | AmountCodec): AmountCodec {
  return typeof codec === 'string' ? { format: codec, as: 'number', exponent: DEFAULT_EXPONENT } : codec;
}

/**
 * ISO 4217 currencies whose minor unit is not two decimals; every other three-letter code has two.
 * Source: the ISO 4217 list of currency codes (exponent column).
 */
const ISO_4217_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Extra currencies a configuration adds (crypto, say): code → decimals. */
export type ExtraCurrencies = Readonly<Record<string, number>>;

/**
 * The decimals of `code`'s major unit: a configured extra currency first, then ISO 4217; any other
 * three-letter code has two. `undefined` for a code that is neither (so callers can name it).
 *
 * @example currencyExponent('JPY') // 0
 * @example currencyExponent('USDT', { USDT: 6 }) // 6
 */
export function currencyExponent(code: string, extra: ExtraCurrencies = {}): number | undefined {
  if (Object.hasOwn(extra, code)) return extra[code];
  if (!/^[A-Z]{3}$/.test(code)) return undefined;
  return ISO_4217_EXPONENTS[code] ?? DEFAULT_EXPONENT;
}

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
export function toMinor(major: number, exponent = DEFAULT_EXPONENT): number | undefined {
  if (!Number.isFinite(major)) return undefined;
  const scaled = major * 10 ** exponent;
  if (Math.abs(scaled) > MAX_AMOUNT_MINOR) return undefined;
  const rounded = Math.round(scaled);
  // Anything further than a rounding error from a whole cent has a third decimal.
  if (Math.abs(scaled - rounded) > 1e-6 * Math.max(1, Math.abs(scaled))) return undefined;
  if (!Number.isSafeInteger(rounded)) return undefined;
  return rounded === 0 ? 0 : rounded; // never -0
}

/** Minor units to the major-unit JSON number the wire carries, e.g. 1050 → 10.5. */
export function toMajor(minor: number, exponent = DEFAULT_EXPONENT): number {
  // A whole number of minor units below 2^52: the division is already the double nearest the exact
  // decimal (IEEE division rounds correctly, and its error is below half of the last decimal), which
  // is what writing it to `exponent` decimals and reading it back gives, at a fraction of the cost.
  if (Number.isInteger(minor) && Math.abs(minor) < 2 ** 52) return minor === 0 ? 0 : minor / 10 ** exponent;
  return Number((minor / 10 ** exponent).toFixed(exponent));
}

/** Minor units as a fixed-decimal string for people: 1050 → "10.50" (JPY, exponent 0: 1050 → "1050"). */
export function formatMinor(minor: number, exponent = DEFAULT_EXPONENT): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (exponent === 0) return `${sign}${abs}`;
  const unit = 10 ** exponent;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(exponent, '0')}`;
}

/**
 * Encodes minor units for the wire: a bare format is today's wire (a number, two decimals); a
 * codec also says the currency's decimals and whether the amount is written as a string.
 *
 * @example encodeAmount(1050, 'decimal') // 10.5
 * @example encodeAmount(1050, { format: 'decimal', as: 'string', exponent: 2 }) // "10.50"
 * @example encodeAmount(1050, { format: 'decimal', as: 'number', exponent: 0 }) // 1050 (JPY)
 */
export function encodeAmount(minor: number, codec: AmountFormat): number;
export function encodeAmount(minor: number, codec: AmountFormat | AmountCodec): number | string;
export function encodeAmount(minor: number, codec: AmountFormat | AmountCodec): number | string {
  const { format, as, exponent } = amountCodec(codec);
  if (as === 'string') return format === 'minor' ? String(minor) : formatMinor(minor, exponent);
  return format === 'minor' ? minor : toMajor(minor, exponent);
}

/**
 * Decodes a wire amount; `undefined` when it is not a valid amount (more decimals than the
 * currency has, not finite, too large). A codec that writes strings also reads numeric strings.
 */
export function decodeAmount(value: unknown, codec: AmountFormat | AmountCodec): number | undefined {
  const { format, as, exponent } = amountCodec(codec);
  const number = as === 'string' && typeof value === 'string' && NUMERIC_TEXT.test(value) ? Number(value) : value;
  if (typeof number !== 'number') return undefined;
  if (format === 'minor') return Number.isSafeInteger(number) && Math.abs(number) <= MAX_AMOUNT_MINOR ? number : undefined;
  return toMinor(number, exponent);
}

const NUMERIC_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * Whether a raw JSON literal (as the wallet wrote it) is an exact amount in the codec: no more
 * decimals than the currency has, or a whole number of minor units. A string literal counts only
 * when the codec writes strings.
 */
export function isExactAmountLiteral(literal: string | undefined, codec: AmountFormat | AmountCodec): boolean {
  if (literal === undefined) return false;
  const { format, as, exponent } = amountCodec(codec);
  const quoted = literal.startsWith('"');
  if (quoted && as !== 'string') return false;
  const text = quoted ? literal.slice(1, -1) : literal;
  return exactPattern(format === 'minor' ? 0 : exponent).test(text);
}

/** The exact amount literals with `decimals` decimals at most, one pattern per count (a reply reader asks on every reply). */
const exactPatterns = new Map<number, RegExp>();
function exactPattern(decimals: number): RegExp {
  let pattern = exactPatterns.get(decimals);
  if (!pattern) {
    pattern = new RegExp(`^-?(0|[1-9]\\d*)${decimals === 0 ? '' : `(\\.\\d{1,${decimals}})?`}$`);
    if (exactPatterns.size < 64) exactPatterns.set(decimals, pattern);
  }
  return pattern;
}

/** Parses a human amount such as "10", "10.5" or "10.50" (CLI flags, state strings) into minor units. */
export function parseMajorString(text: string, exponent = DEFAULT_EXPONENT): number | undefined {
  const match = /^\s*(-)?(\d+)(?:\.(\d+))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, minus, whole = '0', frac = ''] = match;
  if (frac.length > exponent) return undefined;
  const minor = Number(whole) * 10 ** exponent + Number(frac.padEnd(exponent, '0') || '0');
  if (!Number.isSafeInteger(minor) || minor > MAX_AMOUNT_MINOR) return undefined;
  return minus ? -minor : minor;
}
