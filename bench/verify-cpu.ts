/**
 * CPU of one in-process verify run against the reference wallet, the wallet in the same process
 * (as the test suite runs it hundreds of times): this process's user + system time per run, each
 * `--root` (a checkout of aggmock whose src/ is imported) alternating over rounds; medians and the
 * median of per-round ratios to the first root. The Pact Verifier's child process is not counted.
 *
 *   npx tsx bench/verify-cpu.ts --root /tmp/base --root . [--rounds 5] [--mode state|players] [--dialect hub88]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true, default: ['.'] },
    rounds: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'state' },
    dialect: { type: 'string' },
  },
});

interface Variant {
  root: string;
  run: () => Promise<number>;
  close: () => void;
}

async function variant(root: string): Promise<Variant> {
  const dir = resolve(root);
  const { configSchema } = await import(`${dir}/src/config/index.ts`);
  const { startWallet } = await import(`${dir}/src/wallet/index.ts`);
  const { runVerify } = await import(`${dir}/src/verify/index.ts`);
  const config = configSchema.parse(values.dialect ? { callbacks: { profile: values.dialect } } : {});
  const wallet = await startWallet({ config, dbPath: ':memory:', port: 0, testEndpoints: true });
  const run = async () => {
    const cpu = process.cpuUsage();
    const outcome = await runVerify({
      webhookUrl: wallet.webhookUrl,
      ...(values.mode === 'state' ? { stateUrl: `${wallet.url}/__state` } : { players: ['p1', 'p2'] }),
      ...(values.dialect ? { dialect: values.dialect } : {}),
      reportDir: false,
    });
    const used = process.cpuUsage(cpu);
    if (outcome.exitCode !== 0) throw new Error(`${root}: verify exited ${outcome.exitCode}`);
    return (used.user + used.system) / 1000;
  };
  return { root, run, close: () => wallet.close() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const variants: Variant[] = [];
for (const root of values.root) variants.push(await variant(root));
for (const v of variants) await v.run(); // warm-up (imports, JIT, the Pact child)
const runs = new Map<string, number[]>(variants.map((v) => [v.root, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 ? [...variants].reverse() : variants;
  for (const v of order) runs.get(v.root)?.push(await v.run());
}
const base = runs.get((variants[0] as Variant).root) as number[];
for (const v of variants) {
  const own = runs.get(v.root) as number[];
  const ratio = median(own.map((x, i) => x / (base[i] as number)));
  console.log(
    `${v.root}: median ${median(own).toFixed(0)} ms CPU a run (${own.map((x) => x.toFixed(0)).join(', ')}); × first ${ratio.toFixed(2)}`,
  );
}
for (const v of variants) v.close();
process.exit(0);
