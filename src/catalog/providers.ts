import type { Faker } from '@faker-js/faker';
// The English-only entry: the package root loads every locale, a third of aggmock's start-up.
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { type GameType, type ProviderStatus, providerKey } from './catalog.ts';
import { createRng, hashToInt, md5Hex, type Seed } from './seed.ts';

/** Relative shares of game types in one provider's portfolio. */
export type TypeMix = Readonly<Partial<Record<GameType, number>>>;

/** One provider as the generator sees it: identity plus what its portfolio looks like. */
export interface ProviderSpec {
  readonly code: string;
  readonly name: string;
  readonly mix: TypeMix;
  /** Relative portfolio size; the configured total is shared out in proportion. */
  readonly weight: number;
  readonly status: ProviderStatus;
  readonly origin: 'curated' | 'generated';
}

interface CuratedProvider {
  readonly code: string;
  readonly name: string;
  readonly mix: TypeMix;
  readonly weight: number;
}

const SLOTS: TypeMix = { slot: 88, table: 12 };
const SLOTS_ONLY: TypeMix = { slot: 100 };
const LIVE: TypeMix = { live: 100 };
const CRASH: TypeMix = { crash: 100 };
const ASIAN: TypeMix = { slot: 65, fishing: 30, table: 5 };
const VIRTUAL: TypeMix = { virtual: 100 };

/**
 * Real-world providers, always first and always in this order, whatever the seed. The head of
 * the list covers every main game type, so the default 30 providers make a varied lobby, and
 * PRAGMATICPLAY is second so `PRAGMATIC PLAY` resolves with any size.
 */
export const CURATED_PROVIDERS: readonly CuratedProvider[] = [
  { code: 'PGSOFT', name: 'PG Soft', mix: SLOTS_ONLY, weight: 2 },
  { code: 'PRAGMATICPLAY', name: 'Pragmatic Play', mix: { slot: 92, table: 5, bingo: 3 }, weight: 3 },
  { code: 'EVOLUTIONLIVE', name: 'Evolution', mix: LIVE, weight: 1.5 },
  { code: 'SPRIBE', name: 'Spribe', mix: CRASH, weight: 0.3 },
  { code: 'JILI', name: 'JILI Games', mix: ASIAN, weight: 1.5 },
  { code: 'NETENT', name: 'NetEnt', mix: SLOTS, weight: 2 },
  { code: 'PLAYNGO', name: "Play'n GO", mix: SLOTS, weight: 2 },
  { code: 'PRAGMATICLIVE', name: 'Pragmatic Play Live', mix: LIVE, weight: 1 },
  { code: 'HACKSAW', name: 'Hacksaw Gaming', mix: { slot: 95, crash: 5 }, weight: 1.2 },
  { code: 'NOLIMITCITY', name: 'Nolimit City', mix: SLOTS_ONLY, weight: 0.8 },
  { code: 'PLAYTECH', name: 'Playtech', mix: { slot: 60, table: 20, live: 20 }, weight: 2.5 },
  { code: 'EZUGI', name: 'Ezugi', mix: LIVE, weight: 0.8 },
  { code: 'SMARTSOFT', name: 'SmartSoft Gaming', mix: { crash: 70, slot: 30 }, weight: 0.6 },
  { code: 'TADAGAMING', name: 'TaDa Gaming', mix: { slot: 60, fishing: 35, table: 5 }, weight: 1 },
  { code: 'REDTIGER', name: 'Red Tiger', mix: SLOTS, weight: 1.5 },
  { code: 'RELAX', name: 'Relax Gaming', mix: SLOTS, weight: 1.2 },
  { code: 'BGAMING', name: 'BGaming', mix: { slot: 85, table: 8, crash: 7 }, weight: 1.2 },
  { code: 'PRAGMATICSLOTS', name: 'Pragmatic Play Slots', mix: SLOTS_ONLY, weight: 1 },
  { code: 'YGGDRASIL', name: 'Yggdrasil', mix: SLOTS, weight: 1.2 },
  { code: 'QUICKSPIN', name: 'Quickspin', mix: SLOTS_ONLY, weight: 0.8 },
  { code: 'THUNDERKICK', name: 'Thunderkick', mix: SLOTS_ONLY, weight: 0.6 },
  { code: 'ELK', name: 'ELK Studios', mix: SLOTS_ONLY, weight: 0.6 },
  { code: 'PUSHGAMING', name: 'Push Gaming', mix: SLOTS_ONLY, weight: 0.6 },
  { code: 'BIGTIMEGAMING', name: 'Big Time Gaming', mix: SLOTS_ONLY, weight: 0.5 },
  { code: 'EVOPLAY', name: 'Evoplay', mix: { slot: 80, table: 10, crash: 10 }, weight: 1 },
  { code: 'HABANERO', name: 'Habanero', mix: SLOTS, weight: 1 },
  { code: 'SPADEGAMING', name: 'Spadegaming', mix: ASIAN, weight: 1 },
  { code: 'BOOMING', name: 'Booming Games', mix: SLOTS_ONLY, weight: 0.7 },
  { code: 'WAZDAN', name: 'Wazdan', mix: SLOTS, weight: 1 },
  { code: 'ENDORPHINA', name: 'Endorphina', mix: SLOTS, weight: 0.8 },
  { code: 'BETSOFT', name: 'Betsoft', mix: SLOTS, weight: 1 },
  { code: 'MICROGAMING', name: 'Microgaming', mix: { slot: 80, table: 20 }, weight: 2 },
  { code: 'PLAYSON', name: 'Playson', mix: SLOTS_ONLY, weight: 0.8 },
  { code: 'BOOONGO', name: 'Booongo', mix: SLOTS_ONLY, weight: 0.8 },
  { code: 'GAMEART', name: 'GameArt', mix: SLOTS, weight: 0.7 },
  { code: 'IRONDOG', name: 'Iron Dog Studio', mix: SLOTS_ONLY, weight: 0.5 },
  { code: 'KALAMBA', name: 'Kalamba Games', mix: SLOTS_ONLY, weight: 0.5 },
  { code: 'AVATARUX', name: 'AvatarUX', mix: SLOTS_ONLY, weight: 0.4 },
  { code: 'BLUEPRINT', name: 'Blueprint Gaming', mix: SLOTS_ONLY, weight: 1.2 },
  { code: 'SPINOMENAL', name: 'Spinomenal', mix: SLOTS_ONLY, weight: 0.8 },
  { code: 'FANTASMA', name: 'Fantasma Games', mix: SLOTS_ONLY, weight: 0.4 },
  { code: 'GAMOMAT', name: 'Gamomat', mix: SLOTS, weight: 0.6 },
  { code: 'MASCOT', name: 'Mascot Gaming', mix: SLOTS, weight: 0.5 },
  { code: 'TURBOGAMES', name: 'Turbo Games', mix: CRASH, weight: 0.4 },
  { code: 'GALAXSYS', name: 'Galaxsys', mix: { crash: 80, table: 20 }, weight: 0.4 },
  { code: 'AVIATRIX', name: 'Aviatrix', mix: CRASH, weight: 0.1 },
  { code: 'VIVOGAMING', name: 'Vivo Gaming', mix: LIVE, weight: 0.5 },
  { code: 'SAGAMING', name: 'SA Gaming', mix: LIVE, weight: 0.5 },
  { code: 'DREAMGAMING', name: 'Dream Gaming', mix: LIVE, weight: 0.4 },
  { code: 'BETGAMESTV', name: 'BetGames.TV', mix: { live: 70, bingo: 30 }, weight: 0.3 },
  { code: 'CQ9', name: 'CQ9 Gaming', mix: ASIAN, weight: 1 },
  { code: 'KAGAMING', name: 'KA Gaming', mix: ASIAN, weight: 1 },
  { code: 'FACHAI', name: 'FA CHAI', mix: { fishing: 45, slot: 55 }, weight: 0.6 },
  { code: 'CALETA', name: 'Caleta Gaming', mix: { bingo: 45, slot: 55 }, weight: 0.6 },
  { code: 'ZITRO', name: 'Zitro', mix: { bingo: 60, slot: 40 }, weight: 0.5 },
  { code: 'KIRON', name: 'Kiron Interactive', mix: VIRTUAL, weight: 0.4 },
  { code: 'GOLDENRACE', name: 'Golden Race', mix: VIRTUAL, weight: 0.4 },
];

/** Positions in CURATED_PROVIDERS that are never put in maintenance (the headline studios). */
const ALWAYS_ACTIVE = 8;
const MAINTENANCE_SHARE = 0.05;

/** Shapes of a synthetic studio: its type mix, how often it appears and its portfolio size range. */
const SYNTHETIC_ARCHETYPES = {
  slotHouse: { mix: SLOTS, share: 62, weight: [0.4, 1.4] },
  slotBoutique: { mix: SLOTS_ONLY, share: 12, weight: [0.3, 1] },
  liveStudio: { mix: LIVE, share: 8, weight: [0.3, 0.8] },
  asianArcade: { mix: ASIAN, share: 8, weight: [0.5, 1.2] },
  crashStudio: { mix: CRASH, share: 5, weight: [0.1, 0.4] },
  bingoHall: { mix: { bingo: 70, slot: 30 }, share: 2, weight: [0.2, 0.6] },
  virtualSports: { mix: VIRTUAL, share: 3, weight: [0.2, 0.5] },
} as const satisfies Record<string, { mix: TypeMix; share: number; weight: readonly [number, number] }>;
type Archetype = keyof typeof SYNTHETIC_ARCHETYPES;
const ARCHETYPE_SHARES = Object.fromEntries(Object.entries(SYNTHETIC_ARCHETYPES).map(([k, a]) => [k, a.share])) as Record<
  Archetype,
  number
>;

const STUDIO_SUFFIXES = 'Gaming|Games|Studios|Interactive|Entertainment|Play|Labs|Digital|Slots|Works'.split('|');
const STUDIO_ADJECTIVES =
  'Lucky|Wild|Golden|Brave|Clever|Happy|Mighty|Royal|Silent|Swift|Jolly|Bold|Red|Black|Iron|Silver|Little|Big|Flying|Dancing|Sleepy|Hungry|Cosmic|Electric|Northern|Wise'.split(
    '|',
  );
const CODE_MAX_LENGTH = 20;

/**
 * The first `count` providers for a seed. Curated providers come first in their fixed order;
 * synthetic ones follow. Provider `k` depends only on (seed, k) and the providers before it, so
 * asking for more providers appends without changing the earlier ones.
 */
export function providerSpecs(seed: Seed, count: number): ProviderSpec[] {
  const specs: ProviderSpec[] = [];
  for (const [position, curated] of CURATED_PROVIDERS.slice(0, count).entries()) {
    const rng = createRng(seed, `provider:${curated.code}`);
    const inMaintenance = position >= ALWAYS_ACTIVE && rng.chance(MAINTENANCE_SHARE);
    specs.push({
      code: curated.code,
      name: curated.name,
      mix: curated.mix,
      weight: curated.weight * (0.8 + rng.next() * 0.45),
      status: inMaintenance ? 'MAINTENANCE' : 'ACTIVE',
      origin: 'curated',
    });
  }
  if (count <= CURATED_PROVIDERS.length) return specs;

  // Every curated code and name stays reserved, whatever `count`, so the synthetic sequence never
  // depends on how many curated providers were listed.
  const taken = new Set(CURATED_PROVIDERS.flatMap((p) => [providerKey(p.code), providerKey(p.name)]));
  // Seeded before every use (syntheticProvider), so sharing the module's instance is deterministic.
  for (let n = 0; n < count - CURATED_PROVIDERS.length; n++) specs.push(syntheticProvider(seed, n, englishFaker, taken));
  return specs;
}

function syntheticProvider(seed: Seed, n: number, faker: Faker, taken: Set<string>): ProviderSpec {
  const isTaken = (name: string) => taken.has(providerKey(name)) || taken.has(codeFor(name));
  faker.seed(hashToInt(seed, `synthetic-provider:${n}`));
  let name = studioName(faker);
  for (let attempt = 0; attempt < 5 && isTaken(name); attempt++) name = studioName(faker);
  const stem = name;
  for (let suffix = 2; isTaken(name); suffix++) name = `${stem} ${suffix}`;
  const code = codeFor(name);
  taken.add(providerKey(name));
  taken.add(code);

  const rng = createRng(seed, `provider:${code}`);
  const archetype = SYNTHETIC_ARCHETYPES[rng.weighted(ARCHETYPE_SHARES)];
  const [low, high] = archetype.weight;
  return {
    code,
    name,
    mix: archetype.mix,
    weight: low + rng.next() * (high - low),
    status: rng.chance(MAINTENANCE_SHARE) ? 'MAINTENANCE' : 'ACTIVE',
    origin: 'generated',
  };
}

/**
 * A code from a studio name: its letters and digits, upper-case ("Kessler Games" → KESSLERGAMES).
 * A long name drops its last word ("Violet Gorilla Entertainment" → VIOLETGORILLA), or else keeps
 * its head plus three hex characters of its hash, so shortened codes of different names stay apart.
 */
function codeFor(name: string): string {
  const letters = (text: string) => providerKey(text).replace(/[^A-Z0-9]/g, '');
  const full = letters(name) || 'STUDIO';
  if (full.length <= CODE_MAX_LENGTH) return full;
  const withoutLastWord = letters(name.replace(/\s+\S+$/, ''));
  if (withoutLastWord.length >= 4 && withoutLastWord.length <= CODE_MAX_LENGTH) return withoutLastWord;
  return full.slice(0, CODE_MAX_LENGTH - 3) + md5Hex(full).slice(0, 3).toUpperCase();
}

/** A plausible studio name such as "Kessler Games" or "Orchid Fox Studios". */
function studioName(faker: Faker): string {
  const suffix = faker.helpers.arrayElement(STUDIO_SUFFIXES);
  const pattern = faker.number.int({ min: 0, max: 3 });
  const title = (word: string) =>
    word.replace(/(^|[\s-])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase());
  switch (pattern) {
    case 0:
      return `${title(faker.person.lastName())} ${suffix}`;
    case 1:
      return `${title(faker.color.human())} ${title(faker.animal.type())} ${suffix}`;
    case 2:
      return `${faker.helpers.arrayElement(STUDIO_ADJECTIVES)} ${title(faker.animal.type())}`;
    default:
      return `${title(faker.location.city())} ${suffix}`;
  }
}
