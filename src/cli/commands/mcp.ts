import type { Command } from 'commander';
import type { AggmockConfig } from '../../config/index.ts';
import { OperatorKeyError, readOperatorKey } from '../mcp/operator-key.ts';
import { type AggmockTarget, embeddedTarget, remoteTarget, TargetError } from '../mcp/target.ts';
import {
  DIALECT_FLAG_HELP,
  EXIT_USAGE,
  exitWithUsageError,
  listenErrorMessage,
  parsePort,
  resolveConfig,
  usageExit,
} from '../options.ts';

/** `aggmock mcp`: the Model Context Protocol over stdio, so an AI coding agent can drive aggmock. */

export interface McpFlags {
  url?: string;
  adminToken?: string;
  allowRemote?: boolean;
  webhook?: string;
  port?: number;
  seed?: string;
  config?: string;
  db?: string;
  dialect?: string;
  profile?: string;
  operatorKey?: string;
}

/**
 * Registers `aggmock mcp`. Stdout carries the protocol only; messages go to stderr.
 *
 * @example
 * aggmock mcp                                   # embeds aggmock and the reference wallet on 127.0.0.1
 * aggmock mcp --url http://127.0.0.1:4000 --admin-token "$AGGMOCK_ADMIN_TOKEN"
 */
export function registerMcpCommand(program: Command): Command {
  return program
    .command('mcp')
    .description(
      'Serve the Model Context Protocol on stdio: tools for an AI agent to launch games, send callbacks, run scenarios, read deliveries and discrepancies, and verify a webhook.',
    )
    .option('--url <url>', 'drive the aggmock running at this URL (default: start one on 127.0.0.1, with the reference wallet)')
    .option(
      '--admin-token <token>',
      "the admin API's bearer token of that aggmock (default: config admin.token, AGGMOCK_ADMIN_TOKEN)",
    )
    .option('--allow-remote', 'allow a --url that is not loopback')
    .option('--webhook <url>', 'embedded: send callbacks to your webhook instead of starting the reference wallet')
    .option('-p, --port <port>', 'embedded: port of aggmock (default: 0, any free port)', parsePort)
    .option('--seed <seed>', 'embedded: seed of the catalog, ids and scenarios (default: 42)')
    .option('-c, --config <file>', 'config file (default: ./aggmock.config.json when it exists)')
    .option('--db <file>', 'embedded: SQLite state file (default: :memory:)')
    .option('--dialect <name|file>', DIALECT_FLAG_HELP)
    .option('--profile <name|file>', 'alias of --dialect')
    .option(
      '--operator-key <file>',
      "the operator's RSA private key (PEM) that list_vendor_games and launch_vendor_game sign with, for an RSA-signed operator API (Hub88, Caleta) that holds your public key (default: aggmock's development key)",
    )
    .exitOverride(usageExit)
    .action(async (flags: McpFlags) => {
      // The SDK loads only for this command, not on every CLI start.
      const { serveMcpOnStdio } = await import('../mcp/stdio.ts');
      await serveMcpOnStdio(await connect(flags));
    });
}

/** The aggmock to drive, or exit 2 with what to change. */
async function connect(flags: McpFlags): Promise<AggmockTarget> {
  let config: AggmockConfig;
  let operatorKey: string | undefined;
  try {
    operatorKey = flags.operatorKey === undefined ? undefined : readOperatorKey(flags.operatorKey);
  } catch (error) {
    if (!(error instanceof OperatorKeyError)) throw error;
    process.stderr.write(`aggmock mcp: ${error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  try {
    config = resolveConfig(
      {
        port: flags.port ?? 0,
        db: flags.db ?? ':memory:',
        ...(flags.seed === undefined ? {} : { seed: flags.seed }),
        ...(flags.config === undefined ? {} : { config: flags.config }),
        ...(flags.dialect === undefined ? {} : { dialect: flags.dialect }),
        ...(flags.profile === undefined ? {} : { profile: flags.profile }),
      },
      {
        ...(flags.webhook === undefined ? {} : { callbacks: { webhookUrl: flags.webhook } }),
        ...(flags.adminToken === undefined ? {} : { admin: { token: flags.adminToken } }),
      },
      { 'admin.token': '--admin-token' },
    );
    const target =
      flags.url !== undefined
        ? remoteTarget(flags.url, config, { adminToken: config.admin.token, allowRemote: flags.allowRemote === true })
        : await embeddedTarget(config, { ownWebhook: flags.webhook !== undefined });
    target.operatorKey = operatorKey;
    return target;
  } catch (error) {
    if (error instanceof TargetError) {
      process.stderr.write(`aggmock mcp: ${error.message}\n`);
      process.exit(EXIT_USAGE);
    }
    const listen = listenErrorMessage(error, {
      what: 'aggmock',
      host: '127.0.0.1',
      port: flags.port ?? 0,
      portFlag: '--port',
      portKey: 'port',
    });
    if (listen !== undefined) {
      process.stderr.write(`aggmock mcp: ${listen}\n`);
      process.exit(EXIT_USAGE);
    }
    exitWithUsageError(error);
  }
}
