import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type { Database } from 'better-sqlite3';

/**
 * Opens (creating if needed) a SQLite database tuned for an outbox: WAL so readers never block
 * the writer, `synchronous=NORMAL` (a commit survives a process crash; only a power cut can lose
 * the last few, which is the usual WAL trade), and a busy timeout for a second process.
 *
 * @example const db = openDatabase('.aggmock/aggmock.db'); // or ':memory:'
 */
export function openDatabase(path: string): Database.Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (!inMemory) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // Checkpoint (the only fsync under NORMAL) every ~32 MB of WAL rather than every 4 MB: with a
  // commit every few ms under load, the default made checkpoints a third of the cost of a commit.
  db.pragma('wal_autocheckpoint = 8000');
  db.pragma('journal_size_limit = 67108864');
  db.pragma('foreign_keys = ON');
  return db;
}
