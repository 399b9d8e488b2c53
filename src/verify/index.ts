/**
 * `aggmock verify`: contracts through the Pact Verifier plus stateful checks against a live webhook.
 *
 * A surface: it imports dialects (every request, every reply), contracts, config, money, signing
 * and shared; it must not import the servers (app.ts, aggregator, admin, ui) or the CLI.
 */
export { CHECK_IDS, CHECKS, type Check, checksFor, findCheck } from './checks/index.ts';
export { type CallbackSpec, type Exchange, WebhookClient } from './client.ts';
export { CheckContext, CheckFailure, type CheckSettings, CheckSkipped } from './context.ts';
export { PACT_ID_PREFIX, type PactInteractionResult, pactInteractionIds, verifyPacts } from './pact.ts';
export { htmlReport, junitXml, type ReportFiles, type ResultEntry, type VerifyReport, writeReports } from './report.ts';
export {
  DEFAULT_PACT_FILE,
  DEFAULT_REPORT_DIR,
  EXIT_FAILED,
  EXIT_PASSED,
  EXIT_USAGE,
  type RunVerifyOptions,
  runCheck,
  runVerify,
  type VerifyOutcome,
  VerifyUsageError,
} from './run.ts';
