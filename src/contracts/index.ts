/** The Pact contracts aggmock (consumer) expects of an integrator webhook (provider): SPEC §7. */
export {
  type DeliveredInteraction,
  deliverInteraction,
  generateContracts,
  normalisePact,
  runConsumerInteractions,
} from './generate.ts';
export * from './interactions.ts';
export { CONTRACT_EPOCH_MS, contractBody, enqueueRequestOf, signatureHeaderPatterns } from './pact.ts';
