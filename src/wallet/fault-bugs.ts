/**
 * How each bug of a faulty wallet is built (see faults.ts for the catalogue): the read-modify-write
 * races, the float wallet, the signature shortcuts. Deliberately wrong code; never copy it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_HEADER_NAMES } from '../signing/index.ts';
import { type SignatureInput, signatureRefusal, type WalletBehaviour } from './behaviour.ts';
import type { WalletEvent } from './events.ts';
import type { WalletReply } from './replies.ts';
import type { TransactionStatus, WalletStore } from './store.ts';

/** The refused DEBIT a ROLLBACK reverses, if that is what it does. */
export function refusedDebitOf(store: WalletStore, event: WalletEvent) {
  if (event.kind !== 'ROLLBACK' || store.replayIfDuplicate(event)) return undefined;
  const debit = store.findTransaction(event.playerId, 'DEBIT', event.debitTransactionId ?? event.transactionId);
  return debit?.status === 'rejected' ? debit : undefined;
}

/**
 * BUG (`rollback-deletes-debit`): a ROLLBACK that gives a bet back deletes the bet ("it is
 * cancelled"); only a ROLLBACK that found no bet is kept as a tombstone against a late DEBIT. A
 * retry of the DEBIT that arrives after its ROLLBACK finds neither the bet nor a tombstone, so it
 * is taken for a new bet and charged again.
 */
export async function rollbackDeletesDebit(store: WalletStore, event: WalletEvent): Promise<WalletReply> {
  const debitId = event.debitTransactionId ?? event.transactionId;
  if (event.kind === 'ROLLBACK') {
    const reply = store.applyEvent(event);
    if (store.findTransaction(event.playerId, 'DEBIT', debitId)?.status === 'rolled_back') {
      store.forgetTransaction(event.playerId, 'DEBIT', debitId);
    }
    return reply;
  }
  const balance = store.balanceOf(event.playerId);
  if (
    event.kind !== 'DEBIT' ||
    store.replayIfDuplicate(event) ||
    !rolledBackFirst(store, event, true) ||
    balance === undefined ||
    balance < event.amountMinor
  ) {
    return store.applyEvent(event);
  }
  return settled(store, event, balance - event.amountMinor, 'accepted');
}

/** Writes `after` as the player's balance, records the event as `status` with that balance as its reply, and answers it. */
export function settled(store: WalletStore, event: WalletEvent, after: number, status: TransactionStatus): WalletReply {
  store.setBalance(event.playerId, after);
  const reply = store.replies.balance(after);
  store.recordTransaction(event, status, reply);
  return reply;
}

/**
 * A ROLLBACK of this DEBIT came first; with `restored`, one that gave its money back (as opposed to
 * a tombstone left by one that found nothing).
 */
function rolledBackFirst(store: WalletStore, event: WalletEvent, restored = false): boolean {
  const status = restored ? " AND status = 'restored'" : '';
  const sql = `SELECT 1 FROM transactions WHERE player_id = ? AND type = 'ROLLBACK' AND ref_tx_id = ?${status} LIMIT 1`;
  return store.db.prepare(sql).get(event.playerId, event.transactionId) !== undefined;
}

/**
 * BUG (`float-money`): the balance lives in a binary float of major units, so sums of cents pick
 * up noise (100.1 + 0.2 = 100.30000000000001) and the wallet writes that into its replies. The
 * store keeps exact cents underneath, so only the replies show the bug.
 */
export function floatMoneyBehaviour(reference: WalletBehaviour, store: WalletStore): WalletBehaviour {
  const floats = new Map<string, number>();
  // The float replies as sent, so a duplicate gets its first reply again (one bug per fault: only the floats are wrong).
  const sent = new Map<string, WalletReply>();
  return {
    ...reference,
    applyCallback: async (event) => {
      const key = JSON.stringify([event.playerId, event.kind, event.transactionId]);
      const first = sent.get(key);
      if (first && store.replayIfDuplicate(event)) return first;
      const before = store.balanceOf(event.playerId);
      const reply = store.applyEvent(event);
      const after = store.balanceOf(event.playerId);
      if (before === undefined || after === undefined || reply.status !== 200) return reply;
      const tracked = floats.get(event.playerId);
      const start = tracked !== undefined && Math.round(tracked * 100) === before ? tracked : before / 100;
      const floatAfter = start + (after - before) / 100;
      floats.set(event.playerId, floatAfter);
      const floatReply: WalletReply = { status: 200, body: { balance: floatAfter } };
      sent.set(key, floatReply);
      return floatReply;
    },
  };
}

/** `first-signature-only`: the headers with every signature after the first removed. */
export function firstSignatureOnly({ headers, signing }: SignatureInput): Headers {
  const names = { ...DEFAULT_HEADER_NAMES, ...signing.headers };
  const copy = new Headers(headers);
  const timestamped = copy.get(names.signature);
  if (timestamped !== null) {
    const parts = timestamped.split(',');
    const first = parts.findIndex((p) => !p.startsWith('t='));
    copy.set(names.signature, parts.filter((p, i) => p.startsWith('t=') || i === first).join(','));
  }
  const standard = copy.get(names.webhookSignature);
  if (standard !== null) copy.set(names.webhookSignature, standard.split(' ')[0] ?? '');
  return copy;
}

/** `past-only-timestamp`: refuses old signatures, but checks a future timestamp against itself. */
export function pastOnlyTimestamp(input: SignatureInput): string | undefined {
  const names = { ...DEFAULT_HEADER_NAMES, ...input.signing.headers };
  const raw = input.headers.get(names.webhookTimestamp) ?? /(?:^|,)t=(\d+)/.exec(input.headers.get(names.signature) ?? '')?.[1];
  const timestamp = raw === undefined || raw === null ? undefined : Number(raw);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (timestamp === undefined || timestamp <= now) return signatureRefusal(input);
  // BUG: only "too old" is checked; a timestamp ahead of the clock is compared with itself.
  return signatureRefusal({ ...input, now: timestamp });
}
/**
 * BUG (the `race` variant): the classic read-modify-write across an `await` — say, a call to a
 * fraud service — with no transaction. Every DEBIT that reads before another one writes sees the
 * same balance, so all of them pass the funds check and the last write wins.
 */
export async function racyApply(store: WalletStore, event: WalletEvent, windowMs: number): Promise<WalletReply> {
  if (event.kind !== 'DEBIT') return racyApplyOther(store, event, windowMs);
  const previous = store.replayIfDuplicate(event);
  if (previous) return previous;
  const balance = store.balanceOf(event.playerId);
  // A late DEBIT whose ROLLBACK came first is still refused (one bug per fault).
  if (balance === undefined || rolledBackFirst(store, event)) return store.applyEvent(event);
  await sleep(windowMs);
  if (balance < event.amountMinor) {
    const reply = store.replies.reject('INSUFFICIENT_FUNDS', `Player ${event.playerId} has insufficient funds.`, {
      balanceMinor: balance,
    });
    store.recordTransaction(event, 'rejected', reply);
    return reply;
  }
  return settled(store, event, balance - event.amountMinor, 'accepted');
}

/** The same read-modify-write for CREDITs and ROLLBACKs: the change lands on a stale balance. */
export async function racyApplyOther(store: WalletStore, event: WalletEvent, windowMs: number): Promise<WalletReply> {
  const previous = store.replayIfDuplicate(event);
  if (previous) return previous;
  const stale = store.balanceOf(event.playerId);
  await sleep(windowMs);
  const fresh = store.balanceOf(event.playerId);
  const reply = store.applyEvent(event);
  const after = store.balanceOf(event.playerId);
  if (reply.status !== 200 || stale === undefined || fresh === undefined || after === undefined) return reply;
  const written = stale + (after - fresh);
  store.setBalance(event.playerId, written);
  return store.replies.balance(written);
}

/** The event with every id (player, transaction, reversed DEBIT) passed through `f`, as a lossy id column stores it. */
export function mapIds(event: WalletEvent, f: (id: string) => string): WalletEvent {
  return {
    ...event,
    playerId: f(event.playerId),
    transactionId: f(event.transactionId),
    ...(event.debitTransactionId === undefined ? {} : { debitTransactionId: f(event.debitTransactionId) }),
  };
}

/** `debit-only-signature`: the signature is checked for a body whose type is DEBIT, and for nothing else. */
export function debitOnlySignature(input: SignatureInput): string | undefined {
  let type: unknown;
  try {
    type = (JSON.parse(Buffer.from(input.rawBody).toString('utf8')) as { type?: unknown }).type;
  } catch {
    return signatureRefusal(input);
  }
  // BUG: the check lives in the bet handler.
  return type === 'DEBIT' ? signatureRefusal(input) : undefined;
}

/** `signature-cache`: a signature header that verified once is trusted again on any body. */
export function signatureCache(): (input: SignatureInput) => string | undefined {
  const good = new Set<string>();
  return (input) => {
    const names = { ...DEFAULT_HEADER_NAMES, ...input.signing.headers };
    const header = input.headers.get(names.signature) ?? input.headers.get(names.webhookSignature) ?? '';
    // BUG: "seen and verified before, so it is fine" — but never against THIS body.
    if (good.has(header)) return undefined;
    const refusal = signatureRefusal(input);
    if (refusal === undefined && header !== '') good.add(header);
    return refusal;
  };
}

/**
 * `sql-concat-ids`: the duplicate lookup is a string of SQL with the ids pasted in. A quote in an
 * id makes it a syntax error, or a second statement (`';DROP TABLE …;--`) that both SQLite drivers
 * refuse to prepare (nothing runs), answered with a 500; an id like `' OR '1'='1` finds somebody
 * else's transaction.
 */
export function sqlConcatLookup(store: WalletStore, event: WalletEvent): WalletReply | undefined {
  const sql = `SELECT reply_status, reply_body FROM transactions WHERE player_id = '${event.playerId}' AND type = '${event.kind}' AND tx_id = '${event.transactionId}'`;
  try {
    const seen = store.db.prepare<[], { reply_status: number; reply_body: string }>(sql).get();
    return seen ? { status: seen.reply_status as WalletReply['status'], body: JSON.parse(seen.reply_body) } : undefined;
  } catch (error) {
    return { status: 500, body: { error: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** `rounds-amounts`: the body's amount rounded to cents in binary floats before it is read. */
export function roundAmounts(rawBody: Uint8Array): Uint8Array {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(rawBody).toString('utf8')) as Record<string, unknown>;
  } catch {
    return rawBody;
  }
  if (typeof body.amount !== 'number') return rawBody;
  // BUG: Math.round(1.005 * 100) is 100: the DEBIT of 1.005 takes 1.00.
  body.amount = Math.round(body.amount * 100) / 100;
  return new TextEncoder().encode(JSON.stringify(body));
}

/**
 * `last-bet-only`: a DEBIT is a duplicate only when it repeats the player's last DEBIT (the
 * immediate retry); an older DEBIT's retry is taken for a new bet and charged again.
 */
export function lastBetOnly(store: WalletStore): (event: WalletEvent) => Promise<WalletReply> {
  const lastBet = new Map<string, string>();
  return async (event) => {
    if (event.kind !== 'DEBIT') return store.applyEvent(event);
    // BUG: the player row holds one last_bet_id; older bets are forgotten.
    if (
      lastBet.get(event.playerId) !== event.transactionId &&
      store.findTransaction(event.playerId, 'DEBIT', event.transactionId)?.status === 'accepted'
    )
      store.forgetTransaction(event.playerId, 'DEBIT', event.transactionId);
    lastBet.set(event.playerId, event.transactionId);
    return store.applyEvent(event);
  };
}
