import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import { loadConfig } from '../../src/config/index.ts';
import { defaultDriver, openDatabase as openSqlite } from '../../src/storage/index.ts';
import { type CliProcess, freePort, runCli } from '../cli/process.ts';

/**
 * Crash durability, with real processes: `aggmock serve` and the reference wallet (`aggmock
 * wallet`) as children, a burst of events for several players, and SIGKILLs at random points.
 * When the outbox has drained, nothing may be lost or applied twice and the books must balance.
 *
 * Size: AGGMOCK_CRASH_EVENTS (default 2000) and AGGMOCK_CRASH_KILLS (default 3), e.g.
 * `AGGMOCK_CRASH_EVENTS=50000 AGGMOCK_CRASH_KILLS=10` runs long. Every kill must land while events
 * are still pending: deliveries only move in the 20–400 ms between a restart and the next kill (a
 * few hundred at most), so 2000 keep every kill in the middle of the burst; more events only made
 * the drain after the last kill longer (5000 cost each case about twice the CPU).
 */
const EVENTS = Number(process.env.AGGMOCK_CRASH_EVENTS ?? 2_000);
const KILLS = Number(process.env.AGGMOCK_CRASH_KILLS ?? 3);
const PLAYERS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'];
const OPENING_MINOR = 100_000;
/**
 * The outer bound, for an outbox that trickles; a stalled one fails sooner (STALL_MS). Generous: a
 * loaded machine is slower, not wrong (5000 deliveries took 100 s to over 4 minutes on 2 busy cores).
 */
const TIMEOUT_MS = 60_000 + EVENTS * 100;
/** How long the outbox may settle nothing before the test calls it stuck: longer than any retry delay. */
const STALL_MS = 20_000;

const children: CliProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.stop('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Planned {
  transactionId: string;
  type: 'debit' | 'credit';
  playerId: string;
  amountMinor: number;
}

/** A seeded mix of small bets and wins, so the expected balances are known in advance. */
function plan(seed: number): Planned[] {
  let x = seed;
  const next = () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
  return Array.from({ length: EVENTS }, (_, i) => ({
    transactionId: `crash-${seed}-${i}`,
    type: next() < 0.6 ? 'debit' : 'credit',
    playerId: PLAYERS[i % PLAYERS.length] as string,
    amountMinor: 1 + Math.floor(next() * 99),
  }));
}

function workspace(walletPort: number) {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-crash-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'wallet'));
  const config = join(dir, 'aggmock.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      logLevel: 'silent',
      wallet: { players: Object.fromEntries(PLAYERS.map((p) => [p, OPENING_MINOR / 100])) },
      callbacks: {
        webhookUrl: `http://127.0.0.1:${walletPort}/callback/webhook`,
        // Long enough to outlast the wallet's restarts, which take seconds each on a loaded machine
        // (at 30 × 400 ms, DEBITs failed there and were rolled back): nothing may end failed here.
        retrySchedule: [0, 50, 100, 200, ...Array.from({ length: 60 }, () => 1000)],
        jitter: 0,
        timeout: '3s',
      },
    }),
  );
  return { dir, config, db: join(dir, 'aggmock.db'), walletDb: join(dir, 'wallet', 'x.db') };
}

async function startServe(ws: ReturnType<typeof workspace>): Promise<{ cli: CliProcess; url: string }> {
  const cli = runCli(['serve', '--port', '0', '--config', ws.config, '--db', ws.db]);
  children.push(cli);
  const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  return { cli, url: url as string };
}

async function startWalletChild(ws: ReturnType<typeof workspace>, port: number): Promise<CliProcess> {
  const cli = runCli(['wallet', '--port', String(port), '--config', ws.config, '--db', ws.walletDb]);
  children.push(cli);
  await cli.waitFor(/listening on/, 30_000);
  return cli;
}

async function kill(cli: CliProcess): Promise<void> {
  await cli.stop('SIGKILL');
  children.splice(children.indexOf(cli), 1);
}

async function admin(url: string, path: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/__admin${path}`, { ...init, headers: { 'content-type': 'application/json' } });
  if (res.status >= 300) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * The burst: every planned event stored in the outbox at once, as a scheduler or a scenario would,
 * before `aggmock serve` opens the database and resumes delivering them.
 */
async function storeBurst(ws: ReturnType<typeof workspace>, events: Planned[]): Promise<void> {
  const config = loadConfig({ configPath: ws.config, flags: { db: ws.db } });
  const db = openDatabase(ws.db);
  const engine = createCallbackEngine({ config, db });
  engine.enqueueMany(
    events.map((e) => ({
      kind: e.type,
      playerId: e.playerId,
      amountMinor: e.amountMinor,
      transactionId: e.transactionId,
      source: 'crash-test',
    })),
  );
  await new Promise((resolve) => setImmediate(resolve));
  await engine.stop();
  db.close();
}

interface Delivery {
  id: number;
  kind: string;
  status: string;
  transactionId: string;
  playerId: string;
  amountMinor: number;
  error?: string;
}

async function allDeliveries(url: string): Promise<Delivery[]> {
  const out: Delivery[] = [];
  let before: number | null = null;
  do {
    const page = (await admin(url, `/deliveries?limit=1000${before ? `&before=${before}` : ''}`)) as {
      deliveries: Delivery[];
      nextBefore: number | null;
    };
    out.push(...page.deliveries);
    before = page.nextBefore;
  } while (before);
  return out;
}

/** How many events have not settled yet (pending or delivering), counted page by page. */
async function unsettled(url: string): Promise<number> {
  let count = 0;
  for (const status of ['pending', 'delivering']) {
    let before: number | null = null;
    do {
      const page = (await admin(url, `/deliveries?status=${status}&limit=1000${before ? `&before=${before}` : ''}`)) as {
        deliveries: unknown[];
        nextBefore: number | null;
      };
      count += page.deliveries.length;
      before = page.nextBefore;
    } while (before);
  }
  return count;
}

/**
 * Waits until every event has settled. A loaded machine delivers more slowly (about 50 a second
 * with a dozen processes on 2 cores), so it fails only when the outbox stops moving: nothing
 * settled for {@link STALL_MS}.
 */
async function drained(url: string): Promise<void> {
  let left = await unsettled(url);
  let movedAt = Date.now();
  while (left > 0) {
    if (Date.now() - movedAt > STALL_MS)
      throw new Error(`the outbox stopped draining: ${left} events unsettled, none settled in ${STALL_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await unsettled(url);
    if (now < left) movedAt = Date.now();
    left = now;
  }
}

const randomMs = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

/** Whether deliveries are still under way: a kill then lands in the middle of them. */
async function midway(url: string): Promise<boolean> {
  const pending = (await admin(url, '/deliveries?status=pending&limit=1')) as { deliveries: unknown[] };
  return pending.deliveries.length > 0;
}

/** Every event settled with a reason, each transaction applied once, balances = accepted sums, no discrepancies. */
async function expectConsistent(url: string, ws: ReturnType<typeof workspace>, events: Planned[]) {
  const deliveries = await allDeliveries(url);
  const settled = new Set(['delivered', 'rejected', 'failed']);
  for (const d of deliveries) {
    expect(settled.has(d.status), `delivery ${d.id} is ${d.status}`).toBe(true);
    if (d.status !== 'delivered') expect(d.error, `delivery ${d.id} ${d.status} without a reason`).toMatch(/\w/);
  }
  // A failed DEBIT is rolled back, which the balances below do not model: the wallet was down longer than the retry schedule.
  expect(deliveries.filter((d) => d.status === 'failed').map((d) => `${d.kind} ${d.transactionId}: ${d.error}`)).toEqual([]);
  const planned = new Set(events.map((e) => e.transactionId));
  expect(new Set(deliveries.filter((d) => planned.has(d.transactionId)).map((d) => d.transactionId)).size).toBe(events.length);

  const wallet = openSqlite(join(ws.dir, 'wallet', 'wallet.db'), { readonly: true });
  try {
    const applied = wallet
      .prepare(
        "SELECT player_id, type, tx_id, amount_minor, count(*) AS n FROM transactions WHERE status = 'accepted' GROUP BY 1, 2, 3",
      )
      .all() as Array<{ player_id: string; type: string; tx_id: string; amount_minor: number; n: number }>;
    expect(applied.filter((t) => t.n !== 1)).toEqual([]);
    const expected = new Map(PLAYERS.map((p) => [p, OPENING_MINOR]));
    for (const t of applied) {
      const sign = t.type === 'DEBIT' ? -1 : 1;
      expected.set(t.player_id, (expected.get(t.player_id) ?? 0) + sign * t.amount_minor);
    }
    const accepted = new Map(PLAYERS.map((p) => [p, OPENING_MINOR]));
    for (const d of deliveries) {
      if (d.status !== 'delivered') continue;
      const sign = d.kind === 'debit' ? -1 : 1;
      accepted.set(d.playerId, (accepted.get(d.playerId) ?? 0) + sign * d.amountMinor);
    }
    const balances = wallet.prepare('SELECT id, balance_minor FROM players').all() as Array<{
      id: string;
      balance_minor: number;
    }>;
    const actual = new Map(balances.map((b) => [b.id, b.balance_minor]));
    for (const p of PLAYERS) {
      expect({ p, balance: actual.get(p) }).toEqual({ p, balance: expected.get(p) });
      expect({ p, balance: actual.get(p) }).toEqual({ p, balance: accepted.get(p) });
    }
  } finally {
    wallet.close();
  }
  const discrepancies = (await admin(url, '/discrepancies')) as { total: number; discrepancies: unknown[] };
  expect(discrepancies.discrepancies).toEqual([]);
}

// Children and test open SQLite with this runtime's driver: better-sqlite3 under `npm test` (Node 20),
// node:sqlite under `npm run test:node24`. Both runs must pass.
describe.sequential(`crash durability with ${defaultDriver()} (child processes, SIGKILL)`, () => {
  it(
    `aggmock SIGKILLed ${KILLS} times during ${EVENTS} deliveries: nothing lost, nothing applied twice`,
    async () => {
      const walletPort = await freePort();
      const ws = workspace(walletPort);
      const events = plan(1);
      await storeBurst(ws, events);
      await startWalletChild(ws, walletPort);
      let serve = await startServe(ws);
      let killedMidway = 0;
      for (let k = 0; k < KILLS; k++) {
        await new Promise((resolve) => setTimeout(resolve, randomMs(20, 400)));
        if (await midway(serve.url)) killedMidway++;
        await kill(serve.cli);
        serve = await startServe(ws);
      }
      // Each kill lands while deliveries are under way (not after the outbox drained).
      expect(killedMidway).toBe(KILLS);
      await drained(serve.url);
      await expectConsistent(serve.url, ws, events);
    },
    TIMEOUT_MS,
  );

  it(
    `the wallet SIGKILLed ${KILLS} times during ${EVENTS} deliveries: every event retried to one application`,
    async () => {
      const walletPort = await freePort();
      const ws = workspace(walletPort);
      const events = plan(2);
      await storeBurst(ws, events);
      let wallet = await startWalletChild(ws, walletPort);
      const serve = await startServe(ws);
      let killedMidway = 0;
      for (let k = 0; k < KILLS; k++) {
        await new Promise((resolve) => setTimeout(resolve, randomMs(20, 400)));
        if (await midway(serve.url)) killedMidway++;
        await kill(wallet);
        wallet = await startWalletChild(ws, walletPort);
      }
      // Each kill lands while deliveries are under way (not after the outbox drained).
      expect(killedMidway).toBe(KILLS);
      await drained(serve.url);
      await expectConsistent(serve.url, ws, events);
    },
    TIMEOUT_MS,
  );
});
