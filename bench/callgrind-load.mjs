/**
 * Instructions per call of `aggmock load`'s generator and of the bare keep-alive POST loop with
 * signing, counted by valgrind's callgrind: a count is the same whatever else the machine is
 * doing (a shared machine's load changes the time, not the instructions).
 *
 *   node bench/callgrind-load.mjs [--calls N] [--rounds R] [label=dist-dir …]
 *
 * starts one process under `valgrind --tool=callgrind` that loads each build (default `new=dist`:
 * the built generator of this tree; pass `before=<another tree>/dist` to compare two builds in the
 * same process), warms each variant up, then runs R rounds of N calls per variant, alternating, and
 * zeroes the counters before and dumps them after each phase (`callgrind_control`), so start-up and
 * module loading count nowhere. Variants: each build's generator (bet-win rounds, every round
 * released at once so the count does not depend on the clock; 32 connections) and the bare loop
 * (a fresh JSON body per request signed with the timestamped HMAC over aggmock's transport, 32 in
 * flight, from the first build). The sink runs in a child process, outside valgrind. Prints
 * instructions per call for each phase and the medians. Plain JavaScript so that nothing is
 * compiled under valgrind but the work itself; needs dist/ built (`npx tsc -p tsconfig.build.json`).
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const IN_FLIGHT = 32;
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};

if (argv[0] === '--sink') {
  const reply = Buffer.from('{"balance":100000}');
  const server = http.createServer({ keepAliveTimeout: 600_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': reply.length });
      res.end(reply);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
} else if (argv[0] === '--inner') {
  await inner(JSON.parse(argv[1]));
} else {
  await driver();
}

/** Outside valgrind: starts the inner process under callgrind and dumps its counters around each phase. */
async function driver() {
  const calls = flag('--calls', 1000);
  const rounds = flag('--rounds', 3);
  const builds = argv.filter((a) => a.includes('=')).map((a) => a.split('='));
  if (builds.length === 0) builds.push(['new', 'dist']);
  const spec = { calls, rounds, builds: builds.map(([label, dir]) => [label, pathToFileURL(resolve(dir)).href]) };
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-callgrind-'));
  const out = join(dir, 'callgrind.out');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${out}`,
      process.execPath,
      self,
      '--inner',
      JSON.stringify(spec),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const results = new Map();
  let dumps = 0;
  const control = (...args) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'pipe' });
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      const [word, label] = line.split(' ');
      if (word === 'ready') {
        control('-z');
        child.stdin.write('go\n');
      } else if (word === 'done') {
        control(`--dump=${label}`);
        dumps++;
        const file = `${out}.${dumps}`;
        const text = readFileSync(file, 'utf8');
        const total = Number(/^(?:totals|summary): (\d+)/m.exec(text)?.[1]);
        const [variant, , count] = label.split(':');
        const perCall = total / Number(count);
        if (!label.startsWith('warm')) {
          if (!results.has(variant)) results.set(variant, []);
          results.get(variant).push(perCall);
        }
        console.log(`${label.padEnd(28)} ${(perCall / 1000).toFixed(1)}k instructions a call`);
        child.stdin.write('go\n');
      } else console.log(line);
    }
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [variant, xs] of results) console.log(`median ${variant}: ${(median(xs) / 1000).toFixed(1)}k instructions a call`);
}

/** Under valgrind: each phase announced on stdout, started when the driver says go. */
async function inner({ calls, rounds, builds }) {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const phase = async (label, run) => {
    console.log(`ready ${label}`);
    await lines.next();
    const n = await run();
    console.log(`done ${label.split(':')[0]}:${label.split(':')[1] ?? ''}:${n}`);
    await lines.next();
  };
  const sink = fork(self, ['--sink'], { execArgv: [], stdio: 'inherit' });
  const port = await new Promise((ok) => sink.once('message', (m) => ok(m.port)));
  const url = `http://127.0.0.1:${port}`;
  const variants = [];
  for (const [label, href] of builds) {
    const { configSchema, dialectOf } = await import(`${href}/config/index.js`);
    const { parseMix, runLoad } = await import(`${href}/load/index.js`);
    const config = configSchema.parse({});
    const mix = parseMix('bet-win=1', dialectOf(config.callbacks));
    variants.push([
      `generator-${label}`,
      async (n) => {
        const rounds = Math.round(n / 2);
        const result = await runLoad({
          config,
          url,
          // Every round due within the first millisecond: all started at once, none dropped.
          schedule: { startRate: rounds * 1000, stages: [{ durationMs: 1, rate: rounds * 1000 }] },
          players: Array.from({ length: 50 }, (_, i) => `p${i + 1}`),
          mix,
          stakeMinor: 100,
          currency: 'EUR',
          maxInFlight: rounds + 1,
          connections: IN_FLIGHT,
          dropMs: 1e9,
          timeoutMs: 3_600_000,
        });
        if (result.stats.dropped > 0 || result.stats.errorRate > 0) throw new Error('the generator dropped or failed calls');
        return result.stats.calls;
      },
    ]);
  }
  const { createTransport } = await import(`${builds[0][1]}/callbacks/transport.js`);
  const { signPayload } = await import(`${builds[0][1]}/signing/index.js`);
  variants.push([
    'bare',
    async (n) => {
      const transport = createTransport({ maxSockets: IN_FLIGHT, timeoutMs: 3_600_000 });
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < n) {
            const i = next++;
            const body = `{"type":"DEBIT","transactionId":"tx_bench_${i}","amount":1.5,"playerId":"p${i % 50}"}`;
            const headers = signPayload({
              scheme: 'timestamped',
              secrets: ['aggmock-dev-secret'],
              payload: body,
              timestamp: Math.floor(Date.now() / 1000),
            });
            headers['content-type'] = 'application/json';
            const answer = await transport.post(`${url}/`, headers, body);
            if (answer.status !== 200) throw new Error(`the sink answered ${answer.status}`);
          }
        }),
      );
      transport.close();
      return n;
    },
  ]);
  try {
    for (const [name, run] of variants) await phase(`warm-${name}:0`, () => run(Math.max(200, Math.round(calls / 2))));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, run] of order) await phase(`${name}:${r + 1}`, () => run(calls));
    }
  } finally {
    sink.kill();
    process.exit(0);
  }
}
