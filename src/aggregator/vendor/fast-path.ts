import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Catalog } from '../../catalog/index.ts';
import type { AggmockConfig } from '../../config/index.ts';
import type { OperatorApi } from '../../dialects/operator.ts';
import { readRequestBody } from '../../http/body.ts';
import { exposureOf } from '../../http/exposure.ts';
import type { AuthVerdict } from '../../requests/index.ts';
import type { FastPath } from '../../server.ts';
import { type CachedListing, writeListing } from '../listings.ts';
import { type Decision, decide, headersRead, listingPage, type RouteGroup, routeGroups } from './decide.ts';
import { listingCache } from './render.ts';

/*
 * A vendor's game list answered in the Node listener, before Hono's adapter builds a Request, as
 * the seed's listings are (src/aggregator/fast-path.ts): the same decision as the Hono route
 * (decide.ts: the route, the operator's signature, the required fields, the operator id), the same
 * cached bytes (render.ts) and ETag, the same headers. A request that repeats the one accepted
 * before it (the same target, body and the headers the check reads) reuses that decision instead of
 * checking the RSA signature again: the check is a pure function of those bytes and the
 * credentials. Anything else — a refusal, a launch, a body without a length, another host shape —
 * goes to Hono, which answers it as always.
 */

export interface VendorFastPathDeps {
  config: AggmockConfig;
  catalog: Catalog;
  api: OperatorApi;
  credentials: Readonly<Record<string, string>>;
  /** The base URL of the listing's links; undefined: let Hono decide. */
  baseUrl: () => string | undefined;
  validHost: (host: string | undefined) => host is string;
  now?: () => number;
}

interface ListingTarget {
  group: RouteGroup;
  pattern: RegExp;
  /** The headers the operator check reads, lower case. */
  read: string[];
  /** A recipe with a timestamp is checked every time (its verdict moves with the clock). */
  memo: boolean;
  last?: { target: string; body: Buffer; headers: string; decision: Decision; verdict: AuthVerdict };
}

/**
 * The vendor listing fast path, or undefined when the API lists no games.
 *
 * @example const vendor = vendorListingFastPath({ config, catalog, api, credentials, baseUrl, validHost });
 */
export function vendorListingFastPath(deps: VendorFastPathDeps): FastPath | undefined {
  const { api, config } = deps;
  const now = deps.now ?? Date.now;
  const listings = listingCache(deps.catalog, api);
  const exposure = exposureOf(config);
  const maxBytes = config.limits.bodyBytes;
  const targets: ListingTarget[] = [];
  for (const group of routeGroups(api).values()) {
    if (!group.routes.some(([route]) => route.does === 'list-games')) continue;
    const recipes = group.routes.map(([route]) => route.auth ?? api.auth);
    targets.push({
      group,
      pattern: pathPattern(group.path),
      read: [...new Set(recipes.flatMap((recipe) => headersRead(api, recipe)))],
      memo: recipes.every((recipe) => recipe.kind !== 'sorted-params' || recipe.timestamp === undefined),
    });
  }
  if (targets.length === 0) return undefined;

  const answer = (req: IncomingMessage, res: ServerResponse, at: ListingTarget, path: RegExpExecArray, body: Buffer) => {
    const baseUrl = deps.baseUrl();
    if (baseUrl === undefined) return false;
    const target = req.url as string;
    const headers = req.headers as Record<string, string | undefined>;
    const readHeaders = at.read.map((name) => headers[name] ?? '').join('\n');
    let decision: Decision;
    let verdict: AuthVerdict | undefined;
    const last = at.last;
    if (last && at.memo && last.target === target && last.headers === readHeaders && last.body.equals(body)) {
      decision = last.decision;
      verdict = last.verdict;
    } else {
      try {
        const q = target.indexOf('?');
        decision = decide(
          api,
          at.group.routes,
          {
            rawBody: body,
            headers,
            query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)),
            pathParams: pathParams(path),
          },
          deps.credentials,
          now(),
          (v) => {
            verdict = v;
          },
          exposure,
        );
      } catch {
        // A refusal (or a body the route cannot read): Hono judges it again and answers the vendor's way.
        return false;
      }
      if (decision.route.does !== 'list-games' || verdict === undefined) return false;
      at.last = { target, body, headers: readHeaders, decision, verdict };
    }
    let listing: CachedListing;
    try {
      listing = listings(decision.route, decision.routeKey, baseUrl, listingPage(decision.route, decision.values));
    } catch {
      return false;
    }
    // The operator's verdict, for the request journal (the response the API's server created watches for it).
    const outgoing = res as ServerResponse & { operatorAuth?: AuthVerdict };
    if ('operatorAuth' in outgoing) outgoing.operatorAuth = verdict;
    writeListing(req, res, decision.route.reply.status, listing);
    return true;
  };

  return (req, res, handOff) => {
    const target = req.url ?? '';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    let at: ListingTarget | undefined;
    let path: RegExpExecArray | null = null;
    for (const candidate of targets) {
      if (candidate.group.method !== req.method) continue;
      path = candidate.pattern.exec(pathname);
      if (path) {
        at = candidate;
        break;
      }
    }
    if (!at || !path) return false;
    if (!deps.validHost(req.headers.host)) return false;
    if (req.headers['transfer-encoding'] !== undefined) return false;
    const length = req.headers['content-length'];
    const read = (req as IncomingMessage & { rawBody?: unknown }).rawBody;
    if (read instanceof Buffer) return answer(req, res, at, path, read);
    if (length === undefined || length === '0') return answer(req, res, at, path, EMPTY);
    const declared = Number(length);
    if (!(declared > 0 && declared <= maxBytes)) return false;
    const matched = at;
    const params = path;
    readRequestBody(req, (body) => {
      if (body === undefined) {
        res.destroy();
        return;
      }
      (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
      if (!answer(req, res, matched, params, body)) handOff();
    });
    return true;
  };
}

const EMPTY = Buffer.alloc(0);

/**
 * A route path as a pattern: `:name` segments captured by name (Evolution's /api/lobby/v1/:casinoKey/state),
 * or only matched with `capture: false`; with `trailingSlash` a `/` after it is taken too.
 */
export function pathPattern(path: string, { capture = true, trailingSlash = false } = {}): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return capture ? `(?<${segment.slice(1)}>[^/]+)` : '[^/]+';
    })
    .join('/');
  return new RegExp(`^${source}${trailingSlash ? '/?' : ''}$`);
}

/** Path parameters decoded as Hono decodes them; a bad escape is kept as it is. */
function pathParams(match: RegExpExecArray): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(match.groups ?? {})) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}
