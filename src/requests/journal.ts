import { parseJsonOr, valueAt } from '../shared/index.ts';
import type { Database, Statement } from '../storage/index.ts';

/** Request bodies longer than this are cut in the journal. */
export const MAX_JOURNALED_REQUEST_BODY = 16 * 1024;
/** Error replies longer than this are cut in the journal. */
export const MAX_JOURNALED_REPLY_BODY = 2 * 1024;
/**
 * Successful replies are cut shorter: a listing is hundreds of KiB and the same bytes every time,
 * and writing its head for every call was most of the journal's cost under load (bench/listings.ts).
 */
export const MAX_JOURNALED_SUCCESS_BODY = 512;

/** How much of a reply the journal keeps. */
export function journaledReplyLimit(status: number | null): number {
  return status !== null && status < 400 ? MAX_JOURNALED_SUCCESS_BODY : MAX_JOURNALED_REPLY_BODY;
}
/** Entries waiting for a flush at most; past it the oldest waiting are dropped (and counted), never memory without bound. */
export const MAX_PENDING_ENTRIES = 20_000;

/** How the request's credentials were judged, as the API judged them. */
export type AuthVerdict =
  | { ok: true; method: 'none' | 'api-key' | 'hmac' | 'operator'; header?: string }
  | { ok: false; error: string; message: string; reason?: string; signedString?: string };

/** One request the client made to the aggregator API, as journaled (credentials masked, bodies bounded). */
export interface JournaledRequest {
  id: number;
  /** When the request arrived, ISO 8601. */
  at: string;
  method: string;
  /** The path as sent (with `/casino` when used), without the query. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** The body as text (cut at {@link MAX_JOURNALED_REQUEST_BODY}), or null when there was none. */
  body: string | null;
  bodyBytes: number;
  auth: AuthVerdict;
  /** The reply's status, or null when none was sent (reset, empty reply, the client gave up). */
  status: number | null;
  reply: string | null;
  replyBytes: number;
  /** Whether the reply was sent to the end. */
  complete: boolean;
  latencyMs: number;
  /** The fault rule that fired, if one did. */
  fault: { ruleId: string; kind: string; delayMs?: number } | null;
  /** For a refused or unmatched request: the nearest valid route, or the field that failed. */
  hint: string | null;
}

/** An entry to write: `at` may be the arrival in epoch ms (the intercept's, with no date text to build and parse again). */
export type NewJournaledRequest = Omit<JournaledRequest, 'id' | 'at'> & { at: string | number };

export interface RequestFilter {
  path?: string;
  method?: string;
  status?: number;
  /** Default 100, at most 1000. */
  limit?: number;
  /** Only entries with a smaller id: the next page. */
  beforeId?: number;
}

/** What `count` matches: every given field must hold. `path` ignores a `/casino` prefix. */
export interface RequestMatcher {
  method?: string;
  path?: string;
  status?: number;
  /** Query parameters, each equal to the value given. */
  query?: Record<string, string>;
  /** Fields of the JSON body by dotted path, each equal to the value given. */
  body?: Record<string, unknown>;
  /** Request headers (name in any case), each equal to the value given; credentials are masked. */
  headers?: Record<string, string>;
  /** The fault rule that fired. */
  faultRule?: string;
  /** Whether the credentials were accepted. */
  authOk?: boolean;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS api_requests (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    route TEXT NOT NULL,
    query TEXT,
    headers TEXT NOT NULL,
    body TEXT,
    body_bytes INTEGER NOT NULL,
    auth TEXT NOT NULL,
    status INTEGER,
    reply TEXT,
    reply_bytes INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    fault TEXT,
    hint TEXT,
    n INTEGER NOT NULL DEFAULT 1,
    times BLOB
  );
  DROP INDEX IF EXISTS api_requests_route;
  DROP INDEX IF EXISTS api_requests_at;
`;

/**
 * A row as stored: one column per field, JSON only for the small nested ones. A row holds a run
 * of `n` requests that differ only in their arrival and latency (a client repeating a call): ids
 * `id` … `id + n - 1`, the first one's `at` and `latency_ms`, the others' in `times`
 * ({@link encodeTimes}). Rows written before runs existed have `n` 1.
 */
interface RequestRow {
  id: number;
  at: number;
  method: string;
  path: string;
  query: string | null;
  headers: string;
  body: string | null;
  body_bytes: number;
  auth: string;
  status: number | null;
  reply: string | null;
  reply_bytes: number;
  complete: number;
  latency_ms: number;
  fault: string | null;
  hint: string | null;
  n: number;
  times: Uint8Array | null;
}

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
  private readonly stmts: {
    insert: Statement;
    lastId: Statement;
    covering: Statement;
    firstSince: Statement;
    entriesBelow: Statement;
    deleteBelow: Statement;
    clear: Statement;
    settle: Statement;
  };
  /** Held calls that ended after their row was written: their final entries, by row id. */
  private settled: { id: number; entry: NewJournaledRequest }[] = [];
  private readonly insertRuns: (runs: PendingRun[], settled: { id: number; entry: NewJournaledRequest }[]) => void;
  private readonly clock: () => number;

  constructor(
    readonly db: Database,
    private readonly options: {
      retention: { maxEvents: number; maxAge: number };
      now?: () => number;
      /** Flush delay in ms (default 20). */
      flushMs?: number;
      onError?: (error: unknown) => void;
    },
  ) {
    this.clock = options.now ?? Date.now;
    db.exec(SCHEMA);
    addRunColumns(db);
    this.stmts = {
      insert: db.prepare(`INSERT INTO api_requests
        (id, at, method, path, route, query, headers, body, body_bytes, auth, status, reply, reply_bytes, complete, latency_ms, fault, hint, n, times)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // Ids are given, not drawn: a row's entries take the ids after the last row's (no AUTOINCREMENT:
      // its bookkeeping row was a measurable part of each insert; rows leave from the oldest, so the
      // newest row's ids are the largest ever given while it stands).
      lastId: db.prepare('SELECT id + n - 1 AS last FROM api_requests ORDER BY id DESC LIMIT 1'),
      covering: db.prepare('SELECT * FROM api_requests WHERE id <= ? ORDER BY id DESC LIMIT 1'),
      // No index but the id (each one made every insert dearer): rows arrive in time order, so the
      // old ones are the first ids, and the scan stops at the first recent row.
      firstSince: db.prepare('SELECT id FROM api_requests WHERE at >= ? ORDER BY id LIMIT 1'),
      entriesBelow: db.prepare('SELECT total(n) AS entries FROM api_requests WHERE id < ?'),
      deleteBelow: db.prepare('DELETE FROM api_requests WHERE id < ?'),
      clear: db.prepare('DELETE FROM api_requests'),
      settle: db.prepare(
        'UPDATE api_requests SET auth = ?, status = ?, reply = ?, reply_bytes = ?, complete = ?, latency_ms = ?, fault = ?, hint = ? WHERE id = ? AND n = 1',
      ),
    };
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
        );
        run.id = id;
        id += n;
      }
      for (const { id: held, entry: e } of settled) {
        this.stmts.settle.run(...outcomeColumns(e, e.latencyMs), held);
      }
    });
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
    if (run.id === undefined) {
      // Not written yet: written as it ended.
      run.entry = entry;
      run.latencyMs = entry.latencyMs;
      return;
    }
    this.settled.push({ id: run.id, entry });
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
    const run: PendingRun = { entry, at, latencyMs, more: [], ...(held ? { held: true as const } : {}) };
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

  /** Newest first. */
  list(filter: RequestFilter = {}): JournaledRequest[] {
    this.flush();
    const { where, args } = rowFilter(filter);
    if (filter.beforeId !== undefined) {
      where.push('id < ?');
      args.push(filter.beforeId);
    }
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    // Each row holds one entry at least, so `limit` rows hold enough.
    const rows = this.db
      .prepare(`SELECT * FROM api_requests ${whereClause(where)} ORDER BY id DESC LIMIT ${limit}`)
      .all(...args) as RequestRow[];
    const out: JournaledRequest[] = [];
    for (const row of rows) {
      const entries = entriesOf(row);
      for (let k = entries.length - 1; k >= 0 && out.length < limit; k--) {
        const entry = entries[k] as JournaledRequest;
        if (filter.beforeId === undefined || entry.id < filter.beforeId) out.push(entry);
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

  /** How many journaled requests match every field of `matcher`. */
  count(matcher: RequestMatcher = {}): number {
    this.flush();
    const { where, args } = rowFilter(matcher);
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
      const below = Math.max(keepFromCount, keepFromAge);
      const removed = (this.stmts.entriesBelow.get(below) as { entries: number }).entries;
      if (removed > 0) this.stmts.deleteBelow.run(below);
      return removed;
    } catch (error) {
      this.options.onError?.(error);
      return 0;
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
  }

  /** Writes what is queued and stops the timer (before the database closes). */
  close(): void {
    this.flush();
  }
}

/** What a call became, as the columns auth … hint that the insert and the settle statement both name in this order. */
function outcomeColumns(e: NewJournaledRequest, latencyMs: number): unknown[] {
  return [
    authJson(e.auth),
    e.status,
    e.reply,
    e.replyBytes,
    e.complete ? 1 : 0,
    latencyMs,
    e.fault === null ? null : JSON.stringify(e.fault),
    e.hint,
  ];
}

/** An entry's arrival in epoch ms (the intercept gives a number; a test may give ISO text). */
function arrivalOf(entry: NewJournaledRequest): number {
  return typeof entry.at === 'number' ? entry.at : Date.parse(entry.at);
}

/** Adds the run columns to a journal table an earlier version created (its rows are runs of one). */
function addRunColumns(db: Database): void {
  const columns = db.prepare('PRAGMA table_info(api_requests)').all() as { name: string }[];
  if (columns.some((c) => c.name === 'n')) return;
  db.exec('ALTER TABLE api_requests ADD COLUMN n INTEGER NOT NULL DEFAULT 1');
  db.exec('ALTER TABLE api_requests ADD COLUMN times BLOB');
}

/**
 * Whether two entries are the same request met the same way: everything but the arrival and the
 * latency. The nested parts are compared by identity: the intercept hands the same objects while a
 * client repeats itself (describe.ts), and different objects only cost a row of their own. An
 * entry a fault rule fired on always has its own row.
 */
function sameRequest(a: NewJournaledRequest, b: NewJournaledRequest): boolean {
  return (
    a.fault === null &&
    b.fault === null &&
    a.path === b.path &&
    a.status === b.status &&
    a.reply === b.reply &&
    a.replyBytes === b.replyBytes &&
    a.headers === b.headers &&
    a.query === b.query &&
    a.auth === b.auth &&
    a.method === b.method &&
    a.body === b.body &&
    a.bodyBytes === b.bodyBytes &&
    a.complete === b.complete &&
    a.hint === b.hint
  );
}

/**
 * A run's later arrivals and latencies as stored: float64 pairs (ms after the first call, latency
 * in ms), little-endian, so a flush converts no number to text.
 */
function encodeTimes(firstAt: number, more: readonly number[]): Buffer {
  const times = new Float64Array(more.length);
  for (let i = 0; i < more.length; i += 2) {
    times[i] = (more[i] as number) - firstAt;
    times[i + 1] = more[i + 1] as number;
  }
  return Buffer.from(times.buffer);
}

/** {@link encodeTimes}'s pairs back (the bytes copied: a driver's buffer need not be aligned for a Float64Array). */
function decodeTimes(bytes: Uint8Array): Float64Array {
  return new Float64Array(Uint8Array.prototype.slice.call(bytes).buffer);
}

/** A row's entries, oldest first. */
function entriesOf(row: RequestRow): JournaledRequest[] {
  const first = toEntry(row);
  if (row.n <= 1 || row.times === null) return [first];
  const entries = [first];
  const times = decodeTimes(row.times);
  for (let k = 0; 2 * k < times.length; k++) {
    entries.push({
      ...first,
      id: row.id + k + 1,
      at: new Date(row.at + (times[2 * k] as number)).toISOString(),
      latencyMs: times[2 * k + 1] as number,
    });
  }
  return entries;
}

/** The SQL conditions of the fields a row holds as columns. */
function rowFilter(filter: { path?: string; method?: string; status?: number }): { where: string[]; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.path !== undefined) {
    where.push('route = ?');
    args.push(routeOf(filter.path));
  }
  if (filter.method !== undefined) {
    where.push('method = ?');
    args.push(filter.method.toUpperCase());
  }
  if (filter.status !== undefined) {
    where.push('status = ?');
    args.push(filter.status);
  }
  return { where, args };
}

function whereClause(where: readonly string[]): string {
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}

/** Entries written between two prunes at most. */
const PRUNE_EVERY = 1000;
/** Time between two prunes at most, while entries are written (and at every open). */
const PRUNE_INTERVAL_MS = 60_000;

/** The route a path names, as filters compare it: without `/casino` and a trailing slash. */
function routeOf(path: string): string {
  let p = path;
  if (p.startsWith('/casino/')) p = p.slice('/casino'.length);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

function toEntry(row: RequestRow): JournaledRequest {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    method: row.method,
    path: row.path,
    query: row.query === null ? {} : (JSON.parse(row.query) as JournaledRequest['query']),
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
    bodyBytes: row.body_bytes,
    auth: JSON.parse(row.auth) as AuthVerdict,
    status: row.status,
    reply: row.reply,
    replyBytes: row.reply_bytes,
    complete: row.complete === 1,
    latencyMs: row.latency_ms,
    fault: row.fault === null ? null : (JSON.parse(row.fault) as JournaledRequest['fault']),
    hint: row.hint,
  };
}

/** The JSON of the last headers written: a client sends the same ones call after call. */
let lastHeaders: Record<string, string> | undefined;
let lastHeadersJson = '';
function headersJson(headers: Record<string, string>): string {
  if (headers !== lastHeaders) {
    lastHeaders = headers;
    lastHeadersJson = JSON.stringify(headers);
  }
  return lastHeadersJson;
}

/** The JSON of the last query and auth verdict written: a client under load repeats them (the same objects, see describe.ts). */
let lastQuery: object | undefined;
let lastQueryJson = '';
function queryJson(query: object): string {
  if (query !== lastQuery) {
    lastQuery = query;
    lastQueryJson = JSON.stringify(query);
  }
  return lastQueryJson;
}
let lastAuth: AuthVerdict | undefined;
let lastAuthJson = '';
function authJson(auth: AuthVerdict): string {
  if (auth !== lastAuth) {
    lastAuth = auth;
    lastAuthJson = JSON.stringify(auth);
  }
  return lastAuthJson;
}

function isEmptyObject(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

function entryMatches(entry: JournaledRequest, matcher: RequestMatcher): boolean {
  if (matcher.faultRule !== undefined && entry.fault?.ruleId !== matcher.faultRule) return false;
  if (matcher.authOk !== undefined && entry.auth.ok !== matcher.authOk) return false;
  for (const [name, value] of Object.entries(matcher.query ?? {})) {
    if (entry.query[name] !== value) return false;
  }
  for (const [name, value] of Object.entries(matcher.headers ?? {})) {
    if (entry.headers[name.toLowerCase()] !== value) return false;
  }
  if (matcher.body !== undefined) {
    const body = entry.body === null ? undefined : parseJsonOr(entry.body, undefined);
    for (const [path, value] of Object.entries(matcher.body)) {
      if (JSON.stringify(valueAt(body, path.split('.'))) !== JSON.stringify(value)) return false;
    }
  }
  return true;
}
