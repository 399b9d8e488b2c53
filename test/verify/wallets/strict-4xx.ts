/**
 * A hono wallet with strict status codes: 402 INSUFFICIENT_FUNDS, 404 PLAYER_NOT_FOUND and
 * TRANSACTION_NOT_FOUND (a ROLLBACK of an unknown DEBIT, with the balance), 409 for a DEBIT that
 * arrives after its ROLLBACK, 400 for bad input. Zero amounts are accepted and move nothing.
 * SQLite file, BEGIN IMMEDIATE per callback, signatures through aggmock's verifySignature, and a
 * Pact provider-state endpoint.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { verifySignature } from '../../../src/signing/index.ts';
import { openDatabase, pluck } from './sqlite.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

type Out = [ContentfulStatusCode, Record<string, unknown>];
type Tx = { amount: number; state: 'ACCEPTED' | 'ROLLED_BACK' | 'CANCELLED'; reply: string };

const toCents = (v: unknown) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  const c = Math.round(v * 100);
  return Math.abs(v * 100 - c) < 1e-6 && Number.isSafeInteger(c) ? c : undefined;
};

function open(dbPath: string) {
  const db = openDatabase(dbPath);
  db.exec(`
    CREATE TABLE IF NOT EXISTS wallet (player_id TEXT PRIMARY KEY, balance_cents INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS txs (player_id TEXT NOT NULL, type TEXT NOT NULL, tx_id TEXT NOT NULL, amount INTEGER NOT NULL,
      state TEXT NOT NULL, reply TEXT NOT NULL, PRIMARY KEY (player_id, type, tx_id));`);
  return db;
}

export function strictBalances(dbPath: string): Record<string, number> {
  const db = open(dbPath);
  const rows = db.prepare('SELECT player_id, balance_cents FROM wallet').all() as { player_id: string; balance_cents: number }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.player_id, r.balance_cents]));
}

export async function startStrict4xxWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const db = open(options.dbPath);
  const q = {
    seed: db.prepare('INSERT OR IGNORE INTO wallet VALUES (?, ?)'),
    upsert: db.prepare(
      'INSERT INTO wallet VALUES (?, ?) ON CONFLICT (player_id) DO UPDATE SET balance_cents = excluded.balance_cents',
    ),
    balance: pluck(db.prepare('SELECT balance_cents AS b FROM wallet WHERE player_id = ?')),
    move: pluck(db.prepare('UPDATE wallet SET balance_cents = balance_cents + ? WHERE player_id = ? RETURNING balance_cents')),
    removePlayer: db.prepare('DELETE FROM wallet WHERE player_id = ?'),
    tx: db.prepare('SELECT amount, state, reply FROM txs WHERE player_id = ? AND type = ? AND tx_id = ?'),
    save: db.prepare('INSERT INTO txs VALUES (?, ?, ?, ?, ?, ?)'),
    setState: db.prepare("UPDATE txs SET state = ? WHERE player_id = ? AND type = 'DEBIT' AND tx_id = ?"),
    forget: db.prepare('DELETE FROM txs WHERE player_id = ? AND tx_id = ?'),
  };
  for (const [id, major] of Object.entries(options.players ?? {})) q.seed.run(id, Math.round(major * 100));

  const saved = (player: string, type: string, id: string, amount: number, state: string, out: Out): Out => {
    q.save.run(player, type, id, amount, state, JSON.stringify(out));
    return out;
  };

  const apply = db.transaction((b: Record<string, unknown>): Out => {
    const { type, playerId: player, transactionId: id } = b;
    if (typeof player !== 'string' || !player || typeof id !== 'string' || !id)
      return [400, { error: 'INVALID_REQUEST', message: 'playerId and transactionId must be non-empty strings' }];
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return [400, { error: 'INVALID_REQUEST', message: 'type must be DEBIT, CREDIT or ROLLBACK' }];
    const amount = toCents(b.amount);
    if (type !== 'ROLLBACK' && (amount === undefined || amount < 0))
      return [400, { error: 'INVALID_REQUEST', message: 'amount must be >= 0 with at most 2 decimals' }];
    const prior = q.tx.get(player, type, id) as Tx | undefined;
    if (prior) return JSON.parse(prior.reply) as Out;
    const balance = q.balance.get(player) as number | undefined;
    if (balance === undefined) return [404, { error: 'PLAYER_NOT_FOUND', message: `player ${player} does not exist` }];

    if (type === 'CREDIT')
      return saved(player, type, id, amount!, 'ACCEPTED', [200, { balance: (q.move.get(amount, player) as number) / 100 }]);
    if (type === 'DEBIT') {
      // Kept (with nothing to give back), so a repeat gets this refusal again.
      if (amount! > balance)
        return saved(player, type, id, 0, 'CANCELLED', [402, { error: 'INSUFFICIENT_FUNDS', balance: balance / 100 }]);
      return saved(player, type, id, amount!, 'ACCEPTED', [200, { balance: (q.move.get(-amount!, player) as number) / 100 }]);
    }
    const debitId = typeof b.referenceTransactionId === 'string' ? b.referenceTransactionId : id;
    const debit = q.tx.get(player, 'DEBIT', debitId) as Tx | undefined;
    if (!debit) {
      // Never saw it: remember it as cancelled so a late DEBIT is refused.
      q.save.run(
        player,
        'DEBIT',
        debitId,
        0,
        'CANCELLED',
        JSON.stringify([409, { error: 'INVALID_REQUEST', message: 'rolled back before it arrived' }]),
      );
      return saved(player, type, id, 0, 'ACCEPTED', [404, { error: 'TRANSACTION_NOT_FOUND', balance: balance / 100 }]);
    }
    if (debit.state !== 'ACCEPTED') return saved(player, type, id, 0, 'ACCEPTED', [200, { balance: balance / 100 }]);
    q.setState.run('ROLLED_BACK', player, debitId);
    return saved(player, type, id, debit.amount, 'ACCEPTED', [
      200,
      { balance: (q.move.get(debit.amount, player) as number) / 100 },
    ]);
  });

  const applyState = db.transaction((name: string, p: Record<string, unknown>): Out => {
    const player = String(p.playerId ?? '');
    if (name === '') return [200, {}];
    if (/^player \S+ has balance/.test(name)) {
      const cents = toCents(Number(p.balance));
      if (cents === undefined || cents < 0) return [400, { message: `bad balance ${String(p.balance)}` }];
      q.upsert.run(player, cents);
    } else if (/^player \S+ does not exist$/.test(name)) {
      q.removePlayer.run(player);
    } else if (/^transaction \S+ was debited from player \S+ for/.test(name)) {
      const id = String(p.transactionId ?? '');
      const cents = toCents(Number(p.amount));
      const balance = q.balance.get(player) as number | undefined;
      if (balance === undefined || cents === undefined || cents > balance) return [400, { message: `cannot debit ${player}` }];
      q.forget.run(player, id);
      saved(player, 'DEBIT', id, cents, 'ACCEPTED', [200, { balance: (q.move.get(-cents, player) as number) / 100 }]);
    } else {
      return [400, { message: `unknown provider state "${name}"` }];
    }
    return [200, {}];
  });

  const app = new Hono();
  app.post('/callback/webhook', async (c) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    try {
      verifySignature({ scheme: 'timestamped', secrets: [secret], payload: raw, headers: c.req.raw.headers });
    } catch (e) {
      return c.json({ error: 'INVALID_SIGNATURE', message: (e as Error).message }, 401);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(raw).toString('utf8'));
    } catch {
      return c.json({ error: 'INVALID_REQUEST', message: 'malformed JSON' }, 400);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return c.json({ error: 'INVALID_REQUEST', message: 'expected a JSON object' }, 400);
    const [status, out] = apply(body as Record<string, unknown>);
    return c.json(out, status);
  });
  app.post('/__state', async (c) => {
    const req = (await c.req.json().catch(() => ({}))) as { state?: string; params?: Record<string, unknown>; action?: string };
    if (req.action === 'teardown') return c.json({});
    const [status, out] = applyState(req.state ?? '', req.params ?? {});
    return c.json(out, status);
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/callback/webhook`,
    stateUrl: `${url}/__state`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
        server.close(() => {
          db.close();
          resolve();
        });
      }),
  };
}
