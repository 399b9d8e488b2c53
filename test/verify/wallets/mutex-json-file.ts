/**
 * A wallet with no database: state lives in memory and in one JSON file. A change is made durable
 * first (merged into the latest state, written to a temp file, renamed) and only then becomes
 * visible, so the read-check-write of a callback spans real file I/O: an async per-player mutex
 * serialises it (without the mutex, parallel DEBITs would all read the same balance).
 * Zero amounts are accepted and move nothing; a ROLLBACK of an unknown DEBIT is acknowledged with
 * 200 {balance}, and that DEBIT, if it comes later, is acknowledged without taking money.
 * node:http; signature checked by hand with node:crypto. Also has a provider-state endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartedWallet, WalletOptions } from './types.ts';

interface Entry {
  amount: number;
  reply: { status: number; body: Record<string, unknown> };
  rolledBack?: boolean;
}
interface State {
  balances: Record<string, number>;
  /** Key: `${playerId}|${type}|${transactionId}`. */
  entries: Record<string, Entry>;
}

export function mutexBalances(file: string): Record<string, number> {
  return (JSON.parse(readFileSync(file, 'utf8')) as State).balances;
}

function signatureValid(header: string | undefined, raw: Buffer, secret: string): boolean {
  const t = /(?:^|,)\s*t=(\d+)\s*(?:,|$)/.exec(header ?? '')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'));
  const given = [...(header ?? '').matchAll(/(?:^|,)\s*v1=([0-9a-fA-F]+)/g)].map((m) =>
    Buffer.from((m[1] as string).toLowerCase()),
  );
  return given.reduce((ok, g) => (g.length === expected.length && timingSafeEqual(g, expected)) || ok, false);
}

export async function startMutexJsonWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const file = options.dbPath;
  let state: State = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { balances: {}, entries: {} };
  for (const [id, major] of Object.entries(options.players ?? {})) state.balances[id] ??= Math.round(major * 100);

  // One lock per player: a promise chain; whoever holds it does read-check-commit.
  const locks = new Map<string, Promise<unknown>>();
  const withLock = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (locks.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    locks.set(key, tail);
    void tail.then(() => locks.get(key) === tail && locks.delete(key));
    return run;
  };
  // Commits (from any player) go one after another: durable first, then visible.
  let queue: Promise<unknown> = Promise.resolve();
  const commit = (change: (next: State) => void): Promise<void> => {
    const done = queue.then(async () => {
      const next: State = { balances: { ...state.balances }, entries: { ...state.entries } };
      change(next);
      await writeFile(`${file}.tmp`, JSON.stringify(next));
      await rename(`${file}.tmp`, file);
      state = next;
    });
    queue = done.catch(() => undefined);
    return done;
  };
  await commit(() => {});

  type Reply = Entry['reply'];
  const ok = (cents: number): Reply => ({ status: 200, body: { balance: cents / 100 } });
  async function apply(b: Record<string, unknown>): Promise<Reply> {
    const { type, playerId: p, transactionId: id } = b;
    if (typeof p !== 'string' || !p || typeof id !== 'string' || !id || !['DEBIT', 'CREDIT', 'ROLLBACK'].includes(type as string))
      return { status: 400, body: { error: 'INVALID_REQUEST', message: 'type, playerId and transactionId are required' } };
    const amount = typeof b.amount === 'number' ? Math.round(b.amount * 100) : Number.NaN;
    if (type !== 'ROLLBACK' && !(amount >= 0 && Math.abs((b.amount as number) * 100 - amount) < 1e-6))
      return { status: 400, body: { error: 'INVALID_REQUEST', message: 'amount must be >= 0 with at most 2 decimals' } };
    return withLock(p, async () => {
      const key = `${p}|${type}|${id}`;
      const seen = state.entries[key];
      if (seen) return seen.reply;
      const balance = state.balances[p];
      if (balance === undefined) return { status: 404, body: { error: 'PLAYER_NOT_FOUND' } };
      let after = balance;
      const changes: Record<string, Entry> = {};
      if (type === 'DEBIT') {
        const cancelled = state.entries[`${p}|ROLLBACK|${id}`];
        if (!cancelled && amount > balance) {
          // Kept like any transaction (nothing to give back), so a repeat gets this refusal again.
          const reply: Reply = { status: 402, body: { error: 'INSUFFICIENT_FUNDS', balance: balance / 100 } };
          changes[key] = { amount: 0, reply, rolledBack: true };
        } else {
          if (!cancelled) after = balance - amount;
          changes[key] = { amount, reply: ok(after), rolledBack: Boolean(cancelled) };
        }
      } else if (type === 'CREDIT') {
        after = balance + amount;
        changes[key] = { amount, reply: ok(after) };
      } else {
        const debitKey = `${p}|DEBIT|${id}`;
        const debit = state.entries[debitKey];
        if (debit && !debit.rolledBack) {
          after = balance + debit.amount;
          changes[debitKey] = { ...debit, rolledBack: true };
        }
        changes[key] = { amount: debit?.amount ?? 0, reply: ok(after) };
      }
      await commit((next) => {
        next.balances[p] = after;
        Object.assign(next.entries, changes);
      });
      return (changes[key] as Entry).reply;
    });
  }

  async function provide(name: string, params: Record<string, unknown>): Promise<Reply> {
    const p = String(params.playerId ?? '');
    const cents = (v: unknown) => Math.round(Number(v) * 100);
    if (name === '') return { status: 200, body: {} };
    return withLock(p, async () => {
      const balance = state.balances[p];
      const id = String(params.transactionId);
      const amount = cents(params.amount);
      let change: (next: State) => void;
      if (/^player \S+ has balance /.test(name) && cents(params.balance) >= 0) {
        change = (next) => {
          next.balances[p] = cents(params.balance);
        };
      } else if (/^player \S+ does not exist$/.test(name)) {
        change = (next) => {
          delete next.balances[p];
        };
      } else if (/^transaction \S+ was debited from player \S+ for /.test(name) && balance !== undefined && amount > 0) {
        change = (next) => {
          delete next.entries[`${p}|ROLLBACK|${id}`];
          next.balances[p] = balance - amount;
          next.entries[`${p}|DEBIT|${id}`] = { amount, reply: ok(balance - amount) };
        };
      } else return { status: 400, body: { error: `unsupported provider state "${name}"` } };
      await commit(change);
      return { status: 200, body: {} };
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let reply: Reply;
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {}
      const obj = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
      try {
        if (req.method === 'POST' && req.url === '/__state') {
          const s = (obj ?? {}) as { state?: string; params?: Record<string, unknown>; action?: string };
          reply = s.action === 'teardown' ? { status: 200, body: {} } : await provide(s.state ?? '', s.params ?? {});
        } else if (req.method !== 'POST' || req.url !== '/callback/webhook')
          reply = { status: 404, body: { error: 'NOT_FOUND' } };
        else if (!signatureValid(req.headers['x-signature'] as string | undefined, raw, secret))
          reply = { status: 401, body: { error: 'INVALID_SIGNATURE' } };
        else if (!obj) reply = { status: 400, body: { error: 'INVALID_REQUEST', message: 'body must be a JSON object' } };
        else reply = await apply(obj);
      } catch (e) {
        reply = { status: 500, body: { error: 'INTERNAL_ERROR', message: (e as Error).message } };
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
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await queue;
    },
  };
}
