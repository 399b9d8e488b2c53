import { resolve } from 'node:path';
const roots = process.argv.slice(2);
const variants = [];
for (const root of roots) {
  const dir = resolve(root);
  const { configSchema, credentialsOf, dialectOf, signOptionsOf } = await import(`${dir}/src/config/index.ts`);
  const { buildRequest, unsignedRequest } = await import(`${dir}/src/dialects/index.ts`);
  variants.push({ root, configSchema, credentialsOf, dialectOf, signOptionsOf, buildRequest, unsignedRequest });
}
const names = (process.env.DIALECTS ?? 'default,pragmatic,softswiss,evolution,caleta').split(',');
const N = Number(process.env.N ?? 5000);
const results = {};
for (let round = 0; round < 5; round++) {
  for (const v of round % 2 ? [...variants].reverse() : variants) for (const name of names) {
    const config = v.configSchema.parse({ callbacks: { profile: name } });
    const d = v.dialectOf(config.callbacks), c = v.credentialsOf(config.callbacks), o = { ...v.signOptionsOf(config.callbacks), timestamp: 1700000000 };
    const facts = { operation: 'bet', playerId: 'p1', currency: 'EUR', transactionId: 'tx-1', amountMinor: 1050, roundId: 'r1', gameId: 'g1', sessionToken: 'tok-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', requestId: 'req-1', createdAt: 1700000000123 };
    for (let i = 0; i < 500; i++) v.buildRequest(d, facts, c, o);
    const t = process.cpuUsage();
    for (let i = 0; i < N; i++) v.buildRequest(d, { ...facts, transactionId: `tx-${i}` }, c, o);
    const u = process.cpuUsage(t);
    const t2 = process.cpuUsage();
    for (let i = 0; i < N; i++) v.unsignedRequest(d, { ...facts, transactionId: `tx-${i}` }, c);
    const u2 = process.cpuUsage(t2);
    ((results[name] ??= {})[v.root] ??= []).push([(u.user + u.system) / N, (u2.user + u2.system) / N]);
  }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
for (const name of names) console.log(name, roots.map((r) => `${r}: build ${med(results[name][r].map((x) => x[0])).toFixed(2)} µs, unsigned ${med(results[name][r].map((x) => x[1])).toFixed(2)} µs`).join(' | '));
process.exit(0);
