/**
 * CPU per call of the reference wallet's webhook (src/wallet/dialect.ts) in each built-in dialect,
 * through `app.request` (Hono, no socket): rounds of bet → win → balance → rollback of another bet,
 * built and signed by the dialect. Each `--root` is a checkout of aggmock (its src/ is imported), so
 * two builds are compared in one process, alternating, over rounds; medians of per-round ratios.
 *
 *   npx tsx bench/wallet-calls.ts --root /tmp/base --root . [--rounds 7] [--calls 600] [--dialect hub88 …]
 *
 * The requests are built once per variant (signing is not measured); the wallet's reply is read.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true, default: ['.'] },
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '600' },
    dialect: { type: 'string', multiple: true },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const DIALECTS = values.dialect ?? [
  'default',
  'betnex',
  'hub88',
  'pragmatic',
  'softswiss',
  'evolution',
  'caleta',
  'redtiger',
  'habanero',
  'blueocean',
  'slotegrator',
  'groove',
  '100hp',
];

interface Variant {
  root: string;
  /** Sends the prepared calls of one dialect; resolves to the CPU µs a call. */
  run: (dialect: string) => Promise<number>;
}

async function variant(root: string): Promise<Variant> {
  const dir = resolve(root);
  const { configSchema, credentialsOf, dialectOf, signOptionsOf } = await import(`${dir}/src/config/index.ts`);
  const { createWallet } = await import(`${dir}/src/wallet/index.ts`);
  const { buildRequest } = await import(`${dir}/src/dialects/index.ts`);
  let serial = 0;
  const prepared = new Map<
    string,
    { wallet: { app: { request: (url: string, init: RequestInit) => Promise<Response> }; close(): void }; requests: unknown[] }
  >();
  const next = new Map<string, number>();
  const prepare = (name: string) => {
    const players: Record<string, number> = {};
    for (let p = 0; p < 20; p++) players[`p${p}`] = 1_000_000;
    const sessions: Record<string, string> = {};
    for (let p = 0; p < 20; p++) sessions[`tok-p${p}-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`] = `p${p}`;
    const config = configSchema.parse({ callbacks: { profile: name }, wallet: { currency: 'EUR', players } });
    const dialect = dialectOf(config.callbacks);
    const credentials = credentialsOf(config.callbacks);
    const options = signOptionsOf(config.callbacks);
    const wallet = createWallet({
      config,
      dbPath: ':memory:',
      sessions,
    });
    const requests: unknown[] = [];
    const now = Date.now();
    for (let i = 0; requests.length < CALLS * (ROUNDS + 1); i++) {
      const p = i % 20;
      const base = {
        playerId: `p${p}`,
        currency: 'EUR',
        sessionToken: `tok-p${p}-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`,
        createdAt: now,
        roundId: `r-${serial}`,
        gameId: 'g1',
      };
      const bet = `tx-${++serial}`;
      const other = `tx-${++serial}`;
      const calls = [
        { ...base, operation: 'bet', transactionId: bet, amountMinor: 100, requestId: `q-${++serial}` },
        {
          ...base,
          operation: 'win',
          transactionId: `tx-${++serial}`,
          betTransactionId: bet,
          amountMinor: 150,
          requestId: `q-${++serial}`,
        },
        { ...base, operation: 'balance', requestId: `q-${++serial}` },
        { ...base, operation: 'bet', transactionId: other, amountMinor: 100, requestId: `q-${++serial}` },
        {
          ...base,
          operation: 'rollback',
          transactionId: `tx-${++serial}`,
          betTransactionId: other,
          amountMinor: 100,
          requestId: `q-${++serial}`,
        },
      ];
      for (const facts of calls) {
        if (!dialect.operations[facts.operation]) continue;
        if (facts.operation === 'win' && !dialect.operations.win) continue;
        requests.push(buildRequest(dialect, facts, credentials, options));
      }
    }
    return { wallet, requests };
  };
  return {
    root,
    async run(name) {
      let state = prepared.get(name);
      if (!state) {
        state = prepare(name);
        prepared.set(name, state);
        // Warm-up: the first calls of a round.
        await send(state, 0, CALLS);
      }
      const start = next.get(name) ?? CALLS;
      next.set(name, start + CALLS);
      const cpu = process.cpuUsage();
      await send(state, start, CALLS);
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / CALLS;
    },
  };
}

async function send(
  state: { wallet: { app: { request: (url: string, init: RequestInit) => Promise<Response> } }; requests: unknown[] },
  from: number,
  count: number,
) {
  for (let i = from; i < from + count; i++) {
    const req = state.requests[i % state.requests.length] as {
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string;
    };
    const res: Response = await state.wallet.app.request(`http://127.0.0.1:4001${req.path}`, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    const text = await res.text();
    if (res.status >= 500 && res.status < 600) throw new Error(`${res.status} ${text}`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const variants: Variant[] = [];
for (const root of values.root) variants.push(await variant(root));
const per: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [...variants].reverse() : variants;
  for (const name of DIALECTS)
    for (const v of order) {
      const rows = per[name] ?? {};
      per[name] = rows;
      const runs = rows[v.root] ?? [];
      rows[v.root] = runs;
      runs.push(await v.run(name));
    }
}
const first = variants[0] as Variant;
console.log(
  `| dialect | ${variants.map((v) => `${v.root} µs/call`).join(' | ')} | ${variants
    .slice(1)
    .map((v) => `${v.root} / ${first.root}`)
    .join(' | ')} |`,
);
for (const name of DIALECTS) {
  const rows = per[name] as Record<string, number[]>;
  const base = rows[first.root] as number[];
  const ratios = variants.slice(1).map((v) => median((rows[v.root] as number[]).map((x, i) => x / (base[i] as number))));
  console.log(
    `| ${name} | ${variants.map((v) => median(rows[v.root] as number[]).toFixed(1)).join(' | ')} | ${ratios.map((r) => r.toFixed(2)).join(' | ')} |`,
  );
}
process.exit(0);
