import {
  cappedEntry,
  DEFAULT_JOURNAL_BYTES,
  encodeTimes,
  entriesOf,
  entryMatches,
  headersJson,
  isEmptyObject,
  type JournaledRequest,
  MAX_JOURNALED_ROW_BYTES,
  MAX_LIST_BYTES,
  type NewJournaledRequest,
  queryJson,
  type RequestFilter,
  type RequestMatcher,
  type RequestRow,
  rowFilter,
  SUMMARY_COLUMNS,
  SUMMARY_ROW_BYTES,
  sameRequest,
  toEntry,
  whereClause,
} from './rows.ts';

export {
  type AuthVerdict,
  type JournaledRequest,
  journaledReplyLimit,
  MAX_JOURNALED_REPLY_BODY,
  MAX_JOURNALED_REQUEST_BODY,
  MAX_JOURNALED_ROW_BYTES,
  MAX_LIST_BYTES,
  type NewJournaledRequest,
  type RequestFilter,
  type RequestMatcher,
} from './rows.ts';

import { routeOf } from '../config/index.ts';
import { pageSize } from '../http/paging.ts';
import type { Database } from '../storage/index.ts';
import { type JournalStatements, openJournalTable, outcomeColumns } from './journal-table.ts';

/** Entries waiting for a flush at most; past it the oldest waiting are dropped (and counted), never memory without bound. */
export const MAX_PENDING_ENTRIES = 20_000;

/**
 * Requests waiting for the next flush, as runs: consecutive entries alike in everything but their
 * arrival and latency ({@link sameRequest}) share one entry and add two numbers each, so a client
 * hammering a listing costs a comparison and two pushes a call, and one row a flush.
 */
interface PendingRun {
  /** What every call of the run is (its own `at` and `latencyMs` are not read). */
  entry: NewJournaledRequest;
  /** The first call's arrival, epoch ms, and latency. */
  at: number;
  latencyMs: number;
  /** The later entries' arrivals (epoch ms) and latencies, flat: at, latency, at, latency… */
  more: number[];
  /** The row's id, once a flush wrote it. */
  id?: number;
  /** A held call's run: no later call joins it. */
  held?: true;
  /** The row's bytes ({@link entryBytes}), its entry capped at {@link MAX_JOURNALED_ROW_BYTES}. */
  bytes: number;
}

/**
 * A call journaled while still in progress ({@link RequestJournal.appendHeld}), to be settled with
 * what it became when it ends.
 */
export type HeldCall = { readonly __held: unique symbol };

/** Entries in one run (one row) at most, so a row's `times` stays small. */
const MAX_RUN = 1000;

/**
 * The journal of every request the integrator's client made to the aggregator API, in the same
 * SQLite file as the callback outbox, with the same retention. Entries are written in batches (one
 * transaction every few ms, like the outbox), so answering a request costs a push onto an array,
 * and requests that repeat the one before (a client polling a listing) share a row; every read
 * flushes first, so a reader never sees the journal behind.
 */
export class RequestJournal {
  private pending: PendingRun[] = [];
  /** Entries in `pending`. */
  private pendingEntries = 0;
  private timer: NodeJS.Timeout | undefined;
  private sincePrune = 0;
  /** When the last prune ran (the injected clock). */
  private prunedAt = 0;
  /** Entries dropped because the flush could not keep up (never the case in practice; bounded anyway). */
  dropped = 0;
  private readonly stmts: JournalStatements;
  /** Held calls that ended after their row was written: their final entries, by row id. */
  private settled: { id: number; entry: NewJournaledRequest }[] = [];
  private readonly insertRuns: (runs: PendingRun[], settled: { id: number; entry: NewJournaledRequest }[]) => void;
  private readonly clock: () => number;
  /** The rows' bytes together, as written ({@link entryBytes}); the retention's byte budget holds it below `maxBytes`. */
  private totalBytes = 0;

  constructor(
    readonly db: Database,
    private readonly options: {
      retention: { maxEvents: number; maxAge: number; maxBytes?: number };
      now?: () => number;
      /** Flush delay in ms (default 20). */
      flushMs?: number;
      onError?: (error: unknown) => void;
    },
  ) {
    this.clock = options.now ?? Date.now;
    this.stmts = openJournalTable(db);
    this.insertRuns = db.transaction((runs: PendingRun[], settled: { id: number; entry: NewJournaledRequest }[]) => {
      let id = this.lastId() + 1;
      for (const run of runs) {
        const e = run.entry;
        const n = 1 + run.more.length / 2;
        this.stmts.insert.run(
          id,
          run.at,
          e.method,
          e.path,
          routeOf(e.path),
          isEmptyObject(e.query) ? null : queryJson(e.query),
          headersJson(e.headers),
          e.body,
          e.bodyBytes,
          ...outcomeColumns(e, run.latencyMs),
          n,
          n === 1 ? null : encodeTimes(run.at, run.more),
          run.bytes + 16 * (n - 1),
          e.crossSite ? 1 : 0,
        );
        this.totalBytes += run.bytes + 16 * (n - 1);
        run.id = id;
        id += n;
      }
      for (const { id: held, entry: e } of settled) {
        this.stmts.settle.run(...outcomeColumns(e, e.latencyMs), held);
      }
    });
    this.totalBytes = (this.stmts.totalBytes.get() as { bytes: number }).bytes;
    // Rows a previous run left past the retention go at once, not after the next thousand requests.
    this.prune();
  }

  /**
   * Queues an entry, written at the next flush (off the reply's path). Returns at once. The entry
   * should hold plain values, not the request: it waits for the flush, and whatever it reaches
   * waits with it (a closure made inside a request handler reaches the request, its response and
   * socket, which then outlive a young-generation collection and are promoted). An entry like the
   * one before it in all but `at` and `latencyMs` joins its run and is not kept itself.
   */
  append(entry: NewJournaledRequest): void {
    this.queue(entry, arrivalOf(entry), entry.latencyMs, false);
  }

  /**
   * Queues a call that is `like` (an entry appended before, unchanged) in all but its arrival and
   * latency, without an entry of its own: what the intercept does for a call that repeats the last.
   */
  appendLike(like: NewJournaledRequest, at: number, latencyMs: number): void {
    this.queue(like, at, latencyMs, false);
  }

  /**
   * Journals a call that is still in progress, as it stands (a call a fault rule holds: delayed,
   * dripped, never answered), so a reader sees it at once, even before aggmock notices that the
   * client gave up on it. {@link settle} replaces it with what the call became. It never joins a run.
   */
  appendHeld(entry: NewJournaledRequest): HeldCall {
    return this.queue(entry, arrivalOf(entry), entry.latencyMs, true) as unknown as HeldCall;
  }

  /** What a held call became (its status, reply, latency…); its id and arrival stay. */
  settle(held: HeldCall, entry: NewJournaledRequest): void {
    const run = held as unknown as PendingRun;
    const [capped, bytes] = cappedEntry(entry);
    if (run.id === undefined) {
      // Not written yet: written as it ended.
      run.entry = capped;
      run.bytes = bytes;
      run.latencyMs = entry.latencyMs;
      return;
    }
    this.settled.push({ id: run.id, entry: capped });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.options.flushMs ?? 20);
      this.timer.unref?.();
    }
  }

  /** Adds a call to the last run when it is one more of it, else starts a run (always, for a held call); returns its run. */
  private queue(entry: NewJournaledRequest, at: number, latencyMs: number, held: boolean): PendingRun {
    if (this.pendingEntries >= MAX_PENDING_ENTRIES) this.dropOldest();
    this.pendingEntries++;
    this.schedule();
    const last = this.pending[this.pending.length - 1];
    if (
      !held &&
      last !== undefined &&
      last.held === undefined &&
      last.more.length < 2 * (MAX_RUN - 1) &&
      (last.entry === entry || sameRequest(last.entry, entry))
    ) {
      last.more.push(at, latencyMs);
      return last;
    }
    const [capped, bytes] = cappedEntry(entry);
    const run: PendingRun = { entry: capped, at, latencyMs, more: [], bytes, ...(held ? { held: true as const } : {}) };
    this.pending.push(run);
    return run;
  }

  private dropOldest(): void {
    const oldest = this.pending.shift();
    if (oldest === undefined) return;
    const n = 1 + oldest.more.length / 2;
    this.pendingEntries -= n;
    this.dropped += n;
  }

  /** Writes every queued entry in one transaction. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0 && this.settled.length === 0) return;
    const runs = this.pending;
    const settled = this.settled;
    const entries = this.pendingEntries;
    this.pending = [];
    this.settled = [];
    this.pendingEntries = 0;
    try {
      this.insertRuns(runs, settled);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    this.sincePrune += entries;
    // By count under load; by time too, so a quiet client's old rows still leave after maxAge.
    if (this.sincePrune >= PRUNE_EVERY || this.clock() - this.prunedAt >= PRUNE_INTERVAL_MS) this.prune();
  }

  /**
   * Newest first: `limit` entries at most, and {@link MAX_LIST_BYTES} of them (`maxBytes`) at most —
   * a page of big rows ends early; `truncated` says so, and the last entry's id starts the next.
   * `summary` leaves each entry's headers, body and reply out (the Requests page's list; a row's
   * details are {@link get}).
   */
  list(filter: RequestFilter = {}): JournaledRequest[] & { truncated?: boolean } {
    this.flush();
    const { where, args } = rowFilter(filter);
    if (filter.beforeId !== undefined) {
      where.push('id < ?');
      args.push(filter.beforeId);
    }
    const limit = pageSize(filter.limit);
    const maxBytes = filter.maxBytes ?? MAX_LIST_BYTES;
    const columns = filter.summary ? SUMMARY_COLUMNS : '*';
    const out: JournaledRequest[] & { truncated?: boolean } = [];
    let bytes = 0;
    // Each row holds one entry at least, so `limit` rows hold enough; rows are read one at a time.
    const rows = this.db
      .prepare(`SELECT ${columns} FROM api_requests ${whereClause(where)} ORDER BY id DESC LIMIT ${limit}`)
      .iterate(...args) as Iterable<RequestRow>;
    for (const row of rows) {
      const size = filter.summary ? SUMMARY_ROW_BYTES : row.bytes || MAX_JOURNALED_ROW_BYTES;
      const entries = entriesOf(row);
      for (let k = entries.length - 1; k >= 0 && out.length < limit; k--) {
        const entry = entries[k] as JournaledRequest;
        if (filter.beforeId !== undefined && entry.id >= filter.beforeId) continue;
        if (out.length > 0 && bytes + size > maxBytes) {
          out.truncated = true;
          return out;
        }
        bytes += size;
        out.push(entry);
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  get(id: number): JournaledRequest | undefined {
    this.flush();
    const row = this.stmts.covering.get(id) as RequestRow | undefined;
    if (row === undefined || id >= row.id + row.n) return undefined;
    return entriesOf(row)[id - row.id];
  }

  /** How many journaled requests match every field of `matcher` (cross-site ones only when it asks: `crossSite: true`). */
  count(matcher: RequestMatcher = {}): number {
    this.flush();
    const { where, args } = rowFilter(matcher);
    where.push(matcher.crossSite === true ? 'cross_site = 1' : 'cross_site = 0');
    const sql = `FROM api_requests ${whereClause(where)}`;
    const needsEntry =
      matcher.query !== undefined ||
      matcher.body !== undefined ||
      matcher.headers !== undefined ||
      matcher.faultRule !== undefined ||
      matcher.authOk !== undefined;
    if (!needsEntry) return (this.db.prepare(`SELECT total(n) AS n ${sql}`).get(...args) as { n: number }).n;
    let n = 0;
    // What a matcher reads is the same for every entry of a row: a row matches whole.
    for (const row of this.db.prepare(`SELECT * ${sql}`).iterate(...args) as Iterable<RequestRow>) {
      if (entryMatches(toEntry(row), matcher)) n += row.n;
    }
    return n;
  }

  /**
   * Deletes entries beyond the newest `maxEvents` and those older than `maxAge`, a row at a time
   * (a row of several entries leaves when its newest one is past the retention). Returns how many
   * entries left.
   */
  prune(): number {
    this.sincePrune = 0;
    const { maxEvents, maxAge } = this.options.retention;
    const now = this.clock();
    this.prunedAt = now;
    try {
      const last = this.lastId();
      if (last === 0) return 0;
      // Rows whose every id is past the newest maxEvents; the row holding the newest id to drop
      // stays when it holds a newer one too…
      const oldestKept = last - maxEvents + 1;
      const row = this.stmts.covering.get(oldestKept - 1) as RequestRow | undefined;
      const keepFromCount = row === undefined ? 0 : row.id + row.n <= oldestKept ? row.id + row.n : row.id;
      // …and rows that arrived before maxAge ago.
      const recent = this.stmts.firstSince.get(now - maxAge) as { id: number } | undefined;
      const keepFromAge = recent === undefined ? last + 1 : recent.id;
      const below = Math.max(keepFromCount, keepFromAge, this.keepFromBytes());
      const { entries: removed, bytes } = this.stmts.entriesBelow.get(below) as { entries: number; bytes: number };
      if (removed > 0) {
        this.stmts.deleteBelow.run(below);
        this.totalBytes -= bytes;
        // Give the freed pages back to the file system (a database created with auto_vacuum = INCREMENTAL).
        if (bytes > 0) this.db.exec('PRAGMA incremental_vacuum');
      }
      return removed;
    } catch (error) {
      this.options.onError?.(error);
      return 0;
    }
  }

  /**
   * The first row to keep for the byte budget: when the rows hold more than `maxBytes`, the oldest
   * leave until they hold nine tenths of it (so a prune does not run for every row that arrives).
   */
  private keepFromBytes(): number {
    const maxBytes = this.options.retention.maxBytes ?? DEFAULT_JOURNAL_BYTES;
    if (this.totalBytes <= maxBytes) return 0;
    let excess = this.totalBytes - Math.floor(maxBytes * 0.9);
    let from = 0;
    for (;;) {
      const rows = this.stmts.oldest.all(from) as { id: number; n: number; bytes: number }[];
      if (rows.length === 0) return from;
      for (const row of rows) {
        from = row.id + row.n;
        excess -= row.bytes;
        if (excess <= 0) return from;
      }
    }
  }

  /** The newest id given, 0 when the journal is empty. */
  private lastId(): number {
    return (this.stmts.lastId.get() as { last: number } | undefined)?.last ?? 0;
  }

  clear(): void {
    this.pending = [];
    this.settled = [];
    this.pendingEntries = 0;
    this.stmts.clear.run();
    this.totalBytes = 0;
    this.db.exec('PRAGMA incremental_vacuum');
  }

  /** The rows' bytes together, as the byte budget counts them. */
  get bytes(): number {
    this.flush();
    return this.totalBytes;
  }

  /** Writes what is queued and stops the timer (before the database closes). */
  close(): void {
    this.flush();
  }
}

/** An entry's arrival in epoch ms (the intercept gives a number; a test may give ISO text). */
function arrivalOf(entry: NewJournaledRequest): number {
  return typeof entry.at === 'number' ? entry.at : Date.parse(entry.at);
}

/** Entries written between two prunes at most. */
const PRUNE_EVERY = 1000;
/** Time between two prunes at most, while entries are written (and at every open). */
const PRUNE_INTERVAL_MS = 60_000;
