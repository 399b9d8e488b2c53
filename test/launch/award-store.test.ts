import { describe, expect, it } from 'vitest';
import { AwardStore } from '../../src/launch/award-store.ts';
import { FreeRoundAwards } from '../../src/launch/awards.ts';
import { type Database, openDatabase } from '../../src/storage/index.ts';

/**
 * The awards' SQLite tables (src/launch/award-store.ts): every change is written through, so a new
 * FreeRoundAwards on the same database (what a restarted instance makes) has what the old one had.
 */

const input = { id: 'A-1', players: ['p1', 'p2'], gameIds: ['g1'], currency: 'EUR', rounds: 3, bet: '0.20' };
const reopen = (db: Database, now = () => 5_000) => new FreeRoundAwards(now, { store: new AwardStore(db) });

describe('AwardStore', () => {
  it('keeps counts, give-backs, cancels and ends through a reopen, each player on his own', () => {
    const db = openDatabase(':memory:');
    const before = reopen(db);
    before.create(input);
    before.create({ ...input, id: 'A-2', currency: undefined, bet: undefined, validUntil: 9_000, players: ['p3'] });
    before.create({ ...input, id: 'A-3', players: ['p4'] });
    before.take('p1', 'g1', 'EUR', 's-1');
    const taken = before.take('p1', 'g1', 'EUR', 's-1');
    if (!taken) throw new Error('no round');
    before.giveBack(taken);
    before.cancel('A-3');

    const after = reopen(db);
    expect(after.leftFor('p1', 'g1', 'EUR')).toEqual({ awardId: 'A-1', left: 2 });
    expect(after.leftFor('p2', 'g1', 'EUR')).toEqual({ awardId: 'A-1', left: 3 });
    expect(after.get('A-2')).toMatchObject({ validUntil: 9_000, createdAt: 5_000, rounds: 3 });
    expect(after.get('A-2')?.currency).toBeUndefined();
    expect(after.leftFor('p3', 'g1', 'JPY')).toEqual({ awardId: 'A-2', left: 3 });
    expect(after.get('A-3')?.cancelledAt).toBe(5_000);
    expect(after.leftFor('p4', 'g1', 'EUR')).toBeUndefined();
    // The session that played p1's rounds is known again, with what is left.
    expect(after.endedSession('s-1')).toEqual({ awardId: 'A-1', player: 'p1', gameIds: ['g1'], left: 2 });
    expect(after.endedSession('s-other')).toBeUndefined();
    // After its end the award plays no more, and a dead link no longer points at it.
    const late = reopen(db, () => 9_001);
    expect(late.leftFor('p3', 'g1', 'EUR')).toBeUndefined();
    expect(late.unreadable).toEqual([]);
  });

  it("remembers only a player's latest session, and a session that moved on to another award keeps that one", () => {
    const awards = reopen(openDatabase(':memory:'));
    awards.create({ ...input, rounds: 1 });
    awards.create({ ...input, id: 'A-2' });
    awards.take('p1', 'g1', 'EUR', 's-1'); // A-1's last round
    awards.take('p1', 'g1', 'EUR', 's-1'); // A-2 now, same session
    expect(awards.endedSession('s-1')).toMatchObject({ awardId: 'A-2', left: 2 });
    awards.take('p1', 'g1', 'EUR', 's-2');
    expect(awards.endedSession('s-1')).toBeUndefined();
    expect(awards.endedSession('s-2')).toMatchObject({ awardId: 'A-2', left: 1 });
  });

  it("forgets the oldest award's rows past the cap, also when a start finds more than it keeps", () => {
    const db = openDatabase(':memory:');
    const capped = (max: number) => new FreeRoundAwards(undefined, { store: new AwardStore(db), maxAwards: max });
    const awards = capped(3);
    for (let i = 0; i <= 3; i++) awards.create({ ...input, id: `A-${i}`, players: ['p1'] });
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count('free_round_awards'), count('free_round_left')]).toEqual([3, 3]);
    expect(reopen(db).get('A-0')).toBeUndefined();
    expect(capped(2).get('A-1')).toBeUndefined();
    expect([count('free_round_awards'), reopen(db).size]).toEqual([2, 2]);
  });

  it('refuses, naming the table and column, a database whose table of that name is not the awards table', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE free_round_awards (id TEXT PRIMARY KEY, payload TEXT)');
    expect(() => new AwardStore(db)).toThrow(
      /table free_round_awards is not aggmock's free-round awards table \(no column award, cancelled_at\)/,
    );
    // Its own tables, made by an earlier start, are taken as they are.
    const ours = openDatabase(':memory:');
    new AwardStore(ours);
    expect(() => new AwardStore(ours)).not.toThrow();
  });

  it('reports a row whose cancel time or players do not read, and still reads the good ones', () => {
    const db = openDatabase(':memory:');
    reopen(db).create(input);
    const row = (id: string, award: unknown, cancelled: unknown = null) =>
      db
        .prepare('INSERT INTO free_round_awards (id, award, cancelled_at) VALUES (?, ?, ?)')
        .run(id, JSON.stringify(award), cancelled);
    const good = { players: ['p1'], gameIds: ['g1'], rounds: 2, createdAt: 1 };
    row('B-cancel', good, 'yesterday');
    row('B-stranger', good);
    db.prepare('INSERT INTO free_round_left (award_id, player, rounds_left) VALUES (?, ?, ?)').run('B-stranger', 'p9', 1);
    row('B-missing', good);
    row('B-extra', { ...good, color: 'red' });
    const awards = reopen(db);
    expect(awards.unreadable).toEqual([
      { id: 'B-cancel', problem: 'cancelled_at: expected epoch milliseconds, got "yesterday"' },
      { id: 'B-stranger', problem: 'free_round_left: player "p9" is not one of the award\'s players' },
      { id: 'B-missing', problem: 'free_round_left: no rounds-left row for player "p1"' },
      { id: 'B-extra', problem: expect.stringMatching(/color|Unrecognized/) },
    ]);
    expect(awards.size).toBe(1);
    expect(awards.leftFor('p1', 'g1', 'EUR')).toEqual({ awardId: 'A-1', left: 3 });
  });
});
