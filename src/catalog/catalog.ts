/**
 * The catalog model: what a provider and a game are inside aggmock, and the indexes every
 * consumer (HTTP listings, launch, UI search) looks them up by. The HTTP layer serialises from
 * these records; it never reaches into the generator.
 */

export const GAME_TYPES = ['slot', 'live', 'crash', 'table', 'fishing', 'bingo', 'virtual'] as const;
export type GameType = (typeof GAME_TYPES)[number];

export const VOLATILITIES = ['low', 'medium', 'high', 'very-high'] as const;
export type Volatility = (typeof VOLATILITIES)[number];

export const PLATFORMS = ['desktop', 'mobile'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PROVIDER_STATUSES = ['ACTIVE', 'MAINTENANCE'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

export interface CatalogProvider {
  /** Upper-case code clients send as `provider`, e.g. `PGSOFT`. */
  readonly code: string;
  /** Display name, e.g. `PG Soft`. */
  readonly name: string;
  readonly status: ProviderStatus;
  /** Recomputed from the games whenever the catalog is built. */
  readonly totalGames: number;
  /** The game types this provider has, most games first (ties in GAME_TYPES order). */
  readonly types: readonly GameType[];
  /** Path of the generated SVG logo, served by aggmock; the HTTP layer prefixes the public URL. */
  readonly logoPath: string;
  /** `curated`: from the built-in list; `generated`: synthetic; `fixture`: from a fixture file. */
  readonly origin: 'curated' | 'generated' | 'fixture';
}

export interface CatalogGame {
  /** 32 lower-case hex characters; the `gameId` used at launch. */
  readonly id: string;
  /** Unique within its provider (case-insensitively). */
  readonly name: string;
  readonly type: GameType;
  /** The provider's code. */
  readonly provider: string;
  /** Return to player in percent, at most two decimals, e.g. 96.5. */
  readonly rtp: number;
  readonly volatility: Volatility;
  /** Whether a free-play demo exists. */
  readonly demo: boolean;
  readonly platforms: readonly Platform[];
  /** Paylines or ways; slots only. */
  readonly lines?: number;
  /** Bet limits in minor units, e.g. 10 = 0.10. */
  readonly minBetMinor: number;
  readonly maxBetMinor: number;
  /** ISO date `YYYY-MM-DD`. */
  readonly releaseDate: string;
  /** The currencies a launch may ask for (ISO 4217 codes); every game takes EUR, USD and GBP. */
  readonly currencies: readonly string[];
  /** Path of the generated SVG, served by aggmock: `/assets/games/<id>.svg`. */
  readonly imgPath: string;
  /** An absolute image URL from a fixture, used as-is instead of `imgPath`. */
  readonly imgUrl?: string;
  readonly origin: 'generated' | 'fixture';
}

export interface Catalog {
  /** The seed text the catalog was generated from. */
  readonly seed: string;
  /** In listing order. */
  readonly providers: readonly CatalogProvider[];
  /** Grouped by provider, in provider order, then in each provider's own order. */
  readonly games: readonly CatalogGame[];
  readonly gameById: ReadonlyMap<string, CatalogGame>;
  /** Provider code → its games; every provider has an entry, possibly empty. */
  readonly gamesByProvider: ReadonlyMap<string, readonly CatalogGame[]>;
  readonly providerByCode: ReadonlyMap<string, CatalogProvider>;
  /** Normalised code and name → provider (see `providerKey`); codes win over names. */
  readonly providerIndex: ReadonlyMap<string, CatalogProvider>;
}

/** A provider before its games are counted. */
export type ProviderDraft = Omit<CatalogProvider, 'totalGames' | 'types'>;

export const gameImagePath = (id: string): string => `/assets/games/${id}.svg`;
export const providerLogoPath = (code: string): string => `/assets/providers/${code}.svg`;

/**
 * How a provider query is compared: case-insensitive, letters and digits only (spaces,
 * underscores, hyphens and other punctuation are ignored), so `PRAGMATIC PLAY`, `pragmatic_play`
 * and ` Pragmatic Play ` are one key, and so are `Play'n GO` and `PLAYNGO`.
 */
export function providerKey(text: string): string {
  return text.toUpperCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Assembles a catalog from providers and games: recomputes `totalGames` and `types`, orders the
 * games by provider and builds the indexes. Games naming a provider that is not listed are
 * an internal error (callers validate first), as is a duplicate game id.
 */
export function buildCatalog(seed: string, drafts: readonly ProviderDraft[], games: readonly CatalogGame[]): Catalog {
  const grouped = new Map<string, CatalogGame[]>(drafts.map((p) => [p.code, []]));
  for (const game of games) {
    const list = grouped.get(game.provider);
    if (!list) throw new Error(`game ${game.id} ("${game.name}") names provider ${game.provider}, which is not in the catalog`);
    list.push(game);
  }

  const providers = drafts.map((draft): CatalogProvider => {
    const list = grouped.get(draft.code) ?? [];
    return { ...draft, totalGames: list.length, types: typesByCount(list) };
  });
  const ordered = providers.flatMap((p) => grouped.get(p.code) ?? []);

  const gameById = new Map<string, CatalogGame>();
  for (const game of ordered) {
    const previous = gameById.get(game.id);
    if (previous)
      throw new Error(
        `game id ${game.id} is used twice: "${previous.name}" (${previous.provider}) and "${game.name}" (${game.provider})`,
      );
    gameById.set(game.id, game);
  }

  const providerByCode = new Map(providers.map((p) => [p.code, p]));
  const providerIndex = new Map<string, CatalogProvider>();
  for (const key of [(p: CatalogProvider) => providerKey(p.code), (p: CatalogProvider) => providerKey(p.name)]) {
    for (const p of providers) if (key(p) && !providerIndex.has(key(p))) providerIndex.set(key(p), p);
  }

  return { seed, providers, games: ordered, gameById, gamesByProvider: grouped, providerByCode, providerIndex };
}

/**
 * Finds a provider by code or display name, case-insensitively, ignoring spaces, underscores,
 * hyphens and other punctuation. An exact code wins over a name that normalises the same way.
 *
 * @example findProvider(catalog, ' Pragmatic Play ')?.code // 'PRAGMATICPLAY'
 */
export function findProvider(catalog: Catalog, query: string): CatalogProvider | undefined {
  const key = providerKey(query);
  return catalog.providerByCode.get(query.trim().toUpperCase()) ?? (key ? catalog.providerIndex.get(key) : undefined);
}

/** Finds a game by its id (trimmed; hex is compared lower-case). */
export function findGame(catalog: Catalog, id: string): CatalogGame | undefined {
  return catalog.gameById.get(id.trim().toLowerCase());
}

/** The absolute image URL of a game: a fixture's own URL, or aggmock's SVG under `baseUrl`. */
export function gameImageUrl(game: CatalogGame, baseUrl: string): string {
  return game.imgUrl ?? joinUrl(baseUrl, game.imgPath);
}

/** The absolute logo URL of a provider under `baseUrl`. */
export function providerLogoUrl(provider: CatalogProvider, baseUrl: string): string {
  return joinUrl(baseUrl, provider.logoPath);
}

function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

function typesByCount(games: readonly CatalogGame[]): GameType[] {
  const counts = new Map<GameType, number>();
  for (const game of games) counts.set(game.type, (counts.get(game.type) ?? 0) + 1);
  return GAME_TYPES.filter((t) => counts.has(t)).sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0));
}
