/**
 * `npm run bench`: runs every benchmark in {@link BENCHMARKS} (or those named on the command
 * line: `npm run bench -- callbacks`), prints each one's markdown and writes its figures to
 * bench/results/<name>.json, with the machine, Node version, date and command. Never part of
 * `npm test`. Flags:
 *   --rounds N       alternating rounds (default 5; the figures in docs/benchmarks.md need ≥ 5)
 *   --duration S     seconds per load measurement (default 2)
 *   --connections N  autocannon connections (default 50)
 *   --no-peers       leave out Prism, Mockoon, json-server and WireMock; --skip prism,wiremock some of them
 *   --write-readme   then regenerate the performance section of docs/benchmarks.md from bench/results/*.json
 *   --readme-only    only that
 * Builds dist/ first when it is older than src/ (aggmock is measured as users start it).
 * Every process a benchmark starts is stopped by PID when it ends, also on failure or Ctrl-C.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { type Benchmark, type BenchOptions, ensureBuilt, killAll } from './lib.ts';
import { writeReadme } from './readme.ts';

const BENCHMARKS: { name: string; load: () => Promise<{ default: Benchmark }> }[] = [
  { name: 'listings', load: () => import('./listings.ts') },
  { name: 'launch', load: () => import('./launch.ts') },
  { name: 'callbacks', load: () => import('./callbacks.ts') },
  { name: 'startup', load: () => import('./startup.ts') },
  { name: 'verify', load: () => import('./verify.ts') },
  { name: 'ledger', load: () => import('./ledger.ts') },
  { name: 'load', load: () => import('./load.ts') },
];

function parseArgs(argv: string[]) {
  const options: BenchOptions = { rounds: 5, duration: 2, connections: 50, skipPeers: new Set() };
  const names: string[] = [];
  let writeReadmeToo = false;
  let readmeOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--rounds') options.rounds = Math.max(1, Number(value()));
    else if (a === '--duration') options.duration = Math.max(1, Number(value()));
    else if (a === '--connections') options.connections = Math.max(1, Number(value()));
    else if (a === '--no-peers') options.skipPeers.add('all');
    else if (a === '--skip') for (const p of value().split(',')) options.skipPeers.add(p.trim().toLowerCase());
    else if (a === '--write-readme') writeReadmeToo = true;
    else if (a === '--readme-only') readmeOnly = true;
    else if (a.startsWith('-')) throw new Error(`unknown flag ${a}`);
    else names.push(a);
  }
  return { options, names, writeReadmeToo, readmeOnly };
}

export function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cpus: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { options, names, writeReadmeToo, readmeOnly } = parseArgs(argv);
  if (readmeOnly) {
    writeReadme();
    return;
  }
  const unknown = names.filter((w) => !BENCHMARKS.some((b) => b.name === w));
  if (unknown.length > 0) {
    console.error(`Unknown benchmark ${unknown.join(', ')}; expected one of ${BENCHMARKS.map((b) => b.name).join(', ')}.`);
    process.exitCode = 2;
    return;
  }
  ensureBuilt();
  const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
  const selected = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  const t0 = Date.now();
  for (const entry of selected) {
    const bench = (await entry.load()).default;
    console.log(`\n## ${bench.name}: ${bench.description}\n`);
    const started = Date.now();
    const loadBefore = loadavg();
    const result = await bench.run(options);
    console.log(result.markdown);
    const file = join(import.meta.dirname, 'results', `${bench.name}.json`);
    mkdirSync(dirname(file), { recursive: true });
    const record = {
      benchmark: bench.name,
      description: bench.description,
      at: new Date().toISOString(),
      command,
      machine: machine(),
      // The load average says how much other work shared the machine while it ran.
      loadAverage: { before: loadBefore, after: loadavg() },
      seconds: Math.round((Date.now() - started) / 1000),
      options: { ...options, skipPeers: [...options.skipPeers] },
      markdown: result.markdown,
      data: result.data,
    };
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`\n(${record.seconds} s; figures in ${file})`);
  }
  console.log(`\n(all done in ${Math.round((Date.now() - t0) / 1000)} s)`);
  if (writeReadmeToo) writeReadme();
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  killAll();
}
