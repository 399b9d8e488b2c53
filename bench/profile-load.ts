/**
 * Profiling aid for `aggmock load`'s ceiling: the generator (built, from dist/) against the bare
 * sink, alternating with a bare keep-alive POST loop that signs every request as the generator
 * does (timestamped HMAC over a fresh body) over aggmock's transport. Prints each round's rate and
 * this process's CPU time per call, and the median ratio. For `--cpu-prof`:
 * `node --import tsx [--cpu-prof --cpu-prof-dir .bench-cache/prof] bench/profile-load.ts [rounds] [seconds] [only]`
 * where `only` is `generator` or `bare` to run one side (for a profile or callgrind).
 */
import { median, stop } from './lib.ts';
import { generatorCeiling, signedBareLoop, startLoadSink } from './load-ceiling.ts';

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 2);
const only = process.argv[4];
const { url, child } = await startLoadSink();
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
