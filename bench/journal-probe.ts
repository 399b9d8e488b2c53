/**
 * What the durable journal writes for one engine run at concurrency 32 against the sink: commits and
 * rows per commit, the WAL's bytes a callback and the pages each commit wrote, by table (the WAL's
 * frame headers name the pages; SQLite's dbstat names their tables), and the rows' sizes.
 * `node --import tsx bench/journal-probe.ts [events]`; BENCH_DIST=<tree>/dist probes another build.
 * A probe for the analysis in bench/readme.ts (*Callbacks*), not a benchmark: it times nothing.
 */
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as CallbacksModule from '../src/callbacks/index.ts';
import type * as OutboxModule from '../src/callbacks/outbox.ts';
import type * as ConfigModule from '../src/config/index.ts';
import { startSink } from './callbacks.ts';
import { CACHE, ROOT, stop } from './lib.ts';

const DIST = process.env.BENCH_DIST ?? join(ROOT, 'dist');
const dist = (path: string) => import(pathToFileURL(join(DIST, path)).href);
const { createCallbackEngine, openDatabase } = (await dist('callbacks/index.js')) as typeof CallbacksModule;
const { Outbox } = (await dist('callbacks/outbox.js')) as typeof OutboxModule;
const { configSchema } = (await dist('config/index.js')) as typeof ConfigModule;

const EVENTS = Number(process.argv[2] ?? 10_000);
const PAGE = 4096;
const FRAME = 24 + PAGE;
const dir = join(CACHE, 'tmp', `journal-probe-${process.pid}`);
mkdirSync(dir, { recursive: true });
const { url, child } = await startSink();
try {
  const path = join(dir, 'outbox.db');
  const db = openDatabase(path);
  db.exec('PRAGMA wal_autocheckpoint = 0'); // every frame of the run stays in the WAL, to be counted
  const engine = createCallbackEngine({
    config: configSchema.parse({ seed: 'probe', callbacks: { webhookUrl: url, concurrency: 32 } }),
    db,
  });
  type Buffers = { newEvents: unknown[]; journalBuffer: unknown[]; dirty: Map<number, unknown> };
  const proto = Outbox.prototype as unknown as { commit(this: Buffers, withDelivering: boolean): void };
  const commit = proto.commit;
  const rows = { commits: 0, inserts: 0, attempts: 0, updates: 0 };
  proto.commit = function (this: Buffers, withDelivering: boolean) {
    rows.commits++;
    rows.inserts += this.newEvents.length;
    rows.attempts += this.journalBuffer.length;
    rows.updates += this.dirty.size;
    commit.call(this, withDelivering);
  };
  engine.start();
  let settled = 0;
  const done = new Promise<void>((resolve) => engine.onSettled(() => ++settled === EVENTS && resolve()));
  const walBefore = statSync(`${path}-wal`).size;
  const t0 = performance.now();
  let enqueued = 0;
  await new Promise<void>((resolve) => {
    const produce = () => {
      for (const until = Math.min(EVENTS, enqueued + 250); enqueued < until; enqueued++)
        engine.enqueue({ kind: 'debit', playerId: `p${enqueued % 1000}`, amountMinor: 100 + (enqueued % 5000) });
      if (enqueued < EVENTS) setImmediate(produce);
      else resolve();
    };
    produce();
  });
  await done;
  const seconds = (performance.now() - t0) / 1000;
  const wal = readFileSync(`${path}-wal`).subarray(walBefore === 0 ? 32 : walBefore);
  await engine.stop();
  proto.commit = commit;
  const pages: number[] = [];
  let commitFrames = 0;
  for (let at = 0; at + FRAME <= wal.length; at += FRAME) {
    pages.push(wal.readUInt32BE(at));
    if (wal.readUInt32BE(at + 4) !== 0) commitFrames++;
  }
  const tableOf = new Map<number, string>();
  for (const r of db.prepare('SELECT name, pageno, pagetype FROM dbstat').all() as {
    name: string;
    pageno: number;
    pagetype: string;
  }[])
    tableOf.set(r.pageno, `${r.name} ${r.pagetype}`);
  const byTable = new Map<string, number>();
  for (const page of pages) {
    const name = tableOf.get(page) ?? (page === 1 ? 'page 1' : 'other (pointer map, free)');
    byTable.set(name, (byTable.get(name) ?? 0) + 1);
  }
  console.log(
    `${EVENTS} callbacks in ${seconds.toFixed(2)} s: ${rows.commits} commits (${Math.round(rows.commits / seconds)}/s, ` +
      `${(EVENTS / rows.commits).toFixed(1)} callbacks a commit); journaled: ${rows.inserts} new events, ${rows.attempts} attempt entries (sent, then answered), ${rows.updates} event states`,
  );
  console.log(
    `WAL: ${Math.round(wal.length / EVENTS)} bytes a callback, ${(pages.length / commitFrames).toFixed(1)} pages a commit: ` +
      [...byTable]
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name} ${(n / commitFrames).toFixed(2)}`)
        .join(', '),
  );
  const events = db
    .prepare(
      'SELECT avg(length(body)) AS body, avg(length(facts)) AS facts, avg(length(request_headers)) AS headers FROM callback_events',
    )
    .get();
  const attempts = db.prepare('SELECT avg(length(request_headers)) AS headers FROM callback_attempts').get();
  const size = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count * PAGE;
  console.log(`file: ${Math.round(size / EVENTS)} bytes a callback; event row`, events, 'attempt row', attempts);
  db.close();
} finally {
  await stop(child);
  rmSync(dir, { recursive: true, force: true });
}
