/**
 * Game-play scenarios (sessions, bursts, rollbacks, …) planned as callback sequences and run
 * through the engine, with their expected ledger outcome. An engine: it imports callbacks,
 * config, ledger and money; it must not import surfaces or the CLI.
 */
export * from './plan.ts';
export * from './round.ts';
export * from './run.ts';
