import { buildCatalog, type Catalog, type CatalogGame, gameImagePath, type ProviderDraft, providerLogoPath } from './catalog.ts';
import { GameNameRegistry } from './names.ts';
import { type ProviderSpec, providerSpecs } from './providers.ts';
import { md5, Rng, type Seed } from './seed.ts';
import { gameTraits } from './traits.ts';

export interface GenerateOptions {
  /** Same seed, same catalog, byte for byte. `42` and `"42"` are the same seed. */
  seed: Seed;
  /** How many providers, curated first (1–1000). */
  providers: number;
  /** How many games in total, shared out among the providers (0 or more). */
  games: number;
}

export const MAX_PROVIDERS = 1000;

/**
 * Generates the seeded provider and game catalog. Pure: no clock, no I/O, no shared state.
 *
 * What stays stable:
 * - provider `k` (code, name, status, type mix) depends only on the seed and `k`: asking for
 *   more providers appends, it never changes earlier ones;
 * - the game at (provider code, index `i`) — id, name, type, traits — depends only on the seed,
 *   the code and `i`, whatever the number of providers or games;
 * - how many games each provider gets depends on the configured totals (the total is shared out
 *   by each provider's seeded weight), so a provider's list is a prefix of its list in a larger
 *   catalog with the same providers, not necessarily the same length.
 *
 * @example
 * const catalog = generateCatalog({ seed: 42, providers: 30, games: 1500 });
 * findProvider(catalog, 'pragmatic play')?.code; // 'PRAGMATICPLAY'
 */
export function generateCatalog(options: GenerateOptions): Catalog {
  const seed = String(options.seed);
  const providerCount = checkCount('providers', options.providers, 0, MAX_PROVIDERS);
  const gameCount = checkCount('games', options.games, 0, Number.MAX_SAFE_INTEGER);

  const specs = providerSpecs(seed, providerCount);
  const counts = shareOut(
    gameCount,
    specs.map((s) => s.weight),
  );
  const games: CatalogGame[] = [];
  for (const [position, spec] of specs.entries()) {
    const names = new GameNameRegistry();
    for (let index = 0; index < (counts[position] ?? 0); index++) games.push(generateGame(seed, spec, index, names));
  }
  return buildCatalog(seed, specs.map(toDraft), games);
}

/**
 * Game `index` of a provider. Its draws come from (seed, code, index) alone; only the name also
 * looks at the names given to games 0..index-1 of the same provider, to stay unique.
 */
function generateGame(seed: string, spec: ProviderSpec, index: number, names: GameNameRegistry): CatalogGame {
  // One hash per game: the id's 128 bits also seed the game's draws (half the cost of two hashes).
  const digest = md5(`${seed}:${spec.code}:${index}`);
  const id = digest.toString('hex');
  const rng = new Rng(digest);
  const type = rng.weighted(spec.mix);
  const name = names.draw(rng, type);
  return { id, name, type, provider: spec.code, ...gameTraits(rng, type), imgPath: gameImagePath(id), origin: 'generated' };
}

function toDraft(spec: ProviderSpec): ProviderDraft {
  return { code: spec.code, name: spec.name, status: spec.status, logoPath: providerLogoPath(spec.code), origin: spec.origin };
}

/**
 * Splits `total` into integer shares proportional to `weights` (largest remainder; ties go to
 * the earlier position). When there are at least as many games as providers, every provider
 * gets at least one.
 */
export function shareOut(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const floor = total >= weights.length ? 1 : 0;
  const rest = total - floor * weights.length;
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (rest * w) / sum);
  const counts = exact.map((x) => floor + Math.floor(x));
  let left = total - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((x, i) => ({ i, remainder: x - Math.floor(x) }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    left--;
  }
  return counts;
}

function checkCount(field: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`catalog.${field} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}
