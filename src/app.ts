import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { aggregatorRoutes } from './aggregator/routes.ts';
import { configuredOperatorApi, OPERATOR_OPENAPI_PATH, vendorSurface } from './aggregator/vendor/index.ts';
import type { CallbackEngine, Random } from './callbacks/index.ts';
import { type Catalog, renderGameImage, renderProviderLogo } from './catalog/index.ts';
import { dialectOf } from './config/dialect.ts';
import { type AggmockConfig, API_ROUTES, routePath } from './config/index.ts';
import { headerSchemeOf } from './dialects/capabilities.ts';
import { browserScriptRoutes } from './http/browser-scripts.ts';
import { ApiError, errorResponse } from './http/errors.ts';
import { isExposed } from './http/exposure.ts';
import { securityHeaders } from './http/security-headers.ts';
import { type CallbackUrlPolicy, callbackUrlPolicy } from './launch/callback-url.ts';
import { type LaunchSession, LaunchSessions } from './launch/sessions.ts';
import { dialectOpenApi, dialectWebhooks, WALLET_OPENAPI_PATH } from './openapi/dialect.ts';
import { docsRoutes } from './openapi/docs.ts';
import { playRoutes } from './play/routes.ts';
import { schemeHeaders } from './signing/index.ts';
import { uiRoutes } from './ui/index.ts';
import { VERSION } from './version.ts';

export interface AppDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions?: LaunchSessions;
  now?: () => number;
  /** The base URL the server listens on, once known; `config.publicUrl` wins over it. */
  listenUrl?: () => string | undefined;
  onLaunch?: (session: LaunchSession) => void;
  /** The launch `callback_url` policy; default {@link launchCallbackUrls}. Pass one to share it with the fast path. */
  callbackUrls?: CallbackUrlPolicy;
  /**
   * Extra sub-apps mounted by the caller, path → app: the admin API at `/__admin`. An OpenAPIHono
   * (the admin API is one) brings its routes into `/openapi.json`, under its path.
   */
  mounts?: Record<string, Hono>;
  /** Sends the play page's spins; without it the page shows but cannot spin. */
  engine?: Pick<CallbackEngine, 'enqueue' | 'nextTransactionId'>;
  /** Draws spin outcomes. */
  random?: Random;
  /** Called for errors that are aggmock's own fault (answered as a JSON 500). */
  onInternalError?: (error: unknown, c: Context) => void;
}

export const OPENAPI_INFO = {
  title: 'aggmock — game aggregator API',
  version: VERSION,
  description:
    'A local, offline game-aggregator mock. Every route is served at the root and under /casino. ' +
    'Authenticate with an API key (x-betnex-key) or an HMAC-SHA256 signature; callbacks to your wallet are in `webhooks`.',
};

/**
 * Builds the aggmock HTTP app: the aggregator API (at `/` and `/casino`), the play pages behind
 * launch links, generated images, health, the OpenAPI document and Swagger UI. `server.ts` only listens,
 * so tests call `app.request()` without a port.
 */
export function createApp(deps: AppDeps): OpenAPIHono {
  const { config, catalog } = deps;
  const sessions = deps.sessions ?? new LaunchSessions(deps.now);
  const baseUrl = (c: Context) => publicBaseUrl(config, deps.listenUrl?.()) ?? new URL(c.req.url).origin;
  const app = new OpenAPIHono();

  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException) {
      const status = error.status as ContentfulStatusCode;
      return errorResponse(c, new ApiError(status, error.message || 'Request refused.'));
    }
    deps.onInternalError?.(error, c);
    return errorResponse(c, new ApiError(500, 'aggmock hit an internal error; the details are in its log.'));
  });
  app.notFound((c) => {
    const pathname = new URL(c.req.url).pathname;
    // An API route asked with another method: 405 with the method it takes, not "no route".
    const route = API_ROUTES.find((r) => r.path === routePath(pathname));
    if (route && route.method !== c.req.method && !(route.method === 'GET' && c.req.method === 'HEAD')) {
      return errorResponse(
        c,
        new ApiError(405, `${c.req.method} is not allowed on ${pathname}: it takes ${route.method}. GET /docs lists the API.`, {
          headers: { Allow: route.method },
        }),
      );
    }
    return errorResponse(c, new ApiError(404, `No route ${c.req.method} ${pathname}. GET /docs lists the API.`));
  });

  // Before every route: pages, errors and the admin API mounted below all get the headers.
  app.use('*', securityHeaders({ extraSources: { '/docs': 'https://cdn.jsdelivr.net' } }));

  // The dialect and its operator API: what a client (`aggmock mcp --url`) needs to talk to this instance.
  const operatorApi = configuredOperatorApi(config);
  const health = {
    status: 'ok',
    version: VERSION,
    dialect: dialectOf(config.callbacks).name,
    ...(operatorApi ? { operatorApi: { basePath: operatorApi.basePath, openapi: OPERATOR_OPENAPI_PATH } } : {}),
  };
  app.get('/health', (c) => c.json({ ...health, catalog: { providers: catalog.providers.length, games: catalog.games.length } }));

  app.get('/assets/games/:file', (c) => {
    const id = c.req.param('file').replace(/\.svg$/, '');
    const game = catalog.gameById.get(id);
    const provider = game && catalog.providerByCode.get(game.provider);
    if (!game || !provider) throw new ApiError(404, `No image for game ${JSON.stringify(id)}.`);
    return svg(c, renderGameImage(game, provider));
  });
  app.get('/assets/providers/:file', (c) => {
    const code = c.req.param('file').replace(/\.svg$/, '');
    const provider = catalog.providerByCode.get(code);
    if (!provider) throw new ApiError(404, `No logo for provider ${JSON.stringify(code)}.`);
    return svg(c, renderProviderLogo(provider));
  });

  const callbackUrls = deps.callbackUrls ?? launchCallbackUrls(config, deps.listenUrl);
  const api = () =>
    aggregatorRoutes({ config, catalog, sessions, baseUrl, callbackUrls, now: deps.now, onLaunch: deps.onLaunch });
  app.route('/', api());
  app.route('/casino', api());
  // The vendor's own operator API (Hub88's /operator/generic/v2/…), when the dialect describes one.
  const vendor = vendorSurface({ config, catalog, sessions, baseUrl, now: deps.now, onLaunch: deps.onLaunch });
  if (vendor) app.route('/', vendor);
  // The pages' scripts (browser/*.js), for the play page and the UI alike.
  app.route('/', browserScriptRoutes());
  app.route('/', playRoutes({ config, catalog, sessions, engine: deps.engine, random: deps.random, callbackUrls }));
  // The web UI; its launch form calls POST /getgameurl through this same app.
  app.route('/', uiRoutes({ config, catalog, baseUrl, now: deps.now, api: (request, env) => app.fetch(request, env) }));
  for (const [path, sub] of Object.entries(deps.mounts ?? {})) app.route(path, sub);

  // The wallet API the dialect describes (what the integrator implements) is a document of its own.
  app.get(WALLET_OPENAPI_PATH, (c) => c.json(dialectOpenApi(dialectOf(config.callbacks))));
  app.get('/openapi.json', (c) => c.json(openApiDocument(app, config)));
  app.route('/', docsRoutes('/openapi.json', 'aggmock API'));
  return app;
}

/** Which `callback_url`s a launch may name: config `callbacks.allowedUrls`, never aggmock's own port. */
export function launchCallbackUrls(config: AggmockConfig, listenUrl?: () => string | undefined): CallbackUrlPolicy {
  const ownPort = () => {
    const listening = listenUrl?.();
    return listening ? Number(new URL(listening).port) : config.port || undefined;
  };
  return callbackUrlPolicy({ callbacks: config.callbacks, ownPort, exposed: isExposed(config) });
}

/** The base URL of absolute links: `config.publicUrl`, else where the server listens, else undefined (the request's origin). */
export function publicBaseUrl(config: AggmockConfig, listenUrl: string | undefined): string | undefined {
  return config.publicUrl?.replace(/\/+$/, '') ?? listenUrl;
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with, and the
 * calls aggmock sends the wallet as `webhooks`, written from the configured dialect by the one
 * OpenAPI writer of dialects (src/openapi/dialect.ts).
 */
export function openApiDocument(app: OpenAPIHono, config: AggmockConfig): ReturnType<OpenAPIHono['getOpenAPI31Document']> {
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: OPENAPI_INFO });
  const dialect = dialectOf(config.callbacks);
  const signed = schemeHeaders(headerSchemeOf(dialect, config.callbacks.signing.scheme), config.callbacks.signing.headers);
  return { ...doc, webhooks: dialectWebhooks(dialect, signed) } as typeof doc;
}

function svg(c: Context, body: string): Response {
  c.header('Content-Type', 'image/svg+xml; charset=utf-8');
  c.header('Cache-Control', 'public, max-age=86400');
  return c.body(body);
}
