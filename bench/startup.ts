/**
 * Start-up and memory: from spawning `node dist/cli/main.js serve` to its first successful
 * `GET /health`, RSS right after, and RSS after serving every listing once (all providers, each
 * provider's games, all games), with 1,500 and with 100,000 games. For scale, the same start
 * for the bare node:http server of bench/bare-server.mjs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Benchmark,
  CLI,
  DEV_KEY,
  fmt,
  freePort,
  median,
  removeTempDir,
  round,
  rssMb,
  startProcess,
  stop,
  tempDir,
  waitForOk,
} from './lib.ts';

const SIZES = [1_500, 100_000];
const TARGET_START_MS = 1_000;
const TARGET_RSS_MB = 300;

interface Run {
  startMs: number;
  rssStartMb: number;
  rssServedMb: number;
  servedBytes: number;
}

async function once(games: number, dir: string): Promise<Run> {
  const config = join(dir, `config-${games}.json`);
  writeFileSync(config, JSON.stringify({ catalog: { games } }));
  const port = await freePort();
  const t0 = performance.now();
  const started = await startProcess(
    process.execPath,
    [CLI, 'serve', '--port', String(port), '--host', '127.0.0.1', '--db', ':memory:', '--log-level', 'silent', '-c', config],
    null,
    { label: `aggmock serve (${games} games)` },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/health`, 120_000);
    const startMs = performance.now() - t0;
    const rssStartMb = rssMb(started.child.pid);
    const providers = (await (await fetch(`${url}/getallproviders`, { headers: DEV_KEY })).json()) as { providers: string[] };
    let servedBytes = 0;
    const paths = [
      '/getallgamesandprovider',
      ...providers.providers.map((p) => `/getallgamesandprovider?provider=${encodeURIComponent(p)}`),
    ];
    for (const path of paths) {
      const res = await fetch(url + path, { headers: DEV_KEY });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      servedBytes += (await res.arrayBuffer()).byteLength;
    }
    return { startMs, rssStartMb, rssServedMb: rssMb(started.child.pid), servedBytes };
  } finally {
    await stop(started.child);
  }
}

async function bareStart(dir: string): Promise<number> {
  const file = join(dir, 'bare.json');
  writeFileSync(file, '{}');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ '/health': { file, etag: '"x"' } }));
  const t0 = performance.now();
  const bare = await startProcess(
    process.execPath,
    [join(import.meta.dirname, 'bare-server.mjs'), join(dir, 'manifest.json')],
    /listening on (http:\/\/\S+)/,
    { label: 'bare server' },
  );
  try {
    await waitForOk(`${bare.match}/health`);
    return performance.now() - t0;
  } finally {
    await stop(bare.child);
  }
}

const bench: Benchmark = {
  name: 'startup',
  description: `start-up to the first /health and RSS, 1,500 and 100,000 games (targets < ${TARGET_START_MS} ms with 1,500; < ${TARGET_RSS_MB} MB with 100,000)`,
  async run({ rounds }) {
    const dir = tempDir('startup');
    try {
      const bare: number[] = [];
      const runs = new Map<number, Run[]>(SIZES.map((g) => [g, []]));
      for (let r = 0; r < rounds; r++) {
        bare.push(await bareStart(dir));
        for (const games of SIZES) {
          // The big catalog takes seconds per start: three rounds are enough to see its spread.
          if (games > 10_000 && r >= 3) continue;
          runs.get(games)?.push(await once(games, dir));
        }
      }
      const rows = SIZES.map((games) => {
        const rs = runs.get(games) as Run[];
        return {
          games,
          startMs: Math.round(median(rs.map((x) => x.startMs))),
          rssStartMb: round(median(rs.map((x) => x.rssStartMb)), 1),
          rssServedMb: round(median(rs.map((x) => x.rssServedMb)), 1),
          servedBytes: rs[0]?.servedBytes ?? 0,
          runsMs: rs.map((x) => Math.round(x.startMs)),
        };
      });
      const bareMs = Math.round(median(bare));
      const markdown = [
        `Process start to the first 200 from /health (\`node dist/cli/main.js serve\`, in-memory state); medians of ${rounds} rounds (3 for 100,000 games).`,
        '',
        '| games | start ms | RSS after start MB | RSS after serving every listing MB | listings served |',
        '|---:|---:|---:|---:|---:|',
        ...rows.map(
          (r) =>
            `| ${fmt(r.games)} | ${fmt(r.startMs)} | ${r.rssStartMb} | ${r.rssServedMb} | ${(r.servedBytes / 2 ** 20).toFixed(1)} MB |`,
        ),
        `| bare node:http (floor) | ${fmt(bareMs)} | | | |`,
      ].join('\n');
      return { markdown, data: { targetStartMs: TARGET_START_MS, targetRssMb: TARGET_RSS_MB, rows, bareStartMs: bareMs } };
    } finally {
      removeTempDir(dir);
    }
  },
};

export default bench;
