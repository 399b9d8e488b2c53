import { createHash } from 'node:crypto';
import { maskedBody } from '../shared/secrets.ts';
import type { Database, Statement } from '../storage/index.ts';
import { type Attempt, EVENT_STATUSES, type EventKind, type EventStatus, type StoredEvent } from './events.ts';
import {
  type AttemptRow,
  attemptValues,
  type EventRow,
  eventInsertValues,
  eventUpdateValues,
  migrate,
  OUTBOX_SCHEMA_VERSION,
  OUTBOX_WRITES,
  SELECT_EVENTS,
  toAttempt,
  toEvent,
} from './outbox-rows.ts';

export { OUTBOX_SCHEMA_VERSION };

/** Reply bodies longer than this are cut before they are judged (a wallet answering with a HTML page, say). */
export const MAX_JOURNALED_BODY = 64 * 1024;

/**
 * The most of one reply body the journal stores, in UTF-8 bytes. The reply is judged whole (up to
 * MAX_JOURNALED_BODY); what is stored is for a person to read, and 10,000 callbacks with 64 KiB
 * replies would otherwise take over a gigabyte.
 */
export const MAX_STORED_BODY = 4 * 1024;

/**
 * A reply body as the journal stores it: secret-named fields a wallet echoed back masked (the one
 * rule of src/shared/secrets.ts, L-1), cut at MAX_STORED_BODY, with the length and sha256 of the
 * whole reply as judged when cut. The engine judges the reply as received; only what is kept is masked.
 */
export function storedBody(received: string): { text: string; bytes?: number; sha256?: string } {
  const text = maskedBody(received);
  // A UTF-8 byte is at most one UTF-16 unit: text this short is within the cap whatever it holds.
  if (text.length <= MAX_STORED_BODY / 3) return { text };
  const masked = Buffer.from(text, 'utf8');
  if (masked.length <= MAX_STORED_BODY) return { text };
  const bytes = Buffer.from(received, 'utf8');
  let end = MAX_STORED_BODY;
  while (end > 0 && ((masked[end] as number) & 0xc0) === 0x80) end--; // never cut a character in two
  return {
    text: masked.subarray(0, end).toString('utf8'),
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

export interface OutboxFilter {
  playerId?: string;
  kind?: EventKind;
  status?: EventStatus;
  group?: string;
  transactionId?: string;
  /** Default 100. */
  limit?: number;
  /** Only events with a smaller id: the next page of a newest-first listing. */
  beforeId?: number;
}

export interface RetentionPolicy {
  /** Settled events kept at most; the newest are kept. */
  maxEvents: number;
  /** Settled events created longer ago than this (ms) are removed. */
  maxAge: number;
}

type NewEvent = Omit<StoredEvent, 'id'>;

/** Event ids reserved per write of the ids' high-water mark (the hi/lo pattern, as for transaction ids). */
export const EVENT_ID_BLOCK = 1024;
const EVENT_ID_KEY = 'event-id-reserved';

/**
 * The durable outbox and attempt journal in SQLite. Nothing is written row by row: new events,
 * state changes and attempts are buffered and {@link Outbox.flush} commits them in one
 * transaction (the engine calls it at the end of the synchronous turn that enqueued, before the
 * attempts started in an event-loop iteration are sent, and every few ms while attempts are in
 * flight). Every read commits what is buffered first, so a reader
 * never sees the outbox behind the engine.
 *
 * Event ids are handed out in memory, so {@link Outbox.insert} returns the final id before the
 * row is written. They come from blocks reserved in `callback_meta` before use, so ids only ever
 * grow: across restarts, after pruning or a reset, and with a second process on the same file.
 */
export class Outbox {
  private readonly stmts: {
    insert: Statement;
    update: Statement;
    journal: Statement;
    journalOutcome: Statement;
    get: Statement;
    attempts: Statement;
    counts: Statement;
    unsettled: Statement;
    resumeDelivering: Statement;
    restoreAttemptCounts: Statement;
    settledThreshold: Statement;
    idRange: Statement;
    firstFrom: Statement;
    pruneUpTo: Statement;
    pruneAttempts: Statement;
    readIdMark: Statement;
    writeIdMark: Statement;
  };
  /** Inserted but not yet written, in id order. */
  private newEvents: StoredEvent[] = [];
  private dirty = new Map<number, StoredEvent>();
  private journalBuffer: Attempt[] = [];
  /** Request headers already in a journal row, with their JSON (see writeAttempt). */
  private journaledHeaders = new WeakMap<Attempt['requestHeaders'], string>();
  /**
   * Events with an attempt on the wire. Their 'delivering' state is only informational (a resume
   * treats it as pending), so it is written when someone reads, not once per attempt.
   */
  private readonly delivering = new Map<number, StoredEvent>();
  private readonly commitBatch: (withDelivering: boolean) => void;
  private readonly reserveIds: () => void;
  private readonly giveBackIds: () => void;
  /** The next event id; ids below `reservedUpTo` are reserved for this outbox. */
  private nextId: number;
  private reservedUpTo: number;
  private readonly resetListeners = new Set<() => void>();

  constructor(readonly db: Database) {
    migrate(db);
    this.stmts = {
      insert: db.prepare(OUTBOX_WRITES.insertEvent),
      update: db.prepare(OUTBOX_WRITES.updateEvent),
      journal: db.prepare(OUTBOX_WRITES.journal),
      journalOutcome: db.prepare(OUTBOX_WRITES.journalOutcome),
      get: db.prepare(`${SELECT_EVENTS} WHERE id = ?`),
      attempts: db.prepare(`SELECT a.*, e.body AS event_body FROM callback_attempts a
        JOIN callback_events e ON e.id = a.event_id WHERE a.event_id = ? ORDER BY a.n`),
      counts: db.prepare('SELECT status, count(*) AS n FROM callback_events GROUP BY status'),
      unsettled: db.prepare(`${SELECT_EVENTS} WHERE status IN ('pending', 'delivering') ORDER BY id`),
      resumeDelivering: db.prepare("UPDATE callback_events SET status = 'pending' WHERE status = 'delivering'"),
      // A send does not rewrite the event's row (see markDelivering): its journal row holds the count.
      restoreAttemptCounts: db.prepare(`UPDATE callback_events
        SET attempt_count = (SELECT max(n) FROM callback_attempts WHERE event_id = callback_events.id)
        WHERE status IN ('pending', 'delivering')
          AND attempt_count < coalesce((SELECT max(n) FROM callback_attempts WHERE event_id = callback_events.id), 0)`),
      settledThreshold: db.prepare(
        "SELECT id FROM callback_events WHERE status IN ('delivered', 'rejected', 'failed') ORDER BY id DESC LIMIT 1 OFFSET ?",
      ),
      // Two subqueries, not `min(id), max(id)` in one: SQLite answers a lone min or max from the
      // primary key, but both together scan the whole table (and this runs every EVENT_ID_BLOCK events).
      idRange: db.prepare('SELECT (SELECT min(id) FROM callback_events) AS lo, (SELECT max(id) FROM callback_events) AS hi'),
      firstFrom: db.prepare('SELECT id, created_at FROM callback_events WHERE id >= ? ORDER BY id LIMIT 1'),
      pruneUpTo: db.prepare("DELETE FROM callback_events WHERE id <= ? AND status IN ('delivered', 'rejected', 'failed')"),
      pruneAttempts: db.prepare(`DELETE FROM callback_attempts WHERE event_id <= ?
        AND NOT EXISTS (SELECT 1 FROM callback_events e WHERE e.id = callback_attempts.event_id)`),
      readIdMark: db.prepare('SELECT value FROM callback_meta WHERE key = ?'),
      writeIdMark: db.prepare(
        'INSERT INTO callback_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
    };
    this.nextId = this.firstFreeId();
    this.reservedUpTo = this.nextId;

    const writeUpdate = (e: StoredEvent) => this.stmts.update.run(...rowValues(e, eventUpdateValues, unstorableEvent));
    // The buffers are emptied only once the transaction committed: a failed commit loses nothing.
    // A row whose values cannot be made (rowValues) is stored in a reduced form; a failing write
    // (disk full, locked) fails the whole batch, which is retried.
    this.commitBatch = db.transaction((withDelivering: boolean) => {
      for (const e of this.newEvents) this.stmts.insert.run(...rowValues(e, eventInsertValues, unstorableEvent));
      for (const a of this.journalBuffer) this.writeAttempt(a);
      for (const e of this.dirty.values()) writeUpdate(e);
      if (withDelivering) for (const e of this.delivering.values()) writeUpdate(e);
    });
    // These read, then write: IMMEDIATE (every transaction of openDatabase) takes the write lock
    // first, so a second process committing in between makes them wait (busy_timeout) instead of
    // failing at once with SQLITE_BUSY.
    this.reserveIds = db.transaction(() => {
      // Read again inside the transaction: another process may have reserved or inserted meanwhile.
      const from = Math.max(this.nextId, this.firstFreeId());
      this.stmts.writeIdMark.run(EVENT_ID_KEY, String(from + EVENT_ID_BLOCK));
      this.nextId = from;
      this.reservedUpTo = from + EVENT_ID_BLOCK;
    });
    this.giveBackIds = db.transaction(() => {
      // Only if nobody reserved after us, or their ids could be handed out twice.
      if (this.readIdMark() !== this.reservedUpTo) return;
      this.stmts.writeIdMark.run(EVENT_ID_KEY, String(this.nextId));
      this.reservedUpTo = this.nextId;
    });
  }

  /**
   * Writes one journal row. An attempt is journaled twice, before it is sent and with its outcome,
   * and both carry the same headers object: the second time only the outcome columns are
   * rewritten and the headers are not serialised again. The update matches every other column,
   * so where it changes a row the result is what `INSERT OR REPLACE` would leave.
   */
  private writeAttempt(a: Attempt): void {
    const known = this.journaledHeaders.get(a.requestHeaders);
    let headers: string;
    try {
      headers = known ?? JSON.stringify(a.requestHeaders);
    } catch (error) {
      headers = '{}';
      unstorableAttempt(a, error);
    }
    const body = a.requestBody === this.eventBody(a.eventId) ? null : a.requestBody;
    const status = a.responseStatus ?? null;
    const reply = a.responseBody ?? null;
    const error = a.error ?? null;
    if (known !== undefined) {
      const { changes } = this.stmts.journalOutcome.run(
        a.latencyMs,
        status,
        reply,
        error,
        a.outcome,
        a.responseBytes ?? null,
        a.responseSha256 ?? null,
        a.eventId,
        a.n,
        a.startedAt,
        headers,
        body,
      );
      if (changes > 0) return;
    }
    this.stmts.journal.run(...attemptValues(a, headers, body));
    this.journaledHeaders.set(a.requestHeaders, headers);
  }

  // ---- reads (admin, UI, scenarios, tests) ----

  get(id: number): StoredEvent | undefined {
    this.flushForRead();
    const row = this.stmts.get.get(id) as EventRow | undefined;
    return row && toEvent(row);
  }

  /** Newest first. */
  list(filter: OutboxFilter = {}): StoredEvent[] {
    this.flushForRead();
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      where.push(sql);
      params.push(value);
    };
    if (filter.playerId !== undefined) add('player_id = ?', filter.playerId);
    if (filter.kind !== undefined) add('kind = ?', filter.kind);
    if (filter.status !== undefined) add('status = ?', filter.status);
    if (filter.group !== undefined) add('grp = ?', filter.group);
    if (filter.transactionId !== undefined) add('transaction_id = ?', filter.transactionId);
    if (filter.beforeId !== undefined) add('id < ?', filter.beforeId);
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
    const sql = `${SELECT_EVENTS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...params) as EventRow[]).map(toEvent);
  }

  /** Every journaled attempt of an event, first to last. */
  attempts(eventId: number): Attempt[] {
    this.flushForRead();
    return (this.stmts.attempts.all(eventId) as AttemptRow[]).map(toAttempt);
  }

  counts(): Record<EventStatus, number> {
    this.flushForRead();
    const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
    for (const row of this.stmts.counts.all() as { status: EventStatus; n: number }[]) counts[row.status] = row.n;
    return counts;
  }

  /** Deletes every event and attempt; a running engine forgets what it had queued. Ids are not reused. */
  reset(): void {
    this.newEvents = [];
    this.dirty.clear();
    this.journalBuffer = [];
    this.delivering.clear();
    this.db.transaction(() => {
      this.db.exec('DELETE FROM callback_attempts; DELETE FROM callback_events;');
    })();
    for (const listener of this.resetListeners) listener();
  }

  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  // ---- writes (the engine) ----

  /**
   * Gives the event its id and buffers it; written at the next {@link flush}. Until then it is
   * not {@link isStored stored} and must not be attempted.
   */
  insert(event: NewEvent): StoredEvent {
    if (this.nextId >= this.reservedUpTo) this.reserveIds();
    const stored = event as StoredEvent;
    stored.id = this.nextId++;
    this.newEvents.push(stored);
    return stored;
  }

  /** Whether the event's row is committed (events are written in id order). */
  isStored(event: StoredEvent): boolean {
    const firstBuffered = this.newEvents[0];
    return firstBuffered === undefined || event.id < firstBuffered.id;
  }

  /**
   * The event has an attempt on the wire (its attempt count already counts it). Its row is not
   * rewritten for the send: the attempt's journal row, committed before the send, records it, and
   * {@link takeUnsettled} restores the count from the journal after a crash. That saves one row
   * write per attempt; a reader still sees the event as it is (see {@link flushForRead}).
   */
  markDelivering(event: StoredEvent): void {
    this.dirty.delete(event.id);
    this.delivering.set(event.id, event);
  }

  /** Buffers the event's current state; written at the next {@link flush}. */
  markDirty(event: StoredEvent): void {
    this.delivering.delete(event.id);
    this.dirty.set(event.id, event);
  }

  /** Buffers an attempt for the journal; written at the next {@link flush}. */
  journal(attempt: Attempt): void {
    this.journalBuffer.push(attempt);
  }

  /** The body of an event the engine is working on, to journal a request body only when it differs. */
  private eventBody(id: number): string | undefined {
    return (this.dirty.get(id) ?? this.delivering.get(id))?.body;
  }

  /** Whether anything waits for {@link flush}. */
  hasBuffered(): boolean {
    return this.newEvents.length > 0 || this.dirty.size > 0 || this.journalBuffer.length > 0;
  }

  /** Commits every buffered event, state change and attempt in one transaction. */
  flush(): void {
    if (!this.hasBuffered()) return;
    this.commit(false);
  }

  /** Commits what is buffered and the state of attempts on the wire, so a read sees the engine as it is. */
  private flushForRead(): void {
    if (!this.hasBuffered() && this.delivering.size === 0) return;
    this.commit(true);
  }

  private commit(withDelivering: boolean): void {
    this.commitBatch(withDelivering);
    this.newEvents = [];
    this.dirty = new Map();
    this.journalBuffer = [];
  }

  /** Writes what is buffered and gives back the unused ids of the reserved block, so a clean restart continues without a gap. */
  checkpoint(): void {
    this.flush();
    if (this.nextId < this.reservedUpTo) this.giveBackIds();
  }

  /** Events that are not settled, oldest first; 'delivering' ones (a crash mid-attempt) become pending again. */
  takeUnsettled(): StoredEvent[] {
    this.flush();
    this.stmts.restoreAttemptCounts.run();
    this.stmts.resumeDelivering.run();
    return (this.stmts.unsettled.all() as EventRow[]).map(toEvent);
  }

  /**
   * Deletes settled events beyond the newest `maxEvents` and those created more than `maxAge`
   * ago, with their attempts; returns how many events went. Pending events are never touched.
   */
  prune(now: number, policy: RetentionPolicy): number {
    this.flush();
    return this.db.transaction(() => {
      const beyondCount = (this.stmts.settledThreshold.get(policy.maxEvents) as { id: number } | undefined)?.id ?? 0;
      const upTo = Math.max(beyondCount, this.lastIdCreatedBefore(now - policy.maxAge));
      if (upTo === 0) return 0;
      const removed = this.stmts.pruneUpTo.run(upTo).changes;
      if (removed > 0) this.stmts.pruneAttempts.run(upTo);
      return removed;
    })();
  }

  /**
   * The newest id created before `cutoff`, by binary search over ids: events are created in id
   * order, so created_at never decreases with id and no index on it is needed.
   */
  private lastIdCreatedBefore(cutoff: number): number {
    const range = this.stmts.idRange.get() as { lo: number | null; hi: number | null };
    if (range.lo === null || range.hi === null) return 0;
    let lo = range.lo;
    let hi = range.hi;
    let best = 0;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = this.stmts.firstFrom.get(mid) as { id: number; created_at: number };
      if (row.created_at < cutoff) {
        best = row.id;
        lo = row.id + 1;
      } else {
        hi = mid - 1;
      }
    }
    return best;
  }

  /** Past every id in the table and every id reserved so far (rows may have been pruned or reset). */
  private firstFreeId(): number {
    const { hi } = this.stmts.idRange.get() as { hi: number | null };
    return Math.max((hi ?? 0) + 1, this.readIdMark());
  }

  private readIdMark(): number {
    const row = this.stmts.readIdMark.get(EVENT_ID_KEY) as { value: string } | undefined;
    return row ? Number(row.value) : 1;
  }
}

/**
 * The values of a row, or, when they cannot be made (a value that does not serialise), the values
 * after `reduce` marked the row's object as unstorable: one bad row never blocks the batch.
 */
function rowValues<T>(row: T, values: (row: T) => unknown[], reduce: (row: T, error: unknown) => void): unknown[] {
  try {
    return values(row);
  } catch (error) {
    reduce(row, error);
    return values(row);
  }
}

/** An event whose state cannot be stored ends failed, saying why, with no reply. */
function unstorableEvent(e: StoredEvent, error: unknown): void {
  e.status = 'failed';
  e.settledAt ??= e.createdAt;
  delete e.reply;
  delete e.replyAttempt;
  e.error = `aggmock could not store this event's state: ${error instanceof Error ? error.message : String(error)}`;
}

/** An attempt whose request headers cannot be stored is journaled without them, saying why. */
function unstorableAttempt(a: Attempt, error: unknown): void {
  a.error = `${a.error ? `${a.error}; ` : ''}aggmock could not store this attempt's request headers: ${error instanceof Error ? error.message : String(error)}`;
}
