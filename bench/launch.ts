/**
 * Launch under load: `POST /getgameurl` against `aggmock serve` (built CLI, default catalog),
 * signed with the default HMAC scheme (X-Signature: t=…,v1=…, verified on every request) and,
 * for comparison, with the API key; the two alternate over the rounds. Every request creates a
 * launch session, as a real launch does. Besides the rate and latency, the server's CPU time per
 * launch (from /proc), which moves less with the machine's load than the rate does.
 */
import { requestPayload, signPayload } from '../src/signing/index.ts';
import { type Benchmark, cpuMicros, DEV_KEY, fmt, type Load, load, median, round, startAggmock, stop } from './lib.ts';

const PATH = '/getgameurl';
const TARGET_P99_MS = 10;

const bench: Benchmark = {
  name: 'launch',
  description: 'POST /getgameurl with HMAC verification (and with the API key), autocannon',
  async run({ rounds, duration, connections }) {
    const aggmock = await startAggmock();
    try {
      const listing = (await (
        await fetch(`${aggmock.url}/getallgamesandprovider?provider=PGSOFT`, { headers: DEV_KEY })
      ).json()) as { games: { id: string }[] };
      const gameId = listing.games[0]?.id;
      if (!gameId) throw new Error('no game to launch');
      const body = JSON.stringify({
        username: 'bench-player',
        gameId,
        money: 1000,
        platform: 1,
        home_url: 'https://casino.example',
      });
      const json = { 'content-type': 'application/json' };
      const signed = () =>
        ({
          ...json,
          ...signPayload({
            scheme: 'timestamped',
            secrets: ['aggmock-dev-secret'],
            payload: requestPayload('POST', PATH, body),
            timestamp: Math.floor(Date.now() / 1000),
          }),
        }) as Record<string, string>;
      const check = await fetch(aggmock.url + PATH, { method: 'POST', headers: signed(), body });
      if (check.status !== 200) throw new Error(`a signed launch answered ${check.status}: ${await check.text()}`);

      type Measured = Load & { cpuMicrosPerRequest: number };
      const series = { hmac: [] as Measured[], apiKey: [] as Measured[] };
      await load(aggmock.url + PATH, { connections, duration: 1, method: 'POST', headers: signed(), body });
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? (['hmac', 'apiKey'] as const) : (['apiKey', 'hmac'] as const);
        for (const s of order) {
          const headers = s === 'hmac' ? signed() : { ...json, ...DEV_KEY };
          const cpu0 = cpuMicros(aggmock.child.pid);
          const run = await load(aggmock.url + PATH, { connections, duration, method: 'POST', headers, body, label: s });
          series[s].push({ ...run, cpuMicrosPerRequest: (cpuMicros(aggmock.child.pid) - cpu0) / run.total });
        }
      }
      const summary = (runs: Measured[]) => ({
        rps: Math.round(median(runs.map((m) => m.rps))),
        cpuMicrosPerRequest: round(median(runs.map((m) => m.cpuMicrosPerRequest))),
        p50Ms: median(runs.map((m) => m.p50)),
        p99Ms: median(runs.map((m) => m.p99)),
        rounds: runs.map((m) => Math.round(m.rps)),
      });
      const rows = [
        { auth: 'HMAC (timestamped X-Signature)', ...summary(series.hmac) },
        { auth: 'API key', ...summary(series.apiKey) },
      ];
      const markdown = [
        `${connections} connections, ${duration} s per measurement, medians of ${rounds} alternating rounds; each request creates a launch session. CPU is the server's CPU time per launch (from /proc).`,
        '',
        '| POST /getgameurl | req/s | p50 ms | p99 ms | CPU µs/req | p99 < 10 ms |',
        '|---|---:|---:|---:|---:|:-:|',
        ...rows.map(
          (r) =>
            `| ${r.auth} | ${fmt(r.rps)} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuMicrosPerRequest} | ${r.p99Ms < TARGET_P99_MS ? 'yes' : 'no'} |`,
        ),
      ].join('\n');
      return { markdown, data: { connections, durationS: duration, rounds, rows } };
    } finally {
      await stop(aggmock.child);
    }
  },
};

export default bench;
