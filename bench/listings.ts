/**
 * Listings are the hot path of the aggregator API: each is serialised once and served from memory
 * with an ETag. This measures requests/s with autocannon against `aggmock serve` in its own process
 * (default catalog: 30 providers, 1,500 games), alternating the routes in every round, and reports
 * each route beside `GET /health` (the cheapest JSON route: the same server, routing and auth path
 * minus the listing) as the median of the per-round ratios.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Benchmark } from './run.ts';

const ROUNDS = 5;
const DURATION_S = 2;
const CONNECTIONS = 32;
const BIN = fileURLToPath(new URL('../bin/aggmock.js', import.meta.url));
const KEY = { 'x-betnex-key': 'aggmock-dev-key' };

interface Series {
  name: string;
  path: string;
  headers: Record<string, string>;
  /** The status every answer must have, or the run is not measuring what it says. */
  status: number;
}

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:', '--log-level', 'silent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`aggmock did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`aggmock exited with ${code}: ${out}`)));
  });
  return { child, url };
}

async function measure(url: string, series: Series): Promise<number> {
  const result = await autocannon({
    url: url + series.path,
    headers: series.headers,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  const total = result.requests.total;
  const wrong = series.status === 200 ? result.non2xx : total - (result.statusCodeStats?.[`${series.status}`]?.count ?? 0);
  if (result.errors > 0 || wrong > 0 || total === 0) {
    throw new Error(`${series.name}: ${result.errors} errors and ${wrong} answers other than ${series.status} out of ${total}`);
  }
  return result.requests.average;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const bench: Benchmark = {
  name: 'listings',
  description: `aggregator listings under load (autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per measurement, ${ROUNDS} alternating rounds)`,
  async run() {
    const { child, url } = await startServer();
    try {
      const etag = (await fetch(`${url}/getallgamesandprovider`, { headers: KEY })).headers.get('etag') ?? '';
      const all: Series[] = [
        { name: 'GET /health (baseline)', path: '/health', headers: {}, status: 200 },
        { name: 'GET /getallproviders', path: '/getallproviders', headers: KEY, status: 200 },
        {
          name: 'GET /getallgamesandprovider?provider=PGSOFT',
          path: '/getallgamesandprovider?provider=PGSOFT',
          headers: KEY,
          status: 200,
        },
        { name: 'GET /getallgamesandprovider (1,500 games)', path: '/getallgamesandprovider', headers: KEY, status: 200 },
        {
          name: 'same, revalidated (If-None-Match → 304)',
          path: '/getallgamesandprovider',
          headers: { ...KEY, 'if-none-match': etag },
          status: 304,
        },
      ];
      const rates = new Map<string, number[]>(all.map((s) => [s.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the order so no route always runs first or last.
        const order = all.map((_, i) => all[(i + round) % all.length] as Series);
        for (const series of order) rates.get(series.name)?.push(await measure(url, series));
      }
      const baseline = rates.get(all[0]!.name)!;
      const rows = all.map((s) => {
        const r = rates.get(s.name)!;
        const ratios = r.map((v, i) => v / (baseline[i] as number));
        return {
          route: s.name,
          medianRps: Math.round(median(r)),
          ratioToHealth: Number(median(ratios).toFixed(2)),
          rounds: r.map(Math.round),
        };
      });
      const markdown = [
        `aggmock serve in its own process, ${CONNECTIONS} connections, ${DURATION_S} s per measurement; medians of ${ROUNDS} alternating rounds.`,
        '',
        '| route | requests/s | × /health |',
        '|---|---:|---:|',
        ...rows.map((r) => `| ${r.route} | ${r.medianRps.toLocaleString('en-US')} | ${r.ratioToHealth.toFixed(2)} |`),
      ].join('\n');
      return { markdown, data: { connections: CONNECTIONS, durationS: DURATION_S, rounds: ROUNDS, rows } };
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    }
  },
};

export default bench;
