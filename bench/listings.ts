/**
 * Listings under load: `/getallproviders`, one provider's games and all games from aggmock
 * (`node dist/cli/main.js serve`, default catalog: 30 providers, 1,500 games), from a bare
 * node:http server answering the same prebuilt bytes (the practical limit), and from the peers a
 * user would otherwise pick (bench/peers.ts), each checked to return the same body first. Every
 * round measures every target once, after half a second of unmeasured load, in an order rotated
 * each round and reversed every other round; we report medians and the median of the
 * per-round ratios to the bare server. While one target is measured the others are paused
 * (SIGSTOP), so a JVM's garbage collector or a growing journal takes no CPU from it. Every target
 * gets the same requests (with aggmock's API key header, which only aggmock checks), and the bare
 * server answers with the same headers aggmock sends, so both sides of the ratio parse and write
 * the same bytes. Besides the rate, each target's CPU time per request is reported (from /proc):
 * on a shared machine it is steadier than the rate, which also moves with the load generator's
 * share of the cores.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Benchmark,
  cpuMicros,
  DEV_KEY,
  fmt,
  type Load,
  load,
  median,
  pauseTree,
  processTree,
  removeTempDir,
  round,
  type Started,
  startAggmock,
  startProcess,
  stop,
  tempDir,
  treeRssMb,
} from './lib.ts';
import { type Fixture, PEERS } from './peers.ts';

/** The target that is aggmock with a fault rule on `/getgameurl` only. */
const RULE_ON_LAUNCH = 'aggmock, a rule on /getgameurl';
/** The target that is aggmock with its request journal switched off (`api.journal: false`): the journal's own cost is the gap to it. */
export const JOURNAL_OFF = 'aggmock, journal off';

/** Seconds of unmeasured load before each measurement (see the rounds below). */
const WARMUP_S = 0.5;

const LISTINGS = [
  { id: 'providers', route: 'GET /getallproviders', target: '/getallproviders', peerPath: '/getallproviders' },
  {
    id: 'provider',
    route: 'GET /getallgamesandprovider?provider=PGSOFT',
    target: '/getallgamesandprovider?provider=PGSOFT',
    peerPath: '/providergames',
  },
  { id: 'all', route: 'GET /getallgamesandprovider', target: '/getallgamesandprovider', peerPath: '/getallgamesandprovider' },
] as const;

interface Target {
  name: string;
  url: string;
  started: Started;
  headers: Record<string, string>;
  /** Request target per listing id; a listing missing here is not measured for this target. */
  targets: Record<string, string>;
  /** How its body compares with aggmock's, per listing id. */
  body: Record<string, string>;
}

/** One measurement and the target's CPU time per request during it (µs, from /proc; NaN elsewhere). */
type Measured = Load & { cpuMicrosPerRequest: number };

/** The response headers aggmock sent, as flat name/value pairs, but those node:http adds to any answer. */
function replayedHeaders(headers: Headers): string[] {
  return [...headers].filter(([name]) => !PER_CONNECTION.has(name)).flat();
}
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** CPU time of a process and its children so far (a peer may run as a child of its launcher). */
const treeCpuMicros = (pid: number | undefined) =>
  pid === undefined ? Number.NaN : processTree(pid).reduce((sum, p) => sum + cpuMicros(p), 0);

/** Same bytes, or the same JSON in other bytes (json-server pretty-prints), or different. */
async function compareBody(url: string, headers: Record<string, string>, expected: Buffer): Promise<string | undefined> {
  const res = await fetch(url, { headers });
  const got = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return undefined;
  if (got.equals(expected)) return 'same bytes';
  try {
    if (JSON.stringify(JSON.parse(got.toString('utf8'))) === expected.toString('utf8')) return `same JSON, ${fmt(got.length)} B`;
  } catch {}
  return undefined;
}

const bench: Benchmark = {
  name: 'listings',
  description:
    'aggmock (also with a fault rule on another route, and with its journal off) vs a bare node:http server with the same bytes vs Prism, Mockoon, json-server, WireMock',
  async run(options) {
    const { rounds, duration, connections } = options;
    const dir = tempDir('listings');
    const running: Started[] = [];
    const skipped: { peer: string; reason: string }[] = [];
    try {
      const aggmock = await startAggmock();
      running.push(aggmock);
      const fixtures: (Fixture & { headers: string[]; target: string })[] = [];
      for (const l of LISTINGS) {
        const res = await fetch(aggmock.url + l.target, { headers: DEV_KEY });
        if (res.status !== 200) throw new Error(`aggmock answered ${res.status} to ${l.target}`);
        const body = Buffer.from(await res.arrayBuffer());
        fixtures.push({ id: l.id, peerPath: l.peerPath, target: l.target, body, headers: replayedHeaders(res.headers) });
      }
      const targets: Target[] = [
        {
          name: 'aggmock',
          url: aggmock.url,
          started: aggmock,
          headers: DEV_KEY,
          targets: Object.fromEntries(LISTINGS.map((l) => [l.id, l.target])),
          body: Object.fromEntries(LISTINGS.map((l) => [l.id, 'the reference'])),
        },
      ];

      const manifest = Object.fromEntries(
        fixtures.map((f) => {
          const file = join(dir, `${f.id}.json`);
          writeFileSync(file, f.body);
          return [f.target, { file, headers: f.headers }];
        }),
      );
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));

      // The same aggmock with a fault rule on another route: a rule must not slow the routes it does not match.
      const ruled = join(dir, 'rule-on-launch.json');
      writeFileSync(
        ruled,
        JSON.stringify({
          api: { faults: [{ id: 'slow-launch', match: { path: '/getgameurl' }, fault: { kind: 'delay', ms: 1 } }] },
        }),
      );
      // The first one's public URL, so its listings (which carry links) are the same bytes.
      const withRule = await startAggmock(
        ['--config', ruled, '--public-url', aggmock.url],
        'aggmock serve (a fault rule on /getgameurl)',
      );
      running.push(withRule);
      targets.push({
        name: RULE_ON_LAUNCH,
        url: withRule.url,
        started: withRule,
        headers: DEV_KEY,
        targets: Object.fromEntries(LISTINGS.map((l) => [l.id, l.target])),
        body: {},
      });
      // The same aggmock with its journal off: the A/B that isolates what journaling costs.
      const unjournaled = join(dir, 'journal-off.json');
      writeFileSync(unjournaled, JSON.stringify({ api: { journal: false } }));
      const journalOff = await startAggmock(
        ['--config', unjournaled, '--public-url', aggmock.url],
        'aggmock serve (journal off)',
      );
      running.push(journalOff);
      targets.push({
        name: JOURNAL_OFF,
        url: journalOff.url,
        started: journalOff,
        headers: DEV_KEY,
        targets: Object.fromEntries(LISTINGS.map((l) => [l.id, l.target])),
        body: {},
      });
      const bare = await startProcess(
        process.execPath,
        [join(import.meta.dirname, 'bare-server.mjs'), join(dir, 'manifest.json')],
        /listening on (http:\/\/\S+)/,
        { label: 'bare server' },
      );
      running.push(bare);
      targets.push({
        name: 'bare node:http',
        url: bare.match,
        started: bare,
        headers: DEV_KEY,
        targets: Object.fromEntries(LISTINGS.map((l) => [l.id, l.target])),
        body: {},
      });

      for (const peer of PEERS) {
        if (options.skipPeers.has('all') || options.skipPeers.has(peer.name.split(' ')[0]?.toLowerCase() ?? '')) {
          skipped.push({ peer: peer.name, reason: 'left out (--no-peers / --skip)' });
          continue;
        }
        try {
          const p = await peer.start(fixtures, dir);
          running.push(p.started);
          targets.push({ name: peer.name, url: p.url, started: p.started, headers: DEV_KEY, targets: p.targets, body: {} });
        } catch (error) {
          skipped.push({ peer: peer.name, reason: (error as Error).message.split('\n')[0] ?? String(error) });
          console.error(`(skipping ${peer.name}: ${(error as Error).message.split('\n')[0]})`);
        }
      }

      // Every target must answer the same body before it is measured.
      for (const t of targets.slice(1)) {
        for (const f of fixtures) {
          const path = t.targets[f.id];
          const same = path === undefined ? undefined : await compareBody(t.url + path, t.headers, f.body);
          if (same === undefined) {
            delete t.targets[f.id];
            skipped.push({ peer: t.name, reason: `${f.id}: did not answer the same body` });
          } else t.body[f.id] = same;
        }
      }

      // Only the target being measured runs; the others are paused (SIGSTOP) meanwhile.
      const only = (target: Target) => {
        for (const t of targets) pauseTree(t.started.child, t !== target);
      };
      const resumeAll = () => {
        for (const t of targets) pauseTree(t.started.child, false);
      };

      const results = new Map<string, Measured[]>();
      const key = (t: Target, id: string) => `${t.name}|${id}`;
      /**
       * A peer that errs in a window (answers nothing, resets, answers another status) is reported
       * with what happened and left out of that listing; the run goes on. aggmock and the bare
       * server are what every ratio is taken against: their failures still end the run.
       */
      const peerNames = new Set(PEERS.map((p) => p.name));
      const failed = new Map<string, string>();
      const orPeerFailure = async <T>(
        t: Target,
        listing: string,
        what: string,
        measure: () => Promise<T>,
      ): Promise<T | undefined> => {
        try {
          return await measure();
        } catch (error) {
          if (!peerNames.has(t.name)) throw error;
          const reason = `${what}: ${(error as Error).message.split('\n')[0]}`;
          console.error(`(${t.name} left out of ${listing}: ${reason})`);
          if (listing === 'all' && what === 'warm-up') return undefined;
          failed.set(key(t, listing), reason);
          results.delete(key(t, listing));
          skipped.push({
            peer: t.name,
            reason: `${LISTINGS.find((x) => x.id === listing)?.route ?? listing}: ${reason}; no row for it`,
          });
          return undefined;
        }
      };

      // Warm-up: every target once on the largest listing.
      for (const t of targets) {
        const path = t.targets.all;
        only(t);
        if (path)
          await orPeerFailure(t, 'all', 'warm-up', () =>
            load(t.url + path, { connections, duration: 1, headers: t.headers, label: `${t.name} warm-up` }),
          );
      }

      for (const l of LISTINGS) {
        const measured = targets.filter((t) => t.targets[l.id] !== undefined);
        for (let r = 0; r < rounds; r++) {
          // Rotated each round, and reversed every other round, so no target always follows the same one.
          const rotated = measured.map((_, i) => measured[(i + r) % measured.length] as Target);
          const order = r % 2 === 0 ? rotated : rotated.reverse();
          for (const t of order) {
            if (failed.has(key(t, l.id))) continue;
            only(t);
            // A short unmeasured run first: the target was paused, and the load generator (this
            // process) may still be collecting the garbage of the target before it. Without it, the
            // target measured after a slow peer paid for that peer (aggmock, always next in the
            // rotation after one, came out ~10 % below bare with peers and at par without them).
            const k = key(t, l.id);
            const m = await orPeerFailure(t, l.id, `${l.route} round ${r + 1}`, async () => {
              await load(t.url + t.targets[l.id], {
                connections,
                duration: WARMUP_S,
                headers: t.headers,
                label: `${t.name} warm-up`,
              });
              const cpu0 = treeCpuMicros(t.started.child.pid);
              const run = await load(t.url + t.targets[l.id], {
                connections,
                duration,
                headers: t.headers,
                label: `${t.name} ${l.route}`,
              });
              return { ...run, cpuMicrosPerRequest: (treeCpuMicros(t.started.child.pid) - cpu0) / run.total };
            });
            if (m) results.set(k, [...(results.get(k) ?? []), m]);
          }
        }
      }
      resumeAll();
      const rss = Object.fromEntries(targets.map((t) => [t.name, treeRssMb(t.started.child.pid)]));

      const tables = LISTINGS.map((l) => {
        const f = fixtures.find((x) => x.id === l.id) as Fixture;
        const bareRuns = results.get(`bare node:http|${l.id}`) ?? [];
        const rows = targets
          .filter((t) => results.has(key(t, l.id)))
          .map((t) => {
            const runs = results.get(key(t, l.id)) as Measured[];
            const ratios = runs.map((m, i) => m.rps / (bareRuns[i]?.rps ?? Number.NaN));
            const cpuRatios = runs.map((m, i) => m.cpuMicrosPerRequest / (bareRuns[i]?.cpuMicrosPerRequest ?? Number.NaN));
            return {
              target: t.name,
              rps: Math.round(median(runs.map((m) => m.rps))),
              ratioToBare: round(median(ratios), 2),
              p50Ms: median(runs.map((m) => m.p50)),
              p99Ms: median(runs.map((m) => m.p99)),
              cpuMicrosPerRequest: round(median(runs.map((m) => m.cpuMicrosPerRequest)), 1),
              cpuToBare: round(median(cpuRatios), 2),
              rssMb: rss[t.name],
              body: t.body[l.id] ?? '',
              rounds: runs.map((m) => Math.round(m.rps)),
            };
          });
        return { id: l.id, route: l.route, bytes: f.body.length, rows };
      });

      const markdown = [
        `${connections} connections, ${duration} s per measurement after ${WARMUP_S} s unmeasured, medians of ${rounds} rounds that alternate the targets (rotated each round, reversed every other); × bare is the median of the per-round ratios. CPU is the server's CPU time per request (its ratio to the bare server's: lower is better). RSS after all rounds.`,
        '',
        ...tables.flatMap((t) => [
          `**${t.route}** (${fmt(t.bytes)} B)`,
          '',
          '| server | req/s | × bare | p50 ms | p99 ms | CPU µs/req | CPU × bare | RSS MB | body |',
          '|---|---:|---:|---:|---:|---:|---:|---:|---|',
          ...t.rows.map(
            (r) =>
              `| ${r.target} | ${fmt(r.rps)} | ${r.ratioToBare.toFixed(2)} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuMicrosPerRequest} | ${r.cpuToBare.toFixed(2)} | ${r.rssMb} | ${r.body} |`,
          ),
          '',
        ]),
        ...(skipped.length > 0 ? ['Skipped:', ...skipped.map((s) => `- ${s.peer}: ${s.reason}`), ''] : []),
        ...PEERS.map((p) => `- ${p.name}: ${p.about}.`),
      ].join('\n');
      return { markdown, data: { connections, durationS: duration, rounds, tables, skipped } };
    } finally {
      for (const s of running.reverse()) await stop(s.child);
      removeTempDir(dir);
    }
  },
};

export default bench;
