/** Constants of `aggmock verify` that the CLI needs without loading the Pact verifier (src/verify/run.ts). */
export const DEFAULT_REPORT_DIR = 'reports/verify';
/** verify's exit codes: every selected check passed / at least one failed / a usage error. */
export const EXIT_PASSED = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
