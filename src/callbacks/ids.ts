import { hash, randomBytes } from 'node:crypto';
import { fitId } from '../dialects/ids.ts';
import type { Database } from '../storage/index.ts';
import { ensureMetaTable } from './meta.ts';

/** Ids handed out per write of the sequence position (see {@link TransactionIdSequence}). */
export const ID_BLOCK = 1024;

/**
 * The n-th transaction id of a seed in a namespace: `tx_<namespace>_` + 24 hex digits of
 * sha256("<seed>:<n>") (`tx_<hex>` without a namespace). Pure, so the same seed and namespace
 * always give the same sequence.
 *
 * @example transactionIdAt(42, 0) // the first id of every run seeded 42, without a namespace
 * @example transactionIdAt(42, 0, 'k3x9q2') // 'tx_k3x9q2_…'
 */
export function transactionIdAt(seed: number | string, n: number, namespace = '', hexDigits = 24): string {
  const hex = hash('sha256', `${seed}:${n}`, 'hex').slice(0, hexDigits);
  return namespace === '' ? `tx_${hex}` : `tx_${namespace}_${hex}`;
}

/** Key of the database's id namespace in `callback_meta`. */
const NAMESPACE_KEY = 'txid-namespace';

/** 6 lower-case letters and digits: 2 billion namespaces, short enough to read in a log. */
function newNamespace(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('');
}

/**
 * The id namespace of this database: `configured` when given (`""` = none), else the one drawn
 * when the database was first used, drawn and stored now if there is none yet.
 */
export function idNamespaceOf(db: Database, configured?: string): string {
  if (configured !== undefined) return configured;
  ensureMetaTable(db);
  const row = db.prepare('SELECT value FROM callback_meta WHERE key = ?').get(NAMESPACE_KEY) as { value: string } | undefined;
  if (row) return row.value;
  const drawn = newNamespace();
  // OR IGNORE + re-read: two processes opening a fresh file at once agree on one namespace.
  db.prepare('INSERT OR IGNORE INTO callback_meta (key, value) VALUES (?, ?)').run(NAMESPACE_KEY, drawn);
  return (db.prepare('SELECT value FROM callback_meta WHERE key = ?').get(NAMESPACE_KEY) as { value: string }).value;
}

/**
 * The seeded id sequence with its position persisted in SQLite, so a restart continues the
 * sequence instead of handing out the same ids again (a wallet would take them for duplicates).
 * Same seed on a fresh database → the same ids in the same order, in that database's own id
 * namespace (see {@link idNamespaceOf}), so two fresh databases never hand out the same id.
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

  /** The namespace every id of this sequence carries ("" for none). */
  readonly namespace: string;
  /** Hex digits of each id (24; fewer for a wire that caps id lengths). */
  private readonly hexDigits: number;
  /** The longest id the wire's wallets accept (`calls.idMaxLength`), when it says. */
  private readonly maxLength: number | undefined;

  constructor(
    db: Database,
    readonly seed: number | string,
    options: { namespace?: string; hexDigits?: number; maxLength?: number | undefined } = {},
  ) {
    ensureMetaTable(db);
    this.namespace = idNamespaceOf(db, options.namespace);
    this.maxLength = options.maxLength;
    // tx_<namespace>_<hex> within the cap: fewer digits when the cap needs it, never fewer than 8
    // (an id still too long is then fitted by its hash: fitId).
    const around = this.namespace === '' ? 3 : this.namespace.length + 4;
    const fits = options.maxLength === undefined ? Number.POSITIVE_INFINITY : options.maxLength - around;
    this.hexDigits = Math.max(8, Math.min(options.hexDigits ?? 24, fits));
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
    const id = transactionIdAt(this.seed, n, this.namespace, this.hexDigits);
    return this.maxLength !== undefined && id.length > this.maxLength ? fitId(id, this.maxLength) : id;
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
