/**
 * The aggregator API of SPEC §2: /getallproviders, /getallgamesandprovider and /getgameurl, their
 * zod/OpenAPI schemas, and the cached listings with their fast path. A surface: it imports auth,
 * catalog, config, http, launch and money; it must not import admin, ui, play, verify or the CLI.
 */
export { type AggregatorFastPathDeps, aggregatorFastPath } from './fast-path.ts';
export { type LaunchDeps, launchGame } from './launch.ts';
export { type AggregatorDeps, aggregatorRoutes } from './routes.ts';
export { launchRequestSchema, launchResponseSchema } from './schemas.ts';
