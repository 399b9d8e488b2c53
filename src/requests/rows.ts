import { routeOf } from '../config/index.ts';
import { parseJsonOr, valueAt } from '../shared/index.ts';

/*
 * The journal's rows (src/requests/journal.ts): the entry types, an entry's bytes and its cap,
 * rows to entries and back, the filters and matchers. Pure: no database handle.
 */

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
/** The journal's rows together at most by default (the retention's byte budget); past it the oldest leave. */
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;
/** A listing's page at most, in bytes of its entries: past it the page ends early (and says where the next starts). */
export const MAX_LIST_BYTES = 4 * 1024 * 1024;

/**
 * A row's columns together at most (path, query, headers, body, auth, reply, hint), in UTF-8 bytes:
 * past it the body is cut first, then the reply, then long header and query values, the path and
 * the hint ({@link cappedEntry}). The body's and reply's own caps above keep most rows far below.
 */
export const MAX_JOURNALED_ROW_BYTES = 32 * 1024;

/**
 * How an accepted request proved itself: no credentials asked, the API key, an HMAC signature, or a
 * vendor operator API's own credentials (its key or signature, on the vendor's routes).
 */
export const AUTH_METHODS = ['none', 'api-key', 'hmac', 'operator'] as const;

/** How the request's credentials were judged, as the API judged them. */
export type AuthVerdict =
  | { ok: true; method: (typeof AUTH_METHODS)[number]; header?: string }
  | {
      ok: false;
      error: string;
      message: string;
      reason?: string;
      /** On a signature mismatch: the signed string up to the body (query credentials masked), and the body's SHA-256 and length. */
      signedPrefix?: string;
      bodySha256?: string;
      bodyBytes?: number;
    };

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
  /**
   * Present when a browser sent it from another site (`Sec-Fetch-Site: cross-site`, or an `Origin`
   * of another host: {@link isCrossSiteRequest}): some web page, not the client under test. No
   * fault rule fires for it, and `count` leaves it out unless the matcher asks for it.
   */
  crossSite?: true;
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
  /** Without headers, body and reply (a row's details are `get`). */
  summary?: boolean;
  /** A page's entries' bytes at most (default {@link MAX_LIST_BYTES}). */
  maxBytes?: number;
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
  /**
   * true: only requests another site's page sent (`crossSite` entries); false or left out: only the
   * others. A web page open in the developer's browser cannot skew a test's counts by default.
   */
  crossSite?: boolean;
}

/**
 * A row as stored: one column per field, JSON only for the small nested ones. A row holds a run
 * of `n` requests that differ only in their arrival and latency (a client repeating a call): ids
 * `id` … `id + n - 1`, the first one's `at` and `latency_ms`, the others' in `times`
 * ({@link encodeTimes}). Rows written before runs existed have `n` 1.
 */
export interface RequestRow {
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
  bytes: number;
  cross_site: number;
}

/**
 * An entry within {@link MAX_JOURNALED_ROW_BYTES}, and its bytes: itself when it fits (the common
 * case, so a run's entries stay the same object); else a copy with the body cut first, then the
 * reply, long header and query values, the path and the hint.
 */
export function cappedEntry(entry: NewJournaledRequest): [NewJournaledRequest, number] {
  const approx = entryBytes(entry, false);
  // Three bytes a UTF-16 unit at most: most entries are far below the cap without an encoding pass.
  if (approx * 3 <= MAX_JOURNALED_ROW_BYTES) return [entry, approx];
  const bytes = entryBytes(entry);
  if (bytes <= MAX_JOURNALED_ROW_BYTES) return [entry, bytes];
  const e = { ...entry };
  let over = bytes - MAX_JOURNALED_ROW_BYTES;
  const cutField = (text: string | null, keepAtLeast: number): string | null => {
    if (text === null || over <= 0) return text;
    const size = Buffer.byteLength(text);
    const keep = Math.max(keepAtLeast, size - over - CUT_MARK.length);
    if (keep >= size) return text;
    over -= size - keep - CUT_MARK.length;
    return cutBytes(text, keep);
  };
  e.body = cutField(e.body, 0);
  e.reply = cutField(e.reply, 0);
  if (over > 0) e.headers = cutValues(e.headers, MAX_FIELD_BYTES) as Record<string, string>;
  if (over > 0) e.query = cutValues(e.query, MAX_FIELD_BYTES);
  if (over > 0) e.path = cutBytes(e.path, 2048);
  if (over > 0 && e.hint !== null) e.hint = cutBytes(e.hint, 512);
  let after = entryBytes(e);
  if (after > MAX_JOURNALED_ROW_BYTES) {
    // Hundreds of headers or parameters: only how many there were.
    const names = Object.keys(e.headers).length;
    e.headers = { '[cut]': `${names} headers` };
    e.query = { '[cut]': `${Object.keys(e.query).length} parameters` };
    after = entryBytes(e);
  }
  return [e, after];
}

const CUT_MARK = '…[cut]';
/** A header or query value past this many bytes is cut when its row is over the cap. */
const MAX_FIELD_BYTES = 512;

function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  return (
    Buffer.from(text)
      .subarray(0, max)
      .toString('utf8')
      .replace(/\uFFFD$/, '') + CUT_MARK
  );
}

function cutValues(values: Readonly<Record<string, string | string[]>>, max: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(values)) {
    out[cutBytes(name, 128)] = Array.isArray(value) ? value.slice(0, 20).map((v) => cutBytes(v, max)) : cutBytes(value, max);
  }
  return out;
}

/**
 * An entry's bytes as a row holds them (its JSON columns counted by their names and values):
 * UTF-8 bytes when `exact`, else UTF-16 units (the same for ASCII, a third at most of the bytes
 * otherwise: enough for the budget, and no encoding pass on the journal's hot path).
 */
export function entryBytes(e: NewJournaledRequest, exact = true): number {
  const size = exact ? Buffer.byteLength : textLength;
  let n = 64 + size(e.method) + size(e.path);
  n += recordBytes(e.headers, size) + recordBytes(e.query, size);
  if (e.body !== null) n += size(e.body);
  if (e.reply !== null) n += size(e.reply);
  if (e.hint !== null) n += size(e.hint);
  n += e.auth.ok ? 40 : size(authJson(e.auth));
  if (e.fault !== null) n += 40 + e.fault.ruleId.length;
  return n;
}

const textLength = (text: string): number => text.length;

function recordBytes(values: Readonly<Record<string, string | string[]>>, size: (text: string) => number): number {
  let n = 2;
  for (const name in values) {
    const value = values[name] as string | string[];
    n += size(name) + 6;
    if (typeof value === 'string') n += size(value);
    else for (const v of value) n += size(v) + 3;
  }
  return n;
}

/**
 * A run's later arrivals and latencies as stored: float64 pairs (ms after the first call, latency
 * in ms), little-endian, so a flush converts no number to text.
 */
export function encodeTimes(firstAt: number, more: readonly number[]): Buffer {
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
export function entriesOf(row: RequestRow): JournaledRequest[] {
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
export function rowFilter(filter: { path?: string; method?: string; status?: number }): { where: string[]; args: unknown[] } {
  const given = (
    [
      ['route = ?', filter.path === undefined ? undefined : routeOf(filter.path)],
      ['method = ?', filter.method?.toUpperCase()],
      ['status = ?', filter.status],
    ] as const
  ).filter(([, value]) => value !== undefined);
  return { where: given.map(([sql]) => sql), args: given.map(([, value]) => value) };
}

export function whereClause(where: readonly string[]): string {
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}

export function toEntry(row: RequestRow): JournaledRequest {
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
    ...(row.cross_site === 1 ? { crossSite: true as const } : {}),
  };
}

/** The JSON of the last value written: a client under load repeats its headers, query and auth verdict (the same objects, see describe.ts). */
function lastJson<T extends object>(): (value: T) => string {
  let last: T | undefined;
  let json = '';
  return (value) => {
    if (value !== last) {
      last = value;
      json = JSON.stringify(value);
    }
    return json;
  };
}
export const headersJson = lastJson<Record<string, string>>();
export const queryJson = lastJson<object>();
export const authJson = lastJson<AuthVerdict>();

export function isEmptyObject(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

export function entryMatches(entry: JournaledRequest, matcher: RequestMatcher): boolean {
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

/**
 * Whether two entries are the same request met the same way: everything but the arrival and the
 * latency. The nested parts are compared by identity: the intercept hands the same objects while a
 * client repeats itself (describe.ts), and different objects only cost a row of their own. An
 * entry a fault rule fired on always has its own row.
 */
export function sameRequest(a: NewJournaledRequest, b: NewJournaledRequest): boolean {
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
    a.hint === b.hint &&
    a.crossSite === b.crossSite
  );
}

/** The columns a summary reads: everything but the headers, body and reply. */
export const SUMMARY_COLUMNS =
  "id, at, method, path, query, '{}' AS headers, NULL AS body, body_bytes, auth, status, NULL AS reply, reply_bytes, complete, latency_ms, fault, hint, n, times, bytes, cross_site";
/** What a summary entry counts for in a page's bytes at most (its query, auth and hint are capped with the row). */
export const SUMMARY_ROW_BYTES = 2 * 1024;
