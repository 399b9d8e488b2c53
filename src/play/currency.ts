import { exponentOf } from '../callbacks/index.ts';
import type { CatalogGame } from '../catalog/index.ts';
import type { AggmockConfig } from '../config/index.ts';
import type { LaunchSession } from '../launch/sessions.ts';

/** Bet limits when the game is unknown: 0.10 to 100.00 in a two-decimal currency. */
const FALLBACK_LIMITS = { minBetMinor: 10, maxBetMinor: 10_000 };

/** A session's money: the decimals of its currency and the game's bet limits in that currency's minor units. */
export interface PlayMoney {
  currency: string;
  exponent: number;
  minBetMinor: number;
  maxBetMinor: number;
}

/**
 * The catalog's bet limits are cents of a two-decimal currency; a session in another currency
 * keeps the same numbers in major units (0.10 to 100) written with its own decimals, and a
 * zero-decimal currency's smallest bet is 1.
 */
export function playMoney(
  config: AggmockConfig,
  session: Pick<LaunchSession, 'currency'>,
  game: CatalogGame | undefined,
): PlayMoney {
  const exponent = exponentOf(config.callbacks, session.currency);
  const limits = game ?? FALLBACK_LIMITS;
  const scale = (cents: number, round: (n: number) => number) => round(cents * 10 ** (exponent - 2));
  return {
    currency: session.currency,
    exponent,
    minBetMinor: Math.max(1, scale(limits.minBetMinor, Math.ceil)),
    maxBetMinor: Math.max(1, scale(limits.maxBetMinor, Math.floor)),
  };
}
