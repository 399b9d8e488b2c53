import { cached } from '../shared/index.ts';
import type { CatalogGame, GameType, Platform, Volatility } from './catalog.ts';
import type { Rng } from './seed.ts';

/** The facts about a game besides who made it and what it is called. */
export type GameTraits = Pick<
  CatalogGame,
  'rtp' | 'volatility' | 'demo' | 'platforms' | 'lines' | 'minBetMinor' | 'maxBetMinor' | 'releaseDate' | 'currencies'
>;

/** Every game takes these, so a launch in the usual currencies always works. */
export const CORE_CURRENCIES = ['EUR', 'USD', 'GBP'] as const;
/** Each game also takes some of these (seeded): zero-decimal (JPY, KRW, CLP) and three-decimal (KWD, BHD) ones among them. */
export const OPTIONAL_CURRENCIES = [
  'AUD',
  'BHD',
  'BRL',
  'CAD',
  'CLP',
  'INR',
  'JPY',
  'KRW',
  'KWD',
  'MXN',
  'NOK',
  'PLN',
  'SEK',
  'TRY',
] as const;
const OPTIONAL_CURRENCY_SHARE = 0.5;

interface TypeProfile {
  /** RTP range in hundredths of a percent, inside 92.00–98.50. */
  rtp: readonly [number, number];
  volatility: Readonly<Partial<Record<Volatility, number>>>;
  /** Share of games with a free-play demo. */
  demo: number;
  platforms: Readonly<Record<'both' | 'mobile' | 'desktop', number>>;
  minBetMinor: readonly number[];
  maxBetMinor: readonly number[];
  /** Paylines or ways to pick from; slots only. */
  lines?: readonly number[];
}

/** What games of each type look like in a real lobby. */
const PROFILES: Record<GameType, TypeProfile> = {
  slot: {
    rtp: [9400, 9750],
    volatility: { low: 10, medium: 35, high: 40, 'very-high': 15 },
    demo: 0.92,
    platforms: { both: 88, mobile: 10, desktop: 2 },
    minBetMinor: [10, 20, 25, 40],
    maxBetMinor: [10_000, 25_000, 50_000, 100_000],
    lines: [5, 9, 10, 20, 25, 30, 40, 50, 243, 1024, 4096, 117_649],
  },
  live: {
    rtp: [9500, 9850],
    volatility: { low: 60, medium: 40 },
    demo: 0.05,
    platforms: { both: 95, mobile: 0, desktop: 5 },
    minBetMinor: [10, 50, 100, 500, 2500],
    maxBetMinor: [500_000, 1_000_000, 2_500_000, 5_000_000],
  },
  crash: {
    rtp: [9600, 9850],
    volatility: { high: 60, 'very-high': 40 },
    demo: 0.85,
    platforms: { both: 80, mobile: 20, desktop: 0 },
    minBetMinor: [10, 20],
    maxBetMinor: [10_000, 50_000, 100_000],
  },
  table: {
    rtp: [9600, 9850],
    volatility: { low: 60, medium: 40 },
    demo: 0.9,
    platforms: { both: 80, mobile: 0, desktop: 20 },
    minBetMinor: [10, 50, 100],
    maxBetMinor: [50_000, 100_000, 500_000],
  },
  fishing: {
    rtp: [9500, 9750],
    volatility: { medium: 50, high: 50 },
    demo: 0.9,
    platforms: { both: 60, mobile: 40, desktop: 0 },
    minBetMinor: [1, 5, 10],
    maxBetMinor: [5_000, 10_000, 50_000],
  },
  bingo: {
    rtp: [9200, 9600],
    volatility: { medium: 70, high: 30 },
    demo: 0.8,
    platforms: { both: 90, mobile: 10, desktop: 0 },
    minBetMinor: [5, 10, 20],
    maxBetMinor: [2_000, 5_000, 10_000],
  },
  virtual: {
    rtp: [9200, 9500],
    volatility: { low: 50, medium: 50 },
    demo: 0.5,
    platforms: { both: 90, mobile: 0, desktop: 10 },
    minBetMinor: [10, 50],
    maxBetMinor: [50_000, 100_000],
  },
};

const PLATFORM_SETS: Record<'both' | 'mobile' | 'desktop', readonly Platform[]> = {
  both: ['desktop', 'mobile'],
  mobile: ['mobile'],
  desktop: ['desktop'],
};

const FIRST_RELEASE = Date.UTC(2012, 0, 1);
const LAST_RELEASE = Date.UTC(2025, 11, 31);
const DAY_MS = 86_400_000;

/**
 * One frozen list per set of currencies: 100,000 games draw at most 16,384 distinct sets,
 * and a list per game was ~9 MB of a large catalog's memory.
 */
const currencyLists = new Map<string, readonly string[]>();

/** Draws realistic traits for a game of `type`. Dates come from the seed, never from the clock. */
export function gameTraits(rng: Rng, type: GameType): GameTraits {
  const profile = PROFILES[type];
  const rtpHundredths = rng.int(profile.rtp[0], profile.rtp[1]);
  const volatility = rng.weighted(profile.volatility);
  const demo = rng.chance(profile.demo);
  const platforms = PLATFORM_SETS[rng.weighted(profile.platforms)];
  const minBetMinor = rng.pick(profile.minBetMinor);
  const maxBetMinor = rng.pick(profile.maxBetMinor);
  const releaseDay = rng.int(0, (LAST_RELEASE - FIRST_RELEASE) / DAY_MS);
  const releaseDate = isoDay(releaseDay);
  // Drawn last, so every earlier trait of every game is what it was before games had currencies.
  const optional = OPTIONAL_CURRENCIES.filter(() => rng.chance(OPTIONAL_CURRENCY_SHARE));
  const currencies = cached(currencyLists, optional.join(), () => Object.freeze([...CORE_CURRENCIES, ...optional]));
  return {
    rtp: rtpHundredths / 100,
    volatility,
    demo,
    platforms,
    ...(profile.lines ? { lines: rng.pick(profile.lines) } : {}),
    minBetMinor,
    maxBetMinor,
    releaseDate,
    currencies,
  };
}

const isoDays = new Map<number, string>();

/** `YYYY-MM-DD` of the day `offset` days after FIRST_RELEASE (memoised: a few thousand distinct days). */
function isoDay(offset: number): string {
  return cached(isoDays, offset, () => new Date(FIRST_RELEASE + offset * DAY_MS).toISOString().slice(0, 10));
}
