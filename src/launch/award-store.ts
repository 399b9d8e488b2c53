import { z } from 'zod';
import type { Database } from '../storage/index.ts';
import type { FreeRoundAward, FreeRoundCampaign } from './award-types.ts';

/*
 * Where free-round awards outlive a restart: two tables in the instance's SQLite file (the outbox's
 * and the request journal's, `config.db`). An award is one row (what the operator asked for, as
 * JSON, and when it was cancelled); each player's rounds left are one row of their own, so a spin
 * writes one small row. A row this version cannot read (another program's, a hand edit, a future
 * version's) is never played and never crashes the start: it is reported by id with what is wrong,
 * and creating the same id again replaces it.
 */

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS free_round_awards (
    id TEXT PRIMARY KEY,
    award TEXT NOT NULL,
    cancelled_at INTEGER
  );
  CREATE TABLE IF NOT EXISTS free_round_left (
    award_id TEXT NOT NULL,
    player TEXT NOT NULL,
    rounds_left INTEGER NOT NULL,
    session_id TEXT,
    PRIMARY KEY (award_id, player)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS free_round_campaigns (
    id TEXT PRIMARY KEY,
    campaign TEXT NOT NULL
  );
`;

/** Rounds one award gives at most (the operator routes refuse more). */
export const MAX_AWARD_ROUNDS = 10_000;

const idText = z.string().min(1);
/** What an award and a campaign both grant. */
const granted = {
  gameIds: z.array(idText).min(1),
  currency: z.string().min(1).optional(),
  rounds: z.number().int().min(1).max(MAX_AWARD_ROUNDS),
  bet: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,8})?$/, 'expected a stake such as "0.20"')
    .optional(),
};
/** The award column: what the operator asked for and when it was recorded (what awards.create takes, no narrower). */
const storedAwardSchema = z.strictObject({
  players: z.array(idText).min(1),
  ...granted,
  validUntil: z.number().int().optional(),
  createdAt: z.number().int().nonnegative(),
});

/** The campaign column: a template awards name (Caleta's campaigns). */
const storedCampaignSchema = z.strictObject({
  name: z.string(),
  ...granted,
  validFrom: z.number().int().optional(),
  validUntil: z.number().int().optional(),
  createdAt: z.number().int().nonnegative(),
});

/** A stored award this version cannot read: never played; named with what is wrong. */
export interface UnreadableAward {
  id: string;
  problem: string;
}

interface AwardRow {
  id: string;
  award: string;
  cancelled_at: number | null;
}
interface LeftRow {
  award_id: string;
  player: string;
  rounds_left: number;
  session_id: string | null;
}

/** One player's rounds left of a loaded award, and the launch session that last played one. */
export interface LoadedAward {
  award: FreeRoundAward;
  sessions: Map<string, string>;
}

/**
 * The awards' SQLite tables: written through on every change, read once when the instance starts.
 *
 * @example const store = new AwardStore(openDatabase(config.db)); const { awards, unreadable } = store.load();
 */
export class AwardStore {
  private readonly sql;

  constructor(private readonly db: Database) {
    db.exec(SCHEMA);
    refuseForeignTables(db);
    this.sql = {
      insertAward: db.prepare('INSERT OR REPLACE INTO free_round_awards (id, award, cancelled_at) VALUES (?, ?, NULL)'),
      deleteLeft: db.prepare('DELETE FROM free_round_left WHERE award_id = ?'),
      insertLeft: db.prepare('INSERT INTO free_round_left (award_id, player, rounds_left) VALUES (?, ?, ?)'),
      updateLeft: db.prepare('UPDATE free_round_left SET rounds_left = ?, session_id = ? WHERE award_id = ? AND player = ?'),
      cancelAward: db.prepare('UPDATE free_round_awards SET cancelled_at = ? WHERE id = ?'),
      deleteAward: db.prepare('DELETE FROM free_round_awards WHERE id = ?'),
      insertCampaign: db.prepare('INSERT OR REPLACE INTO free_round_campaigns (id, campaign) VALUES (?, ?)'),
      deleteCampaign: db.prepare('DELETE FROM free_round_campaigns WHERE id = ?'),
    };
  }

  /** Every stored award in the order it was recorded, and the rows that do not read as one. */
  load(): { awards: LoadedAward[]; campaigns: FreeRoundCampaign[]; unreadable: UnreadableAward[] } {
    const lefts = new Map<string, LeftRow[]>();
    for (const row of this.db.prepare<[], LeftRow>('SELECT * FROM free_round_left').iterate()) {
      const key = String(row.award_id);
      lefts.set(key, [...(lefts.get(key) ?? []), row]);
    }
    const awards: LoadedAward[] = [];
    const unreadable: UnreadableAward[] = [];
    for (const row of this.db.prepare<[], AwardRow>('SELECT * FROM free_round_awards ORDER BY rowid').iterate()) {
      const read = readAward(row, lefts.get(String(row.id)) ?? []);
      if ('problem' in read) unreadable.push({ id: String(row.id), problem: read.problem });
      else awards.push(read);
    }
    const campaigns: FreeRoundCampaign[] = [];
    for (const row of this.db
      .prepare<[], { id: string; campaign: string }>('SELECT * FROM free_round_campaigns ORDER BY rowid')
      .iterate()) {
      const read = readColumn(storedCampaignSchema, row.campaign, 'campaign');
      if ('problem' in read) unreadable.push({ id: String(row.id), problem: `campaign: ${read.problem}` });
      else campaigns.push({ id: String(row.id), ...read });
    }
    return { awards, campaigns, unreadable };
  }

  /** Records a new award (replacing an unreadable row of the same id) with every player's full count. */
  insert(award: FreeRoundAward): void {
    this.db.transaction(() => {
      const { id, left: _left, cancelledAt: _cancelled, ...asked } = award;
      this.sql.insertAward.run(id, JSON.stringify(asked));
      this.sql.deleteLeft.run(id);
      for (const [player, left] of award.left) this.sql.insertLeft.run(id, player, left);
    })();
  }

  /** A player's rounds left after a round was taken through a session or given back. */
  setLeft(awardId: string, player: string, left: number, sessionId: string | undefined): void {
    this.sql.updateLeft.run(left, sessionId ?? null, awardId, player);
  }

  insertCampaign(campaign: FreeRoundCampaign): void {
    const { id, ...rest } = campaign;
    this.sql.insertCampaign.run(id, JSON.stringify(rest));
  }

  deleteCampaign(id: string): void {
    this.sql.deleteCampaign.run(id);
  }

  cancel(awardId: string, at: number): void {
    this.sql.cancelAward.run(at, awardId);
  }

  /** Forgets an award (the oldest, past the cap). */
  delete(awardId: string): void {
    this.db.transaction(() => {
      this.sql.deleteLeft.run(awardId);
      this.sql.deleteAward.run(awardId);
    })();
  }
}

/** The columns each table must have; a same-named table of another program lacks some. */
const COLUMNS = {
  free_round_awards: ['id', 'award', 'cancelled_at'],
  free_round_left: ['award_id', 'player', 'rounds_left', 'session_id'],
  free_round_campaigns: ['id', 'campaign'],
} as const;

/** Throws, naming the table and the missing column, when a table of that name is not this one. */
function refuseForeignTables(db: Database): void {
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const have = new Set(
      db
        .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
        .all()
        .map((c) => c.name),
    );
    const missing = columns.filter((column) => !have.has(column));
    if (missing.length > 0)
      throw new Error(
        `The database's table ${table} is not aggmock's free-round awards table (no column ${missing.join(', ')}): point config "db" (or "dataDir") at another file, or drop that table.`,
      );
  }
}

/** A stored award or campaign column as what its schema reads, or what is wrong with it (the field and what was expected). */
function readColumn<T>(schema: z.ZodType<T>, text: unknown, column: 'award' | 'campaign'): T | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(String(text));
  } catch {
    return { problem: `the ${column} column is not JSON: ${JSON.stringify(String(text).slice(0, 60))}` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return {
    problem: `${issue?.path.join('.') || column}: ${issue?.message ?? `not ${column === 'award' ? 'an' : 'a'} ${column}`}`,
  };
}

/** A stored row as an award, or what is wrong with it. */
function readAward(row: AwardRow, lefts: readonly LeftRow[]): LoadedAward | { problem: string } {
  const parsed = readColumn(storedAwardSchema, row.award, 'award');
  if ('problem' in parsed) return parsed;
  const cancelledAt = row.cancelled_at;
  if (cancelledAt !== null && (typeof cancelledAt !== 'number' || !Number.isInteger(cancelledAt)))
    return { problem: `cancelled_at: expected epoch milliseconds, got ${JSON.stringify(cancelledAt)}` };
  const { createdAt, ...asked } = parsed;
  const left = new Map<string, number>();
  const sessions = new Map<string, string>();
  for (const l of lefts) {
    const player = String(l.player);
    if (!asked.players.includes(player))
      return { problem: `free_round_left: player ${JSON.stringify(player)} is not one of the award's players` };
    if (
      typeof l.rounds_left !== 'number' ||
      !Number.isInteger(l.rounds_left) ||
      l.rounds_left < 0 ||
      l.rounds_left > asked.rounds
    )
      return {
        problem: `free_round_left of ${JSON.stringify(player)}: expected 0 to ${asked.rounds} rounds left, got ${JSON.stringify(l.rounds_left)}`,
      };
    left.set(player, l.rounds_left);
    if (typeof l.session_id === 'string') sessions.set(player, l.session_id);
  }
  const missing = asked.players.find((player) => !left.has(player));
  if (missing !== undefined) return { problem: `free_round_left: no rounds-left row for player ${JSON.stringify(missing)}` };
  const award: FreeRoundAward = {
    id: String(row.id),
    ...asked,
    createdAt,
    left,
    ...(cancelledAt === null ? {} : { cancelledAt }),
  };
  return { award, sessions };
}
