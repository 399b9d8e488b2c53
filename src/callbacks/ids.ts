import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { ensureMetaTable } from './meta.ts';

/**
 * The n-th transaction id of a seed: `tx_` + 24 hex digits of sha256("<seed>:<n>").
 * Pure, so the same seed always gives the same sequence.
 *
 * @example transactionIdAt(42, 0) // the first id of every run seeded 42
 */
export function transactionIdAt(seed: number | string, n: number): string {
  return `tx_${createHash('sha256').update(`${seed}:${n}`).digest('hex').slice(0, 24)}`;
}

/**
 * The seeded id sequence with its position persisted in SQLite, so a restart continues where the
 * last run stopped instead of handing out the same ids again. Same seed on a fresh database →
 * the same ids in the same order.
 */
export class TransactionIdSequence {
  private counter: number;
  private readonly save: (counter: number) => void;

  constructor(
    db: Database,
    readonly seed: number | string,
  ) {
    ensureMetaTable(db);
    const key = `txid-counter:${seed}`;
    const row = db.prepare('SELECT value FROM callback_meta WHERE key = ?').get(key) as { value: string } | undefined;
    this.counter = row ? Number(row.value) : 0;
    const upsert = db.prepare(
      'INSERT INTO callback_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.save = (counter) => upsert.run(key, String(counter));
  }

  /** The next id; its position is written before it is returned (inside the caller's transaction, if any). */
  next(): string {
    const n = this.counter;
    this.save(n + 1);
    this.counter = n + 1;
    return transactionIdAt(this.seed, n);
  }

  /** How many ids this seed has handed out on this database. */
  get position(): number {
    return this.counter;
  }
}
