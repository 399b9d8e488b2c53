/**
 * The outbox's SQLite side: the schema and its migrations, and the mapping from rows to events
 * and attempts. outbox.ts holds the behaviour; this file changes only with the tables.
 */
import type { Database } from '../storage/index.ts';
import type { Attempt, AttemptOutcome, EventKind, EventStatus, StoredEvent, StoredFacts } from './events.ts';
import { ensureMetaTable } from './meta.ts';
import { parseReplyBody } from './reply.ts';

/** The schema this code writes. A newer database is refused rather than misread. */
export const OUTBOX_SCHEMA_VERSION = 4;

const MIGRATIONS: Record<number, string> = {
  // 4: an event is a call under a dialect: its facts (JSON) and the request they rendered (method,
  // path under the base URL, headers); an attempt keeps its method and path when they are not
  // "POST to the base URL". Older rows have none: their facts are read from the columns.
  4: `
    ALTER TABLE callback_events ADD COLUMN facts TEXT;
    ALTER TABLE callback_events ADD COLUMN request_method TEXT;
    ALTER TABLE callback_events ADD COLUMN request_path TEXT;
    ALTER TABLE callback_events ADD COLUMN request_headers TEXT;
    ALTER TABLE callback_attempts ADD COLUMN request_method TEXT;
    ALTER TABLE callback_attempts ADD COLUMN request_path TEXT;
  `,
  // 3: a reply is stored once, in its attempt's row (the event names that attempt), cut at
  // MAX_STORED_BODY with the length and sha256 of the whole. Older rows keep their reply_body.
  3: `
    ALTER TABLE callback_events ADD COLUMN reply_attempt INTEGER;
    ALTER TABLE callback_attempts ADD COLUMN response_bytes INTEGER;
    ALTER TABLE callback_attempts ADD COLUMN response_sha256 TEXT;
  `,
  // 2: a whole round (a DEBIT with its win in one callback) keeps its win.
  2: 'ALTER TABLE callback_events ADD COLUMN win_minor INTEGER;',
  1: `
    CREATE TABLE callback_events (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      transaction_id TEXT NOT NULL,
      reference_transaction_id TEXT,
      player_id TEXT NOT NULL,
      amount_minor INTEGER NOT NULL,
      round_id TEXT,
      game_id TEXT,
      currency TEXT,
      source TEXT NOT NULL,
      grp TEXT,
      ordering_key TEXT NOT NULL,
      url TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL,
      attempt_count INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      created_at INTEGER NOT NULL,
      settled_at INTEGER,
      reply_status INTEGER,
      reply_body TEXT,
      error TEXT
    );
    -- No secondary indexes on purpose: each one adds pages to every commit, and the engine commits
    -- every few ms under load. Resume, retention and the admin listings scan by id (newest first) instead.
    CREATE TABLE callback_attempts (
      event_id INTEGER NOT NULL,
      n INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      latency_ms REAL NOT NULL,
      request_headers TEXT NOT NULL,
      -- NULL when the body is the event's body (it always is today): the journal does not store it twice.
      request_body TEXT,
      response_status INTEGER,
      response_body TEXT,
      error TEXT,
      outcome TEXT NOT NULL,
      PRIMARY KEY (event_id, n)
    ) WITHOUT ROWID;
  `,
};

/**
 * The statements that write the outbox, and the values each binds, in one place: the Outbox runs
 * them, and the benchmark's worker-thread journal probe (bench/callbacks.ts) runs the same ones.
 */
export const OUTBOX_WRITES = {
  insertEvent: `INSERT INTO callback_events
    (id, kind, transaction_id, reference_transaction_id, player_id, amount_minor, round_id, game_id, currency, source, grp,
     ordering_key, url, body, status, attempt_count, next_attempt_at, created_at, win_minor,
     facts, request_method, request_path, request_headers)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // reply_body stays NULL: the reply is in the row of the attempt it came from (reply_attempt).
  updateEvent: `UPDATE callback_events SET status = ?, attempt_count = ?, next_attempt_at = ?, settled_at = ?,
    reply_status = ?, reply_body = NULL, reply_attempt = ?, error = ? WHERE id = ?`,
  journal: `INSERT OR REPLACE INTO callback_attempts
    (event_id, n, started_at, latency_ms, request_headers, request_body, response_status, response_body, error, outcome,
     response_bytes, response_sha256, request_method, request_path)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // The row as `journal` would write it when only the outcome differs (see Outbox.writeAttempt).
  journalOutcome: `UPDATE callback_attempts SET latency_ms = ?, response_status = ?, response_body = ?,
    error = ?, outcome = ?, response_bytes = ?, response_sha256 = ?
    WHERE event_id = ? AND n = ? AND started_at = ? AND request_headers = ? AND request_body IS ?`,
} as const;

/**
 * An event row with its reply's text, read from the attempt that brought the reply (or the old
 * reply_body column), and the request its last attempt sent (the event's row keeps it unsigned).
 */
export const SELECT_EVENTS = `SELECT callback_events.*, coalesce((SELECT a.response_body FROM callback_attempts a
    WHERE a.event_id = callback_events.id AND a.n = callback_events.reply_attempt), reply_body) AS reply_text,
    last.n AS sent_n, last.request_method AS sent_method, last.request_path AS sent_path, last.request_headers AS sent_headers
  FROM callback_events LEFT JOIN callback_attempts last
    ON last.event_id = callback_events.id
    AND last.n = (SELECT max(a.n) FROM callback_attempts a WHERE a.event_id = callback_events.id)`;

/** The values `OUTBOX_WRITES.insertEvent` binds for a new event. */
export function eventInsertValues(e: StoredEvent): unknown[] {
  return [
    e.id,
    e.kind,
    e.transactionId,
    e.referenceTransactionId ?? null,
    e.playerId,
    e.amountMinor,
    e.roundId ?? null,
    e.gameId ?? null,
    e.currency ?? null,
    e.source,
    e.group ?? null,
    e.orderingKey,
    e.url,
    e.body,
    e.status,
    e.attemptCount,
    e.nextAttemptAt ?? null,
    e.createdAt,
    e.winMinor ?? null,
    e.facts === undefined ? null : factsJson(e),
    e.request?.method ?? null,
    e.request?.path ?? null,
    e.request === undefined ? null : JSON.stringify(e.request.headers),
  ];
}

/** The values `OUTBOX_WRITES.updateEvent` binds for an event's current state. */
export function eventUpdateValues(e: StoredEvent): unknown[] {
  return [
    e.status,
    e.attemptCount,
    e.nextAttemptAt ?? null,
    e.settledAt ?? null,
    e.reply?.status ?? null,
    e.reply === undefined ? null : (e.replyAttempt ?? null),
    e.error ?? null,
    e.id,
  ];
}

/**
 * The values `OUTBOX_WRITES.journal` binds for an attempt, with its headers already as JSON and its
 * body null when it is the event's own (the journal does not store it twice).
 */
export function attemptValues(a: Attempt, headersJson: string, body: string | null): unknown[] {
  return [
    a.eventId,
    a.n,
    a.startedAt,
    a.latencyMs,
    headersJson,
    body,
    a.responseStatus ?? null,
    a.responseBody ?? null,
    a.error ?? null,
    a.outcome,
    a.responseBytes ?? null,
    a.responseSha256 ?? null,
    a.requestMethod ?? null,
    a.requestPath ?? null,
  ];
}

export interface EventRow {
  id: number;
  kind: EventKind;
  transaction_id: string;
  reference_transaction_id: string | null;
  player_id: string;
  amount_minor: number;
  round_id: string | null;
  win_minor: number | null;
  game_id: string | null;
  currency: string | null;
  source: string;
  grp: string | null;
  ordering_key: string;
  url: string;
  body: string;
  status: EventStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  created_at: number;
  settled_at: number | null;
  reply_status: number | null;
  reply_body: string | null;
  reply_attempt: number | null;
  /** The reply's stored text (SELECT_EVENTS). */
  reply_text: string | null;
  error: string | null;
  facts?: string | null;
  request_method?: string | null;
  request_path?: string | null;
  request_headers?: string | null;
  /** The last attempt's request (SELECT_EVENTS), when one was sent. */
  sent_n?: number | null;
  sent_method?: string | null;
  sent_path?: string | null;
  sent_headers?: string | null;
}

export interface AttemptRow {
  event_id: number;
  n: number;
  started_at: number;
  latency_ms: number;
  request_headers: string;
  request_body: string | null;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  response_bytes: number | null;
  response_sha256: string | null;
  request_method?: string | null;
  request_path?: string | null;
  event_body: string;
}

export function migrate(db: Database): void {
  ensureMetaTable(db);
  const row = db.prepare("SELECT value FROM callback_meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const current = row ? Number(row.value) : 0;
  if (current > OUTBOX_SCHEMA_VERSION) {
    throw new Error(
      `The callback outbox in this database has schema version ${current}, newer than ${OUTBOX_SCHEMA_VERSION} which this ` +
        'aggmock understands. Upgrade aggmock or point --db at another file.',
    );
  }
  db.transaction(() => {
    for (let v = current + 1; v <= OUTBOX_SCHEMA_VERSION; v++) {
      db.exec(MIGRATIONS[v] as string);
    }
    db.prepare(
      "INSERT INTO callback_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(String(OUTBOX_SCHEMA_VERSION));
  })();
}

export function toEvent(row: EventRow): StoredEvent {
  const event: StoredEvent = {
    id: row.id,
    kind: row.kind,
    transactionId: row.transaction_id,
    playerId: row.player_id,
    amountMinor: row.amount_minor,
    source: row.source,
    orderingKey: row.ordering_key,
    url: row.url,
    body: row.body,
    status: row.status,
    attemptCount: row.attempt_count,
    createdAt: row.created_at,
  };
  if (row.reference_transaction_id !== null) event.referenceTransactionId = row.reference_transaction_id;
  if (row.round_id !== null) event.roundId = row.round_id;
  if (row.win_minor !== null && row.win_minor !== undefined) event.winMinor = row.win_minor;
  if (row.game_id !== null) event.gameId = row.game_id;
  if (row.currency !== null) event.currency = row.currency;
  if (row.grp !== null) event.group = row.grp;
  if (row.next_attempt_at !== null) event.nextAttemptAt = row.next_attempt_at;
  if (row.settled_at !== null) event.settledAt = row.settled_at;
  if (row.reply_status !== null) event.reply = { status: row.reply_status, body: parseReplyBody(row.reply_text ?? '') };
  if (row.reply_attempt !== null) event.replyAttempt = row.reply_attempt;
  if (row.error !== null) event.error = row.error;
  const facts = row.facts ? jsonObject(row.facts) : undefined;
  if (facts) event.facts = withColumnFacts(facts, event);
  if (row.request_method && row.request_path !== null && row.request_path !== undefined) {
    event.request =
      row.sent_n === null || row.sent_n === undefined
        ? { method: row.request_method, path: row.request_path, headers: headersOf(row.request_headers) }
        : {
            method: row.sent_method || 'POST',
            path: row.sent_path ?? '',
            headers: headersOf(row.sent_headers),
            attempt: row.sent_n,
          };
  }
  return event;
}

/**
 * The facts an event keeps that its own columns also hold, by fact: the row's `facts` JSON leaves
 * one out when it equals the column (a smaller row, less JSON to write: the facts of a call made
 * from an enqueue request are mostly these), and {@link withColumnFacts} puts it back on reading.
 */
const COLUMN_FACTS = [
  ['playerId', (e: StoredEvent) => e.playerId],
  ['currency', (e: StoredEvent) => e.currency],
  ['transactionId', (e: StoredEvent) => e.transactionId],
  ['betTransactionId', (e: StoredEvent) => e.referenceTransactionId],
  ['amountMinor', (e: StoredEvent) => e.amountMinor],
  ['winMinor', (e: StoredEvent) => e.winMinor],
  ['roundId', (e: StoredEvent) => e.roundId],
  ['gameId', (e: StoredEvent) => e.gameId],
] as const satisfies readonly (readonly [keyof StoredFacts, (e: StoredEvent) => unknown])[];

const columnOf = new Map<string, (e: StoredEvent) => unknown>(COLUMN_FACTS);

/** The `facts` column: the event's facts as JSON, without those equal to a column of the row. */
export function factsJson(e: StoredEvent): string {
  const facts = e.facts as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(facts)) {
    const value = facts[key];
    if (value === undefined || value !== columnOf.get(key)?.(e)) out[key] = value;
  }
  return JSON.stringify(out);
}

/**
 * The facts read from a row with those {@link factsJson} left out taken from its columns, in the
 * order the event had them (the operation, the column facts, then the rest). A row written before
 * the column was compact holds every fact and reads the same.
 */
function withColumnFacts(parsed: Record<string, unknown>, e: StoredEvent): StoredFacts {
  const facts: Record<string, unknown> = {};
  if (parsed.operation !== undefined) facts.operation = parsed.operation;
  for (const [key, column] of COLUMN_FACTS) {
    const value = Object.hasOwn(parsed, key) ? parsed[key] : column(e);
    if (value !== undefined) facts[key] = value;
  }
  for (const key of Object.keys(parsed)) if (!Object.hasOwn(facts, key)) facts[key] = parsed[key];
  return facts as unknown as StoredFacts;
}

function headersOf(json: string | null | undefined): Record<string, string> {
  return (jsonObject(json ?? '{}') ?? {}) as Record<string, string>;
}

/** A JSON object column, or undefined when it is not one (a row damaged by hand is read without it). */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function toAttempt(row: AttemptRow): Attempt {
  const attempt: Attempt = {
    eventId: row.event_id,
    n: row.n,
    startedAt: row.started_at,
    latencyMs: row.latency_ms,
    requestHeaders: JSON.parse(row.request_headers) as Record<string, string>,
    requestBody: row.request_body ?? row.event_body,
    outcome: row.outcome,
  };
  if (row.response_status !== null) attempt.responseStatus = row.response_status;
  if (row.response_body !== null) attempt.responseBody = row.response_body;
  if (row.error !== null) attempt.error = row.error;
  if (row.response_bytes !== null && row.response_bytes !== undefined) attempt.responseBytes = row.response_bytes;
  if (row.response_sha256 !== null && row.response_sha256 !== undefined) attempt.responseSha256 = row.response_sha256;
  if (row.request_method) attempt.requestMethod = row.request_method;
  if (row.request_path) attempt.requestPath = row.request_path;
  return attempt;
}
