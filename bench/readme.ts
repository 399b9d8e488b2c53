/**
 * Regenerates the README's performance section (between `<!-- bench:start -->` and
 * `<!-- bench:end -->`) from bench/results/*.json: machine, Node version, date and command of
 * each run, a line per target met or missed, and each benchmark's tables. Nothing else in the
 * README changes. `npm run bench -- --readme-only` runs just this.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.ts';

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const ORDER = ['listings', 'launch', 'callbacks', 'startup', 'verify'];
const TITLES: Record<string, string> = {
  listings: 'Listings',
  launch: 'Launch',
  callbacks: 'Callbacks',
  startup: 'Start-up and memory',
  verify: 'Verify',
};

interface Record_ {
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

function readResults(): Record_[] {
  return ORDER.map((name) => join(ROOT, 'bench', 'results', `${name}.json`))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Record_);
}

type Check = { target: string; met: boolean | undefined; measured: string };

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
    const peers = t.rows.filter((r) => r.target !== 'aggmock' && r.target !== 'bare node:http');
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
    const bare = t.rows.find((r) => r.target === 'bare node:http');
    out.push({
      target: `${t.route} p99 < 10 ms`,
      met: mine.p99Ms < 10,
      measured: `${mine.p99Ms} ms (bare server: ${bare?.p99Ms ?? '–'} ms)`,
    });
  }
  const launch = by('launch') as { rows: { auth: string; p99Ms: number }[] } | undefined;
  const hmac = launch?.rows[0];
  if (hmac) out.push({ target: 'POST /getgameurl (HMAC) p99 < 10 ms', met: hmac.p99Ms < 10, measured: `${hmac.p99Ms} ms` });
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
  const verify = by('verify') as { series: Record<string, { median: number; max: number }> } | undefined;
  const cli = verify?.series['CLI process, --state-url'];
  if (cli)
    out.push({ target: 'full verify < 15 s', met: cli.max < 15_000, measured: `${(cli.median / 1000).toFixed(2)} s (CLI)` });
  return out;
}

/** What limits the targets that the figures miss: the analysis behind them, kept with the generator. */
const LIMITS = [
  '**What limits the missed targets.**',
  '',
  '- *Listings vs the bare server.* The listings are answered by a fast path in the Node listener (src/aggregator/fast-path.ts) from cached bytes and prebuilt headers, before Hono builds a request; what it does per request beyond the bare server is the API-key check (a constant-time compare against every configured key, through `authCheck`, the same function the routes use) and the request-target and Host checks that keep its answers identical to the routes’. The figures were taken on the shared 2-core machine with a load average of 6–9 from other sessions: single rounds swing from 0.5× to 1.3× and the median of one listing moves between about 0.75× and 1.15× from run to run, so each figure is a noisy estimate. A CPU profile of `aggmock serve` (`node --cpu-prof dist/cli/main.js serve`) answering the provider listing to autocannon at ~9,800 req/s shows it 44 % idle, 22 % in `writev` (the kernel) and about 3 % in the fast path’s own code (query decoding, cache lookup, key compare): the load generator on the same 2 cores is the bottleneck, and what separates aggmock from the bare server is the little CPU it takes from it.',
  '- *p99 < 10 ms.* The bare server itself shows a p99 well above 10 ms on this machine: autocannon, the server and other sessions share 2 busy cores, so the tail is set by the machine, not by the route. For the full listing (~0.5 MB) it cannot be met at 50 connections by any server here: by Little’s law the mean latency is at least connections ÷ throughput (50 ÷ ~750 req/s ≈ 67 ms for the bare server), the time to push 50 bodies through loopback. The targets not being measured are paused (SIGSTOP), so they take no CPU from the one that is.',
  '- *Launch p99.* Each launch verifies the HMAC, validates the body with zod and creates a session; the API-key series, without the HMAC, has as long a tail, so machine contention sets it here too.',
  '- *Callbacks ≥ 0.7× the bare loop.* Profiled with `node --import tsx --cpu-prof bench/profile-callbacks.ts`: the engine spends about 90–140 µs of CPU per callback against 40–60 µs for the bare loop: the SQLite group commit of the event row and the attempt journal (~9 % of samples), HMAC signing (~4 %), building the JSON body, parsing the reply and the per-player ordering. Group commit, prepared statements and a single copy of the body were already in place; the producer is CPU-bound on one core, so the ratio is about the bare loop’s CPU over the engine’s. Reaching 0.7× reliably needs the SQLite writes off the event loop (a worker thread): a larger change to the engine and outbox than this issue makes while they are being changed for journaling re-sent attempts. Nothing is lost on a crash: an event is committed before its first attempt (src/callbacks tests).',
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
    lines.push(`### ${TITLES[r.benchmark] ?? r.benchmark}`, '', r.description ? `${r.description}.` : '', '', r.markdown, '');
  }
  lines.push(END);
  return lines.join('\n');
}

/** Replaces the section between the markers (or, the first time, the body of `## Benchmarks`). */
export function writeReadme(file = join(ROOT, 'README.md')): void {
  const readme = readFileSync(file, 'utf8');
  const section = renderSection(readResults());
  let next: string;
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start !== -1 && end > start) {
    next = readme.slice(0, start) + section + readme.slice(end + END.length);
  } else {
    const heading = readme.indexOf('\n## Benchmarks\n');
    if (heading === -1) throw new Error(`README.md has neither ${START} … ${END} nor a "## Benchmarks" section`);
    const bodyStart = heading + '\n## Benchmarks\n'.length;
    const nextHeading = readme.indexOf('\n## ', bodyStart);
    next = `${readme.slice(0, bodyStart)}\n${section}\n${nextHeading === -1 ? '' : readme.slice(nextHeading)}`;
  }
  writeFileSync(file, next);
  console.log(`(README.md performance section regenerated from bench/results/*.json)`);
}
