/**
 * The vendors' operator APIs (casino → aggregator) served beside the seed's own: the routes a
 * dialect's operator section describes (src/dialects/operator.ts), checked and refused the
 * vendor's way, game lists rendered from the catalog, launches opening the same launch sessions
 * as POST /getgameurl. Imports the dialects, the catalog and the launch sessions; no other surface.
 */
import type { Context, Hono } from 'hono';
import type { Catalog } from '../../catalog/index.ts';
import { dialectOf } from '../../config/dialect.ts';
import type { AggmockConfig } from '../../config/index.ts';
import { operatorApiOf } from '../../dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../dialects/operator.ts';
import type { LaunchSession, LaunchSessions } from '../../launch/sessions.ts';
import { operatorCredentials } from './credentials.ts';
import { vendorRequestFacts } from './facts.ts';
import { OPERATOR_OPENAPI_PATH } from './openapi.ts';
import { vendorOperatorRoutes } from './routes.ts';

export { launchAsOperator } from './client-launch.ts';
export { OperatorCredentialError, operatorCredentials } from './credentials.ts';
export { OPERATOR_OPENAPI_PATH, operatorOpenApi } from './openapi.ts';
export { EXPECTED_SIGNED_HEADER, REFUSAL_HEADER, vendorOperatorRoutes } from './routes.ts';

/**
 * The operator API of the configured dialect, or undefined (a profile, or a vendor with none).
 *
 * @example configuredOperatorApi(config)?.routes.length
 */
export function configuredOperatorApi(config: AggmockConfig): OperatorApi | undefined {
  // A dialect without an operator section (default, betnex, most files) serves the seed's API alone.
  return operatorApiOf(dialectOf(config.callbacks));
}

/** The vendor's operator routes for this config, or undefined when its dialect has no operator API. */
export function vendorSurface(deps: {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  baseUrl: (c: Context) => string;
  now?: () => number;
  onLaunch?: (session: LaunchSession) => void;
}): Hono | undefined {
  const api = configuredOperatorApi(deps.config);
  if (!api) return undefined;
  const vendor = dialectOf(deps.config.callbacks).name;
  const credentials = operatorCredentials(api, deps.config.operator.credentials, vendor);
  return vendorOperatorRoutes({ ...deps, api, credentials, vendor }) as unknown as Hono;
}

/**
 * The banner's line for the vendor's operator API (`aggmock serve --dialect hub88`): its base URL,
 * its routes and its OpenAPI document; undefined when the dialect has none.
 *
 * @example operatorBannerLine(config, 'http://127.0.0.1:4000') // '  operator    http://127.0.0.1:4000/operator/generic/v2 (hub88: POST /game/list, …; OpenAPI: …/operator-openapi.json)'
 */
export function operatorBannerLine(config: AggmockConfig, base: string): string | undefined {
  const api = configuredOperatorApi(config);
  if (!api) return undefined;
  const routes = [...new Set(api.routes.map((r) => `${r.method} ${r.path}`))].join(', ');
  const name = dialectOf(config.callbacks).name;
  return `  operator    ${base}${api.basePath}   (the ${name} operator API: ${routes}; OpenAPI: ${base}${OPERATOR_OPENAPI_PATH})`;
}

/** What fault rules see of a request to the vendor's routes (its own field names), or undefined with no operator API. */
export function vendorFactsOf(config: AggmockConfig, catalog: Catalog): ReturnType<typeof vendorRequestFacts> | undefined {
  const api = configuredOperatorApi(config);
  return api ? vendorRequestFacts(api, catalog) : undefined;
}
