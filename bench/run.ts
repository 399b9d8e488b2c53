/**
 * `npm run bench`: runs every benchmark in {@link BENCHMARKS} (or those named on the command
 * line: `npm run bench -- callbacks`), prints each one's markdown table and writes its figures to
 * bench/results/<name>.json. To add a benchmark, write a module whose default export is a
 * {@link Benchmark} and add one line to the list.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  /** A markdown section (title, table, notes) for the console. */
  markdown: string;
  /** Everything measured, written as JSON. */
  data: unknown;
}

export interface Benchmark {
  name: string;
  description: string;
  run(): Promise<BenchResult>;
}

const BENCHMARKS: { name: string; load: () => Promise<{ default: Benchmark }> }[] = [
  { name: 'callbacks', load: () => import('./callbacks.ts') },
  { name: 'verify', load: () => import('./verify.ts') },
  { name: 'listings', load: () => import('./listings.ts') },
  { name: 'startup', load: () => import('./startup.ts') },
];

const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !BENCHMARKS.some((b) => b.name === w));
  if (unknown.length > 0) {
    console.error(`Unknown benchmark ${unknown.join(', ')}; expected one of ${BENCHMARKS.map((b) => b.name).join(', ')}.`);
    process.exitCode = 2;
    return;
  }
  const selected = wanted.length > 0 ? BENCHMARKS.filter((b) => wanted.includes(b.name)) : BENCHMARKS;
  for (const entry of selected) {
    const bench = (await entry.load()).default;
    console.log(`\n## ${bench.name}: ${bench.description}\n`);
    const started = Date.now();
    const result = await bench.run();
    console.log(result.markdown);
    const file = join(here, 'results', `${bench.name}.json`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ benchmark: bench.name, at: new Date().toISOString(), ...environment(), data: result.data }, null, 2)}\n`,
    );
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s; figures in ${file})`);
  }
}

function environment() {
  // The load average says how much other work shared the machine while it ran.
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, loadAverage: loadavg() };
}

await main();
