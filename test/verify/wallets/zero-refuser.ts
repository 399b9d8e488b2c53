/**
 * A decimal wallet that refuses zero amounts (400 INVALID_REQUEST), acknowledges ROLLBACKs of
 * unknown DEBITs with 200 {balance}, and understands both rollback styles: "original" (the
 * ROLLBACK carries the DEBIT's transactionId) and "reference" (its own transactionId plus
 * referenceTransactionId). A DEBIT arriving after its ROLLBACK is refused with 409.
 * node:http, SQLite file (separate debit / credit / rollback tables), BEGIN IMMEDIATE per callback,
 * signatures through aggmock's verifySignature.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../src/signing/index.ts';
import { openDatabase, pluck } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

interface Callback {
  type: 'DEBIT' | 'CREDIT' | 'ROLLBACK';
  transactionId: string;
  referenceTransactionId?: string;
  playerId: string;
  amount: number;
}
type Result = { status: number; body: object };

const schema = `
  CREATE TABLE IF NOT EXISTS balances (player TEXT PRIMARY KEY, minor INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS debits (player TEXT, id TEXT, minor INTEGER, status TEXT, result TEXT, PRIMARY KEY (player, id));
  CREATE TABLE IF NOT EXISTS credits (player TEXT, id TEXT, minor INTEGER, result TEXT, PRIMARY KEY (player, id));
  CREATE TABLE IF NOT EXISTS rollbacks (player TEXT, id TEXT, debit_id TEXT, result TEXT, PRIMARY KEY (player, id));`;

export function zeroRefuserBalances(dbPath: string): Record<string, number> {
  const db = openDatabase(dbPath, { readonly: true });
  const rows = db.prepare('SELECT player, minor FROM balances').all() as { player: string; minor: number }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.player, r.minor]));
}

/** Validates a parsed body; returns the callback or what is wrong with it. */
function parse(body: unknown): Callback | string {
  if (typeof body !== 'object' || body === null) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (b.type !== 'DEBIT' && b.type !== 'CREDIT' && b.type !== 'ROLLBACK') return 'type must be DEBIT, CREDIT or ROLLBACK';
  for (const f of ['transactionId', 'playerId'] as const) if (typeof b[f] !== 'string' || b[f] === '') return `${f} is required`;
  if (b.referenceTransactionId !== undefined && typeof b.referenceTransactionId !== 'string')
    return 'referenceTransactionId must be a string';
  if (b.type !== 'ROLLBACK') {
    const a = b.amount;
    if (typeof a !== 'number' || !Number.isFinite(a) || a <= 0) return 'amount must be a number greater than 0';
    if (Math.abs(a * 100 - Math.round(a * 100)) > 1e-6) return 'amount has more than 2 decimals';
  }
  return b as unknown as Callback;
}

export async function startZeroRefuserWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = openDatabase(options.dbPath);
  db.exec(schema);
  const addPlayer = db.prepare('INSERT OR IGNORE INTO balances VALUES (?, ?)');
  for (const [id, major] of Object.entries(options.players ?? {})) addPlayer.run(id, Math.round(major * 100));

  const balanceOf = pluck(db.prepare('SELECT minor FROM balances WHERE player = ?'));
  const add = pluck(db.prepare('UPDATE balances SET minor = minor + ? WHERE player = ? RETURNING minor'));
  const debitRow = db.prepare('SELECT minor, status, result FROM debits WHERE player = ? AND id = ?');
  const creditRow = db.prepare('SELECT result FROM credits WHERE player = ? AND id = ?');
  const rollbackRow = db.prepare('SELECT result FROM rollbacks WHERE player = ? AND id = ?');
  const insertDebit = db.prepare('INSERT INTO debits VALUES (?, ?, ?, ?, ?)');
  const setDebitStatus = db.prepare('UPDATE debits SET status = ? WHERE player = ? AND id = ?');
  const insertCredit = db.prepare('INSERT INTO credits VALUES (?, ?, ?, ?)');
  const insertRollback = db.prepare('INSERT INTO rollbacks VALUES (?, ?, ?, ?)');
  const ok = (minor: number): Result => ({ status: 200, body: { balance: minor / 100 } });

  const handle = db.transaction((cb: Callback): Result => {
    const { playerId: p, transactionId: id } = cb;
    const stored = (cb.type === 'DEBIT' ? debitRow : cb.type === 'CREDIT' ? creditRow : rollbackRow).get(p, id) as
      | { result: string }
      | undefined;
    if (stored) return JSON.parse(stored.result) as Result;
    const balance = balanceOf.get(p) as number | undefined;
    if (balance === undefined) return { status: 404, body: { error: 'PLAYER_NOT_FOUND', message: `no player ${p}` } };
    const amount = Math.round(cb.amount * 100);

    if (cb.type === 'CREDIT') {
      const result = ok(add.get(amount, p) as number);
      insertCredit.run(p, id, amount, JSON.stringify(result));
      return result;
    }
    if (cb.type === 'DEBIT') {
      if (amount > balance) {
        // Kept (with nothing to give back), so a repeat gets this refusal again.
        const refused: Result = { status: 402, body: { error: 'INSUFFICIENT_FUNDS', balance: balance / 100 } };
        insertDebit.run(p, id, 0, 'VOID', JSON.stringify(refused));
        return refused;
      }
      const result = ok(add.get(-amount, p) as number);
      insertDebit.run(p, id, amount, 'OPEN', JSON.stringify(result));
      return result;
    }
    const debitId = cb.referenceTransactionId ?? id;
    const debit = debitRow.get(p, debitId) as { minor: number; status: string } | undefined;
    let result: Result;
    if (!debit) {
      result = ok(balance);
      const refused = { status: 409, body: { error: 'INVALID_REQUEST', message: `DEBIT ${debitId} was already rolled back` } };
      insertDebit.run(p, debitId, 0, 'VOID', JSON.stringify(refused));
    } else if (debit.status === 'OPEN') {
      result = ok(add.get(debit.minor, p) as number);
      setDebitStatus.run('ROLLED_BACK', p, debitId);
    } else {
      result = ok(balance);
    }
    insertRollback.run(p, id, debitId, JSON.stringify(result));
    return result;
  });

  const readBody = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => resolve(Buffer.concat(parts)));
      req.on('error', reject);
    });

  const server = createServer(async (req, res) => {
    const reply = ({ status, body }: Result) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    const raw = await readBody(req).catch(() => Buffer.alloc(0));
    if (req.method !== 'POST' || req.url !== '/callback/webhook') return reply({ status: 404, body: { error: 'NOT_FOUND' } });
    try {
      verifySignature({ scheme: 'timestamped', secrets: [secret], payload: raw, headers: req.headers });
    } catch (e) {
      return reply({ status: 401, body: { error: 'INVALID_SIGNATURE', message: (e as Error).message } });
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      return reply({ status: 400, body: { error: 'INVALID_REQUEST', message: 'malformed JSON' } });
    }
    const cb = parse(json);
    if (typeof cb === 'string') return reply({ status: 400, body: { error: 'INVALID_REQUEST', message: cb } });
    try {
      reply(handle(cb));
    } catch (e) {
      reply({ status: 500, body: { error: 'INTERNAL_ERROR', message: (e as Error).message } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}
