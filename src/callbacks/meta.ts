import type { Database } from '../storage/index.ts';

/** Key/value rows of the callback engine: its schema version and the id counters. */
export function ensureMetaTable(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS callback_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
}
