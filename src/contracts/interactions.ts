import type { EventKind } from '../callbacks/events.ts';
import type { Wire } from '../profiles/index.ts';

/**
 * The rules aggmock (consumer) expects of an integrator's webhook (provider), defined ONCE.
 * `generate.ts` turns each one into a Pact interaction by driving the real callback engine
 * against the Pact mock server; `aggmock verify` replays them against a real webhook. Amounts
 * are minor units here; the wire format (decimal or minor) is applied by the engine's body builder.
 */

export const CONSUMER = 'aggmock';
export const PROVIDER = 'integrator-webhook';
/** The path the contracts use; `aggmock verify` rewrites it when the webhook lives elsewhere. */
export const CONTRACT_WEBHOOK_PATH = '/callback/webhook';
/** Pact names the file `<consumer>-<provider>.json`. */
export const PACT_FILE_NAME = `${CONSUMER}-${PROVIDER}.json`;

/** A provider state as the integrator's state URL receives it: `{state, params}`. */
export interface ContractState {
  name: string;
  /** Amounts in major units, as in the state name. */
  params: Record<string, string | number>;
}

export interface ContractEvent {
  kind: EventKind;
  playerId: string;
  /** DEBIT/CREDIT: its id. ROLLBACK: the id of the DEBIT it reverses (`referenceTransactionId`). */
  transactionId: string;
  /** ROLLBACK in 'reference' style: the rollback's own fresh id. */
  rollbackTransactionId?: string;
  amountMinor: number;
}

export type ContractReply =
  /** 2xx with `{balance}`: the example balance after the event, minor units (matched by type). */
  | { accepted: true; balanceMinor: number }
  /** 4xx with `{error: code}` (message and balance may come too). */
  /** `{error: code}` with `status` as the example; any 2xx or 4xx matches but for INVALID_SIGNATURE, which is 401. */
  | { accepted: false; status: number; error: 'INSUFFICIENT_FUNDS' | 'PLAYER_NOT_FOUND' | 'INVALID_SIGNATURE' };

export interface ContractInteraction {
  /** Stable id: `pact:<id>` in verify reports, `--only`/`--skip`. */
  id: string;
  /** The rule, one line. */
  rule: string;
  /** How to fix the webhook when it breaks the rule. */
  hint: string;
  /** The Pact interaction description. */
  description: string;
  states: ContractState[];
  event: ContractEvent;
  /**
   * 'wrong-secret': the engine signs with a secret the provider does not know (on a wire that
   * carries an API key in the body instead of a signature, it sends a wrong key).
   */
  signature: 'valid' | 'wrong-secret';
  reply: ContractReply;
}

/** A secret no integrator uses: the bad-signature interaction is signed with it. */
export const WRONG_SECRET = 'aggmock-contract-wrong-secret';

export function balanceState(playerId: string, balanceMinor: number): ContractState {
  const balance = balanceMinor / 100;
  return { name: `player ${playerId} has balance ${balance.toFixed(2)}`, params: { playerId, balance } };
}

export function absentState(playerId: string): ContractState {
  return { name: `player ${playerId} does not exist`, params: { playerId } };
}

export function debitedState(transactionId: string, playerId: string, amountMinor: number): ContractState {
  const amount = amountMinor / 100;
  return {
    name: `transaction ${transactionId} was debited from player ${playerId} for ${amount.toFixed(2)}`,
    params: { transactionId, playerId, amount },
  };
}

const P = 'p1';

/** One interaction per rule of SPEC §3, in the order the pact file and the reports list them. */
export const CONTRACT_INTERACTIONS: readonly ContractInteraction[] = [
  {
    id: 'debit-accepted',
    hint: 'Subtract the amount in integer minor units and reply 2xx {"balance": <balance after the bet>}.',
    rule: 'A DEBIT the balance covers is accepted with 2xx {balance} = the balance after the bet.',
    description: 'a DEBIT the balance covers',
    states: [balanceState(P, 10_000)],
    event: { kind: 'debit', playerId: P, transactionId: 'tx-contract-debit', amountMinor: 1_000 },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'credit-accepted',
    hint: 'Add the amount in integer minor units and reply 2xx {"balance": <balance after the win>}.',
    rule: 'A CREDIT is accepted with 2xx {balance} = the balance after the win.',
    description: 'a CREDIT',
    states: [balanceState(P, 10_000)],
    event: { kind: 'credit', playerId: P, transactionId: 'tx-contract-credit', amountMinor: 2_550 },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 12_550 },
  },
  {
    id: 'rollback-restores',
    hint: 'Find the DEBIT the ROLLBACK reverses, add its amount back, mark it rolled back, and reply 2xx {"balance"}.',
    rule: 'A ROLLBACK of an accepted DEBIT gives its amount back: 2xx {balance}.',
    description: 'a ROLLBACK of an accepted DEBIT',
    states: [balanceState(P, 10_000), debitedState('tx-contract-rollback', P, 1_000)],
    event: {
      kind: 'rollback',
      playerId: P,
      transactionId: 'tx-contract-rollback',
      rollbackTransactionId: 'tx-contract-rollback-reversal',
      amountMinor: 1_000,
    },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 10_000 },
  },
  {
    id: 'duplicate-debit',
    hint: 'Look the transaction up by (playerId, type, transactionId) first; when it exists, answer its stored reply and move nothing.',
    rule: 'A DEBIT whose transactionId was already applied gets the first reply again and moves no money.',
    description: 'a DEBIT whose transactionId was already applied',
    states: [balanceState(P, 10_000), debitedState('tx-contract-duplicate', P, 1_000)],
    event: { kind: 'debit', playerId: P, transactionId: 'tx-contract-duplicate', amountMinor: 1_000 },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'insufficient-funds',
    hint: 'Check balance ≥ amount in the same database transaction; refuse with {"error":"INSUFFICIENT_FUNDS"} (402, or 200 if your style is 200 + {error}).',
    rule: 'A DEBIT larger than the balance is refused with {error:"INSUFFICIENT_FUNDS"} (4xx or 2xx).',
    description: 'a DEBIT larger than the balance',
    states: [balanceState(P, 500)],
    event: { kind: 'debit', playerId: P, transactionId: 'tx-contract-insufficient', amountMinor: 1_000 },
    signature: 'valid',
    reply: { accepted: false, status: 402, error: 'INSUFFICIENT_FUNDS' },
  },
  {
    id: 'unknown-player',
    hint: 'Refuse callbacks for unknown players with {"error":"PLAYER_NOT_FOUND"} (404, or 200 + {error}); never create a player from a callback.',
    rule: 'A callback for a player the wallet does not know is refused with {error:"PLAYER_NOT_FOUND"} (4xx or 2xx).',
    description: 'a DEBIT for an unknown player',
    states: [absentState('p404')],
    event: { kind: 'debit', playerId: 'p404', transactionId: 'tx-contract-unknown-player', amountMinor: 1_000 },
    signature: 'valid',
    reply: { accepted: false, status: 404, error: 'PLAYER_NOT_FOUND' },
  },
  {
    id: 'bad-signature',
    hint: 'Verify the signature over the raw body before anything else (import { verifySignature } from \'aggmock\'); refuse with 401 {"error":"INVALID_SIGNATURE"}.',
    rule: 'A callback signed with the wrong secret is refused with 401 {error:"INVALID_SIGNATURE"}.',
    description: 'a DEBIT signed with a secret the wallet does not know',
    states: [],
    event: { kind: 'debit', playerId: P, transactionId: 'tx-contract-bad-signature', amountMinor: 1_000 },
    signature: 'wrong-secret',
    reply: { accepted: false, status: 401, error: 'INVALID_SIGNATURE' },
  },
];

/** The interactions that exist on a wire: no ROLLBACK rule on a wire without ROLLBACK. */
export function interactionsFor(wire: Pick<Wire, 'hasRollback'>): readonly ContractInteraction[] {
  return CONTRACT_INTERACTIONS.filter((i) => i.event.kind !== 'rollback' || wire.hasRollback);
}

export function findInteraction(id: string): ContractInteraction | undefined {
  return CONTRACT_INTERACTIONS.find((i) => i.id === id);
}
