/**
 * SQLite for every store of aggmock (the outbox, the ledger, the reference wallet): one small
 * interface and two drivers behind it, so no other folder knows which one runs.
 *
 * - `node`: the runtime's built-in `node:sqlite` (Node >= 22.13): nothing to build or approve.
 * - `better-sqlite3`: the native addon, for Node 20, an optional peer dependency the user adds.
 *
 * Both open a file the same way (WAL, a busy timeout) and run transactions the same way
 * (`BEGIN IMMEDIATE`, savepoints when nested). The interface keeps to what both do alike:
 * numbered (`?`) or named (`@name`, bound from an object without the prefix) parameters, rows as
 * objects with number (never BigInt) integers, `run()` returning `changes` and `lastInsertRowid`.
 * Rows of `node:sqlite` have a null prototype: compare them by value, not by class.
 *
 * It imports nothing from aggmock.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

export type SqliteDriver = 'node' | 'better-sqlite3';

/**
 * Positional values (null, number, bigint, string, Uint8Array), or one object for named
 * parameters (`@name` in the SQL, `name` as the key). Never one array: spread it.
 */
export type SqlParams = unknown[];

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

/** A prepared statement. `P` types its parameters, `R` the row it reads. */
export interface Statement<P extends unknown[] = SqlParams, R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
}

export interface Database {
  /** Which driver opened it. */
  readonly driver: SqliteDriver;
  readonly isOpen: boolean;
  readonly inTransaction: boolean;
  prepare<P extends unknown[] = SqlParams, R = unknown>(sql: string): Statement<P, R>;
  /** Runs one or more statements that return nothing (DDL, `PRAGMA x = y`, several deletes). */
  exec(sql: string): void;
  /**
   * Wraps `fn` so that each call runs in one transaction: `BEGIN IMMEDIATE` (the write lock is
   * taken before the first read, so another process cannot slip a write between a read and the
   * write that depends on it), `COMMIT` when it returns, `ROLLBACK` when it throws. A call inside
   * another transaction becomes a savepoint.
   */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  close(): void;
}

export interface OpenOptions {
  /** How long a writer waits for another connection's lock before failing (ms). Default 5000. */
  busyTimeoutMs?: number;
  /** Extra pragmas after the common ones, e.g. `['synchronous = NORMAL']`. */
  pragmas?: readonly string[];
  /** Opens an existing file for reading only (a test or a tool looking at another process's file). */
  readonly?: boolean;
  /** Which driver; default: `AGGMOCK_SQLITE_DRIVER`, else the built-in one where the runtime has it. */
  driver?: SqliteDriver;
}

/** No SQLite driver can run here: the message says how to get one, in one line. */
export class SqliteUnavailableError extends Error {
  override name = 'SqliteUnavailableError';
}

/** The first Node with `node:sqlite` unflagged and complete enough (`StatementSync.iterate`). */
const BUILTIN_FROM = [22, 13] as const;
const DRIVER_ENV = 'AGGMOCK_SQLITE_DRIVER';

/** Whether this runtime's version has the built-in driver. */
export function hasBuiltinSqlite(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > BUILTIN_FROM[0] || (major === BUILTIN_FROM[0] && minor >= BUILTIN_FROM[1]);
}

/** The driver {@link openDatabase} uses when none is asked for. */
export function defaultDriver(env: NodeJS.ProcessEnv = process.env): SqliteDriver {
  const wanted = env[DRIVER_ENV];
  if (wanted === undefined || wanted === '') return hasBuiltinSqlite() ? 'node' : 'better-sqlite3';
  if (wanted === 'node' || wanted === 'better-sqlite3') return wanted;
  throw new SqliteUnavailableError(`${DRIVER_ENV}=${JSON.stringify(wanted)}: expected "node" or "better-sqlite3"`);
}

/**
 * Opens (creating it and its folder if needed) a SQLite database: WAL for a file, so readers never
 * block the writer, and a busy timeout, so a second process waits for the lock instead of failing.
 *
 * @example
 * const db = openDatabase('.aggmock/aggmock.db', { pragmas: ['synchronous = NORMAL'] }); // or ':memory:'
 * const add = db.transaction((n: number) => db.prepare('INSERT INTO t (n) VALUES (?)').run(n));
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const inMemory = path === ':memory:' || path === '';
  const readonly = options.readonly === true;
  if (!inMemory && !readonly && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
  const driver = options.driver ?? defaultDriver();
  const db = driver === 'node' ? openBuiltin(path, readonly) : openBetterSqlite(path, readonly);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    // A new file gives pages its journals free back to the file system (PRAGMA incremental_vacuum
    // after a prune); on an existing file it changes nothing.
    if (!inMemory && !readonly) db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    if (!inMemory && !readonly) db.exec('PRAGMA journal_mode = WAL');
    for (const pragma of options.pragmas ?? []) db.exec(`PRAGMA ${pragma}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

// ---- node:sqlite ----

/** The part of `node:sqlite` used here (the Node 20 types this package builds with do not have it). */
interface NodeSqlite {
  DatabaseSync: new (
    path: string,
    options?: { readOnly?: boolean },
  ) => {
    prepare(sql: string): {
      /** The text of the one statement compiled: a prefix of the SQL given, without what follows it. */
      readonly sourceSQL: string;
      run(...p: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
      get(...p: unknown[]): unknown;
      all(...p: unknown[]): unknown[];
      iterate(...p: unknown[]): IterableIterator<unknown>;
    };
    exec(sql: string): void;
    close(): void;
  };
}

function loadBuiltin(): NodeSqlite {
  if (!hasBuiltinSqlite()) {
    throw new SqliteUnavailableError(
      `${DRIVER_ENV}=node needs Node ${BUILTIN_FROM.join('.')} or later for the built-in node:sqlite; this is Node ${process.versions.node}`,
    );
  }
  // Node 22 still marks node:sqlite experimental and warns once on load: a user cannot act on it.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning instanceof Error ? warning.message : warning).includes('SQLite'))
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite') as NodeSqlite;
  } finally {
    process.emitWarning = emitWarning;
  }
}

let builtin: NodeSqlite | undefined;

/** better-sqlite3's words for SQL that holds a second statement, which both drivers refuse to prepare. */
const MORE_THAN_ONE_STATEMENT = 'The supplied SQL string contains more than one statement';

/** Whether SQL text holds a statement: anything but spaces, semicolons and comments. */
function hasStatement(sql: string): boolean {
  return sql.replace(/\/\*[\s\S]*?(\*\/|$)|--[^\n]*|[\s;]+/g, '') !== '';
}

function openBuiltin(path: string, readOnly: boolean): Database {
  builtin ??= loadBuiltin();
  const raw = new builtin.DatabaseSync(path, { readOnly });
  let open = true;
  return withTransactions({
    driver: 'node',
    get isOpen() {
      return open;
    },
    prepare<P extends unknown[], R>(sql: string): Statement<P, R> {
      const stmt = raw.prepare(sql);
      // node:sqlite compiles the first statement and drops the rest; better-sqlite3 refuses. Refuse
      // here too, or SQL pasted together from input (`'; DROP TABLE …`) would act on one driver only.
      if (sql.startsWith(stmt.sourceSQL) && hasStatement(sql.slice(stmt.sourceSQL.length))) {
        throw new RangeError(MORE_THAN_ONE_STATEMENT);
      }
      return {
        run: (...params) => {
          const { changes, lastInsertRowid } = stmt.run(...params);
          return { changes: Number(changes), lastInsertRowid: Number(lastInsertRowid) };
        },
        get: (...params) => stmt.get(...params) as R | undefined,
        all: (...params) => stmt.all(...params) as R[],
        iterate: (...params) => stmt.iterate(...params) as IterableIterator<R>,
      };
    },
    exec: (sql) => raw.exec(sql),
    close: () => {
      if (!open) return;
      open = false;
      raw.close();
    },
  });
}

// ---- better-sqlite3 ----

interface BetterSqliteModule {
  new (path: string, options?: { readonly?: boolean }): BetterSqliteDb;
}
interface BetterSqliteDb {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): {
    run(...p: unknown[]): { changes: number; lastInsertRowid: number | bigint };
    get(...p: unknown[]): unknown;
    all(...p: unknown[]): unknown[];
    iterate(...p: unknown[]): IterableIterator<unknown>;
  };
  exec(sql: string): unknown;
  close(): unknown;
}

const require = createRequire(import.meta.url);

/** What to tell a user of Node 20, in one line, for npm and pnpm. */
function howToGetBetterSqlite(problem: string): string {
  return (
    `SQLite: ${problem}. On Node ${process.versions.node} aggmock stores its data with better-sqlite3 ` +
    '(Node 22.13 and later have SQLite built in and need nothing): add and build it with ' +
    '`npm install better-sqlite3@12` (if it is already installed: `npm rebuild better-sqlite3`), ' +
    'or with pnpm `pnpm add better-sqlite3@12 --allow-build=better-sqlite3` (yarn: `yarn add better-sqlite3@12`)'
  );
}

function openBetterSqlite(path: string, readonly: boolean): Database {
  let Driver: BetterSqliteModule;
  try {
    Driver = require('better-sqlite3') as BetterSqliteModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new SqliteUnavailableError(howToGetBetterSqlite('better-sqlite3 is not installed'));
    }
    throw error;
  }
  let raw: BetterSqliteDb;
  try {
    raw = new Driver(path, { readonly });
  } catch (error) {
    // The addon loads on first use: missing (its install script never ran) or built for another Node.
    const message = error instanceof Error ? error.message : String(error);
    if (/bindings file|NODE_MODULE_VERSION|better_sqlite3\.node|invalid ELF|wrong ELF/i.test(message)) {
      throw new SqliteUnavailableError(
        howToGetBetterSqlite(
          `better-sqlite3 is installed but its native addon is not built for this Node (${message.split('\n')[0]})`,
        ),
      );
    }
    throw error;
  }
  return withTransactions({
    driver: 'better-sqlite3',
    get isOpen() {
      return raw.open;
    },
    prepare<P extends unknown[], R>(sql: string): Statement<P, R> {
      const stmt = raw.prepare(sql);
      return {
        run: (...params) => {
          // node:sqlite refuses an array as the parameters, better-sqlite3 would spread it: refuse it
          // here too, or code that passes here would fail on the other driver.
          if (Array.isArray(params[0])) throw new TypeError(`${sql}: pass the parameters spread, not as one array`);
          const { changes, lastInsertRowid } = stmt.run(...params);
          return { changes, lastInsertRowid: Number(lastInsertRowid) };
        },
        get: (...params) => stmt.get(...params) as R | undefined,
        all: (...params) => stmt.all(...params) as R[],
        iterate: (...params) => stmt.iterate(...params) as IterableIterator<R>,
      };
    },
    exec: (sql) => {
      raw.exec(sql);
    },
    close: () => {
      if (raw.open) raw.close();
    },
  });
}

// ---- transactions, the same for both ----

type Connection = Omit<Database, 'transaction' | 'inTransaction'>;

function withTransactions(conn: Connection): Database {
  let depth = 0;
  const begin = conn.prepare('BEGIN IMMEDIATE');
  const commit = conn.prepare('COMMIT');
  const rollback = conn.prepare('ROLLBACK');
  const transaction = <A extends unknown[], T>(fn: (...args: A) => T) =>
    function inTransaction(...args: A): T {
      const level = ++depth;
      const savepoint = `aggmock_sp${level}`;
      try {
        if (level === 1) begin.run();
        else conn.exec(`SAVEPOINT ${savepoint}`);
        try {
          const result = fn(...args);
          if (level === 1) commit.run();
          else conn.exec(`RELEASE ${savepoint}`);
          return result;
        } catch (error) {
          if (level === 1) {
            // SQLite may already have rolled back (a full disk, an I/O error): nothing left to undo.
            try {
              rollback.run();
            } catch {}
          } else {
            conn.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
          }
          throw error;
        }
      } finally {
        depth--;
      }
    };
  return Object.defineProperties(
    { ...conn, transaction },
    {
      isOpen: { get: () => conn.isOpen, enumerable: true },
      inTransaction: { get: () => depth > 0, enumerable: true },
    },
  ) as Database;
}
