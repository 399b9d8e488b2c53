import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuthVariables } from '../auth/index.ts';
import { inboundAuth } from '../auth/index.ts';
import { findProvider } from '../catalog/index.ts';
import { parseJsonBody, readRawBody } from '../http/body.ts';
import { apiErrorSchema } from '../http/error-schema.ts';
import { ApiError, describeFieldErrors, fieldErrors } from '../http/errors.ts';
import { exposureOf, isExposed } from '../http/exposure.ts';
import { localPortOf } from '../http/loopback.ts';
import { clientAddress, rateLimit } from '../http/rate-limit.ts';
import { type LaunchDeps, launchGame } from './launch.ts';
import { type CachedListing, listingCache, matchesEtag } from './listings.ts';
import {
  allGamesResponseSchema,
  gamesQuerySchema,
  launchRequestSchema,
  launchResponseSchema,
  providerGamesResponseSchema,
  providersResponseSchema,
} from './schemas.ts';

export interface AggregatorDeps extends LaunchDeps {
  /** The public base URL for absolute links (configured, or the origin the client used). */
  baseUrl: (c: Context) => string;
  now?: () => number;
}

type Env = { Variables: AuthVariables };

const errorResponses = {
  401: { description: 'Missing or invalid API key or signature', content: { 'application/json': { schema: apiErrorSchema } } },
  429: { description: 'Rate limit hit (config limits.rateLimit)', content: { 'application/json': { schema: apiErrorSchema } } },
} as const;

const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { hmac: [] }];

const providersRoute = createRoute({
  method: 'get',
  path: '/getallproviders',
  summary: 'List all aggregated providers',
  security,
  responses: {
    200: { description: 'Providers', content: { 'application/json': { schema: providersResponseSchema } } },
    304: { description: 'Not modified (If-None-Match matched the ETag)' },
    ...errorResponses,
  },
});

const gamesRoute = createRoute({
  method: 'get',
  path: '/getallgamesandprovider',
  summary: 'List games, for one provider or grouped by provider',
  security,
  request: { query: gamesQuerySchema },
  responses: {
    200: {
      description: 'With `provider`: that provider’s games. Without: all games grouped by provider.',
      content: { 'application/json': { schema: providerGamesResponseSchema.or(allGamesResponseSchema) } },
    },
    304: { description: 'Not modified (If-None-Match matched the ETag)' },
    404: { description: 'Unknown provider', content: { 'application/json': { schema: apiErrorSchema } } },
    ...errorResponses,
  },
});

const launchRoute = createRoute({
  method: 'post',
  path: '/getgameurl',
  summary: 'Request a playable game URL (launch)',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: launchRequestSchema } } } },
  responses: {
    200: { description: 'Launch URL', content: { 'application/json': { schema: launchResponseSchema } } },
    400: { description: 'Bad input; `errors` names each field', content: { 'application/json': { schema: apiErrorSchema } } },
    404: { description: 'Unknown game', content: { 'application/json': { schema: apiErrorSchema } } },
    413: { description: 'Body too large (config limits.bodyBytes)', content: { 'application/json': { schema: apiErrorSchema } } },
    415: { description: 'Not application/json', content: { 'application/json': { schema: apiErrorSchema } } },
    ...errorResponses,
  },
});

/** Launches per address an exposed instance takes a minute (whatever limits.rateLimit says). */
export const EXPOSED_LAUNCH_LIMIT = { requests: 60, windowMs: 60_000 } as const;

/**
 * The aggregator REST API of SPEC §2, as a sub-app the caller mounts at `/` and at `/casino`.
 *
 * @example app.route('/', aggregatorRoutes(deps)); app.route('/casino', aggregatorRoutes(deps));
 */
export function aggregatorRoutes(deps: AggregatorDeps): OpenAPIHono<Env> {
  const { config, catalog } = deps;
  const listings = listingCache(catalog);
  const app = new OpenAPIHono<Env>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const errors = fieldErrors(result.error.issues, result.target === 'json' ? c.get('jsonBody') : c.req.query());
      throw new ApiError(400, `Invalid request: ${describeFieldErrors(errors)}.`, { errors });
    },
  });

  // Only the API's own paths: this sub-app is mounted at `/`, where `*` would cover every route.
  const apiPaths = ['/getallproviders', '/getallgamesandprovider', '/getgameurl'];
  // The limit counts per authenticated client, after auth: counted before it, a junk API key next
  // to a valid signature would open a fresh window per request.
  const guards = [
    readRawBody(config.limits.bodyBytes),
    inboundAuth(config.auth, deps.now, exposureOf(config)),
    ...(config.limits.rateLimit
      ? [
          rateLimit({
            requests: config.limits.rateLimit.requests,
            windowMs: config.limits.rateLimit.window,
            now: deps.now,
            clientKey: (c) => authenticatedClient(c as Context<Env>),
          }),
        ]
      : []),
  ];
  // Exposed, launches are limited per address whatever the config says: a loop of launches
  // cannot fill the session cap (the fast path is off when exposed, so every launch counts here).
  if (isExposed(config))
    app.use(
      '/getgameurl',
      rateLimit({ ...EXPOSED_LAUNCH_LIMIT, now: deps.now, clientKey: (c) => clientAddress(c as Context<Env>) }),
    );
  for (const path of apiPaths) app.use(path, ...(guards as [MiddlewareHandler<Env>]));
  const jsonBody = parseJsonBody();
  app.use('/getgameurl', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    await jsonBody(c as never, async () => {});
    // The stream is spent (readRawBody kept its bytes for the signature): give the route's zod
    // validator a request over the same bytes, through Hono's public `raw`, not its private cache.
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: c.get('rawBody') as Uint8Array<ArrayBuffer>,
    });
    return next();
  });

  app.openapi(providersRoute, (c) => sendListing(c, listings.providers(deps.baseUrl(c))) as never);

  app.openapi(gamesRoute, (c) => {
    const { provider: query } = c.req.valid('query');
    if (query === undefined || query.trim() === '') return sendListing(c, listings.allGames(deps.baseUrl(c))) as never;
    const provider = findProvider(catalog, query);
    if (!provider) {
      const message = `Unknown provider ${JSON.stringify(query.trim())}. GET /getallproviders lists the provider codes.`;
      throw new ApiError(404, message, {
        errors: [{ field: 'provider', message: 'expected a provider code from /getallproviders', received: query }],
      });
    }
    return sendListing(c, listings.providerGames(provider, deps.baseUrl(c))) as never;
  });

  app.openapi(launchRoute, (c) => c.json(launchGame(deps, c.req.valid('json'), deps.baseUrl(c), localPortOf(c.env)), 200));

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: config.auth.apiKeyHeaders[0] ?? 'x-betnex-key',
    description: `Also accepted: ${config.auth.apiKeyHeaders.slice(1).join(', ')}. Default key: aggmock-dev-key.`,
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'hmac', {
    type: 'apiKey',
    in: 'header',
    name: config.auth.signing.headers.signature,
    description:
      'HMAC-SHA256: X-Signature: t=<unix s>,v1=<hex of HMAC("<t>.<METHOD>.<path?query>.<raw body>")>. Default secret: aggmock-dev-secret.',
  });
  return app;
}

function sendListing(c: Context, listing: CachedListing): Response {
  c.header('ETag', listing.etag);
  c.header('Cache-Control', 'no-cache');
  if (matchesEtag(c.req.header('if-none-match'), listing.etag)) return c.body(null, 304);
  c.header('Content-Type', 'application/json; charset=UTF-8');
  return c.body(listing.bytes, 200);
}

/** The API key that authenticated the request, else the peer address (HMAC and auth "none"). */
function authenticatedClient(c: Context<Env>): string {
  // A launch from the UI form: signed with the server's own key, counted against the visitor.
  const uiClient = (c.env as { uiClient?: unknown } | undefined)?.uiClient;
  if (typeof uiClient === 'string') return `ui:${uiClient}`;
  const auth = c.get('auth');
  const key = auth?.method === 'api-key' ? c.req.header(auth.header) : undefined;
  return key ? `key:${key}` : `addr:${clientAddress(c)}`;
}
