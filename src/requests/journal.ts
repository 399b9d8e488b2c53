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
  | { ok: true; method: 'none' | 'api-key' | 'hmac'; header?: string }
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
    hint TEXT
  );
  DROP INDEX IF EXISTS api_requests_route;
  DROP INDEX IF EXISTS api_requests_at;
`;

/** A row as stored: one column per field, JSON only for the small nested ones. */
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
}

/**
 * The journal of every request the integrator's client made to the aggregator API, in the same
 * SQLite file as the callback outbox, with the same retention. Entries are written in batches (one
 * transaction every few ms, like the outbox), so answering a request costs a push onto an array;
 * every read flushes first, so a reader never sees the journal behind.
 */
export class RequestJournal {
  private pending: NewJournaledRequest[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sincePrune = 0;
  /** When the last prune ran (the injected clock). */
  private prunedAt = 0;
  /** Entries dropped because the flush could not keep up (never the case in practice; bounded anyway). */
  dropped = 0;
  private readonly stmts: {
    insert: Statement;
    byId: Statement;
    pruneBeyond: Statement;
    pruneBefore: Statement;
    clear: Statement;
  };
  private readonly insertMany: (entries: NewJournaledRequest[]) => void;
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
    this.stmts = {
      insert: db.prepare(`INSERT INTO api_requests
        (at, method, path, route, query, headers, body, body_bytes, auth, status, reply, reply_bytes, complete, latency_ms, fault, hint)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      byId: db.prepare('SELECT * FROM api_requests WHERE id = ?'),
      // Rows leave from the oldest, so ids have no gaps below the newest: the newest maxEvents are the last ids.
      // (No AUTOINCREMENT: its bookkeeping row was a measurable part of each insert.)
      pruneBeyond: db.prepare('DELETE FROM api_requests WHERE id <= (SELECT max(id) FROM api_requests) - ?'),
      // No index but the id (each one made every insert dearer): rows arrive in time order, so the
      // old ones are the first ids, and the scan stops at the first recent row.
      pruneBefore: db.prepare(
        'DELETE FROM api_requests WHERE id < coalesce((SELECT id FROM api_requests WHERE at >= ? ORDER BY id LIMIT 1), (SELECT max(id) + 1 FROM api_requests))',
      ),
      clear: db.prepare('DELETE FROM api_requests'),
    };
    this.insertMany = db.transaction((entries: NewJournaledRequest[]) => {
      for (const e of entries) {
        this.stmts.insert.run(
          typeof e.at === 'number' ? e.at : Date.parse(e.at),
          e.method,
          e.path,
          routeOf(e.path),
          isEmptyObject(e.query) ? null : queryJson(e.query),
          headersJson(e.headers),
          e.body,
          e.bodyBytes,
          authJson(e.auth),
          e.status,
          e.reply,
          e.replyBytes,
          e.complete ? 1 : 0,
          e.latencyMs,
          e.fault === null ? null : JSON.stringify(e.fault),
          e.hint,
        );
      }
    });
    // Rows a previous run left past the retention go at once, not after the next thousand requests.
    this.prune();
  }

  /**
   * Queues an entry, written at the next flush (off the reply's path). Returns at once. The entry
   * should hold plain values, not the request: it waits for the flush, and whatever it reaches
   * waits with it (a closure made inside a request handler reaches the request, its response and
   * socket, which then outlive a young-generation collection and are promoted).
   */
  append(entry: NewJournaledRequest): void {
    if (this.pending.length >= MAX_PENDING_ENTRIES) {
      this.pending.shift();
      this.dropped++;
    }
    this.pending.push(entry);
    this.timer ??= setTimeout(() => this.flush(), this.options.flushMs ?? 20);
    this.timer.unref?.();
  }

  /** Writes every queued entry in one transaction. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const entries = this.pending;
    this.pending = [];
    try {
      this.insertMany(entries);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    this.sincePrune += entries.length;
    // By count under load; by time too, so a quiet client's old rows still leave after maxAge.
    if (this.sincePrune >= PRUNE_EVERY || this.clock() - this.prunedAt >= PRUNE_INTERVAL_MS) this.prune();
  }

  /** Newest first. */
  list(filter: RequestFilter = {}): JournaledRequest[] {
    this.flush();
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
    if (filter.beforeId !== undefined) {
      where.push('id < ?');
      args.push(filter.beforeId);
    }
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    const rows = this.db
      .prepare(`SELECT * FROM api_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${limit}`)
      .all(...args) as RequestRow[];
    return rows.map(toEntry);
  }

  get(id: number): JournaledRequest | undefined {
    this.flush();
    const row = this.stmts.byId.get(id) as RequestRow | undefined;
    return row && toEntry(row);
  }

  /** How many journaled requests match every field of `matcher`. */
  count(matcher: RequestMatcher = {}): number {
    this.flush();
    const where: string[] = [];
    const args: unknown[] = [];
    if (matcher.path !== undefined) {
      where.push('route = ?');
      args.push(routeOf(matcher.path));
    }
    if (matcher.method !== undefined) {
      where.push('method = ?');
      args.push(matcher.method.toUpperCase());
    }
    if (matcher.status !== undefined) {
      where.push('status = ?');
      args.push(matcher.status);
    }
    const sql = `FROM api_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    const needsEntry =
      matcher.query !== undefined ||
      matcher.body !== undefined ||
      matcher.headers !== undefined ||
      matcher.faultRule !== undefined ||
      matcher.authOk !== undefined;
    if (!needsEntry) return (this.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n;
    let n = 0;
    for (const row of this.db.prepare(`SELECT * ${sql}`).iterate(...args) as Iterable<RequestRow>) {
      if (entryMatches(toEntry(row), matcher)) n++;
    }
    return n;
  }

  /** Deletes entries beyond the newest `maxEvents` and those older than `maxAge`. */
  prune(): number {
    this.sincePrune = 0;
    const { maxEvents, maxAge } = this.options.retention;
    const now = this.clock();
    this.prunedAt = now;
    try {
      return this.stmts.pruneBeyond.run(maxEvents).changes + this.stmts.pruneBefore.run(now - maxAge).changes;
    } catch (error) {
      this.options.onError?.(error);
      return 0;
    }
  }

  clear(): void {
    this.pending = [];
    this.stmts.clear.run();
  }

  /** Writes what is queued and stops the timer (before the database closes). */
  close(): void {
    this.flush();
  }
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
