/**
 * A wallet that writes every balance as a decimal string, `{"balance":"995.29"}`, as Red Tiger,
 * Blue Ocean, 100HP and St8 answer. node:http, SQLite file with a BEGIN IMMEDIATE transaction per
 * callback, signature checked by hand. Every reply is HTTP 200: a refusal is
 * `{"error":"INSUFFICIENT_FUNDS","balance":"0.50"}`. A ROLLBACK of an unknown DEBIT is answered
 * `{"error":"TRANSACTION_NOT_FOUND","balance":"…"}` and leaves a tombstone, so the DEBIT, if it
 * comes later, is refused. Zero amounts are accepted and move nothing. Amounts are parsed from
 * their JSON text as decimals, never through a float.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase, pluck } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

const TOLERANCE_S = 300;

/** Cents as the decimal string this wallet writes: 99529 → "995.29", -5 → "-0.05". */
function decimalString(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** An amount from the request's JSON number, read as decimal text: at most 2 decimals, never rounded. */
function centsOf(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(value));
  if (!match) return undefined;
  const [, minus, whole = '0', frac = ''] = match;
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? (minus ? -cents : cents) : undefined;
}

function signatureOk(header: string | string[] | undefined, body: Buffer, secret: string): boolean {
  const parts = new Map<string, string[]>();
  for (const field of (typeof header === 'string' ? header : '').split(',')) {
    const [k = '', v = ''] = field.trim().split('=');
    parts.set(k, [...(parts.get(k) ?? []), v]);
  }
  const t = parts.get('t')?.[0];
  if (!t || !/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > TOLERANCE_S) return false;
  const mine = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return (parts.get('v1') ?? []).some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === mine.length && timingSafeEqual(given, mine);
  });
}

function open(path: string) {
  const db = openDatabase(path);
  db.exec(`CREATE TABLE IF NOT EXISTS accounts (player TEXT PRIMARY KEY, cents INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS ledger (player TEXT NOT NULL, type TEXT NOT NULL, id TEXT NOT NULL,
      cents INTEGER NOT NULL, status TEXT NOT NULL, reply TEXT NOT NULL, PRIMARY KEY (player, type, id));`);
  return db;
}

export function decimalStringBalances(path: string): Record<string, number> {
  const db = open(path);
  const rows = db.prepare('SELECT player, cents FROM accounts').all() as { player: string; cents: number }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.player, r.cents]));
}

export async function startDecimalStringsWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = open(options.dbPath);
  for (const [player, major] of Object.entries(options.players ?? {}))
    db.prepare('INSERT OR IGNORE INTO accounts VALUES (?, ?)').run(player, Math.round(major * 100));
  const cents = pluck(db.prepare('SELECT cents FROM accounts WHERE player = ?'));
  const add = pluck(db.prepare('UPDATE accounts SET cents = cents + ? WHERE player = ? RETURNING cents'));
  const find = db.prepare('SELECT cents, status, reply FROM ledger WHERE player = ? AND type = ? AND id = ?');
  const insert = db.prepare('INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?)');
  const mark = db.prepare("UPDATE ledger SET status = 'ROLLED_BACK' WHERE player = ? AND type = 'DEBIT' AND id = ?");

  type Reply = Record<string, unknown>;
  const remember = (player: string, type: string, id: string, amount: number, status: string, reply: Reply): Reply => {
    insert.run(player, type, id, amount, status, JSON.stringify(reply));
    return reply;
  };

  const handle = db.transaction((msg: Record<string, unknown>): Reply => {
    const { type, playerId: player, transactionId: id } = msg;
    if (typeof player !== 'string' || !player || typeof id !== 'string' || !id)
      return { error: 'INVALID_REQUEST', message: 'playerId and transactionId are required strings' };
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return { error: 'INVALID_REQUEST', message: 'type must be DEBIT, CREDIT or ROLLBACK' };
    const amount = centsOf(msg.amount);
    if (type !== 'ROLLBACK' && (amount === undefined || amount < 0))
      return { error: 'INVALID_REQUEST', message: 'amount must be 0 or more with at most 2 decimals' };
    const seen = find.get(player, type, id) as { reply: string } | undefined;
    if (seen) return JSON.parse(seen.reply) as Reply;
    const balance = cents.get(player) as number | undefined;
    if (balance === undefined) return { error: 'PLAYER_NOT_FOUND', message: `no player ${player}` };
    if (type === 'CREDIT')
      return remember(player, type, id, amount as number, 'DONE', { balance: decimalString(add.get(amount, player) as number) });
    if (type === 'DEBIT') {
      // A refusal is kept too: a retry of this DEBIT gets the refusal again, whatever the balance is by then.
      if ((amount as number) > balance)
        return remember(player, type, id, 0, 'REFUSED', { error: 'INSUFFICIENT_FUNDS', balance: decimalString(balance) });
      return remember(player, type, id, amount as number, 'DONE', {
        balance: decimalString(add.get(-(amount as number), player) as number),
      });
    }
    const debitId = typeof msg.referenceTransactionId === 'string' ? msg.referenceTransactionId : id;
    const debit = find.get(player, 'DEBIT', debitId) as { cents: number; status: string } | undefined;
    if (!debit) {
      remember(player, 'DEBIT', debitId, 0, 'TOMBSTONE', {
        error: 'INVALID_REQUEST',
        message: 'this DEBIT was rolled back before it arrived',
        balance: decimalString(balance),
      });
      return remember(player, type, id, 0, 'DONE', { error: 'TRANSACTION_NOT_FOUND', balance: decimalString(balance) });
    }
    if (debit.status !== 'DONE') return remember(player, type, id, 0, 'DONE', { balance: decimalString(balance) });
    mark.run(player, debitId);
    return remember(player, type, id, debit.cents, 'DONE', { balance: decimalString(add.get(debit.cents, player) as number) });
  });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const send = (status: number, reply: Reply) => {
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
      };
      if (req.method !== 'POST' || req.url !== '/webhook') return send(404, { error: 'NOT_FOUND' });
      if (!signatureOk(req.headers['x-signature'], raw, secret))
        return send(401, { error: 'INVALID_SIGNATURE', message: 'bad or stale X-Signature' });
      let msg: unknown;
      try {
        msg = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(400, { error: 'INVALID_REQUEST', message: 'malformed JSON' });
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
        return send(400, { error: 'INVALID_REQUEST', message: 'expected a JSON object' });
      send(200, handle(msg as Record<string, unknown>));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/webhook`,
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
