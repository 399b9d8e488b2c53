/**
 * aggmock's public API for integrators: the same signing code the harness signs callbacks with,
 * so a wallet webhook can verify with it, plus the pieces to embed aggmock in a test suite.
 *
 * @example
 * import { verifySignature } from 'aggmock';
 * verifySignature({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: rawBody, headers: req.headers });
 */

export { createApp } from './app.ts';
export type { CallbackFaultRuleState } from './callbacks/index.ts';
export {
  type AggmockConfig,
  type AggmockConfigInput,
  CALLBACK_FAULT_KINDS,
  type CallbackFaultRuleInput,
  ConfigError,
  configSchema,
  defaultConfig,
  FAULT_KINDS,
  type FaultKind,
  type FaultRuleInput,
  loadConfig,
  validateConfig,
} from './config/index.ts';
export { createLoadSession, type LoadSession, type LoadSessionOptions } from './load/index.ts';
export type { FaultRuleState, JournaledRequest, RequestFilter, RequestMatcher } from './requests/index.ts';
export { type Aggmock, loadCatalog, startAggmock } from './runtime.ts';
export {
  constantTimeEqual,
  DEFAULT_HEADER_NAMES,
  DEFAULT_TOLERANCE_SECONDS,
  type HeaderNames,
  type HeaderSource,
  keyBytes,
  type Payload,
  requestPayload,
  SIGNING_SCHEMES,
  SignatureError,
  type SignatureFailure,
  type SigningKeys,
  type SigningScheme,
  type SignOptions,
  signedString,
  signPayload,
  toWhsec,
  type VerifiedSignature,
  type VerifyOptions,
  verifySignature,
} from './signing/index.ts';
export {
  DEFAULT_PACT_FILE,
  EXIT_FAILED,
  EXIT_PASSED,
  EXIT_USAGE,
  type RunVerifyOptions,
  runVerify,
  type VerifyOutcome,
  type VerifyReport,
  VerifyUsageError,
} from './verify/index.ts';
export { VERSION } from './version.ts';
export { type RunningWallet, type StartWalletOptions, startWallet, WALLET_FAULTS, type WalletFault } from './wallet/index.ts';
