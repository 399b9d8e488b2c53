import type { Statement } from '../../../src/storage/index.ts';

export { openDatabase } from '../../../src/storage/index.ts';

/**
 * The statement reading only its first column, as better-sqlite3's `.pluck()` does: the
 * wallets open SQLite through aggmock's storage, which runs on both drivers and so has no `.pluck()`.
 */
export function pluck(stmt: Statement): { get(...params: unknown[]): unknown } {
  return {
    get: (...params) => {
      const row = stmt.get(...params) as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
  };
}
