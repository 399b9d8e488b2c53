import { winsBelongToARound } from '../dialects/capabilities.ts';
import {
  type CallFacts,
  type Dialect,
  OUTCOME_CODES,
  type OutcomeCode,
  requestIdOf,
  roundIdOf,
  type Scalar,
} from '../dialects/index.ts';

/*
 * The contracts aggmock (consumer) expects of a wallet webhook (provider), for every dialect —
 * `default`, `betnex`, a converted profile file and the vendors' alike: a bet the balance covers, a
 * win, a bet and its win in one call, a rollback, a repeated bet answered with the first reply, a
 * refusal for lack of funds, a forged signature refused, and the dialect's own reads
 * (authenticate, balance). A contract is the call it makes and the reply its rule requires;
 * `dialectContracts` keeps those the wire has. `pact-file.ts` writes them as the dialect's real
 * requests; `aggmock verify` replays them with the Pact Verifier, re-signing each request.
 */

export const CONSUMER = 'aggmock';
export const PROVIDER = 'integrator-webhook';
/** Pact names the file `<consumer>-<provider>.json`. */
export const PACT_FILE_NAME = `${CONSUMER}-${PROVIDER}.json`;

/** A secret no integrator uses: aggmock's header schemes sign the bad-signature contract with it. */
export const WRONG_SECRET = 'aggmock-contract-wrong-secret';

/** A provider state as the integrator's state URL receives it: `{state, params}`. */
export interface ContractState {
  name: string;
  /** Amounts in major units, as in the state name. */
  params: Record<string, string | number>;
}

export function balanceState(playerId: string, balanceMinor: number): ContractState {
  const balance = balanceMinor / 100;
  return { name: `player ${playerId} has balance ${balance.toFixed(2)}`, params: { playerId, balance } };
}

export function debitedState(transactionId: string, playerId: string, amountMinor: number): ContractState {
  const amount = amountMinor / 100;
  return {
    name: `transaction ${transactionId} was debited from player ${playerId} for ${amount.toFixed(2)}`,
    params: { transactionId, playerId, amount },
  };
}

/** The call one contract makes, before the run's ids, time and session token are set. */
export type ContractCall = Omit<CallFacts, 'createdAt' | 'requestId' | 'currency' | 'sessionToken'>;

export interface DialectContract {
  /** Stable id: `pact:<id>` in verify reports, `--only`/`--skip`. */
  id: string;
  rule: string;
  hint: string;
  /** The Pact interaction description (unique in a dialect's pact). */
  description: string;
  states: ContractState[];
  call: ContractCall;
  /** 'wrong-keys': signed with keys the wallet does not know; absent: with the wallet's own. */
  signature?: 'wrong-keys';
  /** It repeats the bet its provider state made: the reply must be that bet's first reply (its balance, exactly). */
  firstReply?: true;
  reply: { accepted: true; balanceMinor: number } | { accepted: false; refusal: OutcomeCode };
}

const P = 'p1';
const OPENING = 10_000;

/** The contract transaction ids: each appears in one contract only, so a request names its contract. */
export const DIALECT_CONTRACT_TX = {
  // Short: a run's suffix is added in players mode, and some wires cap ids (Pragmatic: 32 characters).
  bet: 'ctx-bet',
  winRound: 'ctx-win-bet',
  win: 'ctx-win',
  betWin: 'ctx-betwin',
  rollback: 'ctx-rb',
  rollbackOwn: 'ctx-rb-rev',
  duplicate: 'ctx-dup',
  insufficient: 'ctx-nofunds',
  badSignature: 'ctx-badsig',
} as const;

const T = DIALECT_CONTRACT_TX;
const bet = (transactionId: string, amountMinor: number): ContractCall => ({
  operation: 'bet',
  playerId: P,
  transactionId,
  amountMinor,
  roundId: roundIdOf(transactionId),
});

/** Every contract a dialect can have, in report order; `dialectContracts` keeps those its wire has. */
export const DIALECT_CONTRACTS: readonly DialectContract[] = [
  {
    id: 'authenticate',
    rule: "The authenticate call for a known player's session is accepted.",
    hint: 'Answer the authenticate call with the success value and the player (and balance) as the vendor documents.',
    description: 'the authenticate call of a known player',
    states: [balanceState(P, OPENING)],
    call: { operation: 'authenticate', playerId: P },
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'balance',
    rule: 'The balance call is accepted with the balance, and moves no money.',
    hint: "Answer the balance call with the success value and the player's balance at the balance path.",
    description: 'the balance call of a known player',
    states: [balanceState(P, OPENING)],
    call: { operation: 'balance', playerId: P },
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'bet-accepted',
    rule: 'A bet the balance covers is accepted with the balance after it.',
    hint: 'Subtract the amount in integer minor units and answer the success value with the balance after the bet.',
    description: 'a bet the balance covers',
    states: [balanceState(P, OPENING)],
    call: bet(T.bet, 1_000),
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'win-accepted',
    rule: 'A win that settles its bet is accepted with the balance after it.',
    hint: 'Add the amount to the round of the bet it names and answer the success value with the balance after the win.',
    description: 'a win that settles its bet',
    states: [balanceState(P, OPENING), debitedState(T.winRound, P, 0)],
    call: {
      operation: 'win',
      playerId: P,
      transactionId: T.win,
      betTransactionId: T.winRound,
      amountMinor: 2_550,
      roundId: roundIdOf(T.winRound),
      roundClosed: true,
    },
    reply: { accepted: true, balanceMinor: 12_550 },
  },
  {
    id: 'bet-win-accepted',
    rule: 'A bet and its win in one call are accepted with the balance after both.',
    hint: 'Apply the bet, then the win, in one database transaction, and answer with the balance after both.',
    description: 'a bet and its win in one call',
    states: [balanceState(P, OPENING)],
    call: { ...bet(T.betWin, 1_000), operation: 'betWin', winMinor: 2_550, roundClosed: true },
    reply: { accepted: true, balanceMinor: 11_550 },
  },
  {
    id: 'rollback-restores',
    rule: 'A rollback of an accepted bet gives its amount back.',
    hint: 'Find the bet the rollback names, add its amount back, mark it rolled back, and answer the success value with the balance.',
    description: 'a rollback of an accepted bet',
    states: [balanceState(P, OPENING), debitedState(T.rollback, P, 1_000)],
    call: {
      operation: 'rollback',
      playerId: P,
      transactionId: T.rollbackOwn,
      betTransactionId: T.rollback,
      amountMinor: 1_000,
      roundId: roundIdOf(T.rollback),
    },
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'duplicate-bet',
    rule: 'A bet whose transaction was already applied gets the first reply again and moves no money.',
    hint: 'Look the transaction up by its id first; when it exists, answer its stored reply and move nothing.',
    description: 'a bet whose transaction was already applied',
    states: [balanceState(P, OPENING), debitedState(T.duplicate, P, 1_000)],
    call: bet(T.duplicate, 1_000),
    firstReply: true,
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'insufficient-funds',
    rule: "A bet larger than the balance is refused with the dialect's code for a lack of funds.",
    hint: "Check balance ≥ amount in the same database transaction; refuse with the vendor's insufficient-funds code.",
    description: 'a bet larger than the balance',
    states: [balanceState(P, 500)],
    call: bet(T.insufficient, 1_000),
    reply: { accepted: false, refusal: 'INSUFFICIENT_FUNDS' },
  },
  {
    id: 'bad-signature',
    rule: "A call signed with keys the wallet does not know is refused with the dialect's code for a bad signature.",
    hint: "Verify the signature as the vendor documents before anything else; refuse with the vendor's invalid-signature code.",
    description: 'a bet signed with keys the wallet does not know',
    states: [balanceState(P, OPENING)],
    call: bet(T.badSignature, 1_000),
    signature: 'wrong-keys',
    reply: { accepted: false, refusal: 'INVALID_SIGNATURE' },
  },
];

/** The codes a refusal may carry under the dialect: its own code(s), else any refusal code it has. */
export function refusalCodes(dialect: Dialect, refusal: OutcomeCode): Scalar[] {
  const listOf = (v: Scalar | Scalar[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const own = listOf(dialect.reply.codes[refusal]);
  if (own.length > 0) return own;
  return OUTCOME_CODES.flatMap((code) => listOf(dialect.reply.codes[code]));
}

/**
 * Why a contract does not apply to a dialect, or undefined when it does: the operation must
 * exist, a signature must be made to be forged, and a refusal must be recognisable (a code, a
 * success flag or an HTTP status of its own).
 */
export function contractNotApplicable(dialect: Dialect, contract: DialectContract): string | undefined {
  if (!dialect.operations[contract.call.operation]) return `the ${dialect.name} dialect has no ${contract.call.operation} call`;
  if (contract.signature === 'wrong-keys' && dialect.signing.algorithm === 'none')
    return `the ${dialect.name} dialect signs nothing (its credentials travel as they are)`;
  const reply = contract.reply;
  if (
    !reply.accepted &&
    refusalCodes(dialect, reply.refusal).length === 0 &&
    dialect.reply.success === undefined &&
    dialect.reply.statuses[reply.refusal] === undefined
  )
    return `the ${dialect.name} dialect has no way to tell a ${reply.refusal} refusal from an acceptance`;
  return undefined;
}

/** The contracts of a dialect, in report order. */
export function dialectContracts(dialect: Dialect): DialectContract[] {
  const rounds = winsBelongToARound(dialect);
  return DIALECT_CONTRACTS.filter((c) => contractNotApplicable(dialect, c) === undefined).map((c) =>
    rounds ? c : { ...c, states: c.states.filter((s) => !opensTheRound(c, s)) },
  );
}

/**
 * Whether a state is the bet of 0 that opens a win's round: made only on a wire whose wins belong
 * to a round, as verify's own wins are (a default-wire wallet may refuse a bet of 0).
 */
function opensTheRound(contract: DialectContract, state: ContractState): boolean {
  return (
    contract.call.operation === 'win' &&
    state.params.transactionId === contract.call.betTransactionId &&
    state.params.amount === 0
  );
}

/** The session token a contract's example request carries (32+ characters: Red Tiger wants 32 to 128). */
export function contractSessionToken(playerId: string): string {
  return `aggmock-contract-session-${playerId}-0123456789abcdef`;
}

/** The facts of one contract's call, with the run's ids: what its request is built from (example or replay). */
export function contractFacts(
  contract: DialectContract,
  options: { currency: string; createdAt: number; sessionToken?: string; playerId?: string; id?: (contractId: string) => string },
): CallFacts {
  const id = options.id ?? ((x: string) => x);
  const c = contract.call;
  const base = {
    ...c,
    playerId: options.playerId ?? c.playerId,
    currency: options.currency,
    ...(c.transactionId === undefined ? {} : { transactionId: id(c.transactionId) }),
    ...(c.betTransactionId === undefined ? {} : { betTransactionId: id(c.betTransactionId) }),
    // A run's ids give the run's rounds, as the provider state's bet got (verify's roundIdOf).
    ...(c.roundId === undefined ? {} : { roundId: roundIdOf(id(c.betTransactionId ?? (c.transactionId as string))) }),
    sessionToken: options.sessionToken ?? contractSessionToken(options.playerId ?? c.playerId),
  };
  return { ...base, requestId: requestIdOf(base), createdAt: options.createdAt };
}
