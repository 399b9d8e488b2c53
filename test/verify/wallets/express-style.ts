/**
 * A wallet written the way an Express/Fastify shop writes one (here on bare node:http): JSON with
 * `; charset=utf-8`, header names in odd case, every business rejection as HTTP 200 + {error, message},
 * extra reply fields, zero amounts refused. SQLite file, one IMMEDIATE transaction per callback,
 * signature checked by hand with node:crypto over the raw body. Has a provider-state endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

type Reply = { status: number; body: Record<string, unknown> };
const CURRENCY = 'EUR';

function verifyTimestamped(header: string | undefined, raw: Buffer, secret: string, now = Date.now() / 1000): boolean {
  if (!header) return false;
  let t: string | undefined;
  const sigs: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = [part.slice(0, part.indexOf('=')).trim(), part.slice(part.indexOf('=') + 1).trim()];
    if (k === 't') t = v;
    else if (k === 'v1') sigs.push(v.toLowerCase());
  }
  if (!t || !/^\d+$/.test(t) || Math.abs(now - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  let ok = false;
  for (const s of sigs) {
    const got = Buffer.from(s, 'hex');
    if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  return ok;
}

function cents(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  const c = Math.round(v * 100);
  return Number.isSafeInteger(c) && Math.abs(c - v * 100) < 1e-6 ? c : undefined;
}

function openDb(dbPath: string) {
  const db = openDatabase(dbPath);
  db.exec(`CREATE TABLE IF NOT EXISTS accounts (player TEXT PRIMARY KEY, cents INTEGER NOT NULL CHECK (cents >= 0));
    CREATE TABLE IF NOT EXISTS ledger (player TEXT, kind TEXT, txid TEXT, cents INTEGER, ref TEXT, reversed INTEGER DEFAULT 0,
      reply TEXT NOT NULL, PRIMARY KEY (player, kind, txid))`);
  return db;
}

/** Balances in minor units, straight from the database file. */
export function expressBalances(dbPath: string): Record<string, number> {
  const db = openDb(dbPath);
  try {
    const rows = db.prepare('SELECT player, cents FROM accounts').all() as { player: string; cents: number }[];
    return Object.fromEntries(rows.map((r) => [r.player, r.cents]));
  } finally {
    db.close();
  }
}

export async function startExpressStyleWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = openDb(options.dbPath);
  const seed = db.prepare('INSERT OR IGNORE INTO accounts (player, cents) VALUES (?, ?)');
  for (const [id, major] of Object.entries(options.players ?? {})) seed.run(id, Math.round(major * 100));

  const account = db.prepare('SELECT cents FROM accounts WHERE player = ?');
  const setBalance = db.prepare('UPDATE accounts SET cents = ? WHERE player = ?');
  const find = db.prepare('SELECT cents, reversed, reply FROM ledger WHERE player = ? AND kind = ? AND txid = ?');
  const reversedBefore = db.prepare("SELECT 1 FROM ledger WHERE player = ? AND kind = 'ROLLBACK' AND ref = ?");
  const record = db.prepare('INSERT INTO ledger (player, kind, txid, cents, ref, reply) VALUES (?, ?, ?, ?, ?, ?)');
  const markReversed = db.prepare("UPDATE ledger SET reversed = 1 WHERE player = ? AND kind = 'DEBIT' AND txid = ?");

  const ok = (balance: number, txid: string): Reply => ({
    status: 200,
    body: { balance: balance / 100, currency: CURRENCY, transactionId: txid, timestamp: new Date().toISOString() },
  });
  const refuse = (error: string, message: string, balance?: number): Reply => ({
    status: 200,
    body: { error, message, ...(balance === undefined ? {} : { balance: balance / 100 }) },
  });

  const handle = db.transaction((b: Record<string, unknown>): Reply => {
    const { type, transactionId: txid, playerId: player } = b;
    if (typeof txid !== 'string' || !txid || typeof player !== 'string' || !player)
      return { status: 400, body: { error: 'INVALID_REQUEST', message: 'transactionId and playerId are required' } };
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return { status: 400, body: { error: 'INVALID_REQUEST', message: `unknown type ${String(type)}` } };
    const amount = cents(b.amount);
    if (type !== 'ROLLBACK' && (amount === undefined || amount <= 0))
      return refuse('INVALID_REQUEST', 'amount must be a positive number with at most 2 decimals');
    const seen = find.get(player, type, txid) as { reply: string } | undefined;
    if (seen) return JSON.parse(seen.reply) as Reply;
    const acc = account.get(player) as { cents: number } | undefined;
    if (!acc) return refuse('PLAYER_NOT_FOUND', `unknown player ${player}`);
    let reply: Reply;
    let ref: string | null = null;
    if (type === 'DEBIT') {
      if (reversedBefore.get(player, txid)) return refuse('INVALID_REQUEST', 'transaction already rolled back', acc.cents);
      if (acc.cents < (amount as number)) {
        // Kept like any transaction (with nothing to give back), so a repeat gets this refusal again.
        reply = refuse('INSUFFICIENT_FUNDS', 'not enough money', acc.cents);
        record.run(player, type, txid, 0, null, JSON.stringify(reply));
        return reply;
      }
      setBalance.run(acc.cents - (amount as number), player);
      reply = ok(acc.cents - (amount as number), txid);
    } else if (type === 'CREDIT') {
      setBalance.run(acc.cents + (amount as number), player);
      reply = ok(acc.cents + (amount as number), txid);
    } else {
      ref = typeof b.referenceTransactionId === 'string' ? b.referenceTransactionId : txid;
      const debit = find.get(player, 'DEBIT', ref) as { cents: number; reversed: number } | undefined;
      if (!debit) reply = refuse('TRANSACTION_NOT_FOUND', `no DEBIT ${ref}`, acc.cents);
      else if (debit.reversed) reply = ok(acc.cents, txid);
      else {
        setBalance.run(acc.cents + debit.cents, player);
        markReversed.run(player, ref);
        reply = ok(acc.cents + debit.cents, txid);
      }
    }
    record.run(player, type, txid, amount ?? 0, ref, JSON.stringify(reply));
    return reply;
  });

  // Pact provider states (test fixture): amounts in major units, as in the state names.
  const provide = db.transaction((name: string, p: Record<string, unknown>): Reply => {
    const player = String(p.playerId ?? '');
    const amount = cents(Number(p.balance ?? p.amount));
    const txid = String(p.transactionId ?? '');
    if (name === '') return { status: 200, body: {} };
    if (/^player \S+ has balance /.test(name) && amount !== undefined && amount >= 0) {
      db.prepare('INSERT INTO accounts VALUES (?, ?) ON CONFLICT (player) DO UPDATE SET cents = excluded.cents').run(
        player,
        amount,
      );
    } else if (/^player \S+ does not exist$/.test(name)) {
      db.prepare('DELETE FROM accounts WHERE player = ?').run(player);
    } else if (/^transaction \S+ was debited from player /.test(name) && amount) {
      db.prepare('DELETE FROM ledger WHERE player = ? AND (txid = ? OR ref = ?)').run(player, txid, txid);
      const r = handle({ type: 'DEBIT', transactionId: txid, playerId: player, amount: amount / 100 });
      if (r.body.error) return { status: 400, body: { message: `cannot set up "${name}": ${String(r.body.message)}` } };
    } else {
      return { status: 400, body: { error: 'UNKNOWN_STATE', message: `unknown provider state "${name}"` } };
    }
    return { status: 200, body: {} };
  });

  const send = (res: ServerResponse, { status, body }: Reply) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-TYPE': 'application/json; charset=utf-8',
      'CONTENT-length': Buffer.byteLength(text),
      'x-Powered-By': 'Express',
      ETag: `W/"${text.length.toString(16)}"`,
    });
    res.end(text);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/__state') {
        let s: { state?: string; params?: Record<string, unknown>; action?: string } = {};
        try {
          s = JSON.parse(raw.toString('utf8'));
        } catch {
          return send(res, { status: 400, body: { error: 'INVALID_REQUEST', message: 'state body is not JSON' } });
        }
        return send(res, s.action === 'teardown' ? { status: 200, body: {} } : provide(s.state ?? '', s.params ?? {}));
      }
      if (req.method !== 'POST' || req.url !== '/callback/webhook')
        return send(res, { status: 404, body: { error: 'NOT_FOUND' } });
      if (!verifyTimestamped(req.headers['x-signature'] as string | undefined, raw, secret))
        return send(res, { status: 401, body: { error: 'INVALID_SIGNATURE', message: 'bad or missing X-Signature' } });
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, { status: 400, body: { error: 'INVALID_REQUEST', message: 'body is not JSON' } });
      }
      if (!body || typeof body !== 'object' || Array.isArray(body))
        return send(res, { status: 400, body: { error: 'INVALID_REQUEST', message: 'body must be an object' } });
      try {
        send(res, handle(body as Record<string, unknown>));
      } catch (e) {
        send(res, { status: 500, body: { error: 'INTERNAL', message: (e as Error).message } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    stateUrl: `${url}/__state`,
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
