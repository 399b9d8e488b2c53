/**
 * Instructions per callback of the durable callback engine and of the bare keep-alive POST loop,
 * counted by valgrind's callgrind (a count is the same whatever else the machine is doing), as
 * bench/callgrind-load.mjs does for the load generator.
 *
 *   node bench/callgrind-engine.mjs [--events N] [--rounds R] [--warmups W] [--concurrency C] [label=dist-dir …]
 *
 * starts one process under `valgrind --tool=callgrind` that loads each build (default `new=dist`;
 * pass `before=<another tree>/dist` to compare two builds in the same process), warms each variant
 * up with W unmeasured rounds of N (default 3: under valgrind V8 keeps optimising for several rounds,
 * and the counts fall round after round until it is done), then runs R rounds of N callbacks per variant, alternating (reversed every other round), with
 * the counters zeroed before and dumped after each phase (`callgrind_control`). Variants: each
 * build's engine (a fresh WAL outbox file, events enqueued one by one in slices of 250 a turn across
 * 1,000 players, as bench/callbacks.ts's `single` style; SQLite's native code counts too) and the
 * bare loop over the first build's transport (no signing, no database). The sink runs in a child
 * process, outside valgrind. Prints instructions per callback for each phase and the medians.
 * Needs dist/ built (`npx tsc -p tsconfig.build.json --noCheck`).
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
const SLICE = 250;
const PLAYERS = 1_000;

if (argv[0] === '--sink') {
  const reply = Buffer.from('{"balance":100}');
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
  const events = flag('--events', 1000);
  const rounds = flag('--rounds', 5);
  const warmups = flag('--warmups', 3);
  const concurrency = flag('--concurrency', 32);
  const builds = argv.filter((a) => a.includes('=')).map((a) => a.split('='));
  if (builds.length === 0) builds.push(['new', 'dist']);
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-callgrind-engine-'));
  const spec = {
    events,
    rounds,
    warmups,
    concurrency,
    dir,
    builds: builds.map(([label, d]) => [label, pathToFileURL(resolve(d)).href]),
  };
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
        rmSync(file, { force: true });
        const total = Number(/^(?:totals|summary): (\d+)/m.exec(text)?.[1]);
        const [variant, , count] = label.split(':');
        const perCall = total / Number(count);
        if (!label.startsWith('warm')) {
          if (!results.has(variant)) results.set(variant, []);
          results.get(variant).push(perCall);
        }
        console.log(`${label.padEnd(28)} ${(perCall / 1000).toFixed(1)}k instructions a callback`);
        child.stdin.write('go\n');
      } else console.log(line);
    }
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [variant, xs] of results)
    console.log(`median ${variant}: ${(median(xs) / 1000).toFixed(1)}k instructions a callback`);
}

/** Under valgrind: each phase announced on stdout, started when the driver says go. */
async function inner({ events, rounds, warmups, concurrency, dir, builds }) {
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
  const url = `http://127.0.0.1:${port}/callback/webhook`;
  const variants = [];
  let runs = 0;
  for (const [label, href] of builds) {
    const { createCallbackEngine, openDatabase } = await import(`${href}/callbacks/index.js`);
    const { configSchema } = await import(`${href}/config/index.js`);
    variants.push([
      `engine-${label}`,
      async (n) => {
        const path = join(dir, `outbox-${label}-${runs++}.db`);
        const config = configSchema.parse({ seed: path, callbacks: { webhookUrl: url, concurrency } });
        const db = openDatabase(path);
        const engine = createCallbackEngine({ config, db });
        engine.start();
        let settled = 0;
        let delivered = 0;
        const done = new Promise((ok) =>
          engine.onSettled((e) => {
            if (e.status === 'delivered') delivered++;
            if (++settled === n) ok();
          }),
        );
        let enqueued = 0;
        await new Promise((ok) => {
          const produce = () => {
            const until = Math.min(n, enqueued + SLICE);
            for (; enqueued < until; enqueued++)
              engine.enqueue({ kind: 'debit', playerId: `p${enqueued % PLAYERS}`, amountMinor: 100 + (enqueued % 5000) });
            if (enqueued < n) setImmediate(produce);
            else ok();
          };
          produce();
        });
        await done;
        await engine.stop();
        db.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
        if (delivered !== n) throw new Error(`${n - delivered} callbacks were not delivered`);
        return n;
      },
    ]);
  }
  const { createTransport } = await import(`${builds[0][1]}/callbacks/transport.js`);
  const body = '{"type":"DEBIT","transactionId":"tx_0123456789abcdef01234567","amount":10.5,"playerId":"p1"}';
  const headers = { 'Content-Type': 'application/json', 'User-Agent': 'aggmock-bench' };
  variants.push([
    'bare',
    async (n) => {
      const transport = createTransport({ maxSockets: concurrency, timeoutMs: 3_600_000 });
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < n) {
            next++;
            const answer = await transport.post(url, headers, body);
            if (answer.status !== 200) throw new Error(`the sink answered ${answer.status}`);
          }
        }),
      );
      transport.close();
      return n;
    },
  ]);
  try {
    for (let w = 0; w < warmups; w++) {
      const order = w % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, run] of order) await phase(`warm-${name}:${w + 1}`, () => run(events));
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, run] of order) await phase(`${name}:${r + 1}`, () => run(events));
    }
  } finally {
    sink.kill();
    process.exit(0);
  }
}
