/**
 * Profiling aid for `aggmock load`'s ceiling: the generator (built, from dist/) against the bare
 * sink, alternating with a bare keep-alive POST loop that signs every request as the generator
 * does (timestamped HMAC over a fresh body) over aggmock's transport. Prints each round's rate and
 * this process's CPU time per call, and the median ratio. For `--cpu-prof`:
 * `node --import tsx [--cpu-prof --cpu-prof-dir .bench-cache/prof] bench/profile-load.ts [rounds] [seconds] [only]`
 * where `only` is `generator` or `bare` to run one side (for a profile or callgrind).
 *
 * To compare builds of the generator, name them: `… bench/profile-load.ts 7 2 before=<other tree>/dist new=dist`
 * alternates the bare loop and each build's generator, and prints each one's CPU a call and its
 * ratio to the bare loop's, round by round and as medians.
 */
import { resolve } from 'node:path';
import { median, stop } from './lib.ts';
import { generatorCeiling, signedBareLoop, startLoadSink } from './load-ceiling.ts';

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 2);
const builds = process.argv.slice(4).filter((a) => a.includes('='));
const only = builds.length ? undefined : process.argv[4];
const { url, child } = await startLoadSink();
if (builds.length) {
  try {
    await compareBuilds(builds.map((b) => b.split('=') as [string, string]));
  } finally {
    await stop(child);
  }
  process.exit(0);
}
try {
  await signedBareLoop(url, 3_000);
  await generatorCeiling(url, 1);
  const bare: number[] = [];
  const gen: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['bare', 'generator'] : ['generator', 'bare'];
    const got: Record<string, { perSecond: number; cpuMicros: number }> = {};
    for (const v of order) {
      if (only && v !== only) continue;
      got[v] = v === 'bare' ? await signedBareLoop(url, Math.round(seconds * 10_000)) : await generatorCeiling(url, seconds);
    }
    const b = got.bare;
    const g = got.generator;
    if (b) bare.push(b.perSecond);
    if (g) gen.push(g.perSecond);
    if (b && g) ratios.push(g.perSecond / b.perSecond);
    console.log(
      `round ${r + 1}: bare ${b ? `${Math.round(b.perSecond)}/s ${b.cpuMicros.toFixed(1)} µs` : '-'}, generator ${g ? `${Math.round(g.perSecond)}/s ${g.cpuMicros.toFixed(1)} µs` : '-'}${b && g ? `, ratio ${(g.perSecond / b.perSecond).toFixed(2)}` : ''}`,
    );
  }
  console.log(
    `median: bare ${Math.round(median(bare))}/s, generator ${Math.round(median(gen))}/s, ratio ${ratios.length ? median(ratios).toFixed(2) : '-'}`,
  );
} finally {
  await stop(child);
}

/** The bare loop and each build's generator, alternating (the order reversed every other round). */
async function compareBuilds(named: [string, string][]): Promise<void> {
  const variants: [string, () => ReturnType<typeof signedBareLoop>][] = [
    ['bare', () => signedBareLoop(url, Math.round(seconds * 10_000))],
    ...named.map(
      ([label, dir]) =>
        [label, () => generatorCeiling(url, seconds, resolve(dir))] as [string, () => ReturnType<typeof signedBareLoop>],
    ),
  ];
  for (const [, run] of variants) await run();
  const cpu = new Map<string, number[]>();
  const rate = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    const got = new Map<string, { perSecond: number; cpuMicros: number }>();
    for (const [label, run] of r % 2 === 0 ? variants : [...variants].reverse()) got.set(label, await run());
    const bare = got.get('bare') as { perSecond: number; cpuMicros: number };
    for (const [label, m] of got) {
      cpu.set(label, [...(cpu.get(label) ?? []), m.cpuMicros / bare.cpuMicros]);
      rate.set(label, [...(rate.get(label) ?? []), m.perSecond / bare.perSecond]);
    }
    console.log(
      `round ${r + 1}: ${[...got].map(([l, m]) => `${l} ${Math.round(m.perSecond)}/s ${m.cpuMicros.toFixed(1)} µs`).join(', ')}`,
    );
  }
  for (const [label] of variants.slice(1))
    console.log(
      `median ${label}: CPU a call ${median(cpu.get(label) ?? []).toFixed(2)}× the bare loop's, rate ${median(rate.get(label) ?? []).toFixed(2)}×`,
    );
  // Each build against the first, round by round: the bare loop's own spread drops out of it.
  const [first, ...others] = named.map(([label]) => label);
  for (const label of others) {
    const paired = (cpu.get(label) ?? []).map((x, i) => x / ((cpu.get(first as string) ?? [])[i] ?? Number.NaN));
    console.log(`median ${label}/${first}, paired by round: CPU a call ${median(paired).toFixed(3)}×`);
  }
}
