/**
 * `aggmock load`'s ceiling and a rate sweep. The ceiling: the load generator (signing every call
 * with the default profile's timestamped HMAC, reading every reply, keeping every record for the
 * verdict) against a bare keep-alive sink in a child process, beside autocannon and two bare
 * keep-alive POST loops (an undici Pool, the generator's client, and node:http with a keep-alive
 * agent) that sign nothing and keep nothing; each at 32 requests in flight, the variants alternated
 * over the rounds, medians and the median of per-round ratios to the undici loop. The sweep: the
 * generator at rising rates against the reference wallet (softswiss, SQLite in memory) in a child
 * process, showing where the wallet stops keeping up (the knee). Run with `npm run bench -- load`.
 * The generator runs from src/ through tsx here (the bare loops do not depend on it).
 */
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { configSchema, dialectOf } from '../src/config/index.ts';
import { judgeRun, parseMix, runLoad } from '../src/load/index.ts';
import { type Benchmark, median } from './lib.ts';

const role = process.argv.find((a) => a === '--sink' || a === '--wallet');
const IN_FLIGHT = 32;
const BODY = JSON.stringify({ type: 'DEBIT', transactionId: 'tx_bench_0001', amount: 1.5, playerId: 'p1' });
const SWEEP = [50, 100, 200, 400, 800, 1600];
const PLAYERS = Array.from({ length: 50 }, (_, i) => `p${i + 1}`);

if (role === '--sink') {
  const reply = Buffer.from('{"balance":100000}');
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': reply.length });
      res.end(reply);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}
if (role === '--wallet') {
  const { startWallet } = await import('../src/wallet/index.ts');
  const config = configSchema.parse({
    callbacks: { profile: 'softswiss' },
    wallet: { currency: 'EUR', players: Object.fromEntries(PLAYERS.map((p) => [p, 1_000_000])) },
  });
  const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
  process.send?.({ port: wallet.port });
  process.on('disconnect', () => process.exit(0));
}

function child(flag: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = fork(fileURLToPath(import.meta.url), [flag], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve({ proc, url: `http://127.0.0.1:${(m as { port: number }).port}` }));
    proc.once('exit', (code) => reject(new Error(`${flag} exited ${code}`)));
  });
}

/** `total` POSTs, `IN_FLIGHT` at a time; requests per second. */
async function loop(post: () => Promise<void>, total: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < total) await post();
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

async function undiciLoop(url: string, total: number): Promise<number> {
  const pool = new Pool(url, { connections: IN_FLIGHT, pipelining: 1 });
  const headers = { 'content-type': 'application/json' };
  try {
    return await loop(async () => {
      const res = await pool.request({ path: '/', method: 'POST', headers, body: BODY });
      await res.body.text();
    }, total);
  } finally {
    await pool.close();
  }
}

async function nodeHttpLoop(url: string, total: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const { port } = new URL(url);
  try {
    return await loop(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              path: '/',
              method: 'POST',
              agent,
              headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
            },
            (res) => {
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          req.end(BODY);
        }),
      total,
    );
  } finally {
    agent.destroy();
  }
}

async function autocannonRun(url: string, seconds: number): Promise<number> {
  const r = await autocannon({
    url,
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json' },
    connections: IN_FLIGHT,
    duration: seconds,
  });
  return r.requests.average;
}

/** The generator at a rate it cannot reach, rounds capped at IN_FLIGHT: calls per second it achieved. */
async function generatorCeiling(url: string, seconds: number): Promise<number> {
  const config = configSchema.parse({});
  const result = await runLoad({
    config,
    url,
    schedule: { startRate: 100_000, stages: [{ durationMs: seconds * 1000, rate: 100_000 }] },
    players: PLAYERS,
    mix: parseMix('bet-win=1', dialectOf(config.callbacks)),
    stakeMinor: 100,
    currency: 'EUR',
    maxInFlight: IN_FLIGHT,
    connections: IN_FLIGHT,
    dropMs: 100_000,
  });
  return result.stats.calls / (result.elapsedMs / 1000);
}

const benchmark: Benchmark = {
  name: 'load',
  description:
    "aggmock load's ceiling beside autocannon and bare keep-alive loops, and a rate sweep against the reference wallet",
  async run(options) {
    const sink = await child('--sink');
    const rounds = options.rounds;
    const seconds = options.duration;
    const runs: Record<string, number[]> = { undici: [], 'node:http': [], autocannon: [], generator: [] };
    try {
      // Warm-up, unmeasured.
      await undiciLoop(sink.url, 2000);
      await generatorCeiling(sink.url, 1);
      for (let r = 0; r < rounds; r++) {
        const undici = await undiciLoop(sink.url, Math.round(seconds * 8000));
        const order = r % 2 === 0 ? ['node:http', 'autocannon', 'generator'] : ['generator', 'autocannon', 'node:http'];
        runs.undici?.push(undici);
        for (const v of order) {
          const rps =
            v === 'node:http'
              ? await nodeHttpLoop(sink.url, Math.round(seconds * 8000))
              : v === 'autocannon'
                ? await autocannonRun(sink.url, seconds)
                : await generatorCeiling(sink.url, seconds);
          runs[v]?.push(rps);
        }
      }
    } finally {
      sink.proc.kill();
    }
    const ratio = (v: string) => median((runs[v] ?? []).map((x, i) => x / (runs.undici?.[i] ?? Number.NaN)));
    const ceiling = Object.entries(runs).map(([variant, xs]) => ({
      variant,
      rps: Math.round(median(xs)),
      ratioToUndici: Math.round(ratio(variant) * 100) / 100,
      rounds: xs.map(Math.round),
    }));

    const wallet = await child('--wallet');
    const sweep = [];
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
        });
      }
    } finally {
      wallet.proc.kill();
    }
    const markdown = [
      `${IN_FLIGHT} requests in flight; ${rounds} alternating rounds of ${seconds} s; medians, and the median of per-round ratios to the undici keep-alive loop. The generator signs each call (timestamped HMAC), reads each reply and keeps each call for the verdict; the loops post one fixed body.`,
      '',
      '| client | req/s | × undici loop | rounds |',
      '|---|---:|---:|---|',
      ...ceiling.map((c) => `| ${c.variant} | ${c.rps} | ${c.ratioToUndici.toFixed(2)} | ${c.rounds.join(', ')} |`),
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
