/**
 * The mock game a launch URL opens: the page at /play/:session (page.ts) and its spin endpoint,
 * which sends the round's callbacks (routes.ts). A surface: it imports callbacks, catalog, config,
 * http, launch, ledger, money, scenarios and shared; it must not import admin, ui, verify or the CLI.
 */
export { type PlayDeps, playRoutes } from './routes.ts';
