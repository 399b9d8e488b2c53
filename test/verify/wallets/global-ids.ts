/**
 * A wallet with global transaction ids, as Hub88 and Caleta define them: a transactionId belongs
 * to one player, so a second player's DEBIT or CREDIT that reuses it is refused (409
 * INVALID_REQUEST), never applied to anyone and never answered with the other player's reply.
 * A repeat from the same player gets the stored first reply.
 *
 * Its style: every callback is handled synchronously from parse to reply (no await, so Node's
 * single thread makes each one atomic), state in memory mirrored to a JSON snapshot; unusual but
 * legal 4xx codes with the balance (403 INSUFFICIENT_FUNDS, 422 INVALID_REQUEST); zero amounts
 * accepted without moving money; a ROLLBACK of an unknown DEBIT acknowledged with 200 {balance},
 * and that DEBIT, if it arrives later, acknowledged with 200 {balance} without being charged.
 * Signatures through aggmock's verifySignature with two active secrets (a rotation in progress).
 * Has a provider-state endpoint.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../src/signing/index.ts';
import type { StartedWallet, WalletOptions } from './types.ts';

type Reply = { status: number; body: Record<string, unknown> };
interface Transaction {
  player: string;
  cents: number;
  reply: Reply;
  /** DEBIT: 'open' until rolled back; 'void' when its ROLLBACK came first or it was refused. */
  state?: 'open' | 'rolled-back' | 'void';
}
interface Store {
  balances: Record<string, number>;
  /** Key: `${type}:${transactionId}`, global across players. */
  transactions: Record<string, Transaction>;
}

export function globalIdsBalances(file: string): Record<string, number> {
  return (JSON.parse(readFileSync(file, 'utf8')) as Store).balances;
}

function toCents(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  const c = Math.round(v * 100);
  return Number.isSafeInteger(c) && Math.abs(v * 100 - c) < 1e-6 ? c : undefined;
}

export async function startGlobalIdsWallet(options: WalletOptions): Promise<StartedWallet> {
  const secrets = ['retired-but-still-active-secret', options.secret ?? 'aggmock-dev-secret'];
  const file = options.dbPath;
  const store: Store = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { balances: {}, transactions: {} };
  for (const [id, major] of Object.entries(options.players ?? {})) store.balances[id] ??= Math.round(major * 100);
  const save = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(store));
    renameSync(`${file}.tmp`, file);
  };
  save();

  const balanceReply = (cents: number): Reply => ({ status: 200, body: { balance: cents / 100 } });
  const refuse = (status: number, error: string, message: string, cents?: number): Reply => ({
    status,
    body: { error, message, ...(cents === undefined ? {} : { balance: cents / 100 }) },
  });

  function apply(b: Record<string, unknown>): Reply {
    const { type, playerId: player, transactionId: id } = b;
    if (typeof player !== 'string' || !player || typeof id !== 'string' || !id)
      return refuse(422, 'INVALID_REQUEST', 'playerId and transactionId must be non-empty strings');
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return refuse(422, 'INVALID_REQUEST', 'type must be DEBIT, CREDIT or ROLLBACK');
    const cents = toCents(b.amount);
    if (type !== 'ROLLBACK' && (cents === undefined || cents < 0))
      return refuse(422, 'INVALID_REQUEST', 'amount must be a number >= 0 with at most 2 decimals');
    const balance = store.balances[player];
    if (balance === undefined) return refuse(404, 'PLAYER_NOT_FOUND', `unknown player ${player}`);
    const key = `${type}:${id}`;
    const seen = store.transactions[key];
    if (seen && seen.player === player) return seen.reply;
    if (seen) return refuse(409, 'INVALID_REQUEST', `transactionId ${id} belongs to another player`, balance);

    let entry: Transaction;
    if (type === 'CREDIT') {
      store.balances[player] = balance + (cents as number);
      entry = { player, cents: cents as number, reply: balanceReply(balance + (cents as number)) };
    } else if (type === 'DEBIT') {
      if ((cents as number) > balance)
        entry = { player, cents: 0, state: 'void', reply: refuse(403, 'INSUFFICIENT_FUNDS', 'not enough money', balance) };
      else {
        store.balances[player] = balance - (cents as number);
        entry = { player, cents: cents as number, state: 'open', reply: balanceReply(balance - (cents as number)) };
      }
    } else {
      const debitKey = `DEBIT:${typeof b.referenceTransactionId === 'string' ? b.referenceTransactionId : id}`;
      const debit = store.transactions[debitKey];
      if (debit === undefined) {
        // Remembered as void: the DEBIT, should it come after all, is acknowledged and not charged.
        store.transactions[debitKey] = { player, cents: 0, state: 'void', reply: balanceReply(balance) };
      } else if (debit.player === player && debit.state === 'open') {
        debit.state = 'rolled-back';
        store.balances[player] = balance + debit.cents;
      }
      entry = { player, cents: 0, reply: balanceReply(store.balances[player] as number) };
    }
    store.transactions[key] = entry;
    save();
    return entry.reply;
  }

  function provide(name: string, params: Record<string, unknown>): Reply {
    const player = String(params.playerId ?? '');
    if (name === '') return { status: 200, body: {} };
    if (/^player \S+ has balance /.test(name)) {
      const cents = toCents(Number(params.balance));
      if (cents === undefined || cents < 0) return { status: 400, body: { message: `bad balance ${String(params.balance)}` } };
      store.balances[player] = cents;
    } else if (/^player \S+ does not exist$/.test(name)) {
      delete store.balances[player];
    } else if (/^transaction \S+ was debited from player \S+ for /.test(name)) {
      const id = String(params.transactionId ?? '');
      const cents = toCents(Number(params.amount));
      const balance = store.balances[player];
      if (balance === undefined || cents === undefined || cents > balance)
        return { status: 400, body: { message: `cannot debit ${String(params.amount)} from ${player}` } };
      delete store.transactions[`ROLLBACK:${id}`];
      store.balances[player] = balance - cents;
      store.transactions[`DEBIT:${id}`] = { player, cents, state: 'open', reply: balanceReply(balance - cents) };
    } else return { status: 400, body: { message: `unknown provider state "${name}"` } };
    save();
    return { status: 200, body: {} };
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
      const object = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
      let reply: Reply;
      if (req.method === 'POST' && req.url === '/__state') {
        const s = (object ?? {}) as { state?: string; params?: Record<string, unknown>; action?: string };
        reply = s.action === 'teardown' ? { status: 200, body: {} } : provide(s.state ?? '', s.params ?? {});
      } else if (req.method !== 'POST' || req.url !== '/callback/webhook') reply = refuse(404, 'NOT_FOUND', 'no such route');
      else {
        let signatureError: string | undefined;
        try {
          verifySignature({ scheme: 'timestamped', secrets, payload: raw, headers: req.headers });
        } catch (e) {
          signatureError = (e as Error).message;
        }
        if (signatureError !== undefined) reply = refuse(401, 'INVALID_SIGNATURE', signatureError);
        else if (!object) reply = refuse(422, 'INVALID_REQUEST', 'the body must be a JSON object');
        else reply = apply(object);
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
    stateUrl: `${url}/__state`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
