import { describe, expect, it } from 'vitest';
import { hasBuiltinSqlite } from '../../src/storage/index.ts';
import { runCli } from './process.ts';

describe('aggmock where its SQLite driver cannot run', () => {
  // The driver this Node cannot use: node:sqlite before Node 22.13; on a later Node, the
  // better-sqlite3 that this repository's install built for Node 20.
  const unusable = hasBuiltinSqlite() ? 'better-sqlite3' : 'node';
  const advice = hasBuiltinSqlite()
    ? /^aggmock: SQLite: better-sqlite3 is installed but its native addon is not built for this Node \(.*`npm rebuild better-sqlite3`.*`pnpm add better-sqlite3@12 --allow-build=better-sqlite3`/
    : /^aggmock: AGGMOCK_SQLITE_DRIVER=node needs Node 22\.13 or later for the built-in node:sqlite; this is Node 20\./;

  for (const args of [
    ['serve', '--port', '0', '--db', ':memory:'],
    ['wallet', '--port', '0', '--db', ':memory:'],
    ['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:'],
  ]) {
    it(`\`aggmock ${args[0]}\` exits 2 with one line saying how to get SQLite, never a stack trace`, async () => {
      const cli = runCli(args, { AGGMOCK_SQLITE_DRIVER: unusable });
      expect(await cli.exited, cli.stderr()).toBe(2);
      const lines = cli.stderr().trim().split('\n');
      expect(lines, cli.stderr()).toHaveLength(1);
      expect(lines[0]).toMatch(advice);
    });
  }

  it('exits 2 naming AGGMOCK_SQLITE_DRIVER and its two values for an unknown driver', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:'], { AGGMOCK_SQLITE_DRIVER: 'sqlite3' });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr().trim()).toBe('aggmock: AGGMOCK_SQLITE_DRIVER="sqlite3": expected "node" or "better-sqlite3"');
  });
});
