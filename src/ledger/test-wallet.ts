import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toMajor, toMinor } from '../money/index.ts';

/**
 * A tiny wallet webhook for tests of the scenarios, the ledger, the schedule, the admin API and
 * `aggmock send`: correct by default (idempotent, rollback restores, no overdraft), with switches
 * that plant the bugs the shadow ledger must catch. It is test support, not the reference wallet
 * (src/wallet); it does not check signatures.
 */
export type WalletBug =
  /** A duplicate DEBIT is applied again instead of answered with the first reply. */
  | 'double-debit-on-duplicate'
  /** A ROLLBACK answers 200 with the balance but never gives the bet back. */
  | 'rollback-does-not-restore'
  /** Reads the balance, waits, then writes: parallel bets overwrite each other. */
  | 'lost-update';

export interface TestWalletOptions {
  /** Player id → balance in major units; default p1…p10 with 1000.00. */
  players?: Record<string, number>;
  bugs?: WalletBug[];
  types?: { debit: string; credit: string; rollback: string };
  /** Real delay before answering, so parallel requests overlap (lost-update needs it). */
  delayMs?: number;
  /** Answer every request with this status and body instead (e.g. 500 to force retries). */
  answer?: { status: number; body: unknown };
}

export interface TestWallet {
  url: string;
  /** Every body received, in arrival order. */
  received: Array<Record<string, unknown>>;
  /** Every request's headers, in arrival order. */
  headers: Array<Record<string, string | string[] | undefined>>;
  balanceMinor(playerId: string): number | undefined;
  close(): Promise<void>;
}

interface Debit {
  amountMinor: number;
  rolledBack: boolean;
}

export async function startStubWallet(options: TestWalletOptions = {}): Promise<TestWallet> {
  const bugs = new Set(options.bugs ?? []);
  const types = options.types ?? { debit: 'DEBIT', credit: 'CREDIT', rollback: 'ROLLBACK' };
  const balances = new Map<string, number>(
    Object.entries(options.players ?? Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i + 1}`, 1000]))).map(
      ([id, major]) => [id, toMinor(major) ?? 0],
    ),
  );
  const replies = new Map<string, { status: number; body: unknown }>();
  const debits = new Map<string, Debit>();
  const received: TestWallet['received'] = [];
  const headers: TestWallet['headers'] = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const handle = async (body: Record<string, unknown>): Promise<{ status: number; body: unknown }> => {
    if (options.answer) return options.answer;
    const { type, transactionId, playerId } = body;
    const amountMinor = typeof body.amount === 'number' ? toMinor(body.amount) : undefined;
    if (
      typeof type !== 'string' ||
      typeof transactionId !== 'string' ||
      typeof playerId !== 'string' ||
      amountMinor === undefined
    ) {
      return {
        status: 400,
        body: { error: 'INVALID_REQUEST', message: 'type, transactionId, amount and playerId are required' },
      };
    }
    const start = balances.get(playerId);
    if (start === undefined) return { status: 404, body: { error: 'PLAYER_NOT_FOUND' } };
    const key = `${type}:${playerId}:${transactionId}`;
    const first = replies.get(key);
    const replayable = !(bugs.has('double-debit-on-duplicate') && type === types.debit);
    if (first && replayable) return first;

    let reply: { status: number; body: unknown };
    if (type === types.debit) {
      if (options.delayMs && bugs.has('lost-update')) await sleep(options.delayMs);
      const current = bugs.has('lost-update') ? start : (balances.get(playerId) as number);
      if (amountMinor > current) {
        reply = { status: 400, body: { error: 'INSUFFICIENT_FUNDS', balance: toMajor(current) } };
      } else {
        balances.set(playerId, current - amountMinor);
        debits.set(`${playerId}:${transactionId}`, { amountMinor, rolledBack: false });
        reply = { status: 200, body: { balance: toMajor(current - amountMinor) } };
      }
    } else if (type === types.credit) {
      const next = (balances.get(playerId) as number) + amountMinor;
      balances.set(playerId, next);
      reply = { status: 200, body: { balance: toMajor(next) } };
    } else if (type === types.rollback) {
      const ref = typeof body.referenceTransactionId === 'string' ? body.referenceTransactionId : transactionId;
      const debit = debits.get(`${playerId}:${ref}`);
      const current = balances.get(playerId) as number;
      if (!debit) {
        reply = { status: 404, body: { error: 'TRANSACTION_NOT_FOUND', balance: toMajor(current) } };
      } else if (debit.rolledBack || bugs.has('rollback-does-not-restore')) {
        debit.rolledBack = true;
        reply = { status: 200, body: { balance: toMajor(current) } };
      } else {
        debit.rolledBack = true;
        balances.set(playerId, current + debit.amountMinor);
        reply = { status: 200, body: { balance: toMajor(current + debit.amountMinor) } };
      }
    } else {
      return { status: 400, body: { error: 'INVALID_REQUEST', message: `unknown type ${type}` } };
    }
    replies.set(key, reply);
    return reply;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'INVALID_REQUEST' }));
        return;
      }
      received.push(body);
      headers.push(req.headers);
      void handle(body).then((reply) => {
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback/webhook`,
    received,
    headers,
    balanceMinor: (id) => balances.get(id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
