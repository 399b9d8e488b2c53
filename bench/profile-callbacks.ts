/**
 * Profiling aid for the callback engine: one engine run against the sink, for `--cpu-prof`:
 * `node --import tsx --cpu-prof --cpu-prof-dir .bench-cache/prof bench/profile-callbacks.ts [events] [concurrency]`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bareLoop, engineRun, startSink } from './callbacks.ts';
import { CACHE, stop } from './lib.ts';

const events = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 32);
const dir = join(CACHE, 'tmp', `profile-${process.pid}`);
mkdirSync(dir, { recursive: true });
const { url, child } = await startSink();
try {
  await engineRun(url, concurrency, 3_000, dir, 'warm', 'single');
  const bare = await bareLoop(url, concurrency, events);
  const engine = await engineRun(url, concurrency, events, dir, 'run', 'single');
  console.log(
    `bare ${Math.round(bare.perSecond)}/s (${Math.round(bare.cpuMicros)} µs), engine ${Math.round(engine.perSecond)}/s (${Math.round(engine.cpuMicros)} µs)`,
  );
} finally {
  await stop(child);
  rmSync(dir, { recursive: true, force: true });
}
