import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { type AggmockConfig, ConfigError, deepMerge, loadConfig, validateConfig } from '../../config/index.ts';
import { commaList } from '../../shared/index.ts';
import { SIGNING_SCHEMES, type SigningScheme } from '../../signing/index.ts';
import { CHECKS } from '../../verify/checks/index.ts';
import { DEFAULT_REPORT_DIR } from '../../verify/defaults.ts';
import type { RunVerifyOptions, VerifyOutcome } from '../../verify/index.ts';
import {
  addWireOptions,
  type CommandIo,
  collect,
  countFlag,
  dialectFlagName,
  durationFlag,
  EXIT_USAGE,
  folderProblem,
  PROCESS_IO,
  UsageError,
  usageExit,
  type WireFlags,
  wireLayer,
} from '../options.ts';
import { collectToken } from './players.ts';

/** `aggmock verify <webhookUrl>`: the contract-testing harness of SPEC §7. */

export interface VerifyFlags extends WireFlags {
  secret?: string[];
  scheme?: SigningScheme;
  players?: string;
  token?: Record<string, string>;
  tokens?: string;
  deep?: boolean;
  currency?: string;
  stateUrl?: string;
  timeout?: string;
  maxLatency?: string;
  only?: string;
  skip?: string;
  reportDir?: string;
  reports?: boolean;
  config?: string;
  concurrency?: string;
  json?: boolean;
  strict?: boolean;
}

export interface VerifyIo extends CommandIo {
  color?: boolean;
}

/**
 * Registers `aggmock verify`.
 *
 * @example
 * aggmock verify http://127.0.0.1:4001/callback/webhook --state-url http://127.0.0.1:4001/__state
 * aggmock verify https://staging.example.com/callback/webhook --players 1001,1002 --secret "$AGGMOCK_SECRET"
 */
export function registerVerifyCommand(program: Command, io: VerifyIo = PROCESS_IO): Command {
  return addWireOptions(
    program
      .command('verify')
      .description('Check a wallet webhook against the contracts (Pact) and the stateful rules; JUnit, JSON and HTML reports.')
      .argument('<webhookUrl>', 'the webhook to check, e.g. http://127.0.0.1:4001/callback/webhook'),
  )
    .option('--secret <s>', 'HMAC secret the webhook verifies with; repeat for several (default: aggmock-dev-secret)', collect)
    .addOption(new Option('--scheme <scheme>', 'signature scheme (default: timestamped)').choices([...SIGNING_SCHEMES]))
    .option('--players <ids>', 'comma-separated player ids the webhook knows (default: p1,p2)')
    .option(
      '--token <player=token>',
      "a vendor dialect: the session token the wallet issued to a player, e.g. p1=abc; repeat for several (default: the dialect's authenticate call, or a fresh token)",
      collectToken,
    )
    .option(
      '--tokens <file>',
      'player=token lines: read before the run (they win over --token), written back at its end with the tokens the wallet handed over (chains runs against a wallet that rotates its token)',
    )
    .option('--currency <code>', "the players' currency; amounts are written in its decimals (default: callbacks.currency, EUR)")
    .option('--state-url <url>', 'provider-state endpoint (POST {state, params, action}), e.g. http://127.0.0.1:4001/__state')
    .option('--timeout <ms>', 'per-request timeout, ms or "10s" (default: callbacks.timeout, 10 s)')
    .option('--max-latency <ms>', 'p95 reply-time budget of the reply-latency check (default: 2000)')
    .option('--only <ids>', 'comma-separated check ids to run (also pact:<id>, "pact", "checks")')
    .option('--skip <ids>', 'comma-separated check ids to leave out')
    .option('--deep', "also run the deep checks (repeat-after-many's thousand transactions); the same as adding deep to --only")
    .option('--report-dir <dir>', `where junit.xml, report.json and report.html go (default: ${DEFAULT_REPORT_DIR})`)
    .option('--no-reports', 'write no report files')
    .option(
      '-c, --config <file>',
      'config file: type strings, rollback style, amount format, header names (default: ./aggmock.config.json)',
    )
    .option('--concurrency <n>', 'parallel DEBITs in the concurrent-debits check (default: 10)')
    .option('--json', 'print the report as JSON on stdout instead of the table')
    .option(
      '--strict',
      "fail, not warn, where a wallet breaks aggmock's safer reading beyond the vendor's text (docs/dialects/<name>.md)",
    )
    .addHelpText(
      'after',
      `\nChecks:\n${CHECKS.map((c) => `  ${c.id.padEnd(20)} ${c.rule}`).join('\n')}\n\nExit codes: 0 all selected checks passed, 1 a check failed or was blocked by a first cause (wallet down or silent, signature refused, unknown player…), 2 usage error (bad flag, unknown check id, unreachable state URL).\n`,
    )
    .exitOverride(usageExit)
    .action(async (webhookUrl: string, flags: VerifyFlags) => {
      process.exitCode = (await runVerifyCommand(webhookUrl, flags, io)).exitCode;
    });
}

/**
 * The whole command without a process: returns the outcome (exit code, report) and writes to `io`.
 * `base`, when given, is the configuration to use instead of loading one (`aggmock mcp` passes the
 * one it runs with, its wire profile already read); only `--currency` applies over it.
 */
export async function runVerifyCommand(
  webhookUrl: string,
  flags: VerifyFlags,
  io: VerifyIo = PROCESS_IO,
  base?: AggmockConfig,
): Promise<VerifyOutcome> {
  let options: RunVerifyOptions;
  try {
    options = toOptions(webhookUrl, flags, io, base);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      io.stderr(`aggmock verify: ${error.message}\n`);
      return { exitCode: EXIT_USAGE, error: error.message };
    }
    throw error;
  }
  // The Pact verifier takes about a second to load: only `verify` itself loads it, not every CLI start.
  const { runVerify } = await import('../../verify/run.ts');
  const outcome = await runVerify(options);
  if (outcome.exitCode === EXIT_USAGE) {
    io.stderr(`aggmock verify: ${outcome.error}\n`);
    return outcome;
  }
  if (flags.json && outcome.report)
    io.stdout(`${JSON.stringify({ exitCode: outcome.exitCode, files: outcome.files, ...outcome.report })}\n`);
  return outcome;
}

function toOptions(webhookUrl: string, flags: VerifyFlags, io: VerifyIo, base?: AggmockConfig): RunVerifyOptions {
  const currency = flags.currency === undefined ? {} : { callbacks: { currency: flags.currency } };
  const flagNames = {
    'callbacks.dialect': dialectFlagName(flags),
    'callbacks.credentials': '--credential',
    'callbacks.currency': '--currency',
  };
  const config: AggmockConfig = base
    ? flags.currency === undefined
      ? base
      : validateConfig(deepMerge(base as unknown as Record<string, unknown>, currency))
    : loadConfig({
        configPath: flags.config,
        env: io.env ?? process.env,
        cwd: io.cwd ?? process.cwd(),
        flags: deepMerge(wireLayer(flags), currency),
        flagNames,
      });
  const list = (value: string | undefined) => (value === undefined ? undefined : commaList(value));
  const players = list(flags.players);
  // --deep adds the group "deep" to what runs: to --only when given, else to the default selection.
  const only = flags.deep ? [...(list(flags.only) ?? ['pact', 'checks']), 'deep'] : list(flags.only);
  if (flags.tokens !== undefined && flags.tokens.trim() === '')
    throw new UsageError('--tokens: expected a file name such as tokens.txt.');
  if (flags.players !== undefined && players?.length === 0)
    throw new UsageError(`--players: expected ids such as p1,p2, got ${JSON.stringify(flags.players)}.`);
  const timeoutMs = durationFlag('--timeout', flags.timeout, 1);
  const maxLatencyMs = durationFlag('--max-latency', flags.maxLatency, 1);
  const concurrency = countFlag('--concurrency', flags.concurrency);
  const reportDir = flags.reports === false ? false : resolve(io.cwd ?? process.cwd(), flags.reportDir ?? DEFAULT_REPORT_DIR);
  const reportProblem = reportDir === false ? undefined : folderProblem(reportDir, 'the reports');
  if (reportProblem) throw new UsageError(`--report-dir: ${reportProblem} (or give --no-reports to write none).`);
  const write = flags.json ? (text: string) => text.startsWith('note:') && io.stderr(text) : io.stdout;
  return {
    webhookUrl,
    config,
    ...(flags.secret?.length ? { secrets: flags.secret } : {}),
    ...(flags.scheme ? { scheme: flags.scheme } : {}),
    ...(players ? { players } : {}),
    ...(flags.token ? { tokens: flags.token } : {}),
    ...(flags.tokens === undefined ? {} : { tokensFile: resolve(io.cwd ?? process.cwd(), flags.tokens) }),
    ...(flags.stateUrl ? { stateUrl: flags.stateUrl } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxLatencyMs === undefined ? {} : { maxLatencyMs }),
    ...(only ? { only } : {}),
    ...(flags.skip ? { skip: list(flags.skip) } : {}),
    ...(flags.strict ? { strict: true } : {}),
    reportDir,
    ...(concurrency === undefined ? {} : { concurrency }),
    write: (text) => {
      write(text);
    },
    color: io.color ?? (!flags.json && process.stdout.isTTY === true && !process.env.NO_COLOR),
  };
}
