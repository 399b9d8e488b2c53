import { type Command, Option } from 'commander';
import { kindOf } from '../../admin/money.ts';
import { urlUnder } from '../../callbacks/call.ts';
import { openDatabase } from '../../callbacks/db.ts';
import { CallbackRequestError, createCallbackEngine } from '../../callbacks/engine.ts';
import type { Attempt, EventKind, StoredEvent } from '../../callbacks/events.ts';
import { type AggmockConfig, ConfigError, loadConfig } from '../../config/index.ts';
import { formatMinor, parseMajorString } from '../../money/index.ts';
import { roundWireOf, singleCall } from '../../scenarios/round.ts';
import { parseJsonOr, terminalSafe } from '../../shared/index.ts';
import { SIGNING_SCHEMES } from '../../signing/index.ts';
import {
  addWireOptions,
  type CommandIo,
  collect,
  dbPathProblem,
  dialectFlag,
  dialectFlagName,
  EXIT_USAGE,
  PROCESS_IO,
  seedValue,
  UsageError,
  usageExit,
  type WireFlags,
} from '../options.ts';

/** `aggmock send`: one callback through the real engine, and everything about it printed. */

/** Delays before each attempt of a one-off send: quick, so a person at a terminal is not kept waiting. */
export const SEND_RETRY_SCHEDULE = [0, 500, 2_000];

export const EXIT_DELIVERED = 0;
export const EXIT_NOT_DELIVERED = 1;

export interface SendFlags extends WireFlags {
  player?: string;
  amount?: string;
  tx?: string;
  ref?: string;
  token?: string;
  round?: string;
  to?: string;
  secret?: string[];
  scheme?: string;
  config?: string;
  seed?: string;
  db?: string;
  json?: boolean;
}

export interface SendIo extends CommandIo {
  /** Tests shorten the retries further. */
  retrySchedule?: number[];
}

/**
 * Registers `aggmock send <debit|credit|rollback>`.
 *
 * @example
 * aggmock send debit --player p1 --amount 5
 * aggmock send rollback --player p1 --ref tx_… --amount 5 --to http://127.0.0.1:4001/callback/webhook
 */
export function registerSendCommand(program: Command, io: SendIo = PROCESS_IO): Command {
  return addWireOptions(
    program
      .command('send')
      .description('Send ONE signed callback (DEBIT, CREDIT or ROLLBACK) to a webhook and print the request and the reply.')
      .argument('<type>', 'debit, credit or rollback (or a configured type string such as BET)'),
  )
    .option('--player <id>', 'player id (required)')
    .option('--amount <major>', "amount in major units, e.g. 5 or 10.50 (required; for a rollback, the DEBIT's amount)")
    .option('--tx <id>', 'transactionId (default: the next id of the seeded sequence)')
    .option(
      '--ref <debitTx>',
      'rollback: transactionId of the DEBIT to reverse (required for a rollback); credit: the DEBIT the win settles',
    )
    .option('--token <token>', "the operator's session token the call carries (a vendor dialect's token field)")
    .option('--round <id>', 'the round id the call belongs to')
    .option(
      '--to <url>',
      "webhook URL, or the wallet's base URL for a dialect with paths (default: config callbacks.webhookUrl, http://127.0.0.1:4001/callback/webhook)",
    )
    .option('--secret <s>', 'HMAC secret; repeat for several (rotation)', collect)
    .addOption(new Option('--scheme <scheme>', 'signature scheme').choices([...SIGNING_SCHEMES]))
    .option('-c, --config <file>', 'config file (default: ./aggmock.config.json when it exists)')
    .option('--seed <seed>', 'seed of the transaction id sequence (default: 42)')
    .option('--db <file>', 'SQLite outbox to record the delivery in (default: in memory, forgotten on exit)')
    .option('--json', 'print one JSON object instead of text')
    .exitOverride(usageExit)
    .action(async (type: string, flags: SendFlags) => {
      process.exitCode = await runSend(type, flags, io);
    });
}

/**
 * The whole command, testable without a process: returns the exit code (0 delivered, 1 rejected
 * or failed, 2 usage error) and writes to `io`.
 */
export async function runSend(type: string, flags: SendFlags, io: SendIo = PROCESS_IO): Promise<number> {
  let prepared: Prepared;
  try {
    prepared = prepare(type, flags, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.stderr(`aggmock send: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  return deliver(prepared, flags, io);
}

interface Prepared {
  config: AggmockConfig;
  kind: EventKind;
  playerId: string;
  amountMinor: number;
  dbPath: string;
}

function prepare(type: string, flags: SendFlags, io: SendIo): Prepared {
  const signing = {
    ...(flags.secret?.length ? { secrets: flags.secret } : {}),
    ...(flags.scheme ? { scheme: flags.scheme } : {}),
  };
  const callbacks: Record<string, unknown> = {
    ...(flags.to !== undefined ? { webhookUrl: flags.to } : {}),
    ...(dialectFlag(flags) ? { dialect: dialectFlag(flags) } : {}),
    ...(flags.credential ? { credentials: flags.credential } : {}),
    ...(Object.keys(signing).length > 0 ? { signing } : {}),
  };
  const loaded = loadConfig({
    configPath: flags.config,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
    flags: {
      ...(flags.seed !== undefined ? { seed: seedValue(flags.seed) } : {}),
      ...(Object.keys(callbacks).length ? { callbacks } : {}),
    },
    flagNames: {
      seed: '--seed',
      'callbacks.webhookUrl': '--to',
      'callbacks.dialect': dialectFlagName(flags),
      'callbacks.credentials': '--credential',
      'callbacks.signing.secrets': '--secret',
      'callbacks.signing.scheme': '--scheme',
    },
  });
  const config: AggmockConfig = {
    ...loaded,
    callbacks: {
      ...loaded.callbacks,
      retrySchedule: io.retrySchedule ?? SEND_RETRY_SCHEDULE,
      jitter: 0,
      timeScale: 1,
      // One delivery means one: a failed DEBIT is reported, not followed by a ROLLBACK.
      rollbackFailedDebits: false,
    },
  };
  const kind = kindOf(type, config, (expected) => new UsageError(`<type>: ${expected}, got ${JSON.stringify(type)}.`));
  if (!flags.player?.trim()) throw new UsageError('--player: expected the player id, e.g. --player p1.');
  if (flags.amount === undefined)
    throw new UsageError(`--amount: expected an amount in major units, e.g. --amount 5 or --amount 10.50.`);
  const amountMinor = parseMajorString(flags.amount);
  if (amountMinor === undefined) {
    throw new UsageError(
      `--amount: expected an amount in major units with at most 2 decimals, e.g. 5 or 10.50, got ${JSON.stringify(flags.amount)}.`,
    );
  }
  if (kind === 'rollback' && !flags.ref)
    throw new UsageError('--ref: a rollback needs the transactionId of the DEBIT it reverses, e.g. --ref tx_….');
  if (kind === 'debit' && flags.ref)
    throw new UsageError(`--ref: only a rollback or a credit references a DEBIT; drop --ref or send "rollback" or "credit".`);
  const dbPath = flags.db ?? ':memory:';
  const dbProblem = dbPathProblem(dbPath, io.cwd ?? process.cwd());
  if (dbProblem) throw new UsageError(`--db: ${dbProblem}.`);
  return { config, kind, playerId: flags.player.trim(), amountMinor, dbPath };
}

async function deliver(p: Prepared, flags: SendFlags, io: SendIo): Promise<number> {
  // The engine's retry timers are unref'd (a server's must not hold the process open): without a
  // ref'd handle, a webhook that is down left nothing pending and the process exited 0, silent.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    return await deliverOnce(p, flags, io);
  } finally {
    clearInterval(keepAlive);
  }
}

async function deliverOnce(p: Prepared, flags: SendFlags, io: SendIo): Promise<number> {
  const db = openDatabase(p.dbPath);
  const engine = createCallbackEngine({ config: p.config, db });
  const attempts: Attempt[] = [];
  engine.onAttempt((attempt) => attempts.push(attempt));
  let event: StoredEvent;
  try {
    engine.start();
    // Planned as every surface plans a call of a round: a win names the bet --ref gives.
    const enqueued = engine.enqueue(
      singleCall(
        roundWireOf(p.config.callbacks),
        p.kind,
        { playerId: p.playerId, source: 'cli:send', ...(flags.token ? { sessionToken: flags.token } : {}) },
        {
          transactionId: flags.tx || engine.nextTransactionId(),
          amountMinor: p.amountMinor,
          betTransactionId: flags.ref || undefined,
          roundId: flags.round || undefined,
        },
      ),
    );
    event = await enqueued.settled;
  } catch (error) {
    await engine.stop({ deadlineMs: 0 });
    db.close();
    if (error instanceof CallbackRequestError) {
      io.stderr(`aggmock send: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  await engine.stop();
  db.close();

  const code = event.status === 'delivered' ? EXIT_DELIVERED : EXIT_NOT_DELIVERED;
  if (flags.json) {
    io.stdout(
      `${JSON.stringify({ ok: code === EXIT_DELIVERED, event, attempts: attempts.map(describeAttempt(event)) }, null, 2)}\n`,
    );
  } else {
    io.stdout(renderText(event, attempts));
  }
  return code;
}

function describeAttempt(event: StoredEvent) {
  return (a: Attempt) => ({
    n: a.n,
    request: {
      method: a.requestMethod ?? 'POST',
      url: urlUnder(event.url, a.requestPath ?? ''),
      headers: a.requestHeaders,
      body: a.requestBody,
    },
    reply:
      a.responseStatus === undefined
        ? null
        : { status: a.responseStatus, body: parseJsonOr(a.responseBody ?? '', a.responseBody ?? ''), latencyMs: a.latencyMs },
    ...(a.error ? { error: a.error } : {}),
    outcome: a.outcome,
  });
}

/** The request and reply of every attempt, then one line that says how it ended. */
export function renderText(event: StoredEvent, attempts: readonly Attempt[]): string {
  const lines: string[] = [];
  for (const a of attempts) {
    if (attempts.length > 1) lines.push(`# attempt ${a.n} of ${attempts.length}`);
    lines.push(`→ ${a.requestMethod ?? 'POST'} ${urlUnder(event.url, a.requestPath ?? '')}`);
    for (const [name, value] of Object.entries(a.requestHeaders)) lines.push(`  ${name}: ${value}`);
    if (a.requestBody !== '') lines.push(`  ${a.requestBody}`);
    if (a.responseStatus === undefined) {
      lines.push(`← no reply after ${a.latencyMs.toFixed(1)} ms: ${a.error ?? 'unknown error'}`);
    } else {
      lines.push(`← ${a.responseStatus} (${a.latencyMs.toFixed(1)} ms)`);
      lines.push(`  ${a.responseBody ?? ''}`);
    }
    lines.push('');
  }
  const what = `${event.kind.toUpperCase()} ${event.transactionId} for ${event.playerId}, amount ${formatMinor(event.amountMinor)}`;
  const tries = `${event.attemptCount} attempt${event.attemptCount === 1 ? '' : 's'}`;
  if (event.status === 'delivered') lines.push(`delivered: ${what} (${tries})`);
  else if (event.status === 'rejected') lines.push(`rejected: ${what} (${tries}): ${event.error ?? 'the wallet refused it'}`);
  else lines.push(`failed: ${what} (${tries}): ${event.error ?? 'no reply'}`);
  // Each line is ours; the wallet's text inside one (its reply, its error message) cannot move the cursor or start a line.
  return `${lines.map((line) => terminalSafe(line, { oneLine: true })).join('\n')}\n`;
}
