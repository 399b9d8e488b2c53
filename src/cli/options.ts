import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Command, type CommanderError, InvalidArgumentError, Option } from 'commander';
import { type AggmockConfig, ConfigError, deepMerge, envNameOf, loadConfig, parseDuration } from '../config/index.ts';
import { EXIT_USAGE } from '../verify/defaults.ts';

export { EXIT_USAGE };

/** Commander's own usage errors (unknown option, missing argument) exit 2 like ours; help and version exit 0. */
export function usageExit(error: CommanderError): never {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version')
    process.exit(0);
  process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
}

/** Where a one-shot command writes and what it reads its environment from (tests pass their own). */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** The real process's streams. */
export const PROCESS_IO: CommandIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** The flags of every command that speaks a wire ({@link addWireOptions}). */
export interface WireFlags {
  /** `--dialect` (its alias `--profile` fills `profile`): see {@link wireLayer}. */
  dialect?: string;
  profile?: string;
  /** `--credential name=value`, repeated: a vendor dialect's credentials. */
  credential?: Record<string, string>;
}

/** Flags every command that runs a server understands. */
export interface ServerFlags extends WireFlags {
  port?: number;
  host?: string;
  seed?: string;
  config?: string;
  db?: string;
  dataDir?: string;
  logLevel?: string;
}

/** A flag a one-shot command (send, load, verify) cannot use: it prints `aggmock <command>: <message>` and exits 2. */
export class UsageError extends Error {}

/** A duration flag (`250`, `250ms`, `2s`) in ms, at least `min`; undefined when the flag was not given. */
export function durationFlag(flag: string, text: string | undefined, min = 0): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms < min)
    throw new UsageError(`${flag}: expected milliseconds or a duration such as "2s", got ${JSON.stringify(text)}.`);
  return ms;
}

/** A whole-number flag of at least 1; undefined when the flag was not given. */
export function countFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new UsageError(`${flag}: expected a whole number of at least 1, got ${JSON.stringify(text)}.`);
  return Number(text);
}

/** A repeatable flag's values, in the order given. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * `--credential name=value` (repeatable) into `{name: value}`: a vendor dialect's credentials by
 * the vendor's names (`secretKey`, `privateKey` as PEM text or a file path).
 */
export function collectCredential(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected name=value such as secretKey=testKey, got ${JSON.stringify(value)}.`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** What `--dialect` says in every command's help. */
export const DIALECT_FLAG_HELP =
  'the wire: a built-in dialect (default, betnex, hub88…; aggmock profiles lists them) or a dialect or profile file (.json)';

/** The --dialect (alias --profile) and --credential flags every command that speaks a wire takes. */
export function addWireOptions(command: Command): Command {
  return addDialectOption(command).option(
    '--credential <name=value>',
    "a dialect's credential by the vendor's name, e.g. secretKey=… or privateKey=key.pem; repeat for several",
    collectCredential,
  );
}

/** `--dialect <name|file>` and its alias `--profile` (the old name, kept). */
export function addDialectOption(command: Command): Command {
  return command.option('--dialect <name|file>', DIALECT_FLAG_HELP).option('--profile <name|file>', 'alias of --dialect');
}

/** The wire the flags name: `--dialect`, else its alias `--profile`. */
export function dialectFlag(flags: WireFlags): string | undefined {
  return flags.dialect ?? flags.profile;
}

/** The flag a wire error is reported against: the one that was given. */
export function dialectFlagName(flags: WireFlags): string {
  return flags.dialect === undefined && flags.profile !== undefined ? '--profile' : '--dialect';
}

/** The config layer of --dialect (or --profile) and --credential. */
export function wireLayer(flags: WireFlags): Record<string, unknown> {
  const dialect = dialectFlag(flags);
  const callbacks = {
    ...(dialect === undefined ? {} : { dialect }),
    ...(flags.credential === undefined ? {} : { credentials: flags.credential }),
  };
  return Object.keys(callbacks).length === 0 ? {} : { callbacks };
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got ${JSON.stringify(value)}.`);
  return port;
}

export function addServerOptions(command: Command, defaults: { port: number }): Command {
  return addWireOptions(command)
    .addOption(
      new Option('-p, --port <port>', `port to listen on (0 = any free port) (default: ${defaults.port})`).argParser(parsePort),
    )
    .option('--host <host>', 'interface to bind (default: 127.0.0.1)')
    .option('--seed <seed>', 'seed for the catalog, ids and scenarios (default: 42)')
    .option('-c, --config <file>', 'config file (default: ./aggmock.config.json when it exists)')
    .option('--data-dir <dir>', 'the folder aggmock writes its databases to (default: .aggmock)')
    .option('--db <file>', 'SQLite state file, or :memory: (default: <data dir>/aggmock.db)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent');
}

/** A numeric seed stays a number so `--seed 42` and `"seed": 42` are the same run. */
export function seedValue(seed: string): number | string {
  return /^-?\d+$/.test(seed) && Number.isSafeInteger(Number(seed)) ? Number(seed) : seed;
}

/** The flag of each config key the server commands set, for `port (from --port): …` in a config error. */
export const SERVER_FLAG_NAMES: Record<string, string> = {
  port: '--port',
  host: '--host',
  seed: '--seed',
  db: '--db',
  dataDir: '--data-dir',
  logLevel: '--log-level',
  publicUrl: '--public-url',
  schedule: '--schedule',
  'auth.mode': '--auth',
  'callbacks.dialect': '--dialect',
  'callbacks.credentials': '--credential',
  'callbacks.webhookUrl': '--webhook',
  'wallet.port': '--wallet-port',
};

/**
 * Resolves the config for a command: flags > env > file > defaults.
 * `layer` holds command-specific flags already shaped like the config; `flagNames` overrides
 * {@link SERVER_FLAG_NAMES} where a command maps a flag to another key.
 */
export function resolveConfig(
  flags: ServerFlags,
  layer: Record<string, unknown> = {},
  flagNames: Record<string, string> = {},
): AggmockConfig {
  const given = { ...flags, seed: flags.seed === undefined ? undefined : seedValue(flags.seed) };
  const keys = ['port', 'host', 'seed', 'db', 'dataDir', 'logLevel'] as const;
  const base = Object.fromEntries(keys.flatMap((key) => (given[key] === undefined ? [] : [[key, given[key]]])));
  const wire = wireLayer(flags);
  return loadConfig({
    configPath: flags.config,
    flags: deepMerge(deepMerge(base, wire), layer),
    flagNames: { ...SERVER_FLAG_NAMES, 'callbacks.dialect': dialectFlagName(flags), ...flagNames },
  });
}

/** A server this command starts, for the message when it cannot listen. */
export interface ListenTarget {
  /** "aggmock", "the reference wallet". */
  what: string;
  host: string;
  port: number;
  /** The flag and config key that set the port: `--port` / `port`, `--wallet-port` / `wallet.port`. */
  portFlag: string;
  portKey: string;
}

/**
 * Why a server could not listen, in words a person can act on (the port, the flag, the fix), or
 * undefined when `error` is not a listen failure.
 */
export function listenErrorMessage(error: unknown, t: ListenTarget): string | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  // Only the listen itself: an EACCES of mkdir (the data folder) is no port problem.
  if (syscall !== 'listen' && syscall !== 'bind' && syscall !== 'getaddrinfo') return undefined;
  const portSetting = `${t.portFlag} <port> (config "${t.portKey}", env ${envNameOf(t.portKey)})`;
  const hostSetting = `--host (config "host", env ${envNameOf('host')})`;
  switch (code) {
    case 'EADDRINUSE':
      return (
        `${t.what} cannot listen on ${t.host}:${t.port}: port ${t.port} is already in use (EADDRINUSE).\n` +
        `  Stop the process that holds it, or choose another port with ${portSetting}; ${t.portFlag} 0 takes any free port.`
      );
    case 'EACCES':
    case 'EPERM':
      return (
        `${t.what} cannot listen on ${t.host}:${t.port}: not allowed (${code}); ports below 1024 need privileges.\n` +
        `  Choose a port of 1024 or more with ${portSetting}.`
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return (
        `${t.what} cannot listen on host ${JSON.stringify(t.host)}: the name does not resolve (${code}).\n` +
        `  Set ${hostSetting} to an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`
      );
    case 'EADDRNOTAVAIL':
      return (
        `${t.what} cannot listen on host ${JSON.stringify(t.host)}: no interface of this machine has that address (EADDRNOTAVAIL).\n` +
        `  Set ${hostSetting} to an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`
      );
    default:
      return undefined;
  }
}

/** Runs `start`; a listen failure is printed as {@link listenErrorMessage} and exits 2, without a stack trace. */
export async function listenOrExit<T>(start: () => Promise<T>, target: ListenTarget): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const message = listenErrorMessage(error, target);
    if (message === undefined) throw error;
    process.stderr.write(`aggmock: ${message}\n`);
    process.exit(EXIT_USAGE);
  }
}

/**
 * Why a SQLite file cannot be opened or created at `path` (a folder there, a file where a folder
 * must be created, a folder that is not writable), or undefined when it can; `:memory:` always can.
 */
export function dbPathProblem(path: string, cwd = process.cwd()): string | undefined {
  if (path === ':memory:') return undefined;
  const file = resolve(cwd, path);
  if (existsSync(file)) {
    if (statSync(file).isDirectory())
      return `${file} is a folder; expected the path of a SQLite file in it, such as ${join(file, 'aggmock.db')}, or :memory:`;
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch {
      return `${file} is not readable and writable by this user`;
    }
    const head = firstBytes(file, SQLITE_HEADER.length);
    if (head.length > 0 && !head.equals(SQLITE_HEADER.subarray(0, head.length)))
      return `${file} is not a SQLite database (it starts with ${JSON.stringify(head.toString('latin1').slice(0, 12))}); give the path of a new or existing aggmock database, or :memory:`;
    return undefined;
  }
  return creationProblem(dirname(file), file);
}

/** Why `what` cannot be written into the folder `dir` (a file there, a folder that cannot be created or written), or undefined. */
export function folderProblem(dir: string, what: string): string | undefined {
  if (existsSync(dir) && !statSync(dir).isDirectory()) return `${dir} is a file; expected a folder to write ${what} into`;
  return creationProblem(dir, what);
}

/**
 * Why `what` cannot be written into the folder `dir`, creating it as needed: the nearest existing
 * folder above it is a file, or is not writable. Undefined when it can.
 */
function creationProblem(dir: string, what: string): string | undefined {
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) return `cannot create the folder ${dir}: ${existing} is a file, not a folder`;
  try {
    accessSync(existing, constants.W_OK);
  } catch {
    return `cannot write ${what} into ${dir}: the folder ${existing} is not writable by this user`;
  }
  return undefined;
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function firstBytes(file: string, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Exits 2 when a database file of the config cannot be opened, naming the settings that place it. */
export function checkDbPaths(paths: readonly string[]): void {
  for (const path of paths) {
    const problem = dbPathProblem(path);
    if (problem === undefined) continue;
    process.stderr.write(
      `aggmock: database ${path}: ${problem}.\n  It is set by --db (config "db", env ${envNameOf('db')}), or lies in --data-dir (config "dataDir", env ${envNameOf('dataDir')}).\n`,
    );
    process.exit(EXIT_USAGE);
  }
}

/** Prints a configuration or usage error the way a person can act on it, and exits 2. */
export function exitWithUsageError(error: unknown): never {
  if (
    error instanceof ConfigError ||
    error instanceof InvalidArgumentError ||
    (error instanceof Error && error.name === 'ScheduleFlagError')
  ) {
    process.stderr.write(`aggmock: ${error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  throw error;
}
