/**
 * The Pact contracts aggmock (consumer) expects of a wallet webhook (provider), for every dialect:
 * the contracts as data (`dialect.ts`) and their pact file (`generate.ts`, `npm run contracts`).
 *
 * An engine: it imports config and dialects; it must not import verify, any other surface or the CLI.
 */

export * from './dialect.ts';
export { exampleRequest, generateContracts } from './generate.ts';
