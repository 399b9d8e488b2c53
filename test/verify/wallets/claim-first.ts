/**
 * A wallet that claims the transaction id before anything else: one SQLite row per
 * (player, type, transactionId) is inserted first (INSERT … ON CONFLICT DO NOTHING), and when the
 * insert finds the row already there, the stored reply is the answer. Everything happens in one
 * IMMEDIATE transaction per callback.
 *
 * Its reply style, strict and spare: 400 INVALID_REQUEST for an amount of 0 (free spins and
 * losing rounds are not the wallet's business), 402 INSUFFICIENT_FUNDS and 404 PLAYER_NOT_FOUND
 * with no balance, 404 TRANSACTION_NOT_FOUND with no balance for a ROLLBACK of a DEBIT it never
 * saw (a repeat of that ROLLBACK gets the same 404), 200 + the original reply for a repeated
 * ROLLBACK, 409 INVALID_REQUEST for a DEBIT whose ROLLBACK came first. Reference-style ROLLBACKs
 * (own transactionId + referenceTransactionId), and the plain hmac-hex signature scheme with
 * several signatures in the header during a rotation. No provider-state endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase, pluck } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

type Reply = { status: number; body: Record<string, unknown> };

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, cents INTEGER NOT NULL CHECK (cents >= 0));
  CREATE TABLE IF NOT EXISTS claims (player TEXT NOT NULL, type TEXT NOT NULL, tx TEXT NOT NULL,
    cents INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'PENDING', reply TEXT,
    PRIMARY KEY (player, type, tx));`;

export function claimFirstBalances(dbPath: string): Record<string, number> {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, cents FROM players').all() as { id: string; cents: number }[];
    return Object.fromEntries(rows.map((r) => [r.id, r.cents]));
  } finally {
    db.close();
  }
}

/** hmac-hex: the header holds one or more hex HMAC-SHA256 of the raw body, comma- or space-separated. */
function signed(header: string | undefined, raw: Buffer, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  return (header ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((hex) => {
      const given = Buffer.from(hex.replace(/^sha256=/i, ''), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export async function startClaimFirstWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = openDatabase(options.dbPath);
  db.exec(SCHEMA);
  const seed = db.prepare('INSERT OR IGNORE INTO players VALUES (?, ?)');
  for (const [id, major] of Object.entries(options.players ?? {})) seed.run(id, Math.round(major * 100));

  const claim = db.prepare('INSERT INTO claims (player, type, tx, cents) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1');
  const storedReply = pluck(db.prepare('SELECT reply FROM claims WHERE player = ? AND type = ? AND tx = ?'));
  const settle = db.prepare('UPDATE claims SET status = ?, reply = ? WHERE player = ? AND type = ? AND tx = ?');
  const debitOf = db.prepare("SELECT cents, status FROM claims WHERE player = ? AND type = 'DEBIT' AND tx = ?");
  const markDebit = db.prepare("UPDATE claims SET status = ? WHERE player = ? AND type = 'DEBIT' AND tx = ?");
  const tombstone = db.prepare(
    "INSERT INTO claims (player, type, tx, status, reply) VALUES (?, 'DEBIT', ?, 'VOID', ?) ON CONFLICT DO NOTHING",
  );
  const balanceOf = pluck(db.prepare('SELECT cents FROM players WHERE id = ?'));
  const move = pluck(db.prepare('UPDATE players SET cents = cents + ? WHERE id = ? RETURNING cents'));

  const balance = (cents: number): Reply => ({ status: 200, body: { balance: cents / 100 } });
  const refusal = (status: number, error: string, message: string): Reply => ({ status, body: { error, message } });

  const handle = db.transaction((b: Record<string, unknown>): Reply => {
    const { type, playerId: player, transactionId: tx } = b;
    if (typeof player !== 'string' || !player || typeof tx !== 'string' || !tx)
      return refusal(400, 'INVALID_REQUEST', 'playerId and transactionId must be non-empty strings');
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return refusal(400, 'INVALID_REQUEST', 'type must be DEBIT, CREDIT or ROLLBACK');
    const ref = type === 'ROLLBACK' ? b.referenceTransactionId : undefined;
    if (type === 'ROLLBACK' && (typeof ref !== 'string' || !ref))
      return refusal(400, 'INVALID_REQUEST', 'a ROLLBACK names its DEBIT in referenceTransactionId');
    const amount = b.amount;
    const cents = typeof amount === 'number' && Number.isFinite(amount) ? Math.round(amount * 100) : Number.NaN;
    if (type !== 'ROLLBACK' && !(cents > 0 && Math.abs((amount as number) * 100 - cents) < 1e-6))
      return refusal(400, 'INVALID_REQUEST', 'amount must be a number above 0 with at most 2 decimals');
    const current = balanceOf.get(player) as number | undefined;
    if (current === undefined) return refusal(404, 'PLAYER_NOT_FOUND', `player ${player} is not ours`);
    if (!claim.get(player, type, tx, type === 'ROLLBACK' ? 0 : cents)) {
      const reply = storedReply.get(player, type, tx) as string | null;
      // A DEBIT whose ROLLBACK came first finds the tombstone the ROLLBACK left.
      if (reply !== null) return JSON.parse(reply) as Reply;
    }
    let reply: Reply;
    let status = 'DONE';
    if (type === 'CREDIT') reply = balance(move.get(cents, player) as number);
    else if (type === 'DEBIT') {
      if (cents > current) {
        reply = refusal(402, 'INSUFFICIENT_FUNDS', `balance is below ${amount}`);
        status = 'REFUSED';
      } else reply = balance(move.get(-cents, player) as number);
    } else {
      const debit = debitOf.get(player, ref) as { cents: number; status: string } | undefined;
      if (!debit) {
        tombstone.run(
          player,
          ref,
          JSON.stringify(refusal(409, 'INVALID_REQUEST', `DEBIT ${String(ref)} was rolled back before it arrived`)),
        );
        reply = refusal(404, 'TRANSACTION_NOT_FOUND', `no DEBIT ${String(ref)}`);
      } else if (debit.status === 'DONE') {
        markDebit.run('ROLLED_BACK', player, ref);
        reply = balance(move.get(debit.cents, player) as number);
      } else reply = balance(current);
    }
    settle.run(status, JSON.stringify(reply), player, type, tx);
    return reply;
  });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let reply: Reply;
      if (req.method !== 'POST' || req.url !== '/callback/webhook') reply = refusal(404, 'NOT_FOUND', 'no such route');
      else if (!signed(req.headers['x-signature'] as string | undefined, raw, secret))
        reply = refusal(401, 'INVALID_SIGNATURE', 'X-Signature does not match the body');
      else {
        let body: unknown;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {}
        if (!body || typeof body !== 'object' || Array.isArray(body))
          reply = refusal(400, 'INVALID_REQUEST', 'the body must be a JSON object');
        else {
          try {
            reply = handle(body as Record<string, unknown>);
          } catch (e) {
            reply = refusal(500, 'INTERNAL_ERROR', (e as Error).message);
          }
        }
      }
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          db.close();
          resolve();
        });
      }),
  };
}
