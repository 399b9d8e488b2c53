import type { IncomingMessage, ServerResponse } from 'node:http';
import { authCheck } from '../auth/index.ts';
import { type Catalog, findProvider } from '../catalog/index.ts';
import type { AggmockConfig } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';
import { EVERY_RESPONSE_HEADERS } from '../http/security-headers.ts';
import { type CachedListing, type ListingCache, listingCache, matchesEtag } from './listings.ts';

/** Answers a request itself and returns true, or leaves it untouched and returns false. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface ListingsFastPathDeps {
  config: AggmockConfig;
  catalog: Catalog;
  /** The base URL the listings' links use (configured, or where the server listens); undefined: let Hono decide. */
  baseUrl: () => string | undefined;
  now?: () => number;
}

/**
 * The listings are the hot path, and the bytes are cached anyway, so the Node listener answers
 * `GET /getallproviders` and `GET /getallgamesandprovider[?provider=…]` (at `/` and `/casino`)
 * from the cache before Hono's adapter builds a request, with the same status, headers and bytes
 * as the Hono routes (test/api/fast-path.test.ts compares them). Credentials are checked with
 * the same {@link authCheck} the routes use. Anything it is not sure about goes to Hono, which
 * then answers as always: another method (HEAD too), path or query shape, a request body, a host
 * header the adapter would refuse, missing or wrong credentials, an unknown provider. With a rate
 * limit configured there is no fast path at all, so the limit counts every request in one place.
 *
 * @example listen(app, { port, host, fastPath: listingsFastPath({ config, catalog, baseUrl: () => url }) })
 */
export function listingsFastPath(deps: ListingsFastPathDeps): FastPath | undefined {
  const { config, catalog } = deps;
  if (config.limits.rateLimit) return undefined;
  const listings = listingCache(catalog);
  const check = authCheck(config.auth, deps.now);

  const resolve = resolver(catalog, listings);
  let lastHost = '';

  return (req, res) => {
    if (req.method !== 'GET') return false;
    const target = req.url ?? '';
    const baseUrl = deps.baseUrl();
    if (baseUrl === undefined) return false;
    const listing = resolve(target, baseUrl);
    if (listing === undefined) return false;
    const host = req.headers.host;
    if (host === undefined) return false;
    // Clients keep sending the same Host, so the pattern runs once per new value, not per request.
    if (host !== lastHost) {
      if (!VALID_HOST.test(host)) return false;
      lastHost = host;
    }
    if (req.headers['transfer-encoding'] !== undefined) return false;
    const length = req.headers['content-length'];
    if (length !== undefined && length !== '0') return false;

    if (config.auth.mode !== 'none') {
      const read = (name: string) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      if (check('GET', `http://${host}${target}`, EMPTY, read) instanceof ApiError) return false;
    }

    const headers = responseHeaders(listing);
    if (matchesEtag(req.headers['if-none-match'], listing.etag)) {
      res.writeHead(304, headers.notModified);
      res.end();
    } else {
      res.writeHead(200, headers.ok);
      res.end(listing.bytes);
    }
    return true;
  };
}

/** Distinct request targets remembered per base URL; more (a client varying the query) starts over. */
const MAX_TARGETS = 256;

/**
 * The listing a request target asks for, or undefined when the fast path does not take it. The
 * answer depends only on the target and the base URL, so it is worked out once per target and
 * remembered: the regex, the query decoding and the provider lookup then cost one Map lookup.
 */
function resolver(catalog: Catalog, listings: ListingCache) {
  let memoBase: string | undefined;
  const memo = new Map<string, CachedListing>();
  return (target: string, baseUrl: string): CachedListing | undefined => {
    if (baseUrl !== memoBase) {
      memo.clear();
      memoBase = baseUrl;
    }
    let listing = memo.get(target);
    if (listing === undefined) {
      listing = findListing(catalog, listings, target, baseUrl);
      if (listing === undefined) return undefined;
      if (memo.size >= MAX_TARGETS) memo.clear();
      memo.set(target, listing);
    }
    return listing;
  };
}

function findListing(catalog: Catalog, listings: ListingCache, target: string, baseUrl: string): CachedListing | undefined {
  const match = TARGET.exec(target);
  if (!match) return undefined;
  if (match[1] === 'getallproviders') return listings.providers(baseUrl);
  const query = providerQuery(match[2]);
  if (query === false) return undefined;
  if (query === undefined || query.trim() === '') return listings.allGames(baseUrl);
  const provider = findProvider(catalog, query);
  return provider && listings.providerGames(provider, baseUrl);
}

const EMPTY = new Uint8Array();

/** The headers of a listing's 200 and 304, built once per cached listing (as the Hono route sends them). */
const headerCache = new WeakMap<CachedListing, { ok: string[]; notModified: string[] }>();
function responseHeaders(listing: CachedListing): { ok: string[]; notModified: string[] } {
  let headers = headerCache.get(listing);
  if (!headers) {
    const common = ['etag', listing.etag, 'cache-control', 'no-cache', ...EVERY_RESPONSE_HEADERS.flat()];
    headers = {
      ok: [...common, 'content-type', 'application/json; charset=UTF-8', 'content-length', String(listing.bytes.byteLength)],
      notModified: common,
    };
    headerCache.set(listing, headers);
  }
  return headers;
}

/**
 * The request targets the fast path takes: a listing path, at `/` or `/casino`, and a query of
 * plain URL characters (a subset of what the Node adapter passes through without re-encoding, so
 * the signed `path?query` is the same string Hono's routes verify).
 */
const TARGET = /^(?:\/casino)?\/(getallproviders|getallgamesandprovider)(?:\?([A-Za-z0-9._~%+=&-]*))?$/;

/** Host headers the Node adapter uses as they are (the same pattern as @hono/node-server's). */
const VALID_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * The `provider` of a games query: undefined for none, false when the query has any other shape
 * (several or other parameters, bad escapes), which Hono then validates and answers.
 */
function providerQuery(query: string | undefined): string | undefined | false {
  if (query === undefined || query === '') return undefined;
  if (!query.startsWith('provider=') || query.includes('&')) return false;
  const value = query.slice('provider='.length).replaceAll('+', ' ');
  try {
    return decodeURIComponent(value);
  } catch {
    return false;
  }
}
