import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, defaultDriver, hasBuiltinSqlite, openDatabase, SqliteUnavailableError } from './index.ts';

const opened: Database[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-storage-'));
  dirs.push(dir);
  return join(dir, 'nested', 'test.db');
}

function open(path = ':memory:', options: Parameters<typeof openDatabase>[1] = {}): Database {
  const db = openDatabase(path, options);
  opened.push(db);
  return db;
}

describe('choosing the SQLite driver', () => {
  it('uses the built-in node:sqlite from Node 22.13 and better-sqlite3 before', () => {
    expect(hasBuiltinSqlite('20.19.0')).toBe(false);
    expect(hasBuiltinSqlite('22.12.0')).toBe(false);
    expect(hasBuiltinSqlite('22.13.0')).toBe(true);
    expect(hasBuiltinSqlite('24.0.0')).toBe(true);
    expect(defaultDriver({})).toBe(hasBuiltinSqlite() ? 'node' : 'better-sqlite3');
    expect(open().driver).toBe(defaultDriver());
  });

  it('takes AGGMOCK_SQLITE_DRIVER and refuses an unknown one, naming the variable and the choices', () => {
    expect(defaultDriver({ AGGMOCK_SQLITE_DRIVER: 'better-sqlite3' })).toBe('better-sqlite3');
    expect(defaultDriver({ AGGMOCK_SQLITE_DRIVER: 'node' })).toBe('node');
    expect(() => defaultDriver({ AGGMOCK_SQLITE_DRIVER: 'sqlite3' })).toThrow(
      new SqliteUnavailableError('AGGMOCK_SQLITE_DRIVER="sqlite3": expected "node" or "better-sqlite3"'),
    );
  });

  it('opens the built-in driver when asked for it, and explains on an older Node that it needs Node 22.13', () => {
    if (hasBuiltinSqlite()) expect(open(':memory:', { driver: 'node' }).driver).toBe('node');
    else expect(() => openDatabase(':memory:', { driver: 'node' })).toThrow(/needs Node 22\.13 or later/);
  });
});

// The driver this runtime runs by default: better-sqlite3 under `npm test` (Node 20), node:sqlite
// under `npm run test:node24`. Both must behave as below.
describe(`SQLite through the ${defaultDriver()} driver`, () => {
  it('creates the folder, opens a file in WAL mode with a busy timeout, and applies extra pragmas', () => {
    const db = open(tempPath(), { pragmas: ['synchronous = NORMAL'] });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 });
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
  });

  it('binds positional and named parameters, reads integers as numbers and reports changes and the last rowid', () => {
    const db = open();
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER)');
    expect(db.prepare('INSERT INTO t (name, n) VALUES (?, ?)').run('a', 2 ** 40)).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(db.prepare('INSERT INTO t (name, n) VALUES (@name, @n)').run({ name: 'b', n: null })).toEqual({
      changes: 1,
      lastInsertRowid: 2,
    });
    expect(db.prepare('UPDATE t SET n = 0').run().changes).toBe(2);
    expect({ ...(db.prepare('SELECT * FROM t WHERE id = ?').get(1) as object) }).toEqual({ id: 1, name: 'a', n: 0 });
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(9)).toBeUndefined();
    expect(
      db
        .prepare<[], { name: string }>('SELECT name FROM t ORDER BY id')
        .all()
        .map((r) => r.name),
    ).toEqual(['a', 'b']);
    expect([...db.prepare<[], { id: number }>('SELECT id FROM t ORDER BY id').iterate()].map((r) => r.id)).toEqual([1, 2]);
  });

  it('refuses the parameters passed as one array, which only one of the drivers would take', () => {
    const db = open();
    db.exec('CREATE TABLE t (a, b)');
    expect(() => db.prepare('INSERT INTO t VALUES (?, ?)').run([1, 2])).toThrow();
  });

  it('refuses to prepare SQL holding a second statement, and takes a trailing semicolon or comment', () => {
    const db = open();
    db.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('kept')");
    // What a wallet that pastes ids into SQL runs: neither driver may run the first part and drop the rest.
    for (const sql of [
      "SELECT v FROM t WHERE v = 'x';DROP TABLE t;--'",
      'SELECT 1; SELECT 2',
      'SELECT 1 /* a */; /* b */ SELECT 2',
    ]) {
      expect(() => db.prepare(sql), sql).toThrow(new RangeError('The supplied SQL string contains more than one statement'));
    }
    for (const sql of [
      'SELECT v FROM t;',
      "SELECT v FROM t WHERE v = 'a;b' ; ",
      'SELECT v FROM t; -- the rows',
      'SELECT v FROM t /* a */;; /* b */',
    ]) {
      expect(db.prepare(sql).all(), sql).toBeDefined();
    }
    expect({ ...(db.prepare('SELECT v FROM t').get() as object) }).toEqual({ v: 'kept' });
  });

  it('commits a transaction that returns and rolls back one that throws, nested ones as savepoints', () => {
    const db = open();
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const add = db.transaction((v: string) => insert.run(v).changes);
    expect(add('kept')).toBe(1);
    const failing = db.transaction(() => {
      insert.run('lost');
      throw new Error('boom');
    });
    expect(() => failing()).toThrow('boom');
    const outer = db.transaction(() => {
      insert.run('outer');
      expect(db.inTransaction).toBe(true);
      expect(() => failing()).toThrow('boom');
      add('inner');
    });
    outer();
    expect(db.inTransaction).toBe(false);
    expect(
      db
        .prepare<[], { v: string }>('SELECT v FROM t ORDER BY rowid')
        .all()
        .map((r) => r.v),
    ).toEqual(['kept', 'outer', 'inner']);
  });

  it('takes the write lock when a transaction begins (BEGIN IMMEDIATE): another connection cannot write meanwhile', () => {
    const path = tempPath();
    const db = open(path);
    db.exec('CREATE TABLE t (v)');
    const other = open(path, { busyTimeoutMs: 0 });
    let otherWrite: unknown;
    db.transaction(() => {
      // Nothing written yet: a deferred BEGIN would not hold the lock here.
      try {
        other.exec('INSERT INTO t VALUES (1)');
      } catch (error) {
        otherWrite = error;
      }
    })();
    expect(String(otherWrite)).toMatch(/locked|busy/i);
    other.exec('INSERT INTO t VALUES (2)');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
  });

  it('keeps what a transaction committed after the connection is dropped without closing', () => {
    const path = tempPath();
    const db = openDatabase(path);
    db.exec('CREATE TABLE t (v)');
    db.transaction(() => db.prepare('INSERT INTO t VALUES (?)').run('durable'))();
    const reader = open(path, { readonly: true });
    expect(reader.prepare('SELECT v FROM t').get()).toEqual({ v: 'durable' });
    db.close();
    expect(db.isOpen).toBe(false);
    db.close();
  });
});
