import type { Database, Statement } from '../storage/index.ts';
import type { Discrepancy, DiscrepancyDraft, DiscrepancyKind } from './reducer.ts';

/** Discrepancies in SQLite, next to the outbox: a thin table and the queries the admin API and UI need. */

export interface DiscrepancyFilter {
  playerId?: string;
  kind?: DiscrepancyKind;
  group?: string;
  /** Default 100, at most 1000. */
  limit?: number;
  /** Only older ones (smaller id): the next page of a newest-first listing. */
  beforeId?: number;
}

interface Row {
  id: number;
  player_id: string;
  kind: DiscrepancyKind;
  expected_minor: number | null;
  actual_minor: number | null;
  event_ids: string;
  message: string;
  grp: string | null;
  created_at: number;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS ledger_discrepancies (
    id INTEGER PRIMARY KEY,
    player_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    expected_minor INTEGER,
    actual_minor INTEGER,
    event_ids TEXT NOT NULL,
    message TEXT NOT NULL,
    grp TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ledger_discrepancies_player ON ledger_discrepancies(player_id, id);
`;

export class DiscrepancyStore {
  private readonly insertStmt: Statement;
  private readonly clearStmt: Statement;

  constructor(private readonly db: Database) {
    db.exec(SCHEMA);
    this.insertStmt = db.prepare(
      `INSERT INTO ledger_discrepancies (player_id, kind, expected_minor, actual_minor, event_ids, message, grp, created_at)
       VALUES (@playerId, @kind, @expectedMinor, @actualMinor, @eventIds, @message, @group, @createdAt)`,
    );
    this.clearStmt = db.prepare('DELETE FROM ledger_discrepancies');
  }

  insert(drafts: readonly DiscrepancyDraft[]): Discrepancy[] {
    if (drafts.length === 0) return [];
    return this.db.transaction(() =>
      drafts.map((d) => {
        const info = this.insertStmt.run({ ...d, eventIds: JSON.stringify(d.eventIds), group: d.group ?? null });
        return { id: Number(info.lastInsertRowid), ...d };
      }),
    )();
  }

  list(filter: DiscrepancyFilter = {}): Discrepancy[] {
    const { where, params } = whereClause(filter);
    const limit = Math.min(Math.max(1, Math.floor(filter.limit ?? 100)), 1000);
    const rows = this.db
      .prepare(`SELECT * FROM ledger_discrepancies ${where} ORDER BY id DESC LIMIT ${limit}`)
      .all(...params) as Row[];
    return rows.map(fromRow);
  }

  count(filter: Omit<DiscrepancyFilter, 'limit' | 'beforeId'> = {}): number {
    const { where, params } = whereClause(filter);
    const row = this.db.prepare(`SELECT COUNT(*) AS n FROM ledger_discrepancies ${where}`).get(...params) as { n: number };
    return row.n;
  }

  clear(): void {
    this.clearStmt.run();
  }

  /**
   * The deliveries' retention (callbacks.retention) applied here too: keeps the newest
   * `maxEvents` and none created more than `maxAge` ago. Returns how many went.
   */
  prune(now: number, policy: { maxEvents: number; maxAge: number }): number {
    return this.db
      .prepare(
        'DELETE FROM ledger_discrepancies WHERE id <= (SELECT id FROM ledger_discrepancies ORDER BY id DESC LIMIT 1 OFFSET ?) OR created_at < ?',
      )
      .run(policy.maxEvents, now - policy.maxAge).changes;
  }
}

/** Each filter field's SQL condition. */
const CONDITIONS = [
  ['playerId', 'player_id = ?'],
  ['kind', 'kind = ?'],
  ['group', 'grp = ?'],
  ['beforeId', 'id < ?'],
] as const satisfies readonly (readonly [keyof DiscrepancyFilter, string])[];

function whereClause(filter: DiscrepancyFilter): { where: string; params: unknown[] } {
  const given = CONDITIONS.filter(([field]) => filter[field] !== undefined);
  return {
    where: given.length ? `WHERE ${given.map(([, sql]) => sql).join(' AND ')}` : '',
    params: given.map(([field]) => filter[field]),
  };
}

function fromRow(row: Row): Discrepancy {
  return {
    id: row.id,
    playerId: row.player_id,
    kind: row.kind,
    expectedMinor: row.expected_minor,
    actualMinor: row.actual_minor,
    eventIds: JSON.parse(row.event_ids) as number[],
    message: row.message,
    createdAt: row.created_at,
    ...(row.grp === null ? {} : { group: row.grp }),
  };
}
