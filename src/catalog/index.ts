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
  type Catalog,
  type CatalogGame,
  type CatalogProvider,
  findGame,
  findProvider,
  GAME_TYPES,
  type GameType,
  gameImageUrl,
  providerLogoUrl,
} from './catalog.ts';

export { generateCatalog } from './generate.ts';
export { renderGameImage, renderProviderLogo } from './images.ts';

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
