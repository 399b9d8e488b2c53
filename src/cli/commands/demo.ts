import type { Command } from 'commander';
import { secureExposure } from '../../admin/exposure.ts';
import { launchAsOperator } from '../../aggregator/vendor/index.ts';
import { callNameOf, capabilitiesOf, exponentOf, judgeReply, replyReadingOf, type StoredEvent } from '../../callbacks/index.ts';
import { type AggmockConfig, dialectOf, rollbackScenarioRefusal, type ScheduleEntry } from '../../config/index.ts';
import type { Discrepancy } from '../../ledger/index.ts';
import { replyOutcome } from '../../ledger/index.ts';
import { createLogger } from '../../log/index.ts';
import { formatMinor } from '../../money/index.ts';
import { startAggmock } from '../../runtime.ts';
import { terminalSafe } from '../../shared/index.ts';
import { devSessionToken, startWallet } from '../../wallet/index.ts';
import { addServerOptions, checkDbPaths, exitWithUsageError, listenOrExit, parsePort, resolveConfig } from '../options.ts';
import { addPlayerOptions, scheduleFor } from './players.ts';
import { onShutdown, readyMessage, type ServeFlags, serveLayer } from './serve.ts';
import { walletDbPath } from './wallet.ts';

interface DemoFlags extends ServeFlags {
  walletPort?: number;
  quiet?: boolean;
}

/** What the demo runs when the config has no schedule of its own: a mix of every kind of round. */
export const DEMO_SCHEDULE: ScheduleEntry[] = [
  { scenario: 'bet-win', every: '2s', players: ['p1', 'p2', 'p3', 'p4', 'p5'], amount: { min: 1, max: 25 } },
  { scenario: 'bet-lose', every: '3s', players: ['p2', 'p6', 'p7'], amount: { min: 0.5, max: 10 } },
  { scenario: 'session', every: '9s', players: ['p8', 'p9'], amount: { min: 0.2, max: 2 }, size: 5 },
  { scenario: 'bet-rollback', every: '7s', players: ['p3', 'p10'], amount: { min: 1, max: 15 } },
  { scenario: 'duplicate-debit', every: '11s', players: ['p4', 'p5'], amount: { min: 1, max: 5 } },
  { scenario: 'insufficient-funds', every: '13s', players: ['p6'], amount: { min: 1, max: 5 } },
  { scenario: 'burst', every: '17s', players: ['p7'], amount: { min: 1, max: 3 }, size: 5 },
  { scenario: 'win-rollback', every: '19s', players: ['p9', 'p10'], amount: { min: 1, max: 10 } },
];

/** The demo's mix for this wire: without a ROLLBACK (Betnex) the rollback rounds are left out, without a rollbackWin the win's. */
export function demoSchedule(config: AggmockConfig): ScheduleEntry[] {
  const wire = capabilitiesOf(config.callbacks);
  const rollsBackWins = wire.operations.includes('rollbackWin');
  return DEMO_SCHEDULE.filter((entry) => !rollbackScenarioRefusal(entry.scenario, wire.name, wire.hasRollback, rollsBackWins));
}

export function registerDemoCommand(program: Command): void {
  const command = program
    .command('demo')
    .description(
      'The whole loop in one command: the aggregator (API, UI, admin), the reference wallet, and a schedule of rounds.',
    );
  addPlayerOptions(addServerOptions(command, { port: 4000 }))
    .option('--wallet-port <port>', 'port of the reference wallet (default: 4001)', parsePort)
    .option('--webhook <url>', 'send callbacks to your own webhook instead of starting the reference wallet')
    .option('--public-url <url>', 'public base URL of launch links and images')
    .option('--quiet', 'do not print a line per callback')
    .action(async (flags: DemoFlags) => {
      let config: AggmockConfig;
      try {
        config = resolveConfig(flags, {
          ...serveLayer(flags),
          auth: { explain: true, ...(serveLayer(flags).auth as object | undefined) },
          ...(flags.walletPort !== undefined ? { wallet: { port: flags.walletPort } } : {}),
        });
      } catch (error) {
        exitWithUsageError(error);
      }
      if (config.schedule.length === 0) config = { ...config, schedule: demoSchedule(config) };
      config = withDemoPlayers(config, flags.players, flags.webhook === undefined);
      const exposure = secureExposure(config);
      config = exposure.config;
      process.stderr.write(exposure.warnings.join('\n'));
      const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);

      checkDbPaths(flags.webhook === undefined ? [config.db, walletDbPath(config.db)] : [config.db]);
      const walletConfig = config;
      const wallet =
        flags.webhook !== undefined
          ? undefined
          : await listenOrExit(
              () =>
                startWallet({
                  config: walletConfig,
                  // The tokens --token names are the ones the reference wallet issued those players.
                  sessions: Object.fromEntries(Object.entries(flags.token ?? {}).map(([player, token]) => [token, player])),
                  dbPath: walletDbPath(walletConfig.db),
                  port: walletConfig.wallet.port,
                  host: walletConfig.host,
                }),
              {
                what: 'the reference wallet',
                host: config.host,
                port: config.wallet.port,
                portFlag: '--wallet-port',
                portKey: 'wallet.port',
              },
            );
      if (wallet)
        config = { ...config, callbacks: withWallet(config.callbacks, wallet.webhookUrl, Object.keys(config.wallet.players)) };

      const print = (line: string) => process.stdout.write(`${line}\n`);
      const started = config;
      const aggmock = await listenOrExit(
        () =>
          startAggmock(started, {
            logger,
            onSettled: flags.quiet ? undefined : (event) => print(callbackLine(event, started)),
            onDiscrepancy: (d) => print(discrepancyLine(d)),
          }),
        { what: 'aggmock', host: config.host, port: config.port, portFlag: '--port', portKey: 'port' },
      );
      const walletLine = wallet
        ? [`  wallet      reference wallet, players ${Object.keys(config.wallet.players).join(', ')}`]
        : [];
      // A vendor dialect: the first player's game launched through the vendor's own launch route (the one session path).
      const player = Object.keys(config.wallet.players)[0];
      const launched = wallet && player ? await launchAsOperator(config, aggmock.url, aggmock.catalog, player) : undefined;
      if (launched)
        walletLine.push(
          'url' in launched
            ? `  play        ${launched.url}   (${player}, launched through ${launched.route} as the operator's client does)`
            : `  play        no launch through the vendor's route: ${launched.error}`,
        );
      // Before the banner: whoever reads "Press Ctrl-C to stop" may signal at once, and must get a clean stop.
      onShutdown(async () => {
        await aggmock.close();
        await wallet?.close();
      });
      process.stdout.write(`${readyMessage(config, aggmock.url, walletLine)}\n`);
    });
}

/**
 * The demo plays only the players it has: the ones --players names (the reference wallet opens any
 * it lacks at 1000), else the reference wallet's; with your own --webhook and no --players, the
 * schedule's own.
 */
export function withDemoPlayers(config: AggmockConfig, players: string[] | undefined, ownWallet: boolean): AggmockConfig {
  const known = players ?? (ownWallet ? Object.keys(config.wallet.players) : undefined);
  if (known === undefined) return config;
  const opened = Object.fromEntries(known.filter((p) => !Object.hasOwn(config.wallet.players, p)).map((p) => [p, 1000]));
  return {
    ...config,
    schedule: scheduleFor(config.schedule, known),
    wallet: ownWallet ? { ...config.wallet, players: { ...config.wallet.players, ...opened } } : config.wallet,
  };
}

/** One line per callback: time, type, player, amount, status, the balance the wallet replied. */
export function callbackLine(event: StoredEvent, config: AggmockConfig): string {
  const time = new Date(event.settledAt ?? Date.now()).toISOString().slice(11, 19);
  const type = callNameOf(config.callbacks, event).padEnd(8);
  const exponent = exponentOf(config.callbacks, event.currency);
  const outcome = replyOutcome(event);
  const judged = event.reply ? judgeReply(event.reply, replyReadingOf(config.callbacks, event)) : undefined;
  const said = judged?.error ?? judged?.message;
  const detail =
    judged?.balance.kind === 'ok'
      ? `balance ${formatMinor(judged.balance.minor, exponent)}`
      : (said ?? event.error ?? (event.reply ? `HTTP ${event.reply.status}` : ''));
  const status = outcome === 'accepted' ? event.status : `${event.status}${said ? ` ${said}` : ''}`;
  const amount = formatMinor(event.amountMinor, exponent);
  // The wallet wrote `said` and `detail`: no escape sequence of theirs reaches the terminal.
  return terminalSafe(
    `${time}  ${type} ${event.playerId.padEnd(4)} ${amount.padStart(9)}  ${status.padEnd(10)} ${detail}  ${event.source}`,
    { oneLine: true },
  );
}

/**
 * The callbacks settings aimed at the reference wallet: its URL (a vendor dialect's base URL), and
 * in a dialect that carries session tokens, the tokens it issued its players (unless configured).
 */
export function withWallet(
  callbacks: AggmockConfig['callbacks'],
  webhookUrl: string,
  players: string[],
): AggmockConfig['callbacks'] {
  const dialect = dialectOf(callbacks);
  if (dialect.session.token === 'none') return { ...callbacks, webhookUrl };
  const tokens = Object.fromEntries(players.map((id) => [id, devSessionToken(id, dialect)]));
  return { ...callbacks, webhookUrl, sessionTokens: { ...tokens, ...callbacks.sessionTokens } };
}

export function discrepancyLine(d: Discrepancy): string {
  return terminalSafe(`!! discrepancy ${d.kind} for ${d.playerId}: ${d.message}`, { oneLine: true });
}
