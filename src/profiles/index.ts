/**
 * The profile *file*: the older, smaller wire format users may still write, as data (`schema.ts`)
 * and its JSON Schema (`json-schema.ts`, committed as `contracts/profile.schema.json`). The
 * configuration converts a profile file to a dialect once, when it loads
 * (`dialects/profile.ts` `dialectOfProfile`); nothing after that knows it was a profile.
 *
 * Foundation: it imports only signing and shared; never an engine, a surface or the CLI.
 */
export { PROFILE_SCHEMA_PATH, profileJsonSchemaText } from './json-schema.ts';
export * from './schema.ts';
