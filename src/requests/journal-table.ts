import type { Database, Statement } from '../storage/index.ts';
import { authJson, type NewJournaledRequest } from './rows.ts';

/*
 * The journal's SQLite table (src/requests/journal.ts): its columns, the columns later versions
 * added, and the statements the journal runs on it. A row holds a run of `n` alike requests
 * (rows.ts says how an entry becomes a row and back).
 */

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
    times BLOB,
    bytes INTEGER NOT NULL DEFAULT 0,
    cross_site INTEGER NOT NULL DEFAULT 0
  );
  DROP INDEX IF EXISTS api_requests_route;
  DROP INDEX IF EXISTS api_requests_at;
`;

/** The statements the journal runs, prepared once. */
export interface JournalStatements {
  insert: Statement;
  lastId: Statement;
  covering: Statement;
  firstSince: Statement;
  entriesBelow: Statement;
  oldest: Statement;
  totalBytes: Statement;
  deleteBelow: Statement;
  clear: Statement;
  settle: Statement;
}

/** Creates the table when missing (adding what an earlier version's lacks) and prepares its statements. */
export function openJournalTable(db: Database): JournalStatements {
  db.exec(SCHEMA);
  addMissingColumns(db);
  return {
    insert: db.prepare(`INSERT INTO api_requests
      (id, at, method, path, route, query, headers, body, body_bytes, auth, status, reply, reply_bytes, complete, latency_ms, fault, hint, n, times, bytes, cross_site)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // Ids are given, not drawn: a row's entries take the ids after the last row's (no AUTOINCREMENT:
    // its bookkeeping row was a measurable part of each insert; rows leave from the oldest, so the
    // newest row's ids are the largest ever given while it stands).
    lastId: db.prepare('SELECT id + n - 1 AS last FROM api_requests ORDER BY id DESC LIMIT 1'),
    covering: db.prepare('SELECT * FROM api_requests WHERE id <= ? ORDER BY id DESC LIMIT 1'),
    // No index but the id (each one made every insert dearer): rows arrive in time order, so the
    // old ones are the first ids, and the scan stops at the first recent row.
    firstSince: db.prepare('SELECT id FROM api_requests WHERE at >= ? ORDER BY id LIMIT 1'),
    entriesBelow: db.prepare('SELECT total(n) AS entries, total(bytes) AS bytes FROM api_requests WHERE id < ?'),
    oldest: db.prepare('SELECT id, n, bytes FROM api_requests WHERE id >= ? ORDER BY id LIMIT 500'),
    totalBytes: db.prepare('SELECT total(bytes) AS bytes FROM api_requests'),
    deleteBelow: db.prepare('DELETE FROM api_requests WHERE id < ?'),
    clear: db.prepare('DELETE FROM api_requests'),
    settle: db.prepare(
      'UPDATE api_requests SET auth = ?, status = ?, reply = ?, reply_bytes = ?, complete = ?, latency_ms = ?, fault = ?, hint = ? WHERE id = ? AND n = 1',
    ),
  };
}

/** What a call became, as the columns auth … hint that the insert and the settle statement both name in this order. */
export function outcomeColumns(e: NewJournaledRequest, latencyMs: number): unknown[] {
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

/**
 * Adds the columns an earlier version's journal table lacks: its rows are runs of one (`n`, `times`),
 * count as 0 bytes until they leave (`bytes`) and are not cross-site (`cross_site`).
 */
const LATER_COLUMNS = [
  ['n', 'n INTEGER NOT NULL DEFAULT 1'],
  ['times', 'times BLOB'],
  ['bytes', 'bytes INTEGER NOT NULL DEFAULT 0'],
  ['cross_site', 'cross_site INTEGER NOT NULL DEFAULT 0'],
] as const;
function addMissingColumns(db: Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(api_requests)').all() as { name: string }[]).map((c) => c.name));
  for (const [name, ddl] of LATER_COLUMNS) if (!columns.has(name)) db.exec(`ALTER TABLE api_requests ADD COLUMN ${ddl}`);
}
