import { dirname, join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type AggmockConfig, credentialsOf, DEV_API_KEY, dialectOf, playerOpening } from '../../config/index.ts';
import { headerSchemeOf } from '../../dialects/capabilities.ts';
import { credentialsCarried, type Dialect } from '../../dialects/index.ts';
import { exposureOf } from '../../http/exposure.ts';
import { currencyExponent } from '../../money/index.ts';
import { devSessionToken, servedAtWebhook, startWallet, WALLET_FAULTS, type WalletFault } from '../../wallet/index.ts';
import { addServerOptions, checkDbPaths, exitWithUsageError, listenOrExit, resolveConfig, type ServerFlags } from '../options.ts';
import { onShutdown, shown, shownSecret } from './serve.ts';

interface WalletFlags extends ServerFlags {
  fault?: WalletFault;
  testEndpoints?: boolean;
  slowMs?: number;
  flakyRate?: number;
}

/** The wallet keeps its own SQLite file beside aggmock's state (`.aggmock/wallet.db` by default). */
export function walletDbPath(aggmockDb: string): string {
  return aggmockDb === ':memory:' ? ':memory:' : join(dirname(aggmockDb), 'wallet.db');
}

export function registerWalletCommand(program: Command): void {
  const command = program
    .command('wallet')
    .description(
      "Run the reference integrator wallet: POST /callback/webhook (or a vendor dialect's paths under its base URL with --profile), done right (or with one --fault, done wrong).",
    );
  addServerOptions(command, { port: 4001 })
    .addOption(new Option('--fault <name>', 'switch on one realistic bug, to test a harness').choices(WALLET_FAULTS))
    .option('--test-endpoints', 'expose POST /__state (Pact provider states) and GET /__players/:id; never on a real wallet')
    .option('--slow-ms <ms>', 'with --fault slow: reply delay (default 12000)', (v) => positiveNumber('--slow-ms', v))
    .option('--flaky-rate <r>', 'with --fault flaky: share of requests answered 500 (default 0.3)', (v) =>
      positiveNumber('--flaky-rate', v),
    )
    .addHelpText(
      'after',
      `\nPlayers come from config wallet.players (default p1…p10 with 1000.00 each). It verifies signatures with\ncallbacks.signing (default scheme timestamped, secret aggmock-dev-secret). The database file is wallet.db\nbeside --db (default .aggmock/wallet.db).`,
    )
    .action(async (flags: WalletFlags) => {
      let config: AggmockConfig;
      try {
        const { port, ...rest } = flags;
        config = resolveConfig(rest, port !== undefined ? { wallet: { port } } : {}, { 'wallet.port': '--port' });
      } catch (error) {
        exitWithUsageError(error);
      }
      checkDbPaths([walletDbPath(config.db)]);
      const testEndpoints = flags.testEndpoints ?? config.wallet.testEndpoints;
      process.stderr.write(walletExposureWarning(config, testEndpoints));
      const started = config;
      const wallet = await listenOrExit(
        () =>
          startWallet({
            config: started,
            dbPath: walletDbPath(started.db),
            port: started.wallet.port,
            host: started.host,
            ...(flags.fault ? { fault: flags.fault } : {}),
            testEndpoints,
            // Left out, a fault's default applies (faults.ts).
            faultOptions: { slowMs: flags.slowMs, flakyRate: flags.flakyRate },
          }),
        { what: 'the reference wallet', host: config.host, port: config.wallet.port, portFlag: '--port', portKey: 'wallet.port' },
      );
      // Before the banner: whoever reads "Press Ctrl-C to stop" may signal at once, and must get a clean stop.
      onShutdown(() => wallet.close());
      process.stdout.write(walletReadyMessage(config, wallet.webhookUrl, flags));
    });
}

export function walletReadyMessage(config: AggmockConfig, webhookUrl: string, flags: WalletFlags): string {
  const players = Object.keys(config.wallet.players);
  const shown = players
    .slice(0, 4)
    .map((id) => openingText(config, id))
    .join(', ');
  const dialect = dialectOf(config.callbacks);
  const headerSigned = dialect.signing.algorithm === 'scheme' || dialect.signing.algorithm === 'none';
  return [
    servedAtWebhook(dialect)
      ? `reference wallet listening on ${webhookUrl}`
      : `reference wallet listening on ${webhookUrl} (base URL of the ${dialect.name} dialect)`,
    `  players     ${shown}${players.length > 4 ? `, … (${players.length} in all)` : ''}`,
    ...(!servedAtWebhook(dialect) || !headerSigned ? dialectLines(config) : [authLine(config, dialect)]),
    ...(flags.testEndpoints || config.wallet.testEndpoints
      ? [`  test        POST ${new URL('/__state', webhookUrl)}  GET ${new URL('/__players/p1', webhookUrl)}`]
      : []),
    ...(flags.fault ? [`  FAULT       ${flags.fault}: this wallet is deliberately broken`] : []),
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}

/** `p1=1000.00`, or `jp=5000 JPY` for a player in another currency than the wallet's. */
function openingText(config: AggmockConfig, id: string): string {
  const { balance, currency } = playerOpening(config.wallet, id) ?? { balance: 0, currency: config.wallet.currency };
  const decimals = currencyExponent(currency, config.callbacks.currencies) ?? 2;
  return `${id}=${balance.toFixed(decimals)}${currency === config.wallet.currency ? '' : ` ${currency}`}`;
}

/** How callbacks to the webhook URL itself prove they come from the aggregator: aggmock's header schemes, or an API key in the body (betnex). */
function authLine(config: AggmockConfig, dialect: Dialect): string {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none') {
    return credentialsCarried(dialect, 'bet').includes('apiKey')
      ? `  api key     ${shown(config.callbacks.apiKey, DEV_API_KEY)} in the body (dialect ${dialect.name}, no signature)`
      : `  signatures  none (dialect ${dialect.name})`;
  }
  return `  signatures  ${headerSchemeOf(dialect, config.callbacks.signing.scheme)} with secret ${shownSecret(config.callbacks.signing)}`;
}

/**
 * A dialect with paths or a signing recipe: its calls and their paths, how they are verified (an RSA dialect's public key is
 * the one of the configured private key: `aggmock profiles show <name>`), the session tokens issued.
 */
function dialectLines(config: AggmockConfig): string[] {
  const dialect = dialectOf(config.callbacks);
  const calls = Object.entries(dialect.operations).map(([op, def]) => `${op} ${def?.method} ${def?.path || '/'}`);
  const recipe = dialect.signing;
  const credentials = credentialsOf(config.callbacks);
  const given = (name: string) => Object.hasOwn(config.callbacks.credentials, name);
  const named = Object.keys(credentials).map((name) => `${name} ${given(name) ? '(given)' : '(development default)'}`);
  const verifies =
    recipe.algorithm === 'none'
      ? 'no signature; the credentials the calls carry'
      : recipe.algorithm === 'rsa-sha256' || recipe.algorithm === 'ecdsa-sha256'
        ? `${recipe.algorithm} with the public key of ${recipe.key} (print it: aggmock profiles show ${dialect.name})`
        : `${recipe.algorithm}`;
  const first = Object.keys(config.wallet.players)[0];
  return [
    `  calls       ${calls.join(', ')}`,
    `  verifies    ${verifies}`,
    ...(named.length > 0 ? [`  credentials ${named.join(', ')}`] : []),
    ...(dialect.session.token !== 'none' && first !== undefined
      ? [`  sessions    each player holds the token ${devSessionToken('<id>')} (e.g. ${devSessionToken(first, dialect)})`]
      : []),
  ];
}

/** Bound beyond loopback: anyone on the network can send it callbacks, and its test endpoints want the admin token. */
function walletExposureWarning(config: AggmockConfig, testEndpoints: boolean): string {
  const exposed = exposureOf({ host: config.host });
  if (exposed === undefined) return '';
  return [
    `WARNING: the reference wallet is ${exposed}: anyone on this network can send it callbacks.`,
    ...(testEndpoints
      ? [
          config.admin.token
            ? '         Its test endpoints (/__state, /__players) need "Authorization: Bearer <admin.token>".'
            : '         Its test endpoints (/__state, /__players) are refused: set admin.token (AGGMOCK_ADMIN_TOKEN) to use them.',
        ]
      : []),
    '',
  ].join('\n');
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`${flag}: expected a non-negative number, got ${JSON.stringify(value)}.`);
  return n;
}
