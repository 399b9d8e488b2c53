import type { Database } from './db.ts';

/**
 * The session tokens wallets handed over (Evolution's /check answers a fresh sid, Caleta's
 * /wallet/check a new token, Red Tiger's /auth a refreshed result.token): for each session, named by
 * the token it began with (a launch's token, `callbacks.sessionTokens`, the development token), the
 * token every later call of it carries. Kept in the outbox's SQLite file, so a restart keeps each
 * player's current token; an outbox reset forgets them with the events.
 *
 * A chain is followed: a call sent with any token of a session (the first one or one handed over
 * since) names the same session, so a wallet that rotates on every authenticate is followed too.
 */
export class SessionTokens {
  /** The token a session began with → the token its calls carry now. */
  private readonly current = new Map<string, string>();
  /** Every token handed over → the token its session began with. */
  private readonly origins = new Map<string, string>();
  private readonly upsert;
  private readonly clearAll;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS callback_session_tokens (
      origin TEXT PRIMARY KEY,
      token TEXT NOT NULL,
      player_id TEXT NOT NULL,
      handed_over_at INTEGER NOT NULL
    )`);
    this.upsert = db.prepare(
      `INSERT INTO callback_session_tokens (origin, token, player_id, handed_over_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(origin) DO UPDATE SET token = excluded.token, player_id = excluded.player_id, handed_over_at = excluded.handed_over_at`,
    );
    this.clearAll = db.prepare('DELETE FROM callback_session_tokens');
    const rows = db.prepare('SELECT origin, token FROM callback_session_tokens').all() as { origin: string; token: string }[];
    for (const row of rows) this.remember(row.origin, row.token);
  }

  /** The token a call made with `token` carries now: the last one its session was handed, else `token` itself. */
  currentOf(token: string): string {
    return this.current.get(this.origins.get(token) ?? token) ?? token;
  }

  /** A reply to a call sent with `sentWith` handed over `fresh`: every later call of that session carries it. */
  handOver(sentWith: string, fresh: string, playerId: string, at: number): void {
    if (fresh === sentWith) return;
    const origin = this.origins.get(sentWith) ?? sentWith;
    this.upsert.run(origin, fresh, playerId, at);
    this.remember(origin, fresh);
  }

  /** Forgets every session (the outbox was reset). */
  clear(): void {
    this.clearAll.run();
    this.current.clear();
    this.origins.clear();
  }

  private remember(origin: string, token: string): void {
    this.current.set(origin, token);
    if (token !== origin) this.origins.set(token, origin);
  }
}
