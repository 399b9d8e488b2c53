/**
 * The admin API (/admin/*): trigger and replay callbacks, run scenarios, list deliveries and their
 * attempts, read the shadow ledger and the schedule, reset. A surface: it may import the engines
 * (callbacks, ledger, scenarios, schedule, launch) and the foundation (config, http, money,
 * signing, shared); it must not import other surfaces (aggregator, ui, play, verify) or the CLI.
 *
 * One OpenAPIHono sub-app per capability, each route declared once with `createRoute` and served
 * with `.openapi` (the declaration routes the request, judges its input and is its OpenAPI entry
 * once this app is mounted): faults.ts (`/faults`, `/callback-faults`), requests.ts, events.ts,
 * scenarios.ts, deliveries.ts, ledger.ts (`/discrepancies`, `/ledger`, `/schedule`) and reset.ts.
 * This file guards them all.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { BlankEnv } from 'hono/types';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CallbackRequestError } from '../callbacks/engine.ts';
import { readRawBody } from '../http/body.ts';
import { ApiError, errorResponse } from '../http/errors.ts';
import { credentialGuard, refuseAggmockCallbacks } from '../http/exposure.ts';
import { sameOriginGuard } from '../http/same-origin.ts';
import { FaultRuleError } from '../requests/index.ts';
import { ScenarioError } from '../scenarios/plan.ts';
import { deliveryRoutes } from './deliveries.ts';
import type { AdminDeps } from './deps.ts';
import { eventRoutes } from './events.ts';
import { CALLBACK_FAULT_ROUTES, FAULT_ROUTES, ruleBookRoutes } from './faults.ts';
import { registerAdminBearer } from './kit.ts';
import { ledgerRoutes } from './ledger.ts';
import { requestRoutes } from './requests.ts';
import { resetRoutes } from './reset.ts';
import { scenarioRoutes } from './scenarios.ts';

export type { AdminDeps } from './deps.ts';
export { kindOf, toDelivery } from './money.ts';
export { DEFAULT_SCENARIO_AMOUNT, DEFAULT_SCENARIO_PLAYERS } from './scenarios.ts';
export * from './schemas.ts';

/**
 * The admin API (SPEC §6), JSON only, mounted by the app at `/__admin`: trigger events and
 * scenarios, inspect and replay deliveries, read the shadow ledger and its discrepancies, reset.
 * With `config.admin.token` set, every route wants `Authorization: Bearer <token>`. Mutating
 * routes take only `application/json` bodies and refuse cross-origin requests (Origin, Host).
 * An OpenAPIHono: mounted with `app.route` in an OpenAPIHono app, every route it serves is in
 * that app's document, under the mount's path.
 *
 * @example
 * app.route('/__admin', createAdminRoutes({ engine, ledger, scheduler, catalog, config }));
 * // POST /__admin/events {"type":"debit","playerId":"p1","amount":5}  → 202 {event}
 */
export function createAdminRoutes(deps: AdminDeps): OpenAPIHono<BlankEnv> {
  const { config } = deps;
  const app = new OpenAPIHono<BlankEnv>();

  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException)
      return errorResponse(c, new ApiError(error.status as ContentfulStatusCode, error.message || 'Request refused.'));
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

  // After the guards above: the one body reader every server uses, streamed, 413 past the limit
  // (GET and HEAD carry none); a route that takes JSON parses these bytes (kit.ts `adminRoute`).
  app.use('*', readRawBody(config.limits.bodyBytes) as MiddlewareHandler);

  // In the order of the OpenAPI document; without a rule book or a journal, their routes answer 404.
  registerAdminBearer(app);
  app.route('/', eventRoutes(deps));
  app.route('/', scenarioRoutes(deps));
  app.route('/', deliveryRoutes(deps));
  app.route('/', ledgerRoutes(deps));
  if (deps.rules) app.route('/', ruleBookRoutes(deps.rules, FAULT_ROUTES, 'fault rule'));
  app.route('/', ruleBookRoutes(deps.engine.faults, CALLBACK_FAULT_ROUTES, 'callback fault rule'));
  if (deps.journal) app.route('/', requestRoutes(deps.journal));
  app.route('/', resetRoutes(deps));
  return app;
}
