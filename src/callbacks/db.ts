import { type Database, openDatabase as openSqlite } from '../storage/index.ts';

export type { Database } from '../storage/index.ts';

/**
 * Opens (creating if needed) a SQLite database tuned for an outbox: WAL so readers never block
 * the writer, `synchronous=NORMAL` (a commit survives a process crash; only a power cut can lose
 * the last few, which is the usual WAL trade), and a busy timeout for a second process.
 *
 * @example const db = openDatabase('.aggmock/aggmock.db'); // or ':memory:'
 */
export function openDatabase(path: string): Database {
  return openSqlite(path, {
    pragmas: [
      'synchronous = NORMAL',
      // Checkpoint (the only fsync under NORMAL) every ~32 MB of WAL rather than every 4 MB: with a
      // commit every few ms under load, the default made checkpoints a third of the cost of a commit.
      'wal_autocheckpoint = 8000',
      'journal_size_limit = 67108864',
      'foreign_keys = ON',
    ],
  });
}
