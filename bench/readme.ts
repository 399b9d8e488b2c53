/**
 * Regenerates the performance section of docs/benchmarks.md (between `<!-- bench:start -->` and
 * `<!-- bench:end -->`) from bench/results/*.json: machine, Node version, date and command of
 * each run, a line per target met or missed, and each benchmark's tables. Nothing else in the
 * page changes. `npm run bench -- --readme-only` runs just this (the flag names are kept from
 * when the section lived in the README).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './lib.ts';
import { JOURNAL_OFF } from './listings.ts';

export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';
const ORDER = ['listings', 'launch', 'callbacks', 'startup', 'verify', 'load'];
const TITLES: Record<string, string> = {
  listings: 'Listings',
  launch: 'Launch',
  callbacks: 'Callbacks',
  startup: 'Start-up and memory',
  verify: 'Verify',
  load: 'Load generator',
};

export interface Record_ {
  benchmark: string;
  description?: string;
  at: string;
  command?: string;
  machine?: { cpu: string; cpus: number; memoryGb: number; node: string; platform: string };
  loadAverage?: { before: number[]; after: number[] } | number[];
  seconds?: number;
  markdown?: string;
  data: unknown;
}

/** The committed figures, in the page's order (a benchmark never run is left out). */
export function readResults(): Record_[] {
  return ORDER.map((name) => join(ROOT, 'bench', 'results', `${name}.json`))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Record_);
}

export type Check = { target: string; met: boolean | undefined; measured: string };

/** Each target of the issue, met or missed, from the figures (undefined: not measured). */
export function checks(results: Record_[]): Check[] {
  const by = (name: string) => results.find((r) => r.benchmark === name)?.data as Record<string, unknown> | undefined;
  const out: Check[] = [];
  const listings = by('listings') as
    | {
        tables: {
          route: string;
          rows: { target: string; rps: number; ratioToBare: number; p99Ms: number; cpuToBare?: number }[];
        }[];
      }
    | undefined;
  for (const t of listings?.tables ?? []) {
    const mine = t.rows.find((r) => r.target === 'aggmock');
    // Peers are the other servers: not aggmock in any configuration, not the bare floor.
    const peers = t.rows.filter((r) => !r.target.startsWith('aggmock') && r.target !== 'bare node:http');
    if (!mine) continue;
    const cpu = mine.cpuToBare === undefined ? '' : ` (CPU per request ${mine.cpuToBare.toFixed(2)} × bare)`;
    out.push({
      target: `${t.route} ≥ 0.9 × bare`,
      met: mine.ratioToBare >= 0.9,
      measured: `${mine.ratioToBare.toFixed(2)} ×${cpu}`,
    });
    const best = peers.reduce<(typeof peers)[number] | undefined>((a, b) => (a && a.rps >= b.rps ? a : b), undefined);
    out.push({
      target: `${t.route} ahead of every peer`,
      met: best ? mine.rps > best.rps : undefined,
      measured: best ? `best peer: ${best.target}, ${Math.round(best.rps).toLocaleString('en-US')} req/s` : 'no peer measured',
    });
    // The request journal's own cost: the same build with `api.journal: false`, in the same rounds.
    const unjournaled = t.rows.find((r) => r.target === JOURNAL_OFF);
    if (mine.cpuToBare !== undefined && unjournaled?.cpuToBare !== undefined) {
      const ratio = mine.cpuToBare / unjournaled.cpuToBare;
      out.push({
        target: `${t.route}: the request journal costs ≤ 5 % CPU`,
        met: ratio <= 1.05 + 1e-9,
        measured: `${ratio.toFixed(2)} × journal off`,
      });
    }
    const bare = t.rows.find((r) => r.target === 'bare node:http');
    out.push({
      target: `${t.route} p99 < 10 ms`,
      met: mine.p99Ms < 10,
      measured: `${mine.p99Ms} ms (bare server: ${bare?.p99Ms ?? '–'} ms)`,
    });
  }
  const launch = by('launch') as
    | { rows: { auth: string; p99Ms: number; rps: number; cpuMicrosPerRequest?: number }[] }
    | undefined;
  const hmac = launch?.rows[0];
  if (hmac) {
    const cpu = hmac.cpuMicrosPerRequest === undefined ? '' : `, ${hmac.cpuMicrosPerRequest} µs CPU each`;
    out.push({
      target: 'POST /getgameurl (HMAC) p99 < 10 ms',
      met: hmac.p99Ms < 10,
      measured: `${hmac.p99Ms} ms (${hmac.rps.toLocaleString('en-US')} launches/s${cpu})`,
    });
  }
  const callbacks = by('callbacks') as
    | { levels: { concurrency: number; engineSingle: { ratioToBareMedian: number } }[] }
    | undefined;
  const c32 = callbacks?.levels.find((l) => l.concurrency === 32);
  if (c32) {
    out.push({
      target: 'callbacks ≥ 0.7 × bare loop (concurrency 32)',
      met: c32.engineSingle.ratioToBareMedian >= 0.7,
      measured: `${c32.engineSingle.ratioToBareMedian.toFixed(2)} ×`,
    });
    // Issue 35's step on the way to 0.7: the durable engine back where it was before the dialect engine.
    out.push({
      target: 'durable engine ≥ 0.5 × bare loop (concurrency 32, issue 35)',
      met: c32.engineSingle.ratioToBareMedian >= 0.5,
      measured: `${c32.engineSingle.ratioToBareMedian.toFixed(2)} ×`,
    });
  }
  const startup = by('startup') as { rows: { games: number; startMs: number; rssServedMb: number }[] } | undefined;
  const small = startup?.rows.find((r) => r.games === 1_500);
  const big = startup?.rows.find((r) => r.games === 100_000);
  if (small) out.push({ target: 'start-up < 1 s with 1,500 games', met: small.startMs < 1_000, measured: `${small.startMs} ms` });
  if (big) {
    out.push({
      target: '100,000 games served under 300 MB RSS',
      met: big.rssServedMb < 300,
      measured: `${big.rssServedMb} MB`,
    });
  }
  const verify = by('verify') as { targetMs?: number; series: Record<string, { median: number; max: number }> } | undefined;
  const cli = verify?.series['CLI process, --state-url'];
  const targetMs = verify?.targetMs ?? 5_000;
  if (cli)
    out.push({
      target: `full verify < ${targetMs / 1000} s`,
      met: cli.max < targetMs,
      measured: `${(cli.median / 1000).toFixed(2)} s (CLI)`,
    });
  const load = by('load') as { ceiling?: { variant: string; ratioToSignedLoop?: number }[] } | undefined;
  const generator = load?.ceiling?.find((c) => c.variant === 'generator');
  if (generator?.ratioToSignedLoop !== undefined)
    out.push({
      target: 'load generator ≥ 0.8 × the bare loop with signing',
      met: generator.ratioToSignedLoop >= 0.8,
      measured: `${generator.ratioToSignedLoop.toFixed(2)}×`,
    });
  return out;
}

/** What limits the targets that the figures miss: the analysis behind them, kept with the generator. */
const LIMITS = [
  '**What limits the missed targets.**',
  '',
  '- *Listings vs the bare server.* The listings are answered by a fast path in the Node listener (src/aggregator/fast-path.ts) from cached bytes and prebuilt headers, before Hono builds a request. Per request it does one Map lookup from the request target to its cached listing (the target pattern, the query decoding and the provider lookup run once per distinct target), the Host check (once per new Host value), and the API-key check (a constant-time compare against every configured key, whose bytes are encoded once). The bare server answers with the same headers aggmock sends and gets the same requests, so both sides of the ratio move the same bytes; the CPU column is each server’s CPU time per request (from /proc), which is steadier than the rate on this shared 2-core machine, where single measurements of the same process swing from 13k to 22k req/s with other sessions’ load. The ratio moves with that load too: on 2026-11-23 full runs with the peers read 0.77× to 1.13× for `/getallproviders` with the same fast path, and an alternating A/B of two builds of it, minutes apart, measured the same CPU per request (45–53 µs). A CPU profile of `aggmock serve` (`node --cpu-prof dist/cli/main.js serve`) answering a listing to autocannon shows it mostly idle or in `writev` (the kernel), with the fast path’s own code, the API-key check included, at about 5 % of samples. Each measurement follows half a second of unmeasured load, and the order of the targets is rotated each round and reversed every other round: before that, the target measured right after a slow peer paid for the load generator’s (this process’s) garbage from that peer, and aggmock, always next after a peer in the rotation, read about 10 % below the bare server in runs with peers and at par in runs without them. The request journal (`api.journal`, on by default) is what is left between aggmock and the bare server: the `aggmock, journal off` row is the same build without it, and the *request journal costs ≤ 5 % CPU* target compares the two. On 2026-11-25 it cost 63 µs per `/getallproviders` request (CPU 2.03× bare, 1.14× journal off): each queued entry was a closure that reached the request, its response and socket, which outlived young-generation collections and were promoted (the old space grew ~1 MB per scavenge: `node --trace-gc`), and every response had `write` and `end` patched with closures; entries became plain values and a response records what it sends in its own fields (a ServerResponse subclass), which left one SQLite row per request (~1 µs to insert on a quiet machine, ~3 µs under load, plus the retention’s delete of an old row) and 1.27–1.36× bare against ~1.0× with the journal off (2026-11-27, load 1–6). Since 2026-11-27 calls that repeat the one before in all but their arrival and latency (what a client hammering a listing sends) are one run in the queue and one row in the file: the run keeps the first call’s entry and two numbers per later call (its arrival and latency, stored as float64 pairs), so a flush writes one row per run instead of one per call (about 90 rows for 55,000 calls in 2 s), the retention deletes rows a run at a time, and the file and memory hold far less (RSS 176 → 95 MB at the 100,000-call retention); the accepted credentials ride on the request object instead of a WeakMap (a quarter of a microsecond a request on this path, with or without the journal). A call that repeats the last one (the same method, target, raw headers, accepted credentials and reply buffer) is queued as like that call’s entry, without building one; a call a fault rule fired on is journaled at once and settled when it ends (so a count right after a client gave up finds it), which costs nothing on unfaulted calls. What is left is the listener on the response’s `close`, two clock reads, that comparison and two numbers pushed, and a little more garbage collection. On a quiet machine (2026-11-27 18:17, load 0.6 → 3, 7 rounds) the rate with the journal is 0.97–1.02× the bare server’s, as with it off (1.00–1.03×), and its CPU per request 1.02–1.07× the journal-off build’s (`/getallproviders` 1.02×, the 30 KB listing 1.07×, the 600 KB one 1.05×); under load 5–10 the same comparison read 1.02–1.16× in earlier runs of this day, the 600 KB listing’s CPU moving ±15 % between rounds. A rule on another route adds `mayMatch` on the route, within the spread of the plain rows.',
  '- *p99 < 10 ms.* The bare server itself misses it here (its p99 is in the tables): autocannon, the server and other sessions share 2 cores, so the tail is set by the machine, not by the route; aggmock’s p99 is within the bare server’s round-to-round spread. For the full listing (~0.6 MB) it cannot be met at 50 connections by any server here: by Little’s law the mean latency is at least connections ÷ throughput (50 ÷ ~650 req/s ≈ 75 ms), the time to push 50 bodies through loopback. The targets not being measured are paused (SIGSTOP), so they take no CPU from the one that is.',
  '- *Start-up < 1 s.* Met or missed with the machine’s load in the same run (see the load averages above): the bare node:http floor in the start-up table, a process that only starts and listens, moves with it too. On a quiet machine `aggmock serve` answers /health after ~500 ms, ~400 ms of which is loading its 277 ES modules (zod alone is 95 of them). A single-file bundle of the CLI (esbuild, 3.3 MB) was tried and started ~200 ms slower, so it was not adopted.',
  '- *Launch p99.* A launch that succeeds is answered by a fast path in the Node listener (src/aggregator/fast-path.ts): it reads the body from the Node request, checks the credentials with the same function as the routes, validates the JSON with the route’s zod schema and calls the one launch function the route calls too; every refusal (credentials, JSON, schema, game, currency, callback_url) is handed to Hono with the bytes already read, so errors are answered in one place (test/api/fast-path.test.ts compares both answers for 6 launches and 19 refusals). Before, each launch went through Hono, whose Node adapter builds a web-standard Request and a web stream for a body (about a fifth of a launch’s CPU), and the route built a second Request for its validator: ~1,665 launches/s with HMAC, p99 104 ms (README of 2026-11-23 15:40). Profiling the fast path then found `{ ...input, id }` in the session store costing ~15 µs a launch (Node 20’s V8 copies a spread followed by new fields on a slow path, ~1 µs a field; with the fields first it is ~0.3 µs) and evicting the oldest session by asking the Map for its first key, which walks past every deleted entry; both are fixed, and the same spread order was fixed in the callback engine and the inbound HMAC check. What is left is mostly Node’s HTTP parsing and response writing (`writev` alone is ~15 % of a CPU profile), then the HMAC, zod and JSON, ~5 % each. At the measured rate Little’s law puts the mean latency at 50 connections near 10 ms, so p99 < 10 ms would need about three times the rate: the listing fast path’s, with a body, an HMAC, a zod validation and a session on top; not reached here.',
  '- *Callbacks ≥ 0.7× the bare loop* (≥ 0.5× first; not met). Quiet machine, concurrency 32: **0.39×** (the table, 2026-11-28 14:32, load average 2.1: 152 against 51 µs of CPU a callback; 0.41× at 12:22), *journal writes skipped* 0.56×: the journal costs ~40–70 µs a callback, the JavaScript without it ~2.5× the bare loop. Over time: one commit per event-loop iteration (~19 callbacks a commit) and no rewrite at a send took ~170 → ~70 µs (0.27× → 0.5–0.6×); the dialect engine fell to 0.24×, rendering and signing once brought it back to ~0.40×. Measured, not adopted: `json_each` batches, `locking_mode=EXCLUSIVE`, other page sizes, a worker-thread journal, a 1 ms commit window, a 64 MB page cache, settled rows rewritten 512 at a time (17 % fewer WAL bytes, same CPU). bench/journal-probe.ts: ~3 KB of WAL a callback for ~700 bytes of rows, yet the cost is in the statements (~9–14 µs each at load 4–5), not in bytes or commits. Tried on 2026-11-28: the answer that settles an event written once, in the event’s row (three row writes a callback, not four; SQLite’s own work under callgrind 49k → 36k instructions a callback), but 11 alternating engine runs on a quiet machine (load 1.2–2.3) did not separate it from the build without it (medians 4,861 against 5,279 callbacks/s; ratios within the bare loop’s spread), and it would have made the outbox file unreadable to older aggmock: not adopted. Left: three writes would be the floor of the durability rules (fewer means not journaling an attempt before its send: a product decision); binding the rows’ ~50 values costs the driver about as much as SQLite’s work; in the JavaScript, signing each attempt (~12 % of busy time), the socket writes and judging the reply.',
  '- *Load generator ≥ 0.8× the bare loop with signing* (issue 35; not met). Quiet machine, 2026-11-28 16:44 (the table; load average 1.6): **0.64×** the signed loop (9,515 against 13,349 req/s; CPU 107 against 72 µs a request); three quiet runs of the same build within 40 minutes read 0.68×, 0.77× and 0.64× (0.62× at 12:24 before stop 41’s changes), so five rounds of 2 s cannot tell 0.8× from 0.7× here. The *sink busy* column says who set each rate: the bare loop keeps the sink at ~0.9 of a core, so the loop’s rate is the sink’s; the generator leaves it at ~0.7 while it uses a whole core itself, so the generator is the limit. The row with +20 µs of work a request (the bare loop busy-waiting that long after each reply) reads 0.80–0.84×: that is the generator’s budget, and it spends ~35–40 µs more than the loop a request (a CPU profile, scaled to a request: its own JavaScript ~22 µs, spread over body serialising, the round and call functions, reply parsing and reading, amounts and signing at 1–3 µs each; ~7 µs more in socket writes; ~3 µs more GC). Code shared with the loop (the transport, the HMAC) does not move the ratio, since the loop is waiting on the sink. Before: the engine’s transport, a cheap request id and histogram, frozen results (callgrind 1,248k → 818k instructions a call); dropped rounds counted per second, rounds and sender as classes (CPU a call 2.0–2.3× → 1.9× the loop’s). Stop 41: the reply reader compiled per dialect operation (3.0 → 1.15 µs a reply) and a call’s facts one literal (0.4 → 0.15 µs); end to end ~7 % less CPU a call, at the edge of the noise (two series of 9 alternating rounds at load average 5.9–8: 1.86× → 1.78× and 1.77× → 1.52× the loop’s, per-round new/before medians 0.93 and 0.93, rounds 0.78–1.23; callgrind’s main thread 135–211k against 123–204k instructions a call, the loop 75–93k). Dropped: a columnar history (keeping no record saved nothing measurable). Left, with an in-memory wallet ~18–20 µs a call against the loop’s 5–7: rendering beyond the HMAC ~2.5 µs, the round → call → attempt promise chain, twice the loop’s GC; with the network, writes, reads and transport ~1.3× the loop’s per request (512 rounds queued on 32 connections, each request rendered long before it is written). Not tried: one callback per reply, rendering when a connection frees, a JSON body template.',
];

export function renderSection(results: Record_[]): string {
  const first = results[0];
  const m = first?.machine;
  const lines = [
    START,
    '<!-- Generated by `npm run bench -- --write-readme` (bench/readme.ts) from bench/results/*.json; edits here are overwritten. -->',
    '',
    `\`npm run bench\` measures, on loopback: listings against a bare \`node:http\` server and the mock servers a user would otherwise pick, launch, callbacks, start-up and memory, and verify. It alternates what it compares over rounds and reports medians of the per-round ratios; the figures land in \`bench/results/*.json\`, and this section is regenerated from them. Peers are installed on demand into \`.bench-cache/\` (ignored by git, never project dependencies); one that cannot be installed or started is reported as skipped. Needs \`npm run build\` (the runner builds when dist/ is stale). \`--rounds 2 --duration 1 --no-peers\` is a quick check.`,
    '',
    m
      ? `Machine: ${m.cpu}, ${m.cpus} cores, ${m.memoryGb} GB, ${m.platform}, Node ${m.node}. Shared with other work, so absolute figures move ±15 % between runs; the ratios are steadier.`
      : '',
    '',
    '| benchmark | date (UTC) | command | seconds | load average before → after |',
    '|---|---|---|---:|---|',
    ...results.map((r) => {
      const la = Array.isArray(r.loadAverage)
        ? r.loadAverage[0]?.toFixed(1)
        : `${r.loadAverage?.before[0]?.toFixed(1)} → ${r.loadAverage?.after[0]?.toFixed(1)}`;
      return `| ${r.benchmark} | ${r.at.slice(0, 16).replace('T', ' ')} | \`${r.command ?? 'npm run bench'}\` | ${r.seconds ?? ''} | ${la ?? ''} |`;
    }),
    '',
    '| target | met | measured |',
    '|---|:-:|---|',
    ...checks(results).map((c) => `| ${c.target} | ${c.met === undefined ? '–' : c.met ? 'yes' : '**no**'} | ${c.measured} |`),
    '',
    ...LIMITS,
    '',
  ];
  for (const r of results) {
    if (!r.markdown) continue;
    lines.push(`## ${TITLES[r.benchmark] ?? r.benchmark}`, '', r.description ? `${r.description}.` : '', '', r.markdown, '');
  }
  lines.push(END);
  return lines.join('\n');
}

/** The page that holds the figures. */
export const BENCHMARKS_PAGE = join(ROOT, 'docs', 'benchmarks.md');

/** Replaces the section between the markers (or, the first time, the body of `## Benchmarks`). */
export function writeReadme(file = BENCHMARKS_PAGE, results: Record_[] = readResults()): void {
  const readme = readFileSync(file, 'utf8');
  const section = renderSection(results);
  let next: string;
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start !== -1 && end > start) {
    next = readme.slice(0, start) + section + readme.slice(end + END.length);
  } else {
    const heading = readme.indexOf('\n## Benchmarks\n');
    if (heading === -1) throw new Error(`${file} has neither ${START} … ${END} nor a "## Benchmarks" section`);
    const bodyStart = heading + '\n## Benchmarks\n'.length;
    const nextHeading = readme.indexOf('\n## ', bodyStart);
    next = `${readme.slice(0, bodyStart)}\n${section}\n${nextHeading === -1 ? '' : readme.slice(nextHeading)}`;
  }
  writeFileSync(file, next);
  console.log(`(${relative(ROOT, file)} performance section regenerated from bench/results/*.json)`);
}
