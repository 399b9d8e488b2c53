import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthCheck, authCheck, rememberAuth } from '../auth/index.ts';
import { type Catalog, findProvider } from '../catalog/index.ts';
import { dialectOf } from '../config/dialect.ts';
import { parseJsonBytes, readRequestBody } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { exposureOf, isExposed } from '../http/exposure.ts';
import { EVERY_RESPONSE_HEADERS } from '../http/security-headers.ts';
import type { FastPath } from '../server.ts';
import { type LaunchDeps, launchGame } from './launch.ts';
import { type CachedListing, type ListingCache, listingCache, writeListing } from './listings.ts';
import { launchRequestSchema } from './schemas.ts';
import { vendorListingFastPath } from './vendor/fast-path.ts';
import { configuredOperatorApi, operatorCredentials } from './vendor/index.ts';

export type { FastPath };

export interface AggregatorFastPathDeps extends LaunchDeps {
  /** The base URL of the listings' and launch links (configured, or where the server listens); undefined: let Hono decide. */
  baseUrl: () => string | undefined;
  now?: () => number;
}

/**
 * The hot paths of the aggregator API, answered in the Node listener before Hono's adapter builds
 * a Request, with the same status, headers and bytes as the Hono routes (test/api/fast-path.test.ts
 * compares them): the listings (`GET /getallproviders` and `GET /getallgamesandprovider[?provider=…]`,
 * from the cached bytes) and a successful launch (`POST /getgameurl`), at `/` and at `/casino`.
 * Credentials are checked with the same {@link authCheck} the routes use, and a launch is judged by
 * the same schema and {@link launchGame}. Anything it is not sure about goes to Hono, which then
 * answers as always: another method (HEAD too), path or query shape, a host header the adapter
 * would refuse, missing or wrong credentials, an unknown provider; for a launch also a body without
 * a Content-Length, another content type, and every refusal (Hono answers the error, from the same
 * bytes). With a rate limit configured there is no fast path at all, so the limit counts every
 * request in one place.
 *
 * @example listen(app, { port, host, fastPath: aggregatorFastPath({ config, catalog, sessions, callbackUrls, baseUrl: () => url }) })
 */
export function aggregatorFastPath(deps: AggregatorFastPathDeps): FastPath | undefined {
  if (deps.config.limits.rateLimit) return undefined;
  const check = authCheck(deps.config.auth, deps.now, exposureOf(deps.config));
  const listings = listingsPath(deps, check);
  // Exposed, every launch goes through Hono, where the per-address launch limit counts it.
  const launch = isExposed(deps.config) ? undefined : launchPath(deps, check);
  // The vendor's game list (a dialect with an operator API), from its cached bytes the same way.
  const vendor = vendorFastPath(deps);
  return (req, res, handOff) => {
    if (req.method === 'GET' && listings(req, res)) return true;
    if (req.method === 'POST' && launch?.(req, res, handOff)) return true;
    return vendor ? vendor(req, res, handOff) : false;
  };
}

function vendorFastPath(deps: AggregatorFastPathDeps): FastPath | undefined {
  const api = configuredOperatorApi(deps.config);
  if (!api) return undefined;
  const credentials = operatorCredentials(api, deps.config.operator.credentials, dialectOf(deps.config.callbacks).name);
  return vendorListingFastPath({ ...deps, api, credentials, validHost: hostChecker() });
}

function listingsPath(deps: AggregatorFastPathDeps, check: AuthCheck): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { config, catalog } = deps;
  const listings = listingCache(catalog);
  const resolve = resolver(catalog, listings);
  const validHost = hostChecker();

  return (req, res) => {
    const target = req.url ?? '';
    const baseUrl = deps.baseUrl();
    if (baseUrl === undefined) return false;
    const listing = resolve(target, baseUrl);
    if (listing === undefined) return false;
    const host = req.headers.host;
    if (!validHost(host)) return false;
    if (req.headers['transfer-encoding'] !== undefined) return false;
    const length = req.headers['content-length'];
    if (length !== undefined && length !== '0') return false;

    if (config.auth.mode !== 'none') {
      const auth = check('GET', `http://${host}${target}`, EMPTY, headerReader(req));
      if (auth instanceof ApiError) return false;
      rememberAuth(req, auth);
    }

    writeListing(req, res, 200, listing);
    return true;
  };
}

/** The launch targets the fast path takes: exactly the route, at `/` or `/casino` (a query goes to Hono). */
const LAUNCH_TARGETS = new Set(['/getgameurl', '/casino/getgameurl']);

/**
 * The content types the launch fast path takes: plain JSON, which the route's own checks (its
 * 415 gate and its JSON validator) accept too. Any other spelling goes to Hono to judge.
 */
const LAUNCH_CONTENT_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

function launchPath(deps: AggregatorFastPathDeps, check: AuthCheck): FastPath {
  const { config } = deps;
  const maxBytes = config.limits.bodyBytes;
  const validHost = hostChecker();

  /**
   * The reply to send, or undefined when Hono must answer: every refusal (credentials, JSON, schema,
   * launchGame's ApiErrors) is thrown before a session is created, and Hono answers it from the same bytes.
   */
  const judge = (req: IncomingMessage, host: string, target: string, body: Buffer, baseUrl: string) => {
    if (config.auth.mode !== 'none') {
      const auth = check('POST', `http://${host}${target}`, body, headerReader(req));
      if (auth instanceof ApiError) return undefined;
      rememberAuth(req, auth);
    }
    const request = launchRequestSchema.safeParse(parseJsonBytes(body));
    // The port the request came in on, as the route passes it: the same launchGame decides both.
    return request.success ? launchGame(deps, request.data, baseUrl, req.socket.localPort) : undefined;
  };

  return (req, res, handOff) => {
    const target = req.url ?? '';
    if (!LAUNCH_TARGETS.has(target)) return false;
    const baseUrl = deps.baseUrl();
    if (baseUrl === undefined) return false;
    const host = req.headers.host;
    if (!validHost(host)) return false;
    if (req.headers['transfer-encoding'] !== undefined) return false;
    // Node's parser holds the body to exactly this many bytes; without it (or past the limit) Hono reads and refuses.
    const declared = Number(req.headers['content-length']);
    if (!(declared > 0 && declared <= maxBytes)) return false;
    const type = req.headers['content-type'];
    if (type === undefined || !LAUNCH_CONTENT_TYPES.has(type.toLowerCase())) return false;

    readRequestBody(req, (body) => {
      if (body === undefined) {
        // The client went away mid-body: nothing was created, nobody is left to answer.
        res.destroy();
        return;
      }
      let reply: ReturnType<typeof judge>;
      try {
        reply = judge(req, host, target, body, baseUrl);
      } catch {
        // A refusal thrown as an ApiError, or a bug: the route meets it again and answers it (a bug as a logged 500).
        reply = undefined;
      }
      if (reply === undefined) {
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        handOff();
        return;
      }
      const bytes = Buffer.from(JSON.stringify(reply));
      res.writeHead(200, [...JSON_HEADERS, 'content-length', String(bytes.byteLength)]);
      res.end(bytes);
    });
    return true;
  };
}

/** A launch's reply headers, as the Hono route sends them (the length is added per reply). */
const JSON_HEADERS: readonly string[] = [...EVERY_RESPONSE_HEADERS.flat(), 'content-type', 'application/json'];

/** Reads one request header as the routes see it (repeated headers joined). */
function headerReader(req: IncomingMessage): (name: string) => string | undefined {
  return (name) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/**
 * Whether a Host header is one the Node adapter uses as it is. Clients keep sending the same Host,
 * so the pattern runs once per new value, not per request.
 */
function hostChecker(): (host: string | undefined) => host is string {
  let lastHost = '';
  return (host): host is string => {
    if (host === undefined) return false;
    if (host !== lastHost) {
      if (!VALID_HOST.test(host)) return false;
      lastHost = host;
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
