import {
  type AmountCodec,
  currencyExponent,
  DEFAULT_EXPONENT,
  decodeAmount,
  type ExtraCurrencies,
  encodeAmount,
} from '../money/index.ts';
import type { Dialect } from './schema.ts';

/*
 * Amounts on a dialect's wire. Inside, money is integer minor units of the currency; a wire writes
 * them in major or minor units, as numbers or strings, with the currency's decimals or with a
 * scale of its own (Hub88 and Caleta: every currency × 100000). Converting between the two scales
 * is exact or refused: a wire never rounds money.
 */

/** The codec of a dialect's amounts for one currency: the wire's exponent, and the currency's. */
export interface WireCodec extends AmountCodec {
  /** The currency's own decimals (EUR 2, JPY 0), which minor units inside are counted in. */
  currencyExponent: number;
}

export function codecOf(dialect: Dialect, currency: string, extra: ExtraCurrencies = {}): WireCodec {
  const own = currencyExponent(currency, extra) ?? DEFAULT_EXPONENT;
  return {
    format: dialect.amounts.format,
    as: dialect.amounts.as,
    exponent: dialect.amounts.exponent ?? own,
    currencyExponent: own,
  };
}

/** Thrown when an amount cannot be written on a wire exactly. */
export class AmountScaleError extends Error {
  override name = 'AmountScaleError';
}

/**
 * An amount in the currency's minor units, written as the dialect writes it.
 *
 * @example writeAmount(hub88, 'EUR', 356) // 356000 (Hub88: × 100000)
 * @example writeAmount(pragmatic, 'EUR', 1050) // "10.50"
 */
export function writeAmount(dialect: Dialect, currency: string, minor: number, extra: ExtraCurrencies = {}): number | string {
  const codec = codecOf(dialect, currency, extra);
  const shift = codec.exponent - codec.currencyExponent;
  if (shift < 0 && minor % 10 ** -shift !== 0)
    throw new AmountScaleError(
      `${minor} minor units of ${currency} cannot be written with ${codec.exponent} decimals without rounding`,
    );
  const scaled = shift >= 0 ? minor * 10 ** shift : minor / 10 ** -shift;
  return encodeAmount(scaled, codec);
}

/**
 * A wire amount read back into the currency's minor units; undefined when it is not an amount or
 * not exact in the currency (Hub88's 100500 is 1.005 EUR: no whole cent).
 */
export function readAmount(dialect: Dialect, currency: string, value: unknown, extra: ExtraCurrencies = {}): number | undefined {
  return readAmountIn(codecOf(dialect, currency, extra), value);
}

/** {@link readAmount} with the codec already worked out (a reply reader keeps one per currency). */
export function readAmountIn(codec: WireCodec, value: unknown): number | undefined {
  // A decimal string is read whatever the wire writes: wallets answer "995.29" on number wires too.
  const readable = typeof value === 'string' ? { ...codec, as: 'string' as const } : codec;
  const scaled = decodeAmount(value, readable);
  if (scaled === undefined) return undefined;
  const shift = codec.exponent - codec.currencyExponent;
  if (shift <= 0) return scaled * 10 ** -shift;
  const factor = 10 ** shift;
  return scaled % factor === 0 ? scaled / factor : undefined;
}

/**
 * How a dialect writes its amounts, for a message about one it cannot read.
 *
 * @example describeAmounts(pragmatic) // 'a decimal as a string'
 */
export function describeAmounts(dialect: Dialect): string {
  const { format, as, exponent } = dialect.amounts;
  return `${format === 'minor' ? 'an integer of minor units' : 'a decimal'} as a ${as}${exponent === undefined ? '' : ` with ${exponent} decimals`}`;
}
