/**
 * `aggmock load`'s ceiling and a rate sweep. The ceiling: the load generator (signing every call
 * with the default profile's timestamped HMAC, reading every reply, keeping every record for the
 * verdict) against a bare keep-alive sink in a child process, beside the bare keep-alive POST loop
 * with signing (a fresh body per request, the same HMAC, over the same transport: the reference of
 * every ratio), an undici Pool loop and autocannon that post one fixed body unsigned; 32
 * connections each, the variants alternated over the rounds, medians and the median of per-round
 * ratios to the signed loop, with each variant's CPU time per request in this process (autocannon's
 * workers are not counted). The sweep: the generator at rising rates against the reference wallet
 * (softswiss, SQLite in memory) in a child process, showing where the wallet stops keeping up (the
 * knee). Run with `npm run bench -- load`. The generator is the built one (bench/load-ceiling.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import type * as ConfigModule from '../src/config/index.ts';
import type * as LoadModule from '../src/load/index.ts';
import { type Benchmark, cpuMicros, median, ROOT } from './lib.ts';
import {
  generatorCeiling,
  IN_FLIGHT,
  type Measurement,
  PLAYERS,
  QUEUED_ROUNDS,
  signedBareLoop,
  startLoadSink,
} from './load-ceiling.ts';

const role = process.argv.includes('--wallet');
const BODY = JSON.stringify({ type: 'DEBIT', transactionId: 'tx_bench_0001', amount: 1.5, playerId: 'p1' });
const SWEEP = [50, 100, 200, 400, 800, 1600];
/** The bare loop with this much CPU spent after each reply: what a client's own work a request costs the rate (the generator's budget). */
const WORK_MICROS = 20;

if (role) {
  const { configSchema } = await import('../src/config/index.ts');
  const { startWallet } = await import('../src/wallet/index.ts');
  const config = configSchema.parse({
    callbacks: { profile: 'softswiss' },
    wallet: { currency: 'EUR', players: Object.fromEntries(PLAYERS.map((p) => [p, 1_000_000])) },
  });
  const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
  process.send?.({ port: wallet.port });
  process.on('disconnect', () => process.exit(0));
}

function walletChild(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = fork(fileURLToPath(import.meta.url), ['--wallet'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve({ proc, url: `http://127.0.0.1:${(m as { port: number }).port}` }));
    proc.once('exit', (code) => reject(new Error(`the wallet exited ${code}`)));
  });
}

/** `total` POSTs of one fixed body, unsigned, `IN_FLIGHT` at a time over an undici Pool. */
async function undiciLoop(url: string, total: number): Promise<Measurement> {
  const pool = new Pool(url, { connections: IN_FLIGHT, pipelining: 1 });
  const headers = { 'content-type': 'application/json' };
  let next = 0;
  const c0 = process.cpuUsage();
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < total) {
          const res = await pool.request({ path: '/', method: 'POST', headers, body: BODY });
          await res.body.text();
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const cpu = process.cpuUsage(c0);
  return { perSecond: total / ((performance.now() - start) / 1000), cpuMicros: (cpu.user + cpu.system) / total };
}

async function autocannonRun(url: string, seconds: number): Promise<Measurement> {
  const r = await autocannon({
    url,
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json' },
    connections: IN_FLIGHT,
    duration: seconds,
  });
  return { perSecond: r.requests.average, cpuMicros: Number.NaN };
}

const benchmark: Benchmark = {
  name: 'load',
  description:
    "aggmock load's ceiling beside the bare keep-alive loop with signing, an undici loop and autocannon, and a rate sweep against the reference wallet",
  async run(options) {
    const sink = await startLoadSink();
    const rounds = options.rounds;
    const seconds = options.duration;
    const variants: Record<string, () => Promise<Measurement>> = {
      'bare loop, signed': () => signedBareLoop(sink.url, Math.round(seconds * 10_000)),
      [`bare loop, signed, +${WORK_MICROS} µs of work a request`]: () =>
        signedBareLoop(sink.url, Math.round(seconds * 8_000), WORK_MICROS),
      'undici loop, unsigned': () => undiciLoop(sink.url, Math.round(seconds * 10_000)),
      'autocannon, unsigned': () => autocannonRun(sink.url, seconds),
      generator: () => generatorCeiling(sink.url, seconds),
    };
    const names = Object.keys(variants);
    const runs: Record<string, Measurement[]> = Object.fromEntries(names.map((n) => [n, []]));
    /** The share of one core the sink was busy during each measurement: near 1, the sink was the limit, not the client. */
    const sinkBusy: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    const measured = async (v: string) => {
      const cpu0 = cpuMicros(sink.child.pid);
      const t0 = performance.now();
      runs[v]?.push(await (variants[v] as () => Promise<Measurement>)());
      sinkBusy[v]?.push((cpuMicros(sink.child.pid) - cpu0) / ((performance.now() - t0) * 1000));
    };
    try {
      // Warm-up, unmeasured.
      await signedBareLoop(sink.url, 3000);
      await undiciLoop(sink.url, 2000);
      await generatorCeiling(sink.url, 1);
      for (let r = 0; r < rounds; r++) {
        const rotated = names.map((_, i) => names[(i + r) % names.length] as string);
        for (const v of r % 2 === 0 ? rotated : rotated.reverse()) await measured(v);
      }
    } finally {
      sink.child.kill();
    }
    const reference = runs['bare loop, signed'] ?? [];
    const ceiling = names.map((variant) => {
      const xs = runs[variant] ?? [];
      return {
        variant,
        rps: Math.round(median(xs.map((x) => x.perSecond))),
        ratioToSignedLoop:
          Math.round(median(xs.map((x, i) => x.perSecond / (reference[i]?.perSecond ?? Number.NaN))) * 100) / 100,
        cpuMicros: Math.round(median(xs.map((x) => x.cpuMicros))),
        sinkBusy: Math.round(median(sinkBusy[variant] ?? []) * 100) / 100,
        rounds: xs.map((x) => Math.round(x.perSecond)),
      };
    });

    const wallet = await walletChild();
    const sweep = [];
    const dist = (path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
    const { configSchema, dialectOf } = (await dist('config/index.js')) as typeof ConfigModule;
    const { judgeRun, parseMix, runLoad } = (await dist('load/index.js')) as typeof LoadModule;
    try {
      const config = configSchema.parse({ callbacks: { profile: 'softswiss' } });
      const dialect = dialectOf(config.callbacks);
      for (const rate of SWEEP) {
        const result = await runLoad({
          config,
          url: wallet.url,
          schedule: { startRate: rate, stages: [{ durationMs: Math.max(2, seconds) * 1000, rate }] },
          players: PLAYERS,
          mix: parseMix(undefined, dialect),
          stakeMinor: 100,
          currency: 'EUR',
          maxInFlight: 2000,
        });
        const s = result.stats;
        const verdict = judgeRun(dialect, result.records);
        sweep.push({
          askedRoundsPerSecond: rate,
          achievedRoundsPerSecond: Math.round(s.roundsStarted / (result.scheduleMs / 1000)),
          callsPerSecond: Math.round(s.calls / (result.elapsedMs / 1000)),
          p50Ms: s.all.percentile(50) / 1000,
          p99Ms: s.all.percentile(99) / 1000,
          late: s.late,
          dropped: s.dropped,
          errorsPercent: Math.round(s.errorRate * 10000) / 100,
          correct: verdict.ok,
          // Why a "no": calls the checker proved wrong, or windows it could not decide (kept in the JSON).
          violations: verdict.violations.length,
          undetermined: verdict.undetermined.length,
          unreconciled: verdict.unreconciled.length,
        });
      }
    } finally {
      wallet.proc.kill();
    }
    const markdown = [
      `${IN_FLIGHT} connections; ${rounds} alternating rounds of ${seconds} s; medians, and the median of per-round ratios to the bare loop with signing. The generator signs each call (timestamped HMAC), reads and judges each reply and keeps each call for the verdict, bet-win rounds with up to ${QUEUED_ROUNDS} in flight (its rounds wait for a connection, as the loop's requests do); the bare loop signs a fresh body per request over the same transport and keeps nothing; undici and autocannon post one fixed body unsigned. CPU: this process's time per request (autocannon's workers are not counted). Sink busy: the share of one core the sink's process used during the measurement (from /proc); near 1.0 the sink, not the client, set the rate. The loop with +${WORK_MICROS} µs busy-waits that long after each reply: it shows what that much work a request of a client's own costs the rate here.`,
      '',
      '| client | req/s | × bare loop, signed | CPU µs/request | sink busy | rounds |',
      '|---|---:|---:|---:|---:|---|',
      ...ceiling.map(
        (c) =>
          `| ${c.variant} | ${c.rps} | ${c.ratioToSignedLoop.toFixed(2)} | ${Number.isNaN(c.cpuMicros) ? '–' : c.cpuMicros} | ${Number.isNaN(c.sinkBusy) ? '–' : c.sinkBusy.toFixed(2)} | ${c.rounds.join(', ')} |`,
      ),
      '',
      `Rate sweep against the reference wallet (softswiss, in-memory SQLite, its own process), ${PLAYERS.length} players, default mix, ${Math.max(2, seconds)} s per rate:`,
      '',
      '| asked rounds/s | achieved | calls/s | p50 ms | p99 ms | late | dropped | errors % | correct |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...sweep.map(
        (s) =>
          `| ${s.askedRoundsPerSecond} | ${s.achievedRoundsPerSecond} | ${s.callsPerSecond} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ${s.late} | ${s.dropped} | ${s.errorsPercent} | ${s.correct ? 'yes' : 'no'} |`,
      ),
    ].join('\n');
    return { markdown, data: { inFlight: IN_FLIGHT, ceiling, sweep } };
  },
};

export default benchmark;
