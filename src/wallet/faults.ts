import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32 } from '../shared/index.ts';
import { referenceBehaviour, signatureRefusal, type WalletBehaviour } from './behaviour.ts';
import type { WalletEvent } from './events.ts';
import {
  debitOnlySignature,
  firstSignatureOnly,
  floatMoneyBehaviour,
  lastBetOnly,
  mapIds,
  pastOnlyTimestamp,
  racyApply,
  refusedDebitOf,
  rollbackDeletesDebit,
  roundAmounts,
  settled,
  signatureCache,
  sqlConcatLookup,
} from './fault-bugs.ts';
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
  /** Reads the balance, awaits, then writes it back: concurrent callbacks lose updates and overdraw. */
  'race',
  /** Checks for a duplicate, awaits, then applies: the same DEBIT sent in parallel is charged several times. */
  'duplicate-race',
  /** Keys idempotency on (type, transactionId) alone: another player's transaction with the same id is taken for a duplicate. */
  'tx-only-key',
  /** Forgets a ROLLBACK of a DEBIT it never saw, so the late DEBIT is charged. */
  'no-tombstone',
  /** A ROLLBACK gives the bet back and deletes it, so a retry of that DEBIT arriving after its ROLLBACK is charged again. */
  'rollback-deletes-debit',
  /** A ROLLBACK of a DEBIT that was refused (insufficient funds) pays its amount out anyway. */
  'refund-refused-debit',
  /** Replies to a DEBIT with the balance read before the bet was taken. */
  'stale-debit-reply',
  /** Replies to a CREDIT with the balance read before the win was paid. */
  'stale-credit-reply',
  /** Forgets it has paid a CREDIT, so a retried CREDIT pays again. */
  'double-credit',
  /** Reads negative amounts: a DEBIT of -5.00 pays 5.00. */
  'negative-amounts',
  /** Throws on a ROLLBACK of a DEBIT it never saw: 500 (and no tombstone). */
  'rollback-unknown-crash',
  /** Pays out the amount a ROLLBACK of a DEBIT it never saw claims ("a refund is a refund"). */
  'rollback-unknown-credits',
  /** JSON.parse outside a try: a body that is not JSON gets a 500. */
  'malformed-json-crash',
  /** "reference" rollbacks: a second ROLLBACK of the same DEBIT under a new id restores it again. */
  'rollback-by-own-id',
  /** A ROLLBACK restores the amount it carries, not the amount its DEBIT took. */
  'rollback-trusts-amount',
  /** Treats an amount of 0 as missing and charges (or pays) the default stake of 1.00: `amount || 1`. */
  'zero-as-default-stake',
  /** Refuses a DEBIT of exactly the whole balance (`balance <= amount` instead of `<`). */
  'off-by-one-funds',
  /** Keeps balances in binary floats of major units: replies like 109.71000000000001. */
  'float-money',
  /** Stores balances as 32-bit integers of cents: anything above 21,474,836.47 wraps around. */
  'int32-cents',
  /** Pays a CREDIT to a player it does not know by creating that player. */
  'creates-players',
  /** Checks only the first signature in the header, so a rotated secret in second place is refused. */
  'first-signature-only',
  /** Refuses signatures that are too old but not ones dated in the future. */
  'past-only-timestamp',
  /**
   * Moves the money atomically, but builds each reply from the balance read when the request
   * arrived plus its own movement: under concurrency a reply carries a balance no order of the
   * callbacks explains (two parallel bets of 10.00 on 1000.00 both answer 990.00), while the final
   * balance is right.
   */
  'reply-from-stale-read',
  /** Verifies the signature of DEBITs only (the check sits in the bet handler): a forged CREDIT or ROLLBACK moves money. */
  'debit-only-signature',
  /** Remembers signature headers that verified and accepts a header it has seen on any body, without checking it again. */
  'signature-cache',
  /** Compares ids case- and accent-insensitively (MySQL's default utf8mb4_0900_ai_ci collation): `ABC` is `abc`, `é` is `e`. */
  'ci-collation-ids',
  /** Trims surrounding spaces off ids (an input "cleaner"): ` tx ` is `tx`, ` p1` is `p1`. */
  'trims-ids',
  /** Keeps the first 64 characters of an id (a VARCHAR(64) column without strict mode): long ids with a common start collide. */
  'truncates-ids',
  /**
   * Keeps ids in a 3-byte utf8 (MySQL utf8mb3) column without strict mode: an id is cut at its first
   * character outside the Basic Multilingual Plane (an emoji), so ids that differ only after it collide.
   */
  'utf8mb3-ids',
  /** Looks duplicates up with the ids concatenated into the SQL: a quote in an id is a syntax error, answered with a 500. */
  'sql-concat-ids',
  /** Rounds amounts to cents (`Math.round(amount * 100)`) instead of refusing finer ones: a DEBIT of 1.005 takes 1.00. */
  'rounds-amounts',
  /** Does not record DEBITs it refused for lack of funds, so a retry after the balance rose is charged. */
  'charges-retried-refusal',
  /** Remembers only each player's last DEBIT for idempotency (a last_bet_id column): an older DEBIT's retry is charged again. */
  'last-bet-only',
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

/**
 * The behaviour of a wallet with one fault. Everything not named by the fault behaves as the
 * reference, so `verify` reports exactly the bug that was switched on.
 * (`negative-balance` is an option of the store itself: see `overdraftLimitFor`.)
 */
export function faultyBehaviour(fault: WalletFault | undefined, store: WalletStore, options: FaultOptions = {}): WalletBehaviour {
  const reference = referenceBehaviour(store);
  if (fault === undefined || fault === 'negative-balance') return reference;
  return FAULTS[fault]({ reference, store, options });
}

/** What a fault's entry builds its wallet from: the reference behaviour, the store, the options. */
interface FaultContext {
  reference: WalletBehaviour;
  store: WalletStore;
  options: FaultOptions;
}

/**
 * One entry per planted fault: the reference behaviour with the one thing that fault breaks.
 * The compiler checks that every fault has an entry (`negative-balance` is an option of the store).
 */
const FAULTS = {
  'no-signature-check': ({ reference }) => ({ ...reference, checkSignature: null }),
  'first-signature-only': ({ reference }) => ({
    ...reference,
    checkSignature: (input) => signatureRefusal({ ...input, headers: firstSignatureOnly(input) }),
  }),
  'past-only-timestamp': ({ reference }) => ({ ...reference, checkSignature: pastOnlyTimestamp }),
  'double-debit': applying(async (event, { store }) => {
    // BUG: forgets it has seen this bet, so a retried DEBIT is charged a second time.
    if (event.kind === 'DEBIT') store.forgetTransaction(event.playerId, 'DEBIT', event.transactionId);
    return store.applyEvent(event);
  }),
  'rollback-ignored': applying(async (event, { store }) => {
    const balance = store.balanceOf(event.playerId);
    // BUG: says "done" with the current balance and never gives the bet back.
    if (event.kind === 'ROLLBACK' && balance !== undefined) return store.replies.balance(balance);
    return store.applyEvent(event);
  }),
  slow: applying(async (event, { store, options }) => {
    // BUG: the money moves, but the reply comes after the aggregator stopped waiting.
    const reply = store.applyEvent(event);
    await sleep(options.slowMs ?? DEFAULT_SLOW_MS);
    return reply;
  }),
  flaky: ({ reference, store, options }) => {
    const random = mulberry32(options.seed ?? 42);
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
  },
  race: applying((event, { store, options }) => racyApply(store, event, options.raceWindowMs ?? DEFAULT_RACE_WINDOW_MS)),
  'duplicate-race': applying(async (event, { store, options }) => {
    const previous = store.replayIfDuplicate(event);
    if (previous) return previous;
    // BUG: between the duplicate check and the write, another copy of the same DEBIT passes the check too.
    await sleep(options.raceWindowMs ?? DEFAULT_RACE_WINDOW_MS);
    store.forgetTransaction(event.playerId, event.kind, event.transactionId);
    return store.applyEvent(event);
  }),
  'tx-only-key': applying(async (event, { store }) => {
    // BUG: "have I seen this transactionId?" without asking for whom.
    const seen = store.db
      .prepare<[string, string], { reply_status: number; reply_body: string }>(
        'SELECT reply_status, reply_body FROM transactions WHERE type = ? AND tx_id = ? LIMIT 1',
      )
      .get(event.kind, event.transactionId);
    if (seen) return { status: seen.reply_status as WalletReply['status'], body: JSON.parse(seen.reply_body) };
    return store.applyEvent(event);
  }),
  'no-tombstone': applying(async (event, { store }) => {
    const balance = store.balanceOf(event.playerId);
    const debitId = event.debitTransactionId ?? event.transactionId;
    // BUG: "nothing to roll back" is answered and forgotten, so the DEBIT is charged if it arrives late.
    if (event.kind === 'ROLLBACK' && balance !== undefined && !store.findTransaction(event.playerId, 'DEBIT', debitId)) {
      return store.replies.balance(balance);
    }
    return store.applyEvent(event);
  }),
  'rollback-deletes-debit': applying((event, { store }) => rollbackDeletesDebit(store, event)),
  'refund-refused-debit': applying(async (event, { store }) => {
    const debit = refusedDebitOf(store, event);
    if (!debit) return store.applyEvent(event);
    // BUG: pays the refused bet "back", although it was never taken.
    return settled(store, event, (store.balanceOf(event.playerId) ?? 0) + debit.amountMinor, 'restored');
  }),
  'stale-debit-reply': staleReply('DEBIT'),
  'stale-credit-reply': staleReply('CREDIT'),
  'double-credit': applying(async (event, { store }) => {
    // BUG: wins are "never duplicated", so nobody checks.
    if (event.kind === 'CREDIT') store.forgetTransaction(event.playerId, 'CREDIT', event.transactionId);
    return store.applyEvent(event);
  }),
  'negative-amounts': ({ reference, store }) => ({
    ...reference,
    allowNegativeAmounts: true,
    applyCallback: async (event) => {
      if (event.amountMinor >= 0) return store.applyEvent(event);
      // BUG: no sign check, so `balance - amount` pays a negative DEBIT out (and a negative CREDIT takes money).
      const balance = store.balanceOf(event.playerId);
      if (balance === undefined) return store.applyEvent({ ...event, amountMinor: 0 });
      const after = event.kind === 'DEBIT' ? balance - event.amountMinor : balance + event.amountMinor;
      store.setBalance(event.playerId, after);
      return store.replies.balance(after);
    },
  }),
  'rollback-unknown-crash': applying(async (event, { store }) => {
    const debitId = event.debitTransactionId ?? event.transactionId;
    if (event.kind === 'ROLLBACK' && !store.findTransaction(event.playerId, 'DEBIT', debitId)) {
      // BUG: `const debit = find(id); debit.amount …` with no "not found" branch.
      return {
        status: 500,
        body: { error: 'INTERNAL_ERROR', message: "Cannot read properties of undefined (reading 'amount')" },
      };
    }
    return store.applyEvent(event);
  }),
  'rollback-unknown-credits': applying(async (event, { store }) => {
    const balance = store.balanceOf(event.playerId);
    const debitId = event.debitTransactionId ?? event.transactionId;
    if (
      event.kind !== 'ROLLBACK' ||
      balance === undefined ||
      (event.currency !== undefined && event.currency !== store.currencyOf(event.playerId)) ||
      store.replayIfDuplicate(event) ||
      store.findTransaction(event.playerId, 'DEBIT', debitId)
    ) {
      return store.applyEvent(event);
    }
    // BUG: "a refund is a refund": the amount it claims is paid although no DEBIT took it.
    return settled(store, event, balance + event.amountMinor, 'tombstone');
  }),
  'malformed-json-crash': ({ reference }) => ({
    ...reference,
    // BUG: JSON.parse outside the try, so the framework's error handler answers.
    onUnparsable: (parsed) =>
      parsed.errors[0]?.field === '(body)'
        ? { status: 500, body: { error: 'INTERNAL_ERROR', message: parsed.message } }
        : undefined,
  }),
  'rollback-by-own-id': applying(async (event, { store }) => {
    const debit =
      event.kind === 'ROLLBACK' && !store.replayIfDuplicate(event)
        ? store.findTransaction(event.playerId, 'DEBIT', event.debitTransactionId ?? event.transactionId)
        : undefined;
    if (debit?.status !== 'rolled_back') return store.applyEvent(event);
    // BUG: "is this ROLLBACK id new?" is the only question; the DEBIT's own mark is not checked.
    return settled(store, event, (store.balanceOf(event.playerId) ?? 0) + debit.amountMinor, 'restored');
  }),
  'rollback-trusts-amount': applying(async (event, { store }) => {
    const debit =
      event.kind === 'ROLLBACK'
        ? store.findTransaction(event.playerId, 'DEBIT', event.debitTransactionId ?? event.transactionId)
        : undefined;
    if (debit?.status !== 'accepted' || debit.amountMinor === event.amountMinor) return store.applyEvent(event);
    // BUG: restores what the ROLLBACK says instead of what the DEBIT took.
    const reply = store.applyEvent({ ...event, amountMinor: debit.amountMinor });
    const after = (store.balanceOf(event.playerId) ?? 0) + event.amountMinor - debit.amountMinor;
    store.setBalance(event.playerId, after);
    return reply.status === 200 ? store.replies.balance(after) : reply;
  }),
  // BUG: `amount || DEFAULT_STAKE`, so a free spin costs 1.00 and a lost round pays 1.00.
  'zero-as-default-stake': applying(async (event, { store }) =>
    store.applyEvent(event.kind !== 'ROLLBACK' && event.amountMinor === 0 ? { ...event, amountMinor: 100 } : event),
  ),
  'off-by-one-funds': applying(async (event, { store }) => {
    const balance = store.balanceOf(event.playerId);
    // BUG: `balance <= amount` refuses a bet of exactly the whole balance.
    if (event.kind === 'DEBIT' && balance !== undefined && event.amountMinor > 0 && balance === event.amountMinor) {
      return (
        store.replayIfDuplicate(event) ??
        store.replies.reject('INSUFFICIENT_FUNDS', 'Insufficient funds.', { balanceMinor: balance })
      );
    }
    return store.applyEvent(event);
  }),
  'float-money': ({ reference, store }) => floatMoneyBehaviour(reference, store),
  'int32-cents': applying(async (event, { store }) => {
    const reply = store.applyEvent(event);
    const balance = store.balanceOf(event.playerId);
    if (balance === undefined || balance === (balance | 0)) return reply;
    // BUG: the balance column is a 32-bit INT of cents.
    store.setBalance(event.playerId, balance | 0);
    return reply.status === 200 ? store.replies.balance(balance | 0) : reply;
  }),
  'reply-from-stale-read': applying(async (event, { store, options }) => {
    const arrived = store.balanceOf(event.playerId);
    await sleep(options.raceWindowMs ?? DEFAULT_RACE_WINDOW_MS);
    const replay = store.replayIfDuplicate(event);
    if (replay) return replay;
    const atApply = store.balanceOf(event.playerId);
    const reply = store.applyEvent(event);
    const after = store.balanceOf(event.playerId);
    if (reply.status !== 200 || arrived === undefined || atApply === undefined || after === undefined) return reply;
    // BUG: the reply adds this callback's movement to the balance read when the request arrived.
    return store.replies.balance(arrived + (after - atApply));
  }),
  'debit-only-signature': ({ reference }) => ({ ...reference, checkSignature: debitOnlySignature, signatureScope: 'debits' }),
  'signature-cache': ({ reference }) => ({ ...reference, checkSignature: signatureCache() }),
  // BUG: the id columns compare case- and accent-insensitively.
  'ci-collation-ids': applying(async (event, { store }) => store.applyEvent(mapIds(event, foldCaseAndAccents))),
  // BUG: "clean" ids by trimming them.
  'trims-ids': applying(async (event, { store }) => store.applyEvent(mapIds(event, (id) => id.trim()))),
  // BUG: VARCHAR(64), and the database truncates what is longer.
  'truncates-ids': applying(async (event, { store }) => store.applyEvent(mapIds(event, (id) => id.slice(0, 64)))),
  // BUG: utf8mb3 cannot store a 4-byte character, and the database drops the rest of the id.
  'utf8mb3-ids': applying(async (event, { store }) => store.applyEvent(mapIds(event, cutAtAstral))),
  'sql-concat-ids': applying(async (event, { store }) => sqlConcatLookup(store, event) ?? store.applyEvent(event)),
  'rounds-amounts': ({ reference }) => ({ ...reference, rewriteBody: roundAmounts }),
  'charges-retried-refusal': applying(async (event, { store }) => {
    const reply = store.applyEvent(event);
    // BUG: only accepted bets are kept; a refused one is "nothing happened".
    if (event.kind === 'DEBIT' && store.findTransaction(event.playerId, 'DEBIT', event.transactionId)?.status === 'rejected')
      store.forgetTransaction(event.playerId, 'DEBIT', event.transactionId);
    return reply;
  }),
  'last-bet-only': ({ reference, store }) => ({ ...reference, applyCallback: lastBetOnly(store) }),
  'creates-players': applying(async (event, { store }) => {
    // BUG: an unknown player is "created on first win".
    if (event.kind === 'CREDIT' && store.balanceOf(event.playerId) === undefined) store.setBalance(event.playerId, 0);
    return store.applyEvent(event);
  }),
} satisfies Record<Exclude<WalletFault, 'negative-balance'>, (wallet: FaultContext) => WalletBehaviour>;

/** A fault that breaks only how a callback is applied: the reference behaviour with `apply` instead. */
function applying(
  apply: (event: WalletEvent, fault: FaultContext) => Promise<WalletReply>,
): (fault: FaultContext) => WalletBehaviour {
  return (fault) => ({ ...fault.reference, applyCallback: (event) => apply(event, fault) });
}

/** Replies to a `kind` callback with the balance read before it moved the money. */
function staleReply(kind: 'DEBIT' | 'CREDIT'): (fault: FaultContext) => WalletBehaviour {
  return applying(async (event, { store }) => {
    const before = store.balanceOf(event.playerId);
    const reply = store.applyEvent(event);
    // BUG: the reply is built from the balance it read first, not the one it wrote.
    if (event.kind !== kind || reply.status !== 200 || before === undefined) return reply;
    return store.replies.balance(before);
  });
}

/** How a case- and accent-insensitive collation sees an id. */
function foldCaseAndAccents(id: string): string {
  return id.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** How a utf8mb3 column without strict mode keeps an id: up to its first character outside the BMP. */
function cutAtAstral(id: string): string {
  const at = id.search(/[\u{10000}-\u{10FFFF}]/u);
  return at < 0 ? id : id.slice(0, at);
}

/** `negative-balance`: the store is opened with no floor under the balance. */
export function overdraftLimitFor(fault: WalletFault | undefined): number {
  return fault === 'negative-balance' ? Number.POSITIVE_INFINITY : 0;
}
