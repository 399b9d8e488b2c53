/**
 * Dialects: one aggregator's whole seamless-wallet protocol as data (`schema.ts`) — its calls, for
 * each the HTTP request (method, path, encoding, headers, fields from the call's facts), the
 * signing recipe (`sign.ts`), the amounts on its wire (`amounts.ts`) and how its replies are read
 * and written (`reply.ts`). The built-in vendor dialects live in `builtin/`, each citing its sources.
 *
 * Foundation: it imports only money, signing and shared; never an engine, a surface or the CLI.
 */
export { codecOf, readAmount, writeAmount } from './amounts.ts';
export {
  BASE_DIALECTS,
  BUILTIN_DIALECTS,
  builtinDialect,
  DEFAULT_WIRE_SETTINGS,
  type DefaultWireSettings,
  DIALECT_NAMES,
  defaultWireDialect,
  isBuiltinDialect,
} from './builtin/index.ts';
export { DEV_EC_PRIVATE_KEY, DEV_EC_PUBLIC_KEY, DEV_RSA_PRIVATE_KEY, DEV_RSA_PUBLIC_KEY, devSessionToken } from './dev-keys.ts';
export { type CallReading, credentialsCarried, operationsAt, type ReadFacts, readFacts, recogniseCall } from './facts.ts';
export { callProblem, type FieldProblem, fieldProblems, operationOfBody } from './field-check.ts';
export {
  ALLOW_HOOKS_ENV,
  DialectHooksError,
  type HooksOptIn,
  hooksBannerLine,
  hooksOptIn,
  loadedHooks,
  loadHooks,
} from './hooks.ts';
export { requestIdOf, roundIdOf } from './ids.ts';
export { DIALECT_SCHEMA_PATH, dialectJsonSchemaText } from './json-schema.ts';
export {
  acknowledgementCodes,
  appliedEarlier,
  isAlreadyProcessed,
  type RepeatJudgement,
  RULE_NAMES,
  type Rule,
  type RuleName,
  repeatAgrees,
  repeatAnswer,
  replyBalanceRule,
  resentAfter,
  rolledBackAfter,
  rulesOf,
  saferDialect,
  tokenHandedOver,
  unknownRollbackAccepts,
  unknownRollbackAnswer,
  unknownRollbackRule,
} from './judge.ts';
export { credentialMask, MASKED_CREDENTIAL, maskedRequest, type ShownRequest } from './mask.ts';
export { dialectOfProfile } from './profile.ts';
export {
  balancePaths,
  codesFor,
  outcomesOf,
  type ReadReply,
  readReply,
  statusIn,
  type WalletAnswer,
  writeReply,
} from './reply.ts';
export { rawTopLevelValue } from './reply-text.ts';
export {
  BONUS_KINDS,
  type BonusKind,
  type CallFacts,
  type Credentials,
  DialectRequestError,
  factValue,
  type Rendered,
  readsAttemptFacts,
  takesWholeRounds,
  type UnsignedRequest,
  unsignedRequest,
} from './request.ts';
export * from './schema.ts';
export {
  needsMessageId,
  type ReceivedRequest,
  type SignedRequest,
  type SignOptions,
  schemeSigned,
  serialisedRequest,
  signatureOf,
  signRequest,
  signsInHeaders,
  verifyRequest,
  withoutVendorSignature,
} from './sign.ts';
export { sessionTokenFor } from './tokens.ts';

import type { CallFacts, Credentials } from './request.ts';
import { unsignedRequest } from './request.ts';
import type { Dialect } from './schema.ts';
import { type SignedRequest, type SignOptions, signRequest } from './sign.ts';

/**
 * The HTTP request of one call under a dialect, signed and serialised: what the engine sends to
 * `<base URL><path>`.
 *
 * @example buildRequest(builtinDialect('pragmatic'), { operation: 'bet', playerId: 'p1', currency: 'EUR', transactionId: 'tx1', amountMinor: 1050, createdAt: Date.now() }, { secretKey: 'testKey' })
 */
export function buildRequest(
  dialect: Dialect,
  facts: CallFacts,
  credentials: Credentials,
  options: SignOptions = {},
): SignedRequest {
  return signRequest(dialect, unsignedRequest(dialect, facts, credentials), credentials, options);
}
