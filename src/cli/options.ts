import { type Command, type CommanderError, InvalidArgumentError, Option } from 'commander';
import { type AggmockConfig, ConfigError, deepMerge, loadConfig } from '../config/index.ts';
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

/** Flags every command that runs a server understands. */
export interface ServerFlags {
  port?: number;
  host?: string;
  seed?: string;
  config?: string;
  db?: string;
  dataDir?: string;
  logLevel?: string;
  profile?: string;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got ${JSON.stringify(value)}.`);
  return port;
}

export function addServerOptions(command: Command, defaults: { port: number }): Command {
  return command
    .addOption(
      new Option('-p, --port <port>', `port to listen on (0 = any free port) (default: ${defaults.port})`).argParser(parsePort),
    )
    .option('--host <host>', 'interface to bind (default: 127.0.0.1)')
    .option('--seed <seed>', 'seed for the catalog, ids and scenarios (default: 42)')
    .option('-c, --config <file>', 'config file (default: ./aggmock.config.json when it exists)')
    .option('--data-dir <dir>', 'the folder aggmock writes its databases to (default: .aggmock)')
    .option('--db <file>', 'SQLite state file, or :memory: (default: <data dir>/aggmock.db)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .option('--profile <name|file>', 'wire profile of the callbacks: default, betnex, or a profile file (.json)');
}

/** A numeric seed stays a number so `--seed 42` and `"seed": 42` are the same run. */
export function seedValue(seed: string): number | string {
  return /^-?\d+$/.test(seed) && Number.isSafeInteger(Number(seed)) ? Number(seed) : seed;
}

/**
 * Resolves the config for a command: flags > env > file > defaults.
 * `layer` holds command-specific flags already shaped like the config.
 */
export function resolveConfig(flags: ServerFlags, layer: Record<string, unknown> = {}): AggmockConfig {
  const base: Record<string, unknown> = {
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.seed !== undefined ? { seed: seedValue(flags.seed) } : {}),
    ...(flags.db !== undefined ? { db: flags.db } : {}),
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
    ...(flags.logLevel !== undefined ? { logLevel: flags.logLevel } : {}),
  };
  const wire = flags.profile === undefined ? {} : { callbacks: { profile: flags.profile } };
  return loadConfig({ configPath: flags.config, flags: deepMerge(deepMerge(base, wire), layer) });
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
