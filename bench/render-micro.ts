/**
 * CPU to render and sign one call (`buildRequest`) and to render it unsigned (`unsignedRequest`), per
 * dialect, for each `root` (a checkout of aggmock whose src/ is imported), alternating over 5 rounds;
 * medians. The facts are a bet with a fresh transaction id per call.
 *
 *   N=5000 DIALECTS=default,pragmatic npx tsx bench/render-micro.ts /tmp/base .
 */
import { resolve } from 'node:path';
import type * as ConfigModule from '../src/config/index.ts';
import type * as DialectsModule from '../src/dialects/index.ts';

interface Variant {
  root: string;
  config: typeof ConfigModule;
  dialects: typeof DialectsModule;
}

const roots = process.argv.slice(2);
const variants: Variant[] = [];
for (const root of roots) {
  const dir = resolve(root);
  variants.push({
    root,
    config: (await import(`${dir}/src/config/index.ts`)) as typeof ConfigModule,
    dialects: (await import(`${dir}/src/dialects/index.ts`)) as typeof DialectsModule,
  });
}
const names = (process.env.DIALECTS ?? 'default,pragmatic,softswiss,evolution,caleta').split(',');
const N = Number(process.env.N ?? 5000);
const results = new Map<string, [number, number][]>();
const facts: DialectsModule.CallFacts = {
  operation: 'bet',
  playerId: 'p1',
  currency: 'EUR',
  transactionId: 'tx-1',
  amountMinor: 1050,
  roundId: 'r1',
  gameId: 'g1',
  sessionToken: 'tok-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  requestId: 'req-1',
  createdAt: 1_700_000_000_123,
};
for (let round = 0; round < 5; round++) {
  for (const v of round % 2 ? [...variants].reverse() : variants)
    for (const name of names) {
      const { callbacks } = v.config.configSchema.parse({ callbacks: { profile: name } });
      const dialect = v.config.dialectOf(callbacks);
      const credentials = v.config.credentialsOf(callbacks);
      const options = { ...v.config.signOptionsOf(callbacks), timestamp: 1_700_000_000 };
      for (let i = 0; i < 500; i++) v.dialects.buildRequest(dialect, facts, credentials, options);
      const t = process.cpuUsage();
      for (let i = 0; i < N; i++) v.dialects.buildRequest(dialect, { ...facts, transactionId: `tx-${i}` }, credentials, options);
      const built = process.cpuUsage(t);
      const t2 = process.cpuUsage();
      for (let i = 0; i < N; i++) v.dialects.unsignedRequest(dialect, { ...facts, transactionId: `tx-${i}` }, credentials);
      const unsigned = process.cpuUsage(t2);
      const key = `${name} ${v.root}`;
      const rows = results.get(key) ?? [];
      results.set(key, rows);
      rows.push([(built.user + built.system) / N, (unsigned.user + unsigned.system) / N]);
    }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
for (const name of names)
  console.log(
    name,
    roots
      .map((root) => {
        const rows = results.get(`${name} ${root}`) ?? [];
        return `${root}: build ${median(rows.map((x) => x[0])).toFixed(2)} µs, unsigned ${median(rows.map((x) => x[1])).toFixed(2)} µs`;
      })
      .join(' | '),
  );
process.exit(0);
