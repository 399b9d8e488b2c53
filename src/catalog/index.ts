/**
 * The provider and game catalog (SPEC §2): generated from a seed, optionally extended or replaced
 * by a JSON fixture, with offline SVG artwork. The HTTP layer serialises listings from it.
 *
 * An engine that imports nothing else from aggmock but shared; keep it that way.
 */
import type { Catalog } from './catalog.ts';
import { applyFixture, loadCatalogFixture } from './fixture.ts';
import { type GenerateOptions, generateCatalog } from './generate.ts';

export {
  buildCatalog,
  type Catalog,
  type CatalogGame,
  type CatalogProvider,
  findGame,
  findProvider,
  GAME_TYPES,
  type GameType,
  gameImagePath,
  gameImageUrl,
  PLATFORMS,
  type Platform,
  PROVIDER_STATUSES,
  type ProviderDraft,
  type ProviderStatus,
  providerKey,
  providerLogoPath,
  providerLogoUrl,
  VOLATILITIES,
  type Volatility,
} from './catalog.ts';
export {
  applyFixture,
  type CatalogFixture,
  CatalogFixtureError,
  catalogFixtureSchema,
  FIXTURE_MODES,
  type FixtureGame,
  fixtureGameSchema,
  fixtureProviderSchema,
  loadCatalogFixture,
  parseCatalogFixture,
} from './fixture.ts';
export { type GenerateOptions, generateCatalog, MAX_PROVIDERS } from './generate.ts';
export { escapeXml, renderGameImage, renderProviderLogo } from './images.ts';
export { CURATED_PROVIDERS } from './providers.ts';
export { createRng, hashToInt, md5Hex, type Rng, type Seed } from './seed.ts';

export interface LoadCatalogOptions extends GenerateOptions {
  /** Path of a fixture file (config `catalog.fixture`), applied after generation. */
  fixture?: string | undefined;
}

/**
 * The catalog a server runs with: generated from the seed and sizes, then the fixture if any.
 * Throws CatalogFixtureError when the fixture is unreadable or invalid.
 *
 * @example createCatalog({ seed: config.seed, ...config.catalog })
 */
export function createCatalog(options: LoadCatalogOptions): Catalog {
  const generated = generateCatalog(options);
  return options.fixture ? applyFixture(generated, loadCatalogFixture(options.fixture)) : generated;
}
