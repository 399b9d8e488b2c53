/**
 * Callback delivery throughput: the engine (signed, journaled, durable outbox in a WAL SQLite
 * file) against a bare keep-alive POST loop, both hitting the same local sink that runs in a
 * child process (its own core). Rounds alternate bare/engine per concurrency level so drift of
 * the machine hits both alike; we report medians and the median of per-round ratios.
 *
 * Run alone with `npm run bench -- callbacks`; the sink is this same file started with `--sink`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import type { Attempt, StoredEvent } from '../src/callbacks/events.ts';
import type * as CallbacksModule from '../src/callbacks/index.ts';
import type * as OutboxRowsModule from '../src/callbacks/outbox-rows.ts';
import type * as TransportModule from '../src/callbacks/transport.ts';
import type * as ConfigModule from '../src/config/index.ts';
import { type Benchmark, ensureBuilt, median, ROOT, stop, track } from './lib.ts';

// The engine as users run it: the built JavaScript in dist/ (tsx's transpiled src/ wraps every
// function in a naming helper and runs about 10 % slower). The types come from src/.
const isSink = process.argv.includes('--sink');
if (!isSink) ensureBuilt();
// BENCH_DIST=<another tree>/dist measures another build (bench/profile-callbacks.ts, before/after).
const DIST = process.env.BENCH_DIST ?? join(ROOT, 'dist');
const dist = (path: string) => import(pathToFileURL(join(DIST, path)).href);
const { createCallbackEngine, openDatabase, Outbox } = (await dist('callbacks/index.js')) as typeof CallbacksModule;
const { createTransport } = (await dist('callbacks/transport.js')) as typeof TransportModule;
const { configSchema } = (await dist('config/index.js')) as typeof ConfigModule;
const { attemptValues, eventInsertValues, eventUpdateValues } = (await dist(
  'callbacks/outbox-rows.js',
)) as typeof OutboxRowsModule;

const LEVELS = [8, 32, 128];
/** Callbacks per measurement: long enough to be steady (~1 s at the target rate), short enough for the time budget. */
const EVENTS = 6_000;
const PLAYERS = 1_000;
const WARMUP_EVENTS = 3_000;
/** Requests per run of the HTTP client comparison (fetch is slow: keep it short). */
const CLIENT_EVENTS = 2_000;
/** Events the producer hands over per event-loop turn. */
const SLICE = 250;

// ---- the sink (child process) ----

function runSink(): void {
  const reply = Buffer.from('{"balance":100}');
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': reply.length });
      res.end(reply);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on('disconnect', () => process.exit(0));
}

export async function startSink(): Promise<{ url: string; child: ChildProcess }> {
  const child = track(fork(fileURLToPath(import.meta.url), ['--sink'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`the sink exited with code ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/callback/webhook`, child };
}

// ---- the two contestants ----

const sampleBody = '{"type":"DEBIT","transactionId":"tx_0123456789abcdef01234567","amount":10.5,"playerId":"p1"}';

/** One measurement: wall-clock rate and this process's CPU time per callback (steadier on a shared machine). */
export interface Measurement {
  perSecond: number;
  cpuMicros: number;
}

const benchHeaders = { 'Content-Type': 'application/json', 'User-Agent': 'aggmock-bench' };

/** `concurrency` workers each calling `post` back to back until `total` requests were made. */
async function postLoop(concurrency: number, total: number, post: () => Promise<number>): Promise<Measurement> {
  let sent = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total) {
        sent++;
        const status = await post();
        if (status !== 200) throw new Error(`the sink answered ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { perSecond: total / seconds, cpuMicros: (cpu.user + cpu.system) / total };
}

/** The bare loop: POSTs over the same keep-alive client the engine uses, no signing, no database. */
export async function bareLoop(url: string, concurrency: number, total: number): Promise<Measurement> {
  const transport = createTransport({ maxSockets: concurrency, timeoutMs: 10_000 });
  try {
    return await postLoop(concurrency, total, async () => (await transport.post(url, benchHeaders, sampleBody)).status);
  } finally {
    transport.close();
  }
}

/** The engine with a fresh durable outbox file: enqueue `total` events across many players, wait until all settle. */
/**
 * How the producer hands events over: `batched` stores each slice with enqueueMany (as a burst or
 * a scenario step does); `single` calls enqueue per event, as the scheduler, the admin API and the
 * play page do. Either way the engine commits the events of one turn together, at its end.
 */
export type EnqueueStyle = 'batched' | 'single';

export async function engineRun(
  url: string,
  concurrency: number,
  total: number,
  dir: string,
  round: string,
  style: EnqueueStyle,
  journal: JournalMode = 'durable',
): Promise<Measurement> {
  const config = configSchema.parse({ seed: round, callbacks: { webhookUrl: url, concurrency } });
  const path = join(dir, `outbox-${round}.db`);
  const db = openDatabase(path);
  const restore = journal === 'skipped' ? skipJournalWrites() : undefined;
  const engine = createCallbackEngine({ config, db });
  // The engine created the tables; the worker opens the same file on its own connection.
  const worker = journal === 'worker' ? await journalInWorker(path) : undefined;
  engine.start();
  let delivered = 0;
  let other = 0;
  const done = new Promise<void>((resolve) => {
    engine.onSettled((e) => {
      if (e.status === 'delivered') delivered++;
      else other++;
      if (delivered + other === total) resolve();
    });
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  // Enqueue in slices so deliveries start while the rest is still being stored, as under a steady load.
  let enqueued = 0;
  await new Promise<void>((resolve) => {
    const produce = () => {
      const until = Math.min(total, enqueued + SLICE);
      const slice = [];
      for (; enqueued < until; enqueued++) {
        slice.push({ kind: 'debit' as const, playerId: `p${enqueued % PLAYERS}`, amountMinor: 100 + (enqueued % 5000) });
      }
      if (style === 'batched') engine.enqueueMany(slice);
      else for (const req of slice) engine.enqueue(req);
      if (enqueued < total) setImmediate(produce);
      else resolve();
    };
    produce();
  });
  await done;
  // The worker probe is done when the worker has committed everything posted so far, too.
  await worker?.drained();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  await engine.stop();
  restore?.();
  await worker?.close();
  const rows = (db.prepare('SELECT count(*) AS n FROM callback_events').get() as { n: number }).n;
  db.close();
  if (journal === 'skipped' && rows > 0)
    throw new Error('the journal-skipping run wrote events: the probe no longer matches the Outbox');
  if (journal !== 'skipped' && rows !== total) throw new Error(`the outbox holds ${rows} events, expected ${total}`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  if (other > 0) throw new Error(`${other} callbacks were not delivered`);
  return { perSecond: delivered / seconds, cpuMicros: (cpu.user + cpu.system) / delivered };
}

/**
 * How the engine's journal is written: `durable` is the product (committed on the engine's thread
 * before each send); the other two are probes, only ever measured here. `skipped` drops the rows;
 * `worker` posts each commit's rows to a worker thread that commits them on its own connection, and
 * the sends do not wait for it (a real worker journal would have to): the upper bound of moving the
 * journal off the engine's thread.
 */
export type JournalMode = 'durable' | 'skipped' | 'worker';

/**
 * Replaces the Outbox's commit with a post of the same rows to a worker thread
 * (bench/journal-worker.mjs), which commits them with the Outbox's own statements. Reaches into the
 * Outbox's private buffers like {@link skipJournalWrites}; engineRun checks afterwards that the
 * file holds every event.
 */
async function journalInWorker(path: string): Promise<{ drained(): Promise<void>; close(): Promise<void> }> {
  type Buffers = {
    newEvents: StoredEvent[];
    dirty: Map<number, StoredEvent>;
    journalBuffer: Attempt[];
    delivering: Map<number, StoredEvent>;
  };
  const worker = new Worker(new URL('./journal-worker.mjs', import.meta.url), { workerData: { root: ROOT, path } });
  let posted = 0;
  let acknowledged = 0;
  let wake: (() => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  let failure: Error | undefined;
  let closed: (() => void) | undefined;
  worker.on('message', (message: number | 'ready' | 'closed' | { error: string }) => {
    if (typeof message === 'object') {
      failure = new Error(message.error);
      fail?.(failure);
      return;
    }
    if (message === 'closed') closed?.();
    else if (typeof message === 'number') acknowledged = message;
    if (acknowledged === posted) wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    wake = resolve;
    worker.once('error', reject);
  });
  const proto = Outbox.prototype as unknown as { commit(this: Buffers, withDelivering: boolean): void };
  const commit = proto.commit;
  proto.commit = function (this: Buffers, withDelivering: boolean) {
    const updates = [...this.dirty.values()].map(eventUpdateValues);
    if (withDelivering) for (const e of this.delivering.values()) updates.push(eventUpdateValues(e));
    const batch = {
      seq: ++posted,
      inserts: this.newEvents.map(eventInsertValues),
      attempts: this.journalBuffer.map((a) =>
        attemptValues(
          a,
          JSON.stringify(a.requestHeaders),
          a.requestBody === this.dirty.get(a.eventId)?.body ? null : a.requestBody,
        ),
      ),
      updates,
    };
    worker.postMessage(batch);
    this.newEvents = [];
    this.dirty = new Map();
    this.journalBuffer = [];
  };
  const drained = () =>
    failure
      ? Promise.reject(failure)
      : acknowledged === posted
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            wake = resolve;
            fail = reject;
          });
  return {
    drained,
    async close() {
      await drained();
      proto.commit = commit;
      await new Promise<void>((resolve) => {
        closed = resolve;
        worker.postMessage('close');
      });
      await worker.terminate();
    },
  };
}

/**
 * The upper bound of any faster journal (a worker thread, an async commit): the same engine with
 * its commits replaced by dropping what they would write. NOT durable, only ever measured here;
 * it reaches into the Outbox's private buffers, and engineRun checks afterwards that nothing was
 * written (so a renamed buffer fails the run instead of measuring something else).
 */
function skipJournalWrites(): () => void {
  type Buffers = { newEvents: unknown[]; dirty: Map<number, unknown>; journalBuffer: unknown[] };
  const proto = Outbox.prototype as unknown as { commit(this: Buffers, withDelivering: boolean): void };
  const commit = proto.commit;
  proto.commit = function (this: Buffers) {
    this.newEvents = [];
    this.dirty = new Map();
    this.journalBuffer = [];
  };
  return () => {
    proto.commit = commit;
  };
}

/**
 * The same bare loop through undici's Pool (a project dependency): `concurrency` keep-alive
 * connections, one request at a time on each (pipelining 1, as the engine's own client), the reply
 * body read whole as the engine reads it. The candidate to replace the hand-written client.
 */
export async function undiciLoop(url: string, concurrency: number, total: number): Promise<Measurement> {
  const { origin, pathname, search } = new URL(url);
  const path = `${pathname}${search}`;
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  try {
    return await postLoop(concurrency, total, async () => {
      const res = await pool.request({ method: 'POST', path, headers: benchHeaders, body: sampleBody });
      await res.body.text();
      return res.statusCode;
    });
  } finally {
    await pool.close();
  }
}

/**
 * Why the engine has its own HTTP client: the same bare loop through node:http with a keep-alive
 * Agent and through global fetch, for comparison with {@link bareLoop}.
 */
export async function clientLoop(
  url: string,
  concurrency: number,
  total: number,
  client: 'node:http' | 'fetch',
): Promise<Measurement> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const headers = benchHeaders;
  const viaHttp = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Length': String(sampleBody.length) },
      });
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(sampleBody);
    });
  const viaFetch = async () => {
    const res = await fetch(url, { method: 'POST', headers, body: sampleBody });
    await res.text();
    return res.status;
  };
  try {
    return await postLoop(concurrency, total, client === 'fetch' ? viaFetch : viaHttp);
  } finally {
    agent.destroy();
  }
}

// ---- the benchmark ----

const benchmark: Benchmark = {
  name: 'callbacks',
  description: 'engine (signed, journaled, durable WAL outbox) vs a bare keep-alive POST loop to the same receiver',
  async run({ rounds: ROUNDS }) {
    const { url, child } = await startSink();
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-bench-'));
    try {
      await bareLoop(url, 32, WARMUP_EVENTS);
      await engineRun(url, 32, WARMUP_EVENTS, dir, 'warmup', 'batched');
      const levels = [];
      for (const concurrency of LEVELS) {
        const runs = {
          bare: [] as Measurement[],
          batched: [] as Measurement[],
          single: [] as Measurement[],
          unjournaled: [] as Measurement[],
          worker: [] as Measurement[],
        };
        for (let round = 0; round < ROUNDS; round++) {
          runs.bare.push(await bareLoop(url, concurrency, EVENTS));
          runs.batched.push(await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-b`, 'batched'));
          runs.single.push(await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-s`, 'single'));
          runs.unjournaled.push(
            await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-u`, 'single', 'skipped'),
          );
          runs.worker.push(await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-w`, 'single', 'worker'));
        }
        const summary = (ms: Measurement[]) => ({
          perSecondMedian: Math.round(median(ms.map((m) => m.perSecond))),
          cpuMicrosMedian: Math.round(median(ms.map((m) => m.cpuMicros))),
          perSecond: ms.map((m) => Math.round(m.perSecond)),
          cpuMicros: ms.map((m) => Math.round(m.cpuMicros)),
        });
        const ratio = (ms: Measurement[]) =>
          Number(median(ms.map((m, i) => m.perSecond / (runs.bare[i] as Measurement).perSecond)).toFixed(3));
        levels.push({
          concurrency,
          bare: summary(runs.bare),
          engineBatched: { ...summary(runs.batched), ratioToBareMedian: ratio(runs.batched) },
          engineSingle: { ...summary(runs.single), ratioToBareMedian: ratio(runs.single) },
          engineJournalSkipped: { ...summary(runs.unjournaled), ratioToBareMedian: ratio(runs.unjournaled) },
          engineJournalInWorker: { ...summary(runs.worker), ratioToBareMedian: ratio(runs.worker) },
        });
      }
      // The clients alternate round by round too: aggmock's transport and undici.Pool are the pair
      // compared (is the hand-written client still worth its code?), so they get ROUNDS rounds.
      const CLIENTS = ['aggmock transport', 'undici.Pool', 'node:http', 'fetch'] as const;
      const clientRuns = new Map<(typeof CLIENTS)[number], Measurement[]>(CLIENTS.map((c) => [c, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const client of CLIENTS) {
          // node:http and fetch are an order of magnitude slower: two rounds say enough.
          if (round >= 2 && (client === 'node:http' || client === 'fetch')) continue;
          clientRuns
            .get(client)
            ?.push(
              client === 'aggmock transport'
                ? await bareLoop(url, 32, CLIENT_EVENTS)
                : client === 'undici.Pool'
                  ? await undiciLoop(url, 32, CLIENT_EVENTS)
                  : await clientLoop(url, 32, CLIENT_EVENTS, client),
            );
        }
      }
      const transportRuns = clientRuns.get('aggmock transport') as Measurement[];
      const clients = CLIENTS.map((client) => {
        const ms = clientRuns.get(client) as Measurement[];
        return {
          client,
          rounds: ms.length,
          perSecondMedian: Math.round(median(ms.map((m) => m.perSecond))),
          cpuMicrosMedian: Math.round(median(ms.map((m) => m.cpuMicros))),
          // Per round, against the transport's run of the same round.
          ratioToTransportMedian: Number(
            median(ms.map((m, i) => m.perSecond / (transportRuns[i] as Measurement).perSecond)).toFixed(3),
          ),
        };
      });
      const n = (x: number) => x.toLocaleString('en');
      const rows = levels.map(
        (l) =>
          `| ${l.concurrency} | ${n(l.bare.perSecondMedian)} (${l.bare.cpuMicrosMedian} µs) ` +
          `| ${n(l.engineBatched.perSecondMedian)} (${l.engineBatched.cpuMicrosMedian} µs) | ${l.engineBatched.ratioToBareMedian.toFixed(2)} ` +
          `| ${n(l.engineSingle.perSecondMedian)} (${l.engineSingle.cpuMicrosMedian} µs) | ${l.engineSingle.ratioToBareMedian.toFixed(2)} ` +
          `| ${n(l.engineJournalSkipped.perSecondMedian)} (${l.engineJournalSkipped.cpuMicrosMedian} µs) | ${l.engineJournalSkipped.ratioToBareMedian.toFixed(2)} ` +
          `| ${n(l.engineJournalInWorker.perSecondMedian)} (${l.engineJournalInWorker.cpuMicrosMedian} µs) | ${l.engineJournalInWorker.ratioToBareMedian.toFixed(2)} |`,
      );
      const markdown = [
        `${n(EVENTS)} callbacks per measurement, ${PLAYERS} players, sink in a child process; medians of ${ROUNDS} alternating rounds.`,
        'Rates in callbacks/s; in brackets the CPU time this process spent per callback.',
        '',
        '| concurrency | bare loop | engine, enqueueMany | engine/bare | engine, enqueue one by one | engine/bare | same, journal writes skipped (not durable) | /bare | same, journal in a worker thread (probe) | /bare |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...rows,
        '',
        'Target: engine ≥ 0.7 × bare (concurrency 32, events enqueued one by one), with nothing lost on a crash.',
        'The last four columns are probes, not modes. *Journal writes skipped*: the engine with its SQLite commits replaced by dropping the rows, the upper bound of any faster journal. *Journal in a worker thread*: each commit’s rows posted to a worker thread that commits them with the same statements on its own connection (bench/journal-worker.mjs), timed until the worker has committed everything, with sends not waiting for the worker (a real worker journal would have to); its CPU column counts both threads.',
        '',
        `HTTP clients, bare loop at concurrency 32, ${n(CLIENT_EVENTS)} requests a run, alternating; medians of the rounds in the table (rate against aggmock’s transport in the same round):`,
        '',
        '| client | rounds | req/s | CPU µs/request | /transport |',
        '|---|---:|---:|---:|---:|',
        ...clients.map(
          (c) =>
            `| ${c.client} | ${c.rounds} | ${n(c.perSecondMedian)} | ${c.cpuMicrosMedian} | ${c.ratioToTransportMedian.toFixed(2)} |`,
        ),
      ].join('\n');
      return { markdown, data: { events: EVENTS, players: PLAYERS, rounds: ROUNDS, slice: SLICE, levels, clients } };
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

if (isSink) runSink();
