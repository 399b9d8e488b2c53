import { basename, dirname, resolve, sep } from 'node:path';
import { type Command, Option } from 'commander';
import { secureExposure } from '../../admin/exposure.ts';
import { operatorBannerLine } from '../../aggregator/vendor/index.ts';
import { type AggmockConfig, DEV_API_KEY, DEV_SECRET, dialectOf, type SigningConfig } from '../../config/index.ts';
import { headerSchemeOf } from '../../dialects/capabilities.ts';
import { hooksBannerLine } from '../../dialects/index.ts';
import { createLogger } from '../../log/index.ts';
import { startAggmock } from '../../runtime.ts';
import { parseScheduleFlag } from '../../schedule/index.ts';
import { maskedUrl } from '../../shared/secrets.ts';
import { schemeHeaders, toWhsec } from '../../signing/index.ts';
import { servedAtWebhook } from '../../wallet/index.ts';
import { addServerOptions, checkDbPaths, exitWithUsageError, listenOrExit, resolveConfig, type ServerFlags } from '../options.ts';
import { addPlayerOptions, type PlayerFlags, scheduleFor, tokenLayer } from './players.ts';

export interface ServeFlags extends ServerFlags, PlayerFlags {
  webhook?: string;
  publicUrl?: string;
  explainAuth?: boolean;
  auth?: string;
  schedule?: string;
}

export function registerServeCommand(program: Command): void {
  const command = program
    .command('serve')
    .description('Run the aggregator: REST API (at / and /casino), play pages, admin API, OpenAPI and docs.');
  addPlayerOptions(addServerOptions(command, { port: 4000 }))
    .option('--webhook <url>', 'the integrator webhook callbacks go to (default: http://127.0.0.1:4001/callback/webhook)')
    .option('--public-url <url>', 'public base URL of launch links and images, e.g. https://games.example.test')
    .addOption(new Option('--auth <mode>', 'inbound auth mode').choices(['either', 'hmac', 'api-key', 'none']))
    .option('--explain-auth', 'show the exact string that should have been signed in 401 replies')
    .option('--schedule <entries>', 'run scenarios in the background, e.g. "bet-win@2s,session@*/10 * * * * *;size=20"')
    .action(async (flags: ServeFlags) => {
      let config: AggmockConfig;
      try {
        config = resolveConfig(flags, serveLayer(flags));
      } catch (error) {
        exitWithUsageError(error);
      }
      if (flags.players) config = { ...config, schedule: scheduleFor(config.schedule, flags.players) };
      const exposure = secureExposure(config);
      config = exposure.config;
      process.stderr.write(exposure.warnings.join('\n'));
      const logger = createLogger(config.logLevel);
      checkDbPaths([config.db]);
      const started = config;
      const aggmock = await listenOrExit(() => startAggmock(started, { logger }), {
        what: 'aggmock',
        host: config.host,
        port: config.port,
        portFlag: '--port',
        portKey: 'port',
      });
      // Before the banner: whoever reads "Press Ctrl-C to stop" may signal at once, and must get a clean stop.
      onShutdown(async () => {
        await aggmock.close();
      });
      process.stdout.write(readyMessage(config, aggmock.url));
    });
}

/** Command-specific flags shaped like the config. */
export function serveLayer(flags: ServeFlags): Record<string, unknown> {
  return {
    ...(flags.schedule ? { schedule: parseScheduleFlag(flags.schedule) } : {}),
    // An empty value is refused by the schema, not dropped: `--webhook ""` must not run with the default.
    ...(flags.publicUrl !== undefined ? { publicUrl: flags.publicUrl } : {}),
    ...(flags.webhook !== undefined || flags.token !== undefined
      ? {
          callbacks: {
            ...(flags.webhook === undefined ? {} : { webhookUrl: flags.webhook }),
            ...(flags.token === undefined ? {} : { sessionTokens: tokenLayer(flags) }),
          },
        }
      : {}),
    ...(flags.auth || flags.explainAuth
      ? { auth: { ...(flags.auth ? { mode: flags.auth } : {}), ...(flags.explainAuth ? { explain: true } : {}) } }
      : {}),
  };
}

export function readyMessage(config: AggmockConfig, url: string, extra: string[] = []): string {
  const base = config.publicUrl ?? url;
  const inbound = config.auth.signing;
  const key = config.auth.apiKeys[0] ?? DEV_API_KEY;
  return [
    `aggmock is listening on ${url}`,
    `  web UI      ${base}/   (games, launch, play; deliveries: ${base}/ui/deliveries)`,
    `  providers   ${base}/getallproviders        (also under ${base}/casino/…)`,
    `  games       ${base}/getallgamesandprovider?provider=PGSOFT`,
    `  launch      POST ${base}/getgameurl`,
    `  docs        ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    ...(operatorBannerLine(config, base) === undefined ? [] : [operatorBannerLine(config, base) as string]),
    `  auth        ${config.auth.mode}: header ${config.auth.apiKeyHeaders[0]}: ${shown(key, DEV_API_KEY)}  or  ${inbound.scheme} HMAC with secret ${shownSecret(inbound)}`,
    callbacksLine(config),
    config.api.journal
      ? `  requests    ${base}/ui/requests   (every request your client sent, and faults on demand: ${base}/__admin/requests, ${base}/__admin/faults)`
      : `  requests    not journaled (api.journal is off); faults on demand: ${base}/__admin/faults`,
    `  admin       ${base}/__admin/deliveries   ${base}/__admin/discrepancies${config.admin.token ? '   (bearer token required)' : ''}`,
    `  data        ${dataLine(config)}`,
    ...(hooksBannerLine() === undefined ? [] : [`  ${hooksBannerLine()}`]),
    ...extra,
    ...(config.schedule.length > 0
      ? [`  schedule    ${config.schedule.map((e) => `${e.scenario}@${e.every ?? e.cron}`).join(', ')}`]
      : []),
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}

/** A credential as the banner prints it: the built-in development default in full, any other masked. */
export function shown(value: string, devDefault: string): string {
  return value === devDefault ? value : `${'*'.repeat(8)} (${value.length} characters, masked)`;
}

/** The signing secret as a banner prints it (the dev default in full, in the scheme's own form; any other masked). */
export function shownSecret(signing: SigningConfig): string {
  const secret = signing.secrets[0] ?? '';
  if (secret !== DEV_SECRET) return shown(secret, DEV_SECRET);
  return signing.scheme === 'standard-webhooks' ? toWhsec(secret) : secret;
}

/** Where callbacks go and how they are signed: aggmock's header schemes, or the dialect's own recipe and credentials. */
function callbacksLine(config: AggmockConfig): string {
  const dialect = dialectOf(config.callbacks);
  const { webhookUrl, signing } = config.callbacks;
  const shown = maskedUrl(webhookUrl);
  const where = servedAtWebhook(dialect) ? shown : `${shown} (the wallet's base URL), in the ${dialect.name} dialect`;
  const recipe = dialect.signing;
  if (recipe.algorithm === 'scheme')
    return `  callbacks   → ${where}, ${signedWith({ ...signing, scheme: headerSchemeOf(dialect, signing.scheme) })}`;
  if (recipe.algorithm === 'none') return `  callbacks   → ${where}, unsigned (${dialect.name}: credentials in the calls)`;
  return `  callbacks   → ${where}, signed ${recipe.algorithm} with its credentials`;
}

/** `signed timestamped (HMAC-SHA256) in X-Signature with secret aggmock-dev-secret`. */
function signedWith(signing: SigningConfig): string {
  const headers = schemeHeaders(signing.scheme, signing.headers).join(', ');
  return `signed ${signing.scheme} (HMAC-SHA256) in ${headers} with secret ${shownSecret(signing)}`;
}

/** Where the databases are: the data folder, or memory. */
function dataLine(config: AggmockConfig): string {
  if (config.db === ':memory:') return 'in memory (--db :memory:): nothing is written to disk';
  const folder = resolve(config.dataDir);
  const db = resolve(config.db);
  return dirname(db) === folder
    ? `${folder}${sep}   (database ${basename(db)})`
    : `${db}   (--db, outside the data folder ${folder})`;
}

/** Runs `stop` once on Ctrl-C or SIGTERM, then exits; a second Ctrl-C exits at once. */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write(`\n${signal}: shutting down…\n`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`aggmock: error while shutting down: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
