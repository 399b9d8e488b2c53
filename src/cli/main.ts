import { Command, CommanderError } from 'commander';
import { CatalogFixtureError } from '../catalog/fixture.ts';
import { ConfigError, CredentialError } from '../config/index.ts';
import { ALLOW_HOOKS_ENV } from '../dialects/index.ts';
import { SqliteUnavailableError } from '../storage/index.ts';
import { VERSION } from '../version.ts';
import { registerCommands } from './commands/index.ts';
import { EXIT_USAGE, usageExit } from './options.ts';

const ALLOW_HOOKS_FLAG = '--allow-hooks';

/** Errors of a path the user gave, not of aggmock. */
const FILE_ERRORS = ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ENOENT', 'ENAMETOOLONG'];

const program = new Command('aggmock')
  .description('A local, offline game-aggregator mock and a contract-testing harness for casino wallet webhooks.')
  .version(VERSION, '-v, --version')
  .showHelpAfterError('(run with --help for usage)')
  // Usage errors (unknown option, bad value) exit 2, like a bad config value; help and version exit 0.
  .exitOverride();

registerCommands(program);

// --allow-hooks, anywhere on the command line, allows a dialect's hooks module for this run (and
// only this run: never a config file); it is the same as AGGMOCK_ALLOW_HOOKS=1.
const argv = process.argv.filter((arg) => arg !== ALLOW_HOOKS_FLAG);
if (argv.length !== process.argv.length) process.env[ALLOW_HOOKS_ENV] = '1';

program.parseAsync(argv).catch((error: unknown) => {
  if (error instanceof CommanderError) usageExit(error);
  // Bad input, already described by key or JSON path, value and expectation: no stack trace.
  // Also no SQLite driver (Node 20 without a built better-sqlite3): one line on how to get one.
  // A vendor dialect on a command that does not speak dialects yet, or a credential file that cannot be read.
  if (
    error instanceof ConfigError ||
    error instanceof CatalogFixtureError ||
    error instanceof SqliteUnavailableError ||
    error instanceof CredentialError
  ) {
    process.stderr.write(`aggmock: ${error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  // A file or folder aggmock was pointed at and cannot use (permissions, a read-only disk, a file in
  // the way): the path and the reason, without a stack trace. Most are caught before with a fuller message.
  const fsError = error as NodeJS.ErrnoException;
  if (typeof fsError?.path === 'string' && FILE_ERRORS.includes(fsError.code ?? '')) {
    process.stderr.write(
      `aggmock: cannot ${fsError.syscall ?? 'use'} ${fsError.path}: ${fsError.code} (check the path given on the command line or in the config, and its permissions)\n`,
    );
    process.exit(EXIT_USAGE);
  }
  process.stderr.write(`aggmock: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
