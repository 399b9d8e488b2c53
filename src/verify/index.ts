/**
 * `aggmock verify`: contracts through the Pact Verifier plus stateful checks against a live webhook.
 *
 * A surface: it imports dialects (every request, every reply), contracts, config, money, signing
 * and shared; it must not import the servers (app.ts, aggregator, admin, ui) or the CLI.
 */
export { CHECK_IDS, CHECKS, checksFor } from './checks/index.ts';
export { CheckContext, type CheckSettings } from './context.ts';
export { EXIT_FAILED, EXIT_PASSED, EXIT_USAGE } from './defaults.ts';
export { DEFAULT_PACT_FILE, VerifyUsageError } from './plan.ts';
export { htmlReport, type ResultEntry, type VerifyReport } from './report.ts';
export { type RunVerifyOptions, runVerify, type VerifyOutcome } from './run.ts';
