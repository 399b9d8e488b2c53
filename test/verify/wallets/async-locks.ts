/**
 * A wallet with no database and no SQL transactions: balances and transactions live in memory
 * (mirrored to a JSON snapshot after every change, so a test can read them), and each player's
 * callbacks run one at a time on a promise chain. Inside that lock it waits a random 0–5 ms (a
 * stand-in for a fraud or session service), so parallel callbacks really interleave.
 *
 * Its reply style: every business rejection is HTTP 200 + {status:"ERROR", error, message} with
 * no balance (only a bad signature is 401, as the contract demands); every acceptance carries
 * harmless extra fields ({status:"OK", balance, currency, transactionId}); a duplicate gets the
 * stored first reply byte for byte; a ROLLBACK of an unknown DEBIT is answered
 * 200 {error:"TRANSACTION_NOT_FOUND"} (and that DEBIT, if it comes later, is refused the same way);
 * zero amounts are accepted and move nothing. Signatures: the standard-webhooks scheme, checked by
 * hand with node:crypto (webhook-id, webhook-timestamp, "v1,<base64>" signatures, any one valid).
 * Has a provider-state endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartedWallet, WalletOptions } from './types.ts';

type Reply = { status: number; body: Record<string, unknown> };
interface Stored {
  cents: number;
  reply: Reply;
  /** DEBIT only: a ROLLBACK gave it back (or came before it). */
  cancelled?: boolean;
}
interface Snapshot {
  balances: Record<string, number>;
  /** Key: `${playerId} ${type} ${transactionId}`. */
  transactions: Record<string, Stored>;
}

const CURRENCY = 'EUR';
const TOLERANCE_SECONDS = 300;

export function asyncLocksBalances(file: string): Record<string, number> {
  return (JSON.parse(readFileSync(file, 'utf8')) as Snapshot).balances;
}

/** Standard Webhooks: HMAC-SHA256 over `${id}.${timestamp}.${raw body}`, base64, any `v1,<sig>` of the header. */
function signedByUs(headers: IncomingHttpHeaders, raw: Buffer, secret: string): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string' || !/^\d+$/.test(ts)) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${id}.${ts}.`).update(raw).digest();
  return sig.split(' ').some((part) => {
    const [version, value] = part.split(',', 2);
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Whole cents of a JSON number with at most 2 decimals, else undefined. */
function centsOf(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  const c = Math.round(v * 100);
  return Number.isSafeInteger(c) && Math.abs(v * 100 - c) < 1e-6 ? c : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startAsyncLocksWallet(options: WalletOptions): Promise<StartedWallet> {
  const secret = options.secret ?? 'aggmock-dev-secret';
  const file = options.dbPath;
  const db: Snapshot = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { balances: {}, transactions: {} };
  for (const [id, major] of Object.entries(options.players ?? {})) db.balances[id] ??= Math.round(major * 100);
  const persist = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(db));
    renameSync(`${file}.tmp`, file);
  };
  persist();

  // One chain per player: a callback starts when the previous one for that player has finished.
  const chains = new Map<string, Promise<unknown>>();
  const locked = <T>(player: string, work: () => Promise<T>): Promise<T> => {
    const run = (chains.get(player) ?? Promise.resolve()).then(work);
    chains.set(
      player,
      run.catch(() => undefined),
    );
    return run;
  };

  const ok = (cents: number, transactionId: string): Reply => ({
    status: 200,
    body: { status: 'OK', balance: cents / 100, currency: CURRENCY, transactionId },
  });
  const refuse = (error: string, message: string): Reply => ({ status: 200, body: { status: 'ERROR', error, message } });

  async function apply(b: Record<string, unknown>): Promise<Reply> {
    const { type, playerId: player, transactionId: id } = b;
    if (typeof player !== 'string' || !player || typeof id !== 'string' || !id)
      return refuse('INVALID_REQUEST', 'playerId and transactionId must be non-empty strings');
    if (type !== 'DEBIT' && type !== 'CREDIT' && type !== 'ROLLBACK')
      return refuse('INVALID_REQUEST', `type must be DEBIT, CREDIT or ROLLBACK, got ${JSON.stringify(type)}`);
    const cents = centsOf(b.amount);
    if (type !== 'ROLLBACK' && (cents === undefined || cents < 0))
      return refuse('INVALID_REQUEST', 'amount must be a number >= 0 with at most 2 decimals');
    return locked(player, async () => {
      await sleep(Math.random() * 5);
      const key = `${player} ${type} ${id}`;
      const seen = db.transactions[key];
      if (seen) return seen.reply;
      const balance = db.balances[player];
      if (balance === undefined) return refuse('PLAYER_NOT_FOUND', `no player ${player}`);
      let reply: Reply;
      if (type === 'DEBIT') {
        if (db.transactions[`${player} ROLLBACK-OF ${id}`])
          reply = refuse('TRANSACTION_NOT_FOUND', `DEBIT ${id} was rolled back before it arrived`);
        else if ((cents as number) > balance) reply = refuse('INSUFFICIENT_FUNDS', 'balance too low');
        else {
          db.balances[player] = balance - (cents as number);
          reply = ok(balance - (cents as number), id);
        }
        // A refused DEBIT took nothing: stored as cancelled, so its ROLLBACK gives nothing back.
        db.transactions[key] = { cents: cents as number, reply, cancelled: reply.body.error !== undefined };
      } else if (type === 'CREDIT') {
        db.balances[player] = balance + (cents as number);
        reply = ok(balance + (cents as number), id);
        db.transactions[key] = { cents: cents as number, reply };
      } else {
        const debitId = typeof b.referenceTransactionId === 'string' ? b.referenceTransactionId : id;
        const debit = db.transactions[`${player} DEBIT ${debitId}`];
        if (!debit) {
          // Remember it, so the DEBIT is refused if it turns up after all.
          db.transactions[`${player} ROLLBACK-OF ${debitId}`] = { cents: 0, reply: ok(balance, id) };
          reply = refuse('TRANSACTION_NOT_FOUND', `no DEBIT ${debitId}`);
        } else if (debit.cancelled) {
          reply = ok(balance, id);
        } else {
          debit.cancelled = true;
          db.balances[player] = balance + debit.cents;
          reply = ok(balance + debit.cents, id);
        }
        db.transactions[key] = { cents: 0, reply };
      }
      persist();
      return reply;
    });
  }

  async function provide(name: string, params: Record<string, unknown>): Promise<Reply> {
    if (name === '') return { status: 200, body: {} };
    const player = String(params.playerId ?? '');
    return locked(player, async () => {
      if (/^player \S+ has balance /.test(name)) {
        const cents = centsOf(Number(params.balance));
        if (cents === undefined || cents < 0) return { status: 400, body: { message: `bad balance ${String(params.balance)}` } };
        db.balances[player] = cents;
      } else if (/^player \S+ does not exist$/.test(name)) {
        delete db.balances[player];
      } else if (/^transaction \S+ was debited from player \S+ for /.test(name)) {
        const id = String(params.transactionId ?? '');
        const cents = centsOf(Number(params.amount));
        const balance = db.balances[player];
        if (balance === undefined || cents === undefined || cents > balance)
          return { status: 400, body: { message: `cannot debit ${String(params.amount)} from ${player}` } };
        for (const type of ['DEBIT', 'ROLLBACK', 'ROLLBACK-OF']) delete db.transactions[`${player} ${type} ${id}`];
        db.balances[player] = balance - cents;
        db.transactions[`${player} DEBIT ${id}`] = { cents, reply: ok(balance - cents, id) };
      } else return { status: 400, body: { message: `unknown provider state "${name}"` } };
      persist();
      return { status: 200, body: {} };
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {}
      const body = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
      let reply: Reply;
      try {
        if (req.method === 'POST' && req.url === '/__state') {
          const s = (body ?? {}) as { state?: string; params?: Record<string, unknown>; action?: string };
          reply = s.action === 'teardown' ? { status: 200, body: {} } : await provide(s.state ?? '', s.params ?? {});
        } else if (req.method !== 'POST' || req.url !== '/callback/webhook')
          reply = { status: 404, body: { error: 'NOT_FOUND' } };
        else if (!signedByUs(req.headers, raw, secret))
          reply = {
            status: 401,
            body: { status: 'ERROR', error: 'INVALID_SIGNATURE', message: 'bad or missing webhook-signature' },
          };
        else if (!body) reply = refuse('INVALID_REQUEST', 'the body must be a JSON object');
        else reply = await apply(body);
      } catch (e) {
        reply = { status: 500, body: { status: 'ERROR', error: 'INTERNAL_ERROR', message: (e as Error).message } };
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
      await Promise.all(chains.values());
    },
  };
}
