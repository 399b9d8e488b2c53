import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  type AggmockConfig,
  type CallbackFaultRule,
  ConfigError,
  callbackFaultRuleSchema,
  credentialsOf,
  dialectOf,
  loadConfig,
} from '../../config/index.ts';
import {
  callsPerRound,
  correctnessLine,
  EXPORT_TARGETS,
  ExportError,
  exportRun,
  judgeRun,
  type LoadSummary,
  MixError,
  parseMix,
  parseRecords,
  parseSchedule,
  parseThreshold,
  progressLine,
  RecordError,
  recordLine,
  renderHtml,
  renderText,
  runLoad,
  type Schedule,
  ScheduleError,
  summarise,
  ThresholdError,
} from '../../load/index.ts';
import { currencyExponent, parseMajorString } from '../../money/index.ts';
import { httpUrl, messageOf, numericSeed } from '../../shared/index.ts';
import {
  type CommandIo,
  collect,
  collectCredential,
  countFlag,
  durationFlag,
  EXIT_USAGE,
  PROCESS_IO,
  seedValue,
  UsageError,
  usageExit,
  type WireFlags,
  wireLayer,
} from '../options.ts';
import { parsePlayers } from './players.ts';

/** `aggmock load --dialect <name> <wallet base URL>`: a set rate in any dialect, percentiles and correctness under load. */

export interface LoadFlags extends WireFlags {
  rate?: string;
  rateOf?: string;
  duration?: string;
  stages?: string;
  players?: string;
  mix?: string;
  stake?: string;
  currency?: string;
  token?: string;
  timeout?: string;
  late?: string;
  drop?: string;
  maxInFlight?: string;
  connections?: string;
  fault?: string[];
  seed?: string;
  threshold?: string[];
  json?: boolean;
  html?: string;
  record?: string;
  check?: string;
  export?: string;
  out?: string;
  config?: string;
}

export interface LoadIo extends CommandIo {
  /** Whether stderr is a terminal (the live progress line); default process.stderr.isTTY. */
  tty?: boolean;
}

export const EXIT_PASSED = 0;
export const EXIT_BREACHED = 1;

export function registerLoadCommand(program: Command, io: LoadIo = PROCESS_IO): Command {
  return program
    .command('load')
    .description('Load a wallet at a set rate in any dialect: latency percentiles, errors by class and correctness under load.')
    .argument('[walletUrl]', "the wallet's base URL (a dialect's paths go under it); not needed with --check or --export")
    .option(
      '--dialect <name|file>',
      'the wire: a vendor dialect (aggmock profiles lists them), a profile, or a dialect file (.json)',
    )
    .option('--credential <name=value>', "a dialect's credential by the vendor's name; repeat for several", collectCredential)
    .option('--rate <n>', 'rounds per second to hold (or the start of --stages), e.g. 200 or 200/s')
    .option('--rate-of <unit>', 'what --rate and --stages count: rounds (default) or calls')
    .option('--duration <d>', 'how long to hold --rate (default 10s)')
    .option('--stages <list>', 'ramps, e.g. 10s:100,30s:500 (to 100/s over 10 s, then to 500/s over 30 s)')
    .option('--players <n|ids>', 'how many players (p1…pN) or their ids, comma-separated (default 10)')
    .option('--mix <weights>', 'round kinds and weights, e.g. bet-win=50,bet-lose=30,rollback=5,duplicate=5,promo=5,balance=5')
    .option('--stake <major>', 'the smallest bet; each bet is drawn between it and twice it (default 1.00)')
    .option('--currency <code>', "the players' currency (default: wallet.currency, EUR)")
    .option(
      '--token <template>',
      'the session token of each player, {player} replaced (default: the dialect\u2019s development token)',
    )
    .option('--timeout <d>', 'per attempt (default 10s)')
    .option('--late <d>', 'a round starting later than this after its time is counted late (default 10ms)')
    .option('--drop <d>', 'a round that cannot start within this of its time is dropped (default 1s)')
    .option('--max-in-flight <n>', 'rounds in flight beyond which new ones are dropped (default 10000)')
    .option('--connections <n>', 'keep-alive connections to the wallet (default 64)')
    .option(
      '--fault <rule>',
      'a callback fault rule at a seeded rate: timeout@2%, timeout:300ms@1%, duplicate@1%, or rule JSON; repeat',
      collect,
    )
    .option('--seed <seed>', 'seed of the mix, the players and the faults (default 42)')
    .option(
      '--threshold <t>',
      'p99<250ms, p99(bet)<100ms, errors<0.1%, late<1%, dropped<1%, rate>=95%, correctness; repeat',
      collect,
    )
    .option('--json', 'print the summary as JSON (for CI)')
    .option('--html <file>', 'write the HTML report with its plots')
    .option('--record <file>', 'write every call (JSON lines) for --check')
    .option('--check <file>', 'judge the calls of a run record (from --record or an Artillery or k6 export) instead of running')
    .option('--export <tool>', `write a test for ${EXPORT_TARGETS.join(' or ')} that makes the same calls, signed the same way`)
    .option('--out <path>', 'where --export writes (default: aggmock-load-<tool>)')
    .option('-c, --config <file>', 'config file (default: ./aggmock.config.json when it exists)')
    .addHelpText(
      'after',
      '\nThe run keeps everything in memory: no journal and no durable outbox (a call in flight when it stops is not retried).\nExit codes: 0 every threshold held, 1 a threshold was breached, 2 usage error.\n',
    )
    .exitOverride(usageExit)
    .action(async (walletUrl: string | undefined, flags: LoadFlags) => {
      process.exitCode = await runLoadCommand(walletUrl, flags, io);
    });
}

/** The whole command, testable without a process: the exit code. */
export async function runLoadCommand(walletUrl: string | undefined, flags: LoadFlags, io: LoadIo = PROCESS_IO): Promise<number> {
  try {
    return await run(walletUrl, flags, io);
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof ScheduleError ||
      error instanceof MixError ||
      error instanceof ThresholdError ||
      error instanceof RecordError ||
      error instanceof ExportError
    ) {
      io.stderr(`aggmock load: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

async function run(walletUrl: string | undefined, flags: LoadFlags, io: LoadIo): Promise<number> {
  const config = configOf(flags, io);
  const dialect = dialectOf(config.callbacks);
  const thresholds = (flags.threshold ?? []).map(parseThreshold);
  if (flags.check !== undefined) {
    const path = resolve(io.cwd ?? process.cwd(), flags.check);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new UsageError(`--check: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
    }
    const verdict = judgeRun(dialect, parseRecords(text, flags.check));
    const breached = thresholds.some((t) => t.kind === 'correctness') && !verdict.ok;
    if (flags.json) io.stdout(`${JSON.stringify(verdict, null, 2)}\n`);
    else {
      io.stdout(`aggmock load --check ${flags.check}: ${correctnessLine(verdict)}\n`);
      for (const v of verdict.violations.slice(0, 10)) io.stdout(`  ${v.message}\n`);
      for (const u of verdict.undetermined.slice(0, 5)) io.stdout(`  ${u.playerId}: ${u.reason}\n`);
    }
    return breached ? EXIT_BREACHED : EXIT_PASSED;
  }
  const currency = flags.currency ?? config.wallet.currency;
  const exponent = currencyExponent(currency, config.callbacks.currencies);
  if (exponent === undefined)
    throw new UsageError(`--currency: expected an ISO 4217 code such as EUR, got ${JSON.stringify(currency)}.`);
  const stakeMinor = parseMajorString(flags.stake ?? '1', exponent);
  if (stakeMinor === undefined || stakeMinor <= 0)
    throw new UsageError(
      `--stake: expected a positive amount in major units with at most ${exponent} decimals, e.g. 1.00, got ${JSON.stringify(flags.stake)}.`,
    );
  const mix = parseMix(flags.mix, dialect);
  let schedule = parseSchedule(flags);
  if (flags.rateOf !== undefined && flags.rateOf !== 'rounds' && flags.rateOf !== 'calls')
    throw new UsageError(`--rate-of: expected rounds or calls, got ${JSON.stringify(flags.rateOf)}.`);
  if (flags.rateOf === 'calls') schedule = scaled(schedule, 1 / callsPerRound(mix, dialect));
  const players = playersOf(flags.players);
  const seed = flags.seed === undefined ? 42 : numericSeed(seedValue(flags.seed));
  const faults = (flags.fault ?? []).map((f) => faultRule(f, seed));
  const tokenOf =
    flags.token === undefined ? undefined : (player: string) => (flags.token as string).replaceAll('{player}', player);
  if (flags.export !== undefined) {
    const written = exportRun(flags.export, {
      dialect,
      dialectName: flags.dialect ?? (typeof config.callbacks.dialect === 'string' ? config.callbacks.dialect : dialect.name),
      credentials: credentialsOf(config.callbacks),
      url: walletUrl ?? 'http://127.0.0.1:4001',
      schedule,
      players,
      mix,
      stakeMinor,
      currency,
      token: flags.token,
      out: resolve(io.cwd ?? process.cwd(), flags.out ?? `aggmock-load-${flags.export}`),
    });
    io.stdout(`aggmock load: wrote ${written.join(', ')}\n`);
    return EXIT_PASSED;
  }
  if (walletUrl === undefined)
    throw new UsageError("<walletUrl>: expected the wallet's base URL, e.g. http://127.0.0.1:4001 (or --check <file>).");
  httpUrl(walletUrl, '<walletUrl>', 'http://127.0.0.1:4001', UsageError);
  const tty = io.tty ?? (io === PROCESS_IO && process.stderr.isTTY === true);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  let result: Awaited<ReturnType<typeof runLoad>>;
  try {
    result = await runLoad({
      config,
      url: walletUrl,
      schedule,
      players,
      mix,
      stakeMinor,
      currency,
      ...(tokenOf ? { tokenOf } : {}),
      timeoutMs: durationFlag('--timeout', flags.timeout) ?? 10_000,
      lateMs: durationFlag('--late', flags.late) ?? 10,
      dropMs: durationFlag('--drop', flags.drop) ?? 1000,
      maxInFlight: countFlag('--max-in-flight', flags.maxInFlight) ?? 10_000,
      connections: countFlag('--connections', flags.connections) ?? 64,
      faults,
      seed,
      signal: abort.signal,
      ...(tty ? { onProgress: (stats, elapsed) => io.stderr(`\r\x1b[2K${progressLine(elapsed, stats)}`) } : {}),
    });
  } finally {
    process.off('SIGINT', stop);
  }
  if (tty) io.stderr('\r\x1b[2K');
  const verdict = judgeRun(dialect, result.records);
  const summary: LoadSummary = summarise(result, { url: walletUrl, players: players.length, schedule }, verdict, thresholds);
  const cwd = io.cwd ?? process.cwd();
  if (flags.record) writeFileSync(resolve(cwd, flags.record), result.records.map(recordLine).join(''));
  if (flags.html) writeFileSync(resolve(cwd, flags.html), renderHtml(summary));
  io.stdout(flags.json ? `${JSON.stringify(summary, null, 2)}\n` : renderText(summary));
  return summary.ok ? EXIT_PASSED : EXIT_BREACHED;
}

function configOf(flags: LoadFlags, io: LoadIo): AggmockConfig {
  return loadConfig({
    configPath: flags.config,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
    // callbacks.dialect, as every command's --dialect sets it (callbacks.profile would be noted as deprecated).
    flags: wireLayer(flags),
    flagNames: { 'callbacks.dialect': '--dialect', 'callbacks.credentials': '--credential' },
    // A config file's old key is noted where this command writes its other messages.
    onDeprecated: (message) => io.stderr(`${message}\n`),
  });
}

function scaled(s: Schedule, factor: number): Schedule {
  return { startRate: s.startRate * factor, stages: s.stages.map((st) => ({ ...st, rate: st.rate * factor })) };
}

/** `--players`: a count (p1…pN, at most 100000) or ids, as serve and demo read it; default p1…p10. */
function playersOf(text: string | undefined): string[] {
  try {
    return parsePlayers(text ?? '10', 100_000);
  } catch (error) {
    throw new UsageError(`--players: ${messageOf(error)}`);
  }
}

/** `timeout@2%`, `timeout:300ms@1%`, `duplicate@1%`, `duplicate:20ms@1%`, or a rule's JSON. */
export function faultRule(text: string, seed: number): CallbackFaultRule {
  const t = text.trim();
  let input: unknown;
  if (t.startsWith('{')) {
    try {
      input = JSON.parse(t);
    } catch {
      throw new UsageError(`--fault: ${JSON.stringify(text)} is not JSON; expected a callback fault rule or timeout@2%.`);
    }
  } else {
    const m = /^(timeout|duplicate)(?::(\d+)ms)?@(\d+(?:\.\d+)?)%$/.exec(t);
    if (!m)
      throw new UsageError(
        `--fault: expected timeout@<percent>, timeout:<ms>ms@<percent>, duplicate@<percent> or a rule as JSON, e.g. timeout@2%, got ${JSON.stringify(text)}.`,
      );
    const [, kind, after, percent] = m as unknown as [string, 'timeout' | 'duplicate', string | undefined, string];
    input = {
      fault: { kind, ...(after === undefined ? {} : { afterMs: Number(after) }) },
      probability: Number(percent) / 100,
      seed,
    };
  }
  const parsed = callbackFaultRuleSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--fault ${JSON.stringify(text)}: ${issue?.path.join('.') || 'rule'}: ${issue?.message}.`);
  }
  return parsed.data;
}
