/**
 * Wire profiles: the callback body, the amount format, the reply reading and the signing of one
 * aggregator's wire, as data (`schema.ts`), the built-in ones (`builtin.ts`), the active wire
 * resolved from the settings (`wire.ts`) and the body renderer and schemas (`render.ts`), for the
 * profile contract writer until it goes (issue 31).
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
export { BONUS_KINDS, type BonusKind, bodySchemas, renderBody, type WireFields } from './render.ts';
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
