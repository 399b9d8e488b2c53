/**
 * A small in-memory wallet that is correct unless one of four subtle bugs is switched on — bugs
 * the reference wallet's fault catalogue (src/wallet/faults.ts) does not plant, each of which
 * real wallets have shipped with. Every callback is handled synchronously (atomic on Node's one
 * thread); idempotency per (player, type, transactionId); tombstones for ROLLBACKs that came first.
 * Deliberately wrong code when a bug is on; never copy it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../src/signing/index.ts';
import type { StartedWallet } from './types.ts';

export const SUBTLE_BUGS = [
  /**
   * A ROLLBACK gives the bet back and deletes the bet's row ("the bet is cancelled"), so a retry
   * of that DEBIT arriving after its ROLLBACK looks new and is charged again. A DEBIT whose
   * ROLLBACK came first is still refused: only a ROLLBACK that found nothing leaves a tombstone.
   */
  'refund-deletes-debit',
  /**
   * A duplicate moves no money but is answered with the balance as it is now, not the stored
   * first reply: right when the repeat comes straight after, wrong once anything happened between.
   */
  'current-balance-on-duplicate',
  /** Idempotency keyed on (player, type, transactionId, amount): a repeat with another amount is a new bet. */
  'amount-in-key',
  /**
   * A ROLLBACK restores the amount it carries, capped at the DEBIT's ("never refund more than was
   * bet"): safe against a ROLLBACK claiming too much, but one claiming less gives back too little.
   */
  'rollback-capped-by-claim',
  /** Trims ids (a validator with `trim: true`): ` p1` is p1, and ` tx ` repeats `tx`. */
  'trims-ids',
  /** Lower-cases ids ("ids are case-insensitive"): `P1` is p1, and `TX-A` repeats `tx-a`. */
  'lower-cases-ids',
  /** Reads amounts as Math.round(amount * 100) with no check of the decimals: a DEBIT of 1.005 takes 1.00. */
  'rounds-amounts',
  /** Keeps only transactions that moved money: a DEBIT refused for lack of funds, retried after a win, is charged. */
  'forgets-refusals',
] as const;
export type SubtleBug = (typeof SUBTLE_BUGS)[number];

type Reply = { status: number; body: Record<string, unknown> };
interface Entry {
  cents: number;
  reply: Reply;
  /** DEBIT: still to be given back by a ROLLBACK. */
  open?: boolean;
}

export async function startSubtleBugWallet(options: {
  bug?: SubtleBug;
  players: Record<string, number>;
  secret?: string;
}): Promise<StartedWallet & { balances(): Record<string, number> }> {
  const { bug } = options;
  const secret = options.secret ?? 'aggmock-dev-secret';
  const balances = new Map(Object.entries(options.players).map(([id, major]) => [id, Math.round(major * 100)]));
  const entries = new Map<string, Entry>();
  /** DEBIT ids whose ROLLBACK came before them, per player. */
  const tombstones = new Set<string>();

  const ok = (cents: number): Reply => ({ status: 200, body: { balance: cents / 100 } });
  const refuse = (status: number, error: string, cents?: number): Reply => ({
    status,
    body: { error, ...(cents === undefined ? {} : { balance: cents / 100 }) },
  });

  const cleanId = (id: string) => (bug === 'trims-ids' ? id.trim() : bug === 'lower-cases-ids' ? id.toLowerCase() : id);

  function apply(b: Record<string, unknown>): Reply {
    const { type } = b;
    if (
      typeof b.playerId !== 'string' ||
      typeof b.transactionId !== 'string' ||
      (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
    )
      return refuse(400, 'INVALID_REQUEST');
    const p = cleanId(b.playerId);
    const id = cleanId(b.transactionId);
    const amount = typeof b.amount === 'number' && Number.isFinite(b.amount) ? Math.round(b.amount * 100) : Number.NaN;
    if (type !== 'ROLLBACK' && !(amount >= 0)) return refuse(400, 'INVALID_REQUEST');
    // More decimals than cents: refused, unless the bug rounds them away.
    if (bug !== 'rounds-amounts' && type !== 'ROLLBACK' && Math.abs((b.amount as number) * 100 - amount) > 1e-6)
      return refuse(400, 'INVALID_REQUEST');
    const balance = balances.get(p);
    if (balance === undefined) return refuse(404, 'PLAYER_NOT_FOUND');
    const key = bug === 'amount-in-key' && type !== 'ROLLBACK' ? `${p} ${type} ${id} ${amount}` : `${p} ${type} ${id}`;
    const seen = entries.get(key);
    if (seen) return bug === 'current-balance-on-duplicate' && seen.reply.status === 200 ? ok(balance) : seen.reply;

    let entry: Entry;
    if (type === 'CREDIT') {
      balances.set(p, balance + amount);
      entry = { cents: amount, reply: ok(balance + amount) };
    } else if (type === 'DEBIT') {
      if (tombstones.has(`${p} ${id}`)) entry = { cents: 0, reply: refuse(409, 'INVALID_REQUEST', balance) };
      else if (amount > balance) {
        entry = { cents: 0, reply: refuse(402, 'INSUFFICIENT_FUNDS', balance) };
        if (bug === 'forgets-refusals') return entry.reply;
      } else {
        balances.set(p, balance - amount);
        entry = { cents: amount, reply: ok(balance - amount), open: true };
      }
    } else {
      const debitId = typeof b.referenceTransactionId === 'string' ? cleanId(b.referenceTransactionId) : id;
      const debitKey = [...entries.keys()].find((k) => k === `${p} DEBIT ${debitId}` || k.startsWith(`${p} DEBIT ${debitId} `));
      const debit = debitKey === undefined ? undefined : entries.get(debitKey);
      if (debit === undefined) tombstones.add(`${p} ${debitId}`);
      else if (debit.open) {
        debit.open = false;
        const claimed = Number.isNaN(amount) ? debit.cents : amount;
        balances.set(p, balance + (bug === 'rollback-capped-by-claim' ? Math.min(claimed, debit.cents) : debit.cents));
        if (bug === 'refund-deletes-debit') entries.delete(debitKey as string);
      }
      entry = { cents: 0, reply: ok(balances.get(p) as number) };
    }
    entries.set(key, entry);
    return entry.reply;
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {}
      let signed = true;
      try {
        verifySignature({ scheme: 'timestamped', secrets: [secret], payload: raw, headers: req.headers });
      } catch {
        signed = false;
      }
      const reply = !signed
        ? refuse(401, 'INVALID_SIGNATURE')
        : body && typeof body === 'object' && !Array.isArray(body)
          ? apply(body as Record<string, unknown>)
          : refuse(400, 'INVALID_REQUEST');
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    balances: () => Object.fromEntries(balances),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
