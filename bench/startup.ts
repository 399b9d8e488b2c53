/**
 * Start-up time: from spawning `aggmock serve` (default catalog, in-memory database) to the first
 * `GET /health` that answers 200, as a user starts it. Two series, alternating: the package's bin
 * (the compiled dist/, what `npx aggmock` runs) and the TypeScript sources through tsx (what the
 * bin did before it ran the build). Target: under 1 s for the bin. Run after `npm run build`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './run.ts';

const ROUNDS = 7;
const TARGET_MS = 1_000;
const BIN = fileURLToPath(new URL('../bin/aggmock.js', import.meta.url));
const SOURCE = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const SERVE = ['serve', '--port', '0', '--db', ':memory:'];

const SERIES: Record<string, string[]> = {
  'bin (dist/cli/main.js)': [BIN, ...SERVE],
  'sources through tsx': ['--import', 'tsx', SOURCE, ...SERVE],
};

/** Milliseconds from spawn to the first 200 from /health; the process is then stopped by its PID. */
export async function timeToHealthy(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within 30 s: ${out}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${out}`)));
    });
    for (;;) {
      const res = await fetch(`${url}/health`).catch(() => undefined);
      if (res?.status === 200) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    await exited;
  }
}

const median = (runs: number[]) => [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number;

const bench: Benchmark = {
  name: 'startup',
  description: `process start to GET /health 200, aggmock serve with the default catalog (target < ${TARGET_MS / 1000} s)`,
  async run() {
    const runs: Record<string, number[]> = Object.fromEntries(Object.keys(SERIES).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(SERIES)) runs[name]?.push(await timeToHealthy(args));
    }
    const ms = (v: number) => `${Math.round(v)} ms`;
    const rows = Object.entries(runs).map(
      ([name, r]) => `| ${name} | ${r.length} | ${ms(median(r))} | ${ms(Math.min(...r))} | ${ms(Math.max(...r))} |`,
    );
    const markdown = ['| start | rounds | median | min | max |', '|---|---:|---:|---:|---:|', ...rows].join('\n');
    const data = Object.fromEntries(
      Object.entries(runs).map(([name, r]) => [name, { median: median(r), min: Math.min(...r), max: Math.max(...r), runs: r }]),
    );
    return { markdown, data };
  },
};

export default bench;
