/**
 * The configuration: the one zod schema with every default (schema.ts), loading it from file,
 * environment and flags (load.ts), durations and the list of keys. Foundation: it imports only
 * signing (scheme names, default header names) and shared; it must not import engines,
 * surfaces or the CLI.
 */

export { CredentialError, credentialsOf, dialectOf, shownRequest, signOptionsOf } from './dialect.ts';
export { parseDuration } from './duration.ts';
export * from './faults.ts';
export { ConfigError, DEFAULT_CONFIG_FILE, deepMerge, envLayer, envNameOf, loadConfig, validateConfig } from './load.ts';
export * from './schema.ts';
