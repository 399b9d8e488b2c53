import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Catalog, type CatalogGame, type CatalogProvider, gameImageUrl, providerLogoUrl } from '../catalog/index.ts';
import { EVERY_RESPONSE_HEADERS } from '../http/security-headers.ts';
import { toMajor } from '../money/index.ts';
import { cached } from '../shared/index.ts';

/** A listing body serialised once, with its validator. */
export interface CachedListing {
  /** The JSON body as UTF-8 bytes (only the bytes are kept: with 100,000 games the listings are ~60 MB). */
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** A listing's JSON text as its bytes and their ETag. */
export function cachedListing(json: string): CachedListing {
  // Buffer.from allocates an ArrayBuffer (never a SharedArrayBuffer), which Hono's body type asks for.
  const bytes = Buffer.from(json) as Uint8Array<ArrayBuffer>;
  return { bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
}

const caches = new WeakMap<Catalog, ListingCache>();

/** The one cache of a catalog, shared by both mounts of the API and the fast path. */
export function listingCache(catalog: Catalog): ListingCache {
  return cached(caches, catalog, (c) => new ListingCache(c));
}

/**
 * Listings are the hot path, so each is serialised once per catalog and base URL and then served
 * from memory. The base URL is part of the key because `img` must be absolute.
 */
export class ListingCache {
  private readonly cache = new Map<string, CachedListing>();

  constructor(private readonly catalog: Catalog) {}

  providers(baseUrl: string): CachedListing {
    return this.memo(`providers|${baseUrl}`, () => {
      const codes = this.catalog.providers.map((p) => p.code);
      return {
        success: true,
        message: `${codes.length} providers`,
        games: codes,
        providers: codes,
        data: this.catalog.providers.map((p) => providerJson(p, baseUrl)),
      };
    });
  }

  providerGames(provider: CatalogProvider, baseUrl: string): CachedListing {
    return this.memo(`provider|${provider.code}|${baseUrl}`, () => {
      const games = this.catalog.gamesByProvider.get(provider.code) ?? [];
      return { success: true, provider: provider.code, totalGames: games.length, games: games.map((g) => gameJson(g, baseUrl)) };
    });
  }

  allGames(baseUrl: string): CachedListing {
    return this.memo(`all|${baseUrl}`, () => ({
      success: true,
      totalGames: this.catalog.games.length,
      providers: this.catalog.providers.map((p) => {
        const games = this.catalog.gamesByProvider.get(p.code) ?? [];
        return { provider: p.code, totalGames: games.length, games: games.map((g) => gameJson(g, baseUrl)) };
      }),
    }));
  }

  private memo(key: string, build: () => unknown): CachedListing {
    let hit = this.cache.get(key);
    if (!hit) {
      hit = cachedListing(JSON.stringify(build()));
      // A handful of base URLs at most (configured URL or the Host a client used); cap it anyway.
      if (this.cache.size > 256) this.cache.clear();
      this.cache.set(key, hit);
    }
    return hit;
  }
}

export function providerJson(p: CatalogProvider, baseUrl: string) {
  return { code: p.code, name: p.name, status: p.status, totalGames: p.totalGames, logo: providerLogoUrl(p, baseUrl) };
}

export function gameJson(g: CatalogGame, baseUrl: string) {
  return {
    id: g.id,
    name: g.name,
    img: gameImageUrl(g, baseUrl),
    type: g.type,
    provider: g.provider,
    rtp: g.rtp,
    volatility: g.volatility,
    demo: g.demo,
    platforms: g.platforms,
    ...(g.lines !== undefined ? { lines: g.lines } : {}),
    minBet: toMajor(g.minBetMinor),
    maxBet: toMajor(g.maxBetMinor),
    releaseDate: g.releaseDate,
    currencies: g.currencies,
  };
}

/** Does an `If-None-Match` header name this ETag (or `*`)? */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** The headers of a listing's 200 and 304, built once per cached listing (as the Hono routes send them). */
const headerCache = new WeakMap<CachedListing, { ok: string[]; notModified: string[] }>();

/** Answers a listing from the Node listener (the fast paths): a 304 when the client has it, else `status` with its bytes. */
export function writeListing(req: IncomingMessage, res: ServerResponse, status: number, listing: CachedListing): void {
  const headers = cached(headerCache, listing, () => {
    const common = ['etag', listing.etag, 'cache-control', 'no-cache', ...EVERY_RESPONSE_HEADERS.flat()];
    const length = String(listing.bytes.byteLength);
    return { ok: [...common, 'content-type', 'application/json; charset=UTF-8', 'content-length', length], notModified: common };
  });
  if (matchesEtag(req.headers['if-none-match'], listing.etag)) {
    res.writeHead(304, headers.notModified);
    res.end();
  } else {
    res.writeHead(status, headers.ok);
    res.end(listing.bytes);
  }
}
