import { type ContractCall, type DialectContract, dialectContracts } from '../contracts/dialect.ts';
import { CONTRACT_INTERACTIONS, type ContractInteraction } from '../contracts/interactions.ts';
import type { Dialect } from '../dialects/index.ts';
import { cached } from '../shared/index.ts';

/*
 * The contracts a pact file verify replays may hold, each as the call its request is made from: a
 * dialect's own contracts (contracts/dialect.ts) and aggmock's webhook contracts (the pact files of
 * `default`, `betnex` and profile files, contracts/interactions.ts). The request filter finds each
 * request's contract by the transaction ids it names and makes the request again under the dialect,
 * so one filter serves every wire.
 */

const known = new WeakMap<Dialect, readonly DialectContract[]>();

/** Every contract a pact file of this dialect may hold. */
export function pactContracts(dialect: Dialect): readonly DialectContract[] {
  return cached(known, dialect, (d) => [...dialectContracts(d), ...CONTRACT_INTERACTIONS.map(asCall)]);
}

/** One of aggmock's webhook contracts as a dialect contract: its event as the call it is. */
function asCall(interaction: ContractInteraction): DialectContract {
  const e = interaction.event;
  const call: ContractCall =
    e.kind === 'rollback'
      ? {
          operation: 'rollback',
          playerId: e.playerId,
          transactionId: e.rollbackTransactionId ?? e.transactionId,
          betTransactionId: e.transactionId,
          amountMinor: e.amountMinor,
        }
      : {
          operation: e.kind === 'debit' ? 'bet' : 'win',
          playerId: e.playerId,
          transactionId: e.transactionId,
          amountMinor: e.amountMinor,
        };
  const reply = interaction.reply;
  return {
    id: interaction.id,
    rule: interaction.rule,
    hint: interaction.hint,
    description: interaction.description,
    states: interaction.states,
    call,
    signature: interaction.signature === 'wrong-secret' ? 'wrong-keys' : 'valid',
    reply: reply.accepted ? { accepted: true, balanceMinor: reply.balanceMinor } : { accepted: false, refusal: reply.error },
  };
}
