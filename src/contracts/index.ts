/**
 * The Pact contracts aggmock (consumer) expects of an integrator webhook (provider): SPEC §7.
 *
 * An engine: it imports callbacks (the body builder), config, money and signing; it must not
 * import verify, any other surface or the CLI.
 */

export * from './dialect.ts';
export {
  type DeliveredInteraction,
  deliverInteraction,
  generateContracts,
  normalisePact,
  runConsumerInteractions,
} from './generate.ts';
export * from './interactions.ts';
export { CONTRACT_EPOCH_MS, contractBody, enqueueRequestOf, signatureHeaderPatterns } from './pact.ts';
