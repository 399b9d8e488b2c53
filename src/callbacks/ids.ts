import { hash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { ensureMetaTable } from './meta.ts';

/** Ids handed out per write of the sequence position (see {@link TransactionIdSequence}). */
export const ID_BLOCK = 1024;

/**
 * The n-th transaction id of a seed: `tx_` + 24 hex digits of sha256("<seed>:<n>").
 * Pure, so the same seed always gives the same sequence.
 *
 * @example transactionIdAt(42, 0) // the first id of every run seeded 42
 */
export function transactionIdAt(seed: number | string, n: number): string {
  return `tx_${hash('sha256', `${seed}:${n}`, 'hex').slice(0, 24)}`;
}

/**
 * The seeded id sequence with its position persisted in SQLite, so a restart continues the
 * sequence instead of handing out the same ids again (a wallet would take them for duplicates).
 * Same seed on a fresh database → the same ids in the same order.
 *
 * Writing the position on every id would cost a commit per id, so the sequence reserves blocks
 * of {@link ID_BLOCK} (the hi/lo pattern): the reservation is written before any id of the block
 * is used, and {@link checkpoint} (called on a clean stop) writes the exact position. A clean
 * restart therefore continues with the very next id; after a crash the sequence resumes past
 * the last reserved block, skipping ids rather than repeating them.
 */
export class TransactionIdSequence {
  private counter: number;
  private reservedUpTo: number;
  private readonly save: (position: number) => void;

  constructor(
    db: Database,
    readonly seed: number | string,
  ) {
    ensureMetaTable(db);
    const key = `txid-position:${seed}`;
    const row = db.prepare('SELECT value FROM callback_meta WHERE key = ?').get(key) as { value: string } | undefined;
    this.counter = row ? Number(row.value) : 0;
    this.reservedUpTo = this.counter;
    const upsert = db.prepare(
      'INSERT INTO callback_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.save = (position) => upsert.run(key, String(position));
  }

  /** The next id. Its block is reserved on disk before it is returned. */
  next(): string {
    const n = this.counter;
    if (n >= this.reservedUpTo) {
      this.save(n + ID_BLOCK);
      this.reservedUpTo = n + ID_BLOCK;
    }
    this.counter = n + 1;
    return transactionIdAt(this.seed, n);
  }

  /** Writes the exact position, so the next run continues without a gap. */
  checkpoint(): void {
    if (this.counter === this.reservedUpTo) return;
    this.save(this.counter);
    this.reservedUpTo = this.counter;
  }

  /** How many ids of this seed have been handed out on this database. */
  get position(): number {
    return this.counter;
  }
}
