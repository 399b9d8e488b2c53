import { type Catalog, type CatalogGame, gameImageUrl } from '../../catalog/index.ts';
import type { OperatorApi, OperatorRoute, ReplyNode, ReplySource } from '../../dialects/operator.ts';
import { cached, escapeHtml } from '../../shared/index.ts';
import { type CachedListing, cachedListing } from '../listings.ts';

/*
 * A vendor's reply rendered from aggmock's values: one template walk for every reply (game lists,
 * launches, refusals), and the game list rendered once per catalog, base URL and page, then served
 * from its bytes.
 */

/** What a reply can show: the values a template's `from` names, by source. */
export interface RenderValues {
  launch?: { url: string; path: string; sessionId: string; token?: string; currency: string; player: string };
  round?: { url: string; id?: string };
  /** A free-round award: its id (the vendor's, or one aggmock made), whom and what it is for, rounds left, status. */
  award?: {
    id: string;
    player?: string;
    gameId?: string;
    currency?: string;
    rounds?: number;
    left?: number;
    status?: 'active' | 'cancelled' | 'expired';
    removed?: readonly string[];
  };
  /** A free-round campaign (Caleta): what a create answers, or one item of a list. */
  campaign?: CampaignValues;
  /** The campaigns a `campaigns` node lists. */
  campaigns?: readonly CampaignValues[];
  error?: { message: string };
  paging?: { totalCount: number; pageCount: number; currentPage: number; perPage: number };
}

/** A campaign as a reply shows it (`campaign.*` sources). */
export interface CampaignValues {
  id: string;
  name: string;
  gameId: string;
  gameNumericId: number;
  currency?: string;
  rounds: number;
  /** The stake × 100000, an integer (Hub88's and Caleta's amounts). */
  betValue?: number;
  startTime?: string;
  endTime?: string;
}

interface RenderContext {
  values: RenderValues;
  catalog: Catalog;
  baseUrl: string;
  /** The games a `games` node lists (one page on a paged route). */
  games: readonly CatalogGame[];
  game?: CatalogGame;
}

/** The 1-based position of each game in the catalog: the numeric id of vendors whose ids are integers. */
const numericIds = new WeakMap<Catalog, Map<string, number>>();
export function numericIdOf(catalog: Catalog, game: CatalogGame): number {
  return cached(numericIds, catalog, (c) => new Map(c.games.map((g, i) => [g.id, i + 1]))).get(game.id) ?? 0;
}

function sourceValue(source: ReplySource, ctx: RenderContext): unknown {
  const [scope, name] = source.split('.') as [string, string];
  if (scope === 'game') {
    const game = ctx.game;
    if (!game) return undefined;
    switch (name) {
      case 'id':
        return game.id;
      case 'numericId':
        return numericIdOf(ctx.catalog, game);
      case 'providerName':
        return ctx.catalog.providerByCode.get(game.provider)?.name ?? game.provider;
      case 'thumbnailUrl':
        return gameImageUrl(game, ctx.baseUrl);
      case 'mobile':
        return game.platforms.includes('mobile');
      case 'type':
        return game.type;
      default:
        return (game as unknown as Record<string, unknown>)[name];
    }
  }
  const group = (ctx.values as Record<string, Record<string, unknown> | undefined>)[scope];
  return group?.[name];
}

function written(value: unknown, as: 'string' | 'number' | 'flag' | undefined): unknown {
  if (value === undefined || as === undefined) return value;
  if (as === 'string') return typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (as === 'flag') return value ? 1 : 0;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

function render(node: ReplyNode, ctx: RenderContext): unknown {
  if ('from' in node) {
    const value = sourceValue(node.from, ctx);
    const mapped = node.map && value !== undefined && Object.hasOwn(node.map, String(value)) ? node.map[String(value)] : value;
    return written(mapped, node.as);
  }
  if ('const' in node) return node.const;
  if ('template' in node)
    return node.template.replace(/\{([a-zA-Z]+\.[a-zA-Z]+)\}/g, (_, source: string) => {
      const value = sourceValue(source as ReplySource, ctx);
      return value === undefined ? '' : String(value);
    });
  if ('object' in node) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node.object)) {
      const value = render(child, ctx);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  if ('list' in node) return node.list.map((child) => render(child, ctx));
  if ('games' in node) return ctx.games.map((game) => render(node.games, { ...ctx, game }));
  if ('campaigns' in node)
    return (ctx.values.campaigns ?? []).map((campaign) =>
      render(node.campaigns, { ...ctx, values: { ...ctx.values, campaign } }),
    );
  const keyed: Record<string, unknown> = {};
  for (const game of ctx.games) {
    const gameCtx = { ...ctx, game };
    keyed[String(sourceValue(node.gamesKeyed.key, gameCtx))] = render(node.gamesKeyed.item, gameCtx);
  }
  return keyed;
}

/**
 * A reply body as JSON text (undefined when the template has no body).
 *
 * @example replyText({ object: { url: { from: 'launch.url' } } }, { launch }, catalog, baseUrl) // '{"url":"http://…/play/…"}'
 */
export function replyText(
  body: ReplyNode | undefined,
  values: RenderValues,
  catalog: Catalog,
  baseUrl: string,
  games: readonly CatalogGame[] = [],
  game?: CatalogGame,
): string | undefined {
  if (body === undefined) return undefined;
  return JSON.stringify(render(body, { values, catalog, baseUrl, games, ...(game ? { game } : {}) }));
}

/**
 * A text reply (Evolution's HTML round render): the template with each `{source}` replaced by its
 * value, HTML-escaped.
 *
 * @example replyTextBody('<a href="{round.url}">round</a>', { round: { url } }, catalog, baseUrl)
 */
export function replyTextBody(text: string, values: RenderValues, catalog: Catalog, baseUrl: string): string {
  const ctx: RenderContext = { values, catalog, baseUrl, games: [] };
  return text.replace(/\{([a-zA-Z]+\.[a-zA-Z]+)\}/g, (_, source: string) => {
    const value = sourceValue(source as ReplySource, ctx);
    return value === undefined ? '' : escapeHtml(String(value));
  });
}

/** Listings kept at most per surface (base URLs × routes × pages): a loop of odd page sizes cannot grow memory. */
const MAX_LISTINGS = 1024;

export type VendorListings = (
  route: OperatorRoute,
  routeKey: string,
  baseUrl: string,
  page?: { page: number; perPage: number },
) => CachedListing;

const surfaces = new WeakMap<OperatorApi, WeakMap<Catalog, VendorListings>>();

/**
 * The game lists of one vendor surface: each (route, base URL, page) rendered once from the catalog,
 * then served from the same bytes, by the Hono routes and the listing fast path alike (one cache per
 * operator API and catalog).
 */
export function listingCache(catalog: Catalog, api: OperatorApi): VendorListings {
  const byCatalog = cached(surfaces, api, () => new WeakMap());
  return cached(byCatalog, catalog, newListingCache);
}

function newListingCache(catalog: Catalog): VendorListings {
  const cache = new Map<string, CachedListing>();
  return (route, routeKey, baseUrl, page) => {
    const key = `${routeKey}\u0000${baseUrl}\u0000${page ? `${page.page}/${page.perPage}` : ''}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const total = catalog.games.length;
    let games: readonly CatalogGame[] = catalog.games;
    const values: RenderValues = {};
    if (page) {
      const pageCount = Math.max(1, Math.ceil(total / page.perPage));
      games = catalog.games.slice((page.page - 1) * page.perPage, page.page * page.perPage);
      values.paging = { totalCount: total, pageCount, currentPage: page.page, perPage: page.perPage };
    }
    const listing = cachedListing(replyText(route.reply.body, values, catalog, baseUrl, games) ?? '');
    if (cache.size >= MAX_LISTINGS) cache.delete(cache.keys().next().value as string);
    cache.set(key, listing);
    return listing;
  };
}
