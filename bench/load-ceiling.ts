/**
 * The contestants of `aggmock load`'s ceiling (bench/load.ts, bench/profile-load.ts): the bare sink
 * in a child process, a bare keep-alive POST loop that signs each request, and the generator at a
 * rate it cannot reach. The generator is the built one (dist/, as users run it; tsx's transpiled
 * src/ runs ~10 % slower); the types come from src/.
 */
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as TransportModule from '../src/callbacks/transport.ts';
import type * as ConfigModule from '../src/config/index.ts';
import type * as LoadModule from '../src/load/index.ts';
import type * as SigningModule from '../src/signing/index.ts';
import { ensureBuilt, ROOT, track } from './lib.ts';

const isSink = process.argv.includes('--load-sink');
if (!isSink) ensureBuilt();
const dist = (path: string, dir = join(ROOT, 'dist')) => import(pathToFileURL(join(dir, path)).href);

/** Requests (rounds, for the generator) in flight. */
export const IN_FLIGHT = 32;
/** Rounds the generator keeps in flight in its ceiling run. */
export const QUEUED_ROUNDS = 512;
export const PLAYERS = Array.from({ length: 50 }, (_, i) => `p${i + 1}`);

export interface Measurement {
  perSecond: number;
  /** This process's CPU time per call (user + system), steadier than the rate on a shared machine. */
  cpuMicros: number;
}

if (isSink) {
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

/** The bare sink: a keep-alive node:http server in a child process answering every request 200. */
export async function startLoadSink(): Promise<{ url: string; child: ChildProcess }> {
  const child = track(fork(fileURLToPath(import.meta.url), ['--load-sink'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the sink exited with code ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const measure = async (calls: () => number, run: () => Promise<void>): Promise<Measurement> => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { perSecond: calls() / s, cpuMicros: (cpu.user + cpu.system) / calls() };
};

/**
 * The bare loop with signing: `total` POSTs, {@link IN_FLIGHT} at a time, over aggmock's
 * keep-alive transport; each a fresh JSON body (its own transaction id) signed with the
 * timestamped HMAC the generator's default dialect uses. It reads each status and keeps nothing.
 * `extraMicros`: CPU time spent (busy-waiting) after each reply, a stand-in for a client's own work
 * a request: the loop with it shows what a given cost a request does to the rate.
 */
export async function signedBareLoop(url: string, total: number, extraMicros = 0): Promise<Measurement> {
  const { createTransport } = (await dist('callbacks/transport.js')) as typeof TransportModule;
  const { signPayload } = (await dist('signing/index.js')) as typeof SigningModule;
  const { DEV_SECRET } = (await dist('config/index.js')) as typeof ConfigModule;
  const transport = createTransport({ maxSockets: IN_FLIGHT, timeoutMs: 10_000 });
  const target = `${url}/`;
  const secrets = [DEV_SECRET];
  let next = 0;
  try {
    return await measure(
      () => total,
      () =>
        Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < total) {
              const n = next++;
              const body = `{"type":"DEBIT","transactionId":"tx_bench_${n}","amount":1.5,"playerId":"p${n % 50}"}`;
              const headers = signPayload({
                scheme: 'timestamped',
                secrets,
                payload: body,
                timestamp: Math.floor(Date.now() / 1000),
              });
              headers['content-type'] = 'application/json';
              const answer = await transport.post(target, headers, body);
              if (answer.status !== 200) throw new Error(`the sink answered ${answer.status}`);
              if (extraMicros > 0) {
                const until = performance.now() + extraMicros / 1000;
                while (performance.now() < until);
              }
            }
          }),
        ).then(() => undefined),
    );
  } finally {
    transport.close();
  }
}

/**
 * The generator at a rate it cannot reach for `seconds`, over {@link IN_FLIGHT} connections as the
 * bare loop: up to {@link QUEUED_ROUNDS} rounds in flight, so a connection that frees up always has
 * a call waiting for it (with only 32 rounds in flight a slot freed by a finished round would
 * wait for the next tick of the schedule's clock); the rounds due beyond that are dropped.
 * `distDir`: another build's dist/ (bench/profile-load.ts compares builds); default this tree's.
 */
export async function generatorCeiling(url: string, seconds: number, distDir?: string): Promise<Measurement> {
  const { configSchema, dialectOf } = (await dist('config/index.js', distDir)) as typeof ConfigModule;
  const { parseMix, runLoad } = (await dist('load/index.js', distDir)) as typeof LoadModule;
  const config = configSchema.parse({});
  let calls = 0;
  return measure(
    () => calls,
    async () => {
      const result = await runLoad({
        config,
        url,
        schedule: { startRate: 100_000, stages: [{ durationMs: seconds * 1000, rate: 100_000 }] },
        players: PLAYERS,
        mix: parseMix('bet-win=1', dialectOf(config.callbacks)),
        stakeMinor: 100,
        currency: 'EUR',
        maxInFlight: QUEUED_ROUNDS,
        connections: IN_FLIGHT,
        dropMs: 100_000,
      });
      calls = result.stats.calls;
    },
  );
}
