import type { WalletEvent } from './events.ts';
import type { WalletReply } from './replies.ts';
import type { WalletStore } from './store.ts';

/**
 * Deliberately broken variants of the reference wallet, one bug each, used to prove that
 * `aggmock verify` catches the mistakes integrators really make. Never copy these.
 */
export const WALLET_FAULTS = [
  /** Charges a duplicate DEBIT again instead of replaying the first reply. */
  'double-debit',
  /** Accepts any signature, or none. */
  'no-signature-check',
  /** Acknowledges a ROLLBACK with the current balance but never restores the money. */
  'rollback-ignored',
  /** Skips the insufficient-funds check, so balances go below zero. */
  'negative-balance',
  /** Replies only after a delay longer than the aggregator's timeout (default 12 s). */
  'slow',
  /** Answers ~30 % of valid callbacks with a 500, from a seeded RNG. */
  'flaky',
  /** Reads the balance, awaits, then writes it back: concurrent DEBITs lose updates and overdraw. */
  'race',
] as const;
export type WalletFault = (typeof WALLET_FAULTS)[number];

export interface FaultOptions {
  /** `slow`: how long each reply is held back. Default 12 000 ms (the aggregator's timeout is 10 s). */
  slowMs?: number;
  /** `flaky`: share of callbacks answered with 500. Default 0.3. */
  flakyRate?: number;
  /** `flaky`: RNG seed, so the same run fails the same requests. */
  seed?: number;
  /** `race`: the await between reading and writing a balance. Default 20 ms. */
  raceWindowMs?: number;
}

export const DEFAULT_SLOW_MS = 12_000;
export const DEFAULT_FLAKY_RATE = 0.3;
export const DEFAULT_RACE_WINDOW_MS = 20;

/** How the wallet turns a verified, parsed callback into a reply, and whether it verifies at all. */
export interface WalletBehaviour {
  verifiesSignatures: boolean;
  applyCallback(event: WalletEvent): Promise<WalletReply>;
}

/** The reference behaviour: verify every signature, apply each event atomically in the store. */
export function referenceBehaviour(store: WalletStore): WalletBehaviour {
  return { verifiesSignatures: true, applyCallback: async (event) => store.applyEvent(event) };
}

/**
 * The behaviour of a wallet with one fault. Everything not named by the fault behaves as the
 * reference, so `verify` reports exactly the bug that was switched on.
 * (`negative-balance` is an option of the store itself: see `overdraftLimitFor`.)
 */
export function faultyBehaviour(fault: WalletFault | undefined, store: WalletStore, options: FaultOptions = {}): WalletBehaviour {
  const reference = referenceBehaviour(store);
  switch (fault) {
    case undefined:
    case 'negative-balance':
      return reference;
    case 'no-signature-check':
      return { ...reference, verifiesSignatures: false };
    case 'double-debit':
      return {
        ...reference,
        applyCallback: async (event) => {
          // BUG: forgets it has seen this bet, so a retried DEBIT is charged a second time.
          if (event.kind === 'DEBIT') store.forgetTransaction(event.playerId, 'DEBIT', event.transactionId);
          return store.applyEvent(event);
        },
      };
    case 'rollback-ignored':
      return {
        ...reference,
        applyCallback: async (event) => {
          const balance = store.balanceOf(event.playerId);
          // BUG: says "done" with the current balance and never gives the bet back.
          if (event.kind === 'ROLLBACK' && balance !== undefined) return store.replies.balance(balance);
          return store.applyEvent(event);
        },
      };
    case 'slow': {
      const slowMs = options.slowMs ?? DEFAULT_SLOW_MS;
      return {
        ...reference,
        applyCallback: async (event) => {
          // BUG: the money moves, but the reply comes after the aggregator stopped waiting.
          const reply = store.applyEvent(event);
          await sleep(slowMs);
          return reply;
        },
      };
    }
    case 'flaky': {
      const random = seededRandom(options.seed ?? 42);
      const rate = options.flakyRate ?? DEFAULT_FLAKY_RATE;
      return {
        ...reference,
        applyCallback: async (event) => {
          // BUG: some requests fail for no reason the aggregator can fix.
          if (random() < rate) {
            return { status: 500, body: { error: 'INTERNAL_ERROR', message: 'flaky wallet: simulated internal error' } };
          }
          return store.applyEvent(event);
        },
      };
    }
    case 'race': {
      const windowMs = options.raceWindowMs ?? DEFAULT_RACE_WINDOW_MS;
      return { ...reference, applyCallback: (event) => racyApply(store, event, windowMs) };
    }
  }
}

/** `negative-balance`: the store is opened with no floor under the balance. */
export function overdraftLimitFor(fault: WalletFault | undefined): number {
  return fault === 'negative-balance' ? Number.POSITIVE_INFINITY : 0;
}

/**
 * BUG (the `race` variant): the classic read-modify-write across an `await` — say, a call to a
 * fraud service — with no transaction. Every DEBIT that reads before another one writes sees the
 * same balance, so all of them pass the funds check and the last write wins.
 */
async function racyApply(store: WalletStore, event: WalletEvent, windowMs: number): Promise<WalletReply> {
  if (event.kind !== 'DEBIT') return store.applyEvent(event);
  const previous = store.replayIfDuplicate(event);
  if (previous) return previous;
  const balance = store.balanceOf(event.playerId);
  if (balance === undefined) return store.applyEvent(event);
  await sleep(windowMs);
  if (balance < event.amountMinor) {
    const reply = store.replies.reject('INSUFFICIENT_FUNDS', `Player ${event.playerId} has insufficient funds.`, {
      balanceMinor: balance,
    });
    store.recordTransaction(event, 'rejected', reply);
    return reply;
  }
  const after = balance - event.amountMinor;
  store.setBalance(event.playerId, after);
  const reply = store.replies.balance(after);
  store.recordTransaction(event, 'accepted', reply);
  return reply;
}

/** mulberry32: a tiny seeded PRNG, good enough to make a flaky run reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
