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
import { fileURLToPath } from 'node:url';
import { createCallbackEngine, openDatabase } from '../src/callbacks/index.ts';
import { createTransport } from '../src/callbacks/transport.ts';
import { configSchema } from '../src/config/index.ts';
import { type Benchmark, median, stop, track } from './lib.ts';

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
): Promise<Measurement> {
  const config = configSchema.parse({ seed: round, callbacks: { webhookUrl: url, concurrency } });
  const path = join(dir, `outbox-${round}.db`);
  const db = openDatabase(path);
  const engine = createCallbackEngine({ config, db });
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
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  await engine.stop();
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  if (other > 0) throw new Error(`${other} callbacks were not delivered`);
  return { perSecond: delivered / seconds, cpuMicros: (cpu.user + cpu.system) / delivered };
}

/**
 * Why the engine has its own HTTP client: the same bare loop through node:http with a keep-alive
 * Agent and through global fetch, for comparison with {@link bareLoop}.
 */
async function clientLoop(url: string, concurrency: number, total: number, client: 'node:http' | 'fetch'): Promise<Measurement> {
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
        const runs = { bare: [] as Measurement[], batched: [] as Measurement[], single: [] as Measurement[] };
        for (let round = 0; round < ROUNDS; round++) {
          runs.bare.push(await bareLoop(url, concurrency, EVENTS));
          runs.batched.push(await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-b`, 'batched'));
          runs.single.push(await engineRun(url, concurrency, EVENTS, dir, `c${concurrency}-r${round}-s`, 'single'));
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
        });
      }
      const clients = [];
      for (const client of ['aggmock transport', 'node:http', 'fetch'] as const) {
        const ms: Measurement[] = [];
        for (let round = 0; round < 2; round++) {
          ms.push(
            client === 'aggmock transport'
              ? await bareLoop(url, 32, CLIENT_EVENTS)
              : await clientLoop(url, 32, CLIENT_EVENTS, client),
          );
        }
        clients.push({
          client,
          perSecondMedian: Math.round(median(ms.map((m) => m.perSecond))),
          cpuMicrosMedian: Math.round(median(ms.map((m) => m.cpuMicros))),
        });
      }
      const n = (x: number) => x.toLocaleString('en');
      const rows = levels.map(
        (l) =>
          `| ${l.concurrency} | ${n(l.bare.perSecondMedian)} (${l.bare.cpuMicrosMedian} µs) ` +
          `| ${n(l.engineBatched.perSecondMedian)} (${l.engineBatched.cpuMicrosMedian} µs) | ${l.engineBatched.ratioToBareMedian.toFixed(2)} ` +
          `| ${n(l.engineSingle.perSecondMedian)} (${l.engineSingle.cpuMicrosMedian} µs) | ${l.engineSingle.ratioToBareMedian.toFixed(2)} |`,
      );
      const markdown = [
        `${n(EVENTS)} callbacks per measurement, ${PLAYERS} players, sink in a child process; medians of ${ROUNDS} alternating rounds.`,
        'Rates in callbacks/s; in brackets the CPU time this process spent per callback.',
        '',
        '| concurrency | bare loop | engine, enqueueMany | engine/bare | engine, enqueue one by one | engine/bare |',
        '|---:|---:|---:|---:|---:|---:|',
        ...rows,
        '',
        'Target: engine ≥ 0.7 × bare (concurrency 32, events enqueued one by one), with nothing lost on a crash.',
        '',
        `HTTP clients, bare loop at concurrency 32, ${n(CLIENT_EVENTS)} requests, median of 2:`,
        '',
        '| client | req/s | CPU µs/request |',
        '|---|---:|---:|',
        ...clients.map((c) => `| ${c.client} | ${n(c.perSecondMedian)} | ${c.cpuMicrosMedian} |`),
      ].join('\n');
      return { markdown, data: { events: EVENTS, players: PLAYERS, rounds: ROUNDS, slice: SLICE, levels, clients } };
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

if (process.argv.includes('--sink')) runSink();
