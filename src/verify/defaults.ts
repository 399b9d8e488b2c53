/** Constants of `aggmock verify` that the CLI needs without loading the Pact verifier (src/verify/run.ts). */
export const DEFAULT_REPORT_DIR = 'reports/verify';
export const EXIT_USAGE = 2;
