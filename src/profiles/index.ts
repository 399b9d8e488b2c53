/**
 * Wire profiles: the callback body, the amount format, the reply reading and the signing of one
 * aggregator's wire, as data (`schema.ts`), the built-in ones (`builtin.ts`), the active wire
 * resolved from the settings (`wire.ts`), the body renderer and schemas (`render.ts`), its inverse
 * (`parse.ts`, for the reference wallet) and the wallet's reply writer (`reply-writer.ts`).
 *
 * Foundation: it imports only money, signing and shared; never an engine, a surface or the CLI.
 */
export {
  BETNEX_PROFILE,
  BUILTIN_PROFILES,
  type BuiltinProfileName,
  builtinProfile,
  defaultProfile,
  isBuiltinProfile,
} from './builtin.ts';
export { PROFILE_SCHEMA_PATH, profileJsonSchema, profileJsonSchemaText } from './json-schema.ts';
export {
  type BodyFieldError,
  describeAmount,
  type ParseBodyOptions,
  type ParsedBody,
  type ParsedWireEvent,
  parseBody,
} from './parse.ts';
export { BONUS_KINDS, type BonusKind, bodySchemas, renderBody, type WireFields } from './render.ts';
export { type ReplyOutcome, writeReplyBody } from './reply-writer.ts';
export * from './schema.ts';
export { type CallbackSigning, type SignCallbackOptions, signCallback } from './sign.ts';
export {
  legacyProfileReading,
  NotAProfileError,
  type ReplyReading,
  rememberProfile,
  type VendorDialectSetting,
  type Wire,
  type WireEventKind,
  type WireSettings,
  wireOf,
} from './wire.ts';
