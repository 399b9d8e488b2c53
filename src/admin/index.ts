/**
 * The admin API (/admin/*): trigger and replay callbacks, run scenarios, list deliveries and their
 * attempts, read the shadow ledger and the schedule, reset. A surface: it may import the engines
 * (callbacks, ledger, scenarios, schedule, launch) and the foundation (config, http, money,
 * signing, shared); it must not import other surfaces (aggregator, ui, play, verify) or the CLI.
 *
 * One OpenAPIHono sub-app per capability, each route declared once with `createRoute` (the
 * declaration routes the request and is its OpenAPI entry): faults.ts (`/faults`,
 * `/callback-faults`), requests.ts, events.ts, scenarios.ts, deliveries.ts, ledger.ts
 * (`/discrepancies`, `/ledger`, `/schedule`) and reset.ts. This file guards them all.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono, type MiddlewareHandler } from 'hono';
import { CallbackRequestError } from '../callbacks/engine.ts';
import { readRawBody } from '../http/body.ts';
import { ApiError, errorResponse } from '../http/errors.ts';
import { credentialGuard, refuseAggmockCallbacks } from '../http/exposure.ts';
import { sameOriginGuard } from '../http/same-origin.ts';
import { FaultRuleError } from '../requests/index.ts';
import { ScenarioError } from '../scenarios/plan.ts';
import { DELIVERY_ROUTES, deliveryRoutes } from './deliveries.ts';
import type { AdminDeps } from './deps.ts';
import { EVENT_ROUTES, eventRoutes } from './events.ts';
import { CALLBACK_FAULT_ROUTES, callbackFaultRoutes, FAULT_ROUTES, faultRoutes } from './faults.ts';
import { type AdminRoute, registerAdminDocument } from './kit.ts';
import { LEDGER_ROUTES, ledgerRoutes } from './ledger.ts';
import { REQUEST_ROUTES, requestRoutes } from './requests.ts';
import { RESET_ROUTES, resetRoutes } from './reset.ts';
import { SCENARIO_ROUTES, scenarioRoutes } from './scenarios.ts';

export type { AdminDeps } from './deps.ts';
export { kindOf, toDelivery } from './money.ts';
export { DEFAULT_SCENARIO_AMOUNT, DEFAULT_SCENARIO_PLAYERS } from './scenarios.ts';
export * from './schemas.ts';

/** Every admin route as declared, in the order of the OpenAPI document. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...Object.values(EVENT_ROUTES),
  ...Object.values(SCENARIO_ROUTES),
  ...Object.values(DELIVERY_ROUTES),
  ...Object.values(LEDGER_ROUTES),
  ...Object.values(FAULT_ROUTES),
  ...Object.values(CALLBACK_FAULT_ROUTES),
  ...Object.values(REQUEST_ROUTES),
  ...Object.values(RESET_ROUTES),
];

/** The admin API in an OpenAPI document (`/openapi.json`), under `/__admin`, from the same declarations the routes serve. */
export function registerAdminPaths(registry: OpenAPIHono['openAPIRegistry']): void {
  registerAdminDocument(registry, ADMIN_ROUTES);
}

/**
 * The admin API (SPEC §6), JSON only, mounted by the app at `/__admin`: trigger events and
 * scenarios, inspect and replay deliveries, read the shadow ledger and its discrepancies, reset.
 * With `config.admin.token` set, every route wants `Authorization: Bearer <token>`. Mutating
 * routes take only `application/json` bodies and refuse cross-origin requests (Origin, Host).
 *
 * @example
 * app.route('/__admin', createAdminRoutes({ engine, ledger, scheduler, catalog, config }));
 * // POST /__admin/events {"type":"debit","playerId":"p1","amount":5}  → 202 {event}
 */
export function createAdminRoutes(deps: AdminDeps): Hono {
  const { config } = deps;
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof CallbackRequestError)
      return errorResponse(c, new ApiError(400, error.message, { errors: error.errors }));
    if (error instanceof ScenarioError) return errorResponse(c, new ApiError(400, error.message));
    if (error instanceof FaultRuleError)
      return errorResponse(c, new ApiError(error.issues.length > 0 ? 400 : 409, error.message, { errors: error.issues }));
    deps.onInternalError?.(error);
    return errorResponse(c, new ApiError(500, 'aggmock hit an internal error in the admin API; the details are in its log.'));
  });
  app.notFound((c) =>
    errorResponse(
      c,
      new ApiError(404, `No admin route ${c.req.method} ${new URL(c.req.url).pathname}. GET /__admin/scenarios lists scenarios.`),
    ),
  );

  // Any web page can POST to 127.0.0.1: only same-origin JSON changes anything here.
  app.use('*', sameOriginGuard({ bindHost: config.host, publicUrl: config.publicUrl }));
  // A launch's callback_url may name another local aggmock: its signed JSON callbacks are not admin requests.
  app.use('*', refuseAggmockCallbacks('The admin API'));
  // With a token, every route wants it; exposed (or reached through a proxy) without one, every route is refused.
  app.use(
    '*',
    credentialGuard({
      host: config.host,
      publicUrl: config.publicUrl,
      token: config.admin.token,
      require: 'always',
      what: 'The admin API',
    }),
  );

  // After the guards above: the one body reader every server uses, streamed, 413 past the limit.
  const rawBody = readRawBody(config.limits.bodyBytes) as MiddlewareHandler;
  for (const path of ['/events', '/scenarios/:name/run', '/faults', '/callback-faults', '/requests/count'])
    app.use(path, rawBody);

  app.route('/', callbackFaultRoutes(deps.engine));
  if (deps.rules) app.route('/', faultRoutes(deps.rules));
  if (deps.journal) app.route('/', requestRoutes(deps.journal));
  app.route('/', eventRoutes(deps));
  app.route('/', scenarioRoutes(deps));
  app.route('/', deliveryRoutes(deps));
  app.route('/', ledgerRoutes(deps));
  app.route('/', resetRoutes(deps));
  return app;
}
