/**
 * A wallet that speaks integer minor units on the wire (amount 1050 = 10.50, balance in cents).
 * node:http, SQLite file with a BEGIN IMMEDIATE transaction per callback, signature checked by
 * hand. A ROLLBACK of an unknown DEBIT is acknowledged with 200 {balance}; the DEBIT, if it comes
 * later, is acknowledged too but takes no money. Zero amounts are accepted and move nothing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

const TOLERANCE_S = 300;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(code);
  }
}

function checkSignature(header: string | string[] | undefined, body: Buffer, secret: string): void {
  const fields = (typeof header === 'string' ? header : '').split(',').map((f) => f.trim().split('='));
  const t = fields.find(([k]) => k === 't')?.[1];
  const given = fields.filter(([k, v]) => k === 'v1' && v).map(([, v]) => Buffer.from(v as string, 'hex'));
  if (!t || !/^\d+$/.test(t) || given.length === 0) throw new HttpError(401, 'INVALID_SIGNATURE');
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(t)) > TOLERANCE_S) throw new HttpError(401, 'INVALID_SIGNATURE');
  const mine = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest();
  const matches = given.map((g) => g.length === mine.length && timingSafeEqual(g, mine));
  if (!matches.includes(true)) throw new HttpError(401, 'INVALID_SIGNATURE');
}

function openStore(path: string) {
  const db = openDatabase(path);
  db.exec(`CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, balance INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS transactions (
      player_id TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, amount INTEGER NOT NULL,
      rolled_back INTEGER NOT NULL DEFAULT 0, response TEXT NOT NULL, PRIMARY KEY (player_id, kind, id));`);
  return db;
}

export function minorBalances(path: string): Record<string, number> {
  const db = openStore(path);
  const rows = db.prepare('SELECT id, balance FROM players').all() as { id: string; balance: number }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.id, r.balance]));
}

export async function startMinorUnitsWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = openStore(options.dbPath);
  for (const [id, major] of Object.entries(options.players ?? {})) {
    db.prepare('INSERT OR IGNORE INTO players (id, balance) VALUES (?, ?)').run(id, Math.round(major * 100));
  }
  const getBalance = db.prepare<[string], { balance: number }>('SELECT balance FROM players WHERE id = ?');
  const setBalance = db.prepare('UPDATE players SET balance = ? WHERE id = ?');
  const getTx = db.prepare<[string, string, string], { amount: number; rolled_back: number; response: string }>(
    'SELECT amount, rolled_back, response FROM transactions WHERE player_id = ? AND kind = ? AND id = ?',
  );
  const insertTx = db.prepare(
    'INSERT INTO transactions (player_id, kind, id, amount, rolled_back, response) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const markRolledBack = db.prepare("UPDATE transactions SET rolled_back = 1 WHERE player_id = ? AND kind = 'DEBIT' AND id = ?");

  /** One callback, all inside one IMMEDIATE transaction. Returns the response body (200). */
  const applyCallback = db.transaction((msg: Record<string, unknown>): Record<string, unknown> => {
    const { type, playerId, transactionId } = msg;
    if (typeof playerId !== 'string' || playerId === '' || typeof transactionId !== 'string' || transactionId === '')
      throw new HttpError(400, 'INVALID_REQUEST', { message: 'playerId and transactionId are required' });
    if (!['DEBIT', 'CREDIT', 'ROLLBACK'].includes(type as string))
      throw new HttpError(400, 'INVALID_REQUEST', { message: 'bad type' });
    const amount = msg.amount;
    if (type !== 'ROLLBACK' && !(Number.isSafeInteger(amount) && (amount as number) >= 0))
      throw new HttpError(400, 'INVALID_REQUEST', { message: 'amount must be a non-negative integer number of cents' });

    const previous = getTx.get(playerId, type as string, transactionId);
    if (previous) return JSON.parse(previous.response) as Record<string, unknown>;
    const player = getBalance.get(playerId);
    if (!player) throw new HttpError(404, 'PLAYER_NOT_FOUND');

    let balance = player.balance;
    let moved = 0;
    let rolledBack = 0;
    if (type === 'CREDIT') {
      moved = amount as number;
    } else if (type === 'DEBIT') {
      // A ROLLBACK for this DEBIT came first (original style: same id): acknowledge, take nothing.
      const cancelled = getTx.get(playerId, 'ROLLBACK', transactionId);
      if (cancelled) rolledBack = 1;
      else if ((amount as number) > balance) {
        // Kept like any transaction (nothing to give back), so a repeat gets this refusal again.
        const refusal = { refused: 402, error: 'INSUFFICIENT_FUNDS', balance };
        insertTx.run(playerId, type, transactionId, 0, 1, JSON.stringify(refusal));
        return refusal;
      } else moved = -(amount as number);
    } else {
      const debit = getTx.get(playerId, 'DEBIT', transactionId);
      if (debit && !debit.rolled_back) {
        moved = debit.amount;
        markRolledBack.run(playerId, transactionId);
      }
    }
    balance += moved;
    if (moved !== 0) setBalance.run(balance, playerId);
    const response = { balance };
    insertTx.run(playerId, type, transactionId, Math.abs(moved), rolledBack, JSON.stringify(response));
    return response;
  });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let status = 200;
      let out: Record<string, unknown>;
      try {
        if (req.method !== 'POST' || req.url !== '/callback/webhook') throw new HttpError(404, 'NOT_FOUND');
        const raw = Buffer.concat(chunks);
        checkSignature(req.headers['x-signature'], raw, secret);
        let msg: unknown;
        try {
          msg = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new HttpError(400, 'INVALID_REQUEST', { message: 'malformed JSON' });
        }
        if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) throw new HttpError(400, 'INVALID_REQUEST');
        const { refused, ...body } = applyCallback(msg as Record<string, unknown>);
        if (typeof refused === 'number') status = refused;
        out = body;
      } catch (e) {
        status = e instanceof HttpError ? e.status : 500;
        out = e instanceof HttpError ? { error: e.code, ...e.extra } : { error: 'INTERNAL_ERROR' };
      }
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      db.close();
    },
  };
}
