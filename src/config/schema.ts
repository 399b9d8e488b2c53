import { z } from 'zod';
import { operatorApiOf, operatorRoutePaths } from '../dialects/builtin/operator/index.ts';
import {
  builtinDialect,
  type DefaultWireSettings,
  DIALECT_NAMES,
  type Dialect,
  defaultWireDialect,
  dialectOfProfile,
  dialectSchema,
  isBuiltinDialect,
} from '../dialects/index.ts';
import { operatorSettingsSchema } from '../dialects/operator.ts';
import { currencyExponent } from '../money/index.ts';
import { profileDefinitionSchema } from '../profiles/index.ts';
import { DEFAULT_HEADER_NAMES, DEFAULT_TOLERANCE_SECONDS, SIGNING_SCHEMES, type SigningKeys } from '../signing/index.ts';
import { parseDuration } from './duration.ts';
import { callbackFaultRulesSchema, faultRouteRefusal, faultRulesSchema } from './faults.ts';

/*
 * Every object is strict: an unknown key (a typo, a setting of another version) is refused with
 * the nearest valid key, never silently ignored (see keys.ts).
 */

/** Out-of-the-box credentials, the same in both directions. Printed at start; any other secret is masked. */
export const DEV_API_KEY = 'aggmock-dev-key';
export const DEV_SECRET = 'aggmock-dev-secret';

/** A duration as "2s", "5m", "1h" or milliseconds; parsed to milliseconds. */
export const durationMs = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      // describeIssues adds the value: said once.
      message: 'expected a duration such as "250ms", "2s", "5m" or "1h"',
    });
    return z.NEVER;
  }
  return ms;
});

/**
 * A port: a number, or a string of digits (env). Not `z.coerce`: it reads "" and " " as 0 (any free
 * port), so `AGGMOCK_PORT=" "` would silently listen on a random port.
 */
const port = z.preprocess(
  (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
  z.number({ error: 'expected a port number from 0 to 65535 (0 = any free port)' }).int().min(0).max(65535),
);

/** An http(s) URL; the message says what a valid one looks like (zod's own is only "Invalid URL"). */
function httpUrl(example: string) {
  return z.url({ protocol: /^https?$/, error: `expected an http:// or https:// URL such as "${example}"` });
}

export const signingSchema = z.strictObject({
  scheme: z.enum(SIGNING_SCHEMES).default('timestamped'),
  secrets: z.array(z.string().min(1)).min(1).default([DEV_SECRET]),
  headers: z
    .strictObject({
      signature: z.string().min(1).default(DEFAULT_HEADER_NAMES.signature),
      webhookId: z.string().min(1).default(DEFAULT_HEADER_NAMES.webhookId),
      webhookTimestamp: z.string().min(1).default(DEFAULT_HEADER_NAMES.webhookTimestamp),
      webhookSignature: z.string().min(1).default(DEFAULT_HEADER_NAMES.webhookSignature),
    })
    .prefault({}),
  toleranceSeconds: z.coerce.number().int().min(1).default(DEFAULT_TOLERANCE_SECONDS),
});
export type SigningConfig = z.infer<typeof signingSchema>;

/** The signing module's options from a config section (`headers` in config = `headerNames` in code). */
export function signingKeys(config: SigningConfig): SigningKeys & { toleranceSeconds: number } {
  return {
    scheme: config.scheme,
    secrets: config.secrets,
    headerNames: config.headers,
    toleranceSeconds: config.toleranceSeconds,
  };
}

export const AUTH_MODES = ['either', 'hmac', 'api-key', 'none'] as const;

export const authSchema = z.strictObject({
  mode: z.enum(AUTH_MODES).default('either'),
  apiKeys: z.array(z.string().min(1)).min(1).default([DEV_API_KEY]),
  apiKeyHeaders: z.array(z.string().min(1)).min(1).default(['x-betnex-key', 'x-turnkeyxgaming-key', 'x-rapidapi-key']),
  signing: signingSchema.prefault({}),
  /** Show the exact string that should have been signed in a 401. */
  explain: z.boolean().default(false),
});

export const catalogSchema = z.strictObject({
  providers: z.coerce.number().int().min(1).max(1000).default(30),
  games: z.coerce.number().int().min(0).max(1_000_000).default(1500),
  /** A JSON fixture that extends or replaces the generated catalog. */
  fixture: z.string().min(1).optional(),
});

export const EXTRA_FIELDS = ['roundId', 'gameId', 'currency', 'timestamp', 'bonus'] as const;

/**
 * `callbacks.dialect` (and its old name `callbacks.profile`): a built-in dialect by name, or a
 * definition (the loader reads a dialect or profile file into one). A profile file's definition
 * (no `operations`) is converted to its dialect here, once: nothing after the configuration knows
 * it was a profile. Its issues are reported under the key that was set (`callbacks.dialect.<field>`).
 */
const dialectSetting = z
  .unknown()
  .optional()
  .transform((value, ctx): string | Dialect | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'string') {
      if (isBuiltinDialect(value)) return value;
      ctx.addIssue({
        code: 'custom',
        message: `expected a built-in dialect (${DIALECT_NAMES.join(', ')}) or the path of a dialect or profile file ending in .json`,
      });
      return z.NEVER;
    }
    const isDialect = typeof value === 'object' && value !== null && Object.hasOwn(value, 'operations');
    const parsed = isDialect ? dialectSchema.safeParse(value) : profileDefinitionSchema.safeParse(value);
    if (parsed.success) return isDialect ? (parsed.data as Dialect) : dialectOfProfile(parsed.data as never);
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

/**
 * `callbacks.credentials`: a vendor dialect's credentials by the vendor's names (`secretKey`,
 * `privateKey` as PEM text or a file path, `authToken`…). Which names a dialect takes, and the
 * development values it has, are checked when the dialect is resolved (config/dialect.ts).
 */
const credentialsSetting = z
  .record(
    z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'expected a credential name such as "secretKey"'),
    z.string().min(1).max(16_384),
  )
  .default({});

/** Currency code → decimals of its major unit, for currencies ISO 4217 does not list (crypto, say). */
const currenciesSetting = z
  .record(
    z.string().regex(/^[A-Z0-9]{2,8}$/, 'expected a currency code of 2–8 capital letters or digits'),
    z.number().int().min(0).max(8),
  )
  .default({});

const callbacksObjectSchema = z.strictObject({
  /** The wire: a built-in dialect ("default", "betnex", "hub88"…) or a dialect or profile file. */
  dialect: dialectSetting,
  /** The old name of `dialect`, still read (with a deprecation note from the loader). */
  profile: dialectSetting,
  credentials: credentialsSetting,
  /**
   * Player id → the session token the wallet issued, carried by a call that has none of its own (a
   * scheduled or admin scenario; a launch's own token wins). `aggmock demo` fills it in with the
   * reference wallet's development tokens.
   */
  sessionTokens: z.record(z.string().min(1).max(256), z.string().min(1).max(1024)).default({}),
  /** The value of a dialect's `apiKey` credential when it has no development value (Betnex: the operator's `api_key`). */
  apiKey: z.string().min(1).default(DEV_API_KEY),
  currencies: currenciesSetting,
  webhookUrl: httpUrl('http://127.0.0.1:4001/callback/webhook').default('http://127.0.0.1:4001/callback/webhook'),
  signing: signingSchema.prefault({}),
  types: z
    .strictObject({
      debit: z.string().min(1).default('DEBIT'),
      credit: z.string().min(1).default('CREDIT'),
      rollback: z.string().min(1).default('ROLLBACK'),
    })
    .prefault({}),
  rollbackStyle: z.enum(['original', 'reference']).default('original'),
  amountFormat: z.enum(['decimal', 'minor']).default('decimal'),
  extraFields: z.array(z.enum(EXTRA_FIELDS)).default([]),
  timeout: durationMs.default(10_000),
  /** Delay before each attempt; the first is usually 0. */
  retrySchedule: z.array(durationMs).min(1).default([0, 1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000]),
  /** ± fraction of each delay added at random, e.g. 0.2 = ±20 %. */
  jitter: z.coerce.number().min(0).max(1).default(0.2),
  /** Multiplies every delay; 0.001 turns an hour into 3.6 s for CI. */
  timeScale: z.coerce.number().positive().default(1),
  concurrency: z.coerce.number().int().min(1).max(1024).default(32),
  rollbackFailedDebits: z.boolean().default(true),
  /** Fault rules on the callbacks (a timeout after the wallet applied one, a duplicate in flight): see faults.ts. */
  faults: callbackFaultRulesSchema,
  /** Longest wait a 429/503 `Retry-After` can impose on one retry (it is honoured unscaled by timeScale). */
  retryAfterMax: durationMs.default(300_000),
  retention: z
    .strictObject({
      maxEvents: z.coerce.number().int().min(100).default(100_000),
      maxAge: durationMs.default(7 * 86_400_000),
    })
    .prefault({}),
  currency: z.string().min(3).max(8).default('EUR'),
  /**
   * The id namespace of generated transaction ids (`tx_<namespace>_<hex>`). By default each
   * outbox database draws one at random once and keeps it, so a fresh database never reuses an
   * id a persistent wallet has seen; `""` turns it off (ids repeat across fresh databases).
   */
  idNamespace: z
    .string()
    .max(16)
    .regex(/^[A-Za-z0-9-]*$/, 'expected up to 16 letters, digits or dashes, or "" for none')
    .optional(),
  /**
   * Where a launch's `callback_url` may point: URL prefixes such as "http://127.0.0.1:4001/" or
   * "https://wallet.test/". Empty (the default) means loopback addresses, `localhost` and the origin of
   * `webhookUrl`; aggmock's own port is never allowed, so it cannot be made to call its admin API.
   */
  allowedUrls: z.array(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL prefix' })).default([]),
});

/** The dialect a `callbacks.dialect` value names or holds (`default` built from the settings it reads). */
export function dialectOfSetting(setting: string | Dialect, settings: DefaultWireSettings): Dialect {
  if (typeof setting !== 'string') return setting;
  return setting === 'default' ? defaultWireDialect(settings) : builtinDialect(setting);
}

/** Settings that shape only the default dialect's wire; with another dialect they would be silently ignored. */
const DEFAULT_ONLY = ['types', 'rollbackStyle', 'amountFormat', 'extraFields'] as const;

export const callbacksSchema = callbacksObjectSchema
  .superRefine((c, ctx) => {
    // An unknown code would silently get two decimals (a lower-case "jpy" would not be JPY's none).
    if (currencyExponent(c.currency, c.currencies) === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['currency'],
        message: `expected an ISO 4217 code in capitals such as "EUR" or "JPY", or one of callbacks.currencies; got ${JSON.stringify(c.currency)}`,
      });
    }
    if (c.dialect !== undefined && c.profile !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile'],
        message: 'is the old name of callbacks.dialect: set callbacks.dialect only',
      });
      return;
    }
    const setting = c.dialect ?? c.profile ?? 'default';
    // A refused dialect setting has said what is wrong; there is nothing to check its credentials against.
    if (typeof setting === 'object' && setting === null) return;
    const dialect = dialectOfSetting(setting, c);
    for (const name of Object.keys(c.credentials)) {
      const declared = Object.keys(dialect.credentials);
      if (declared.includes(name)) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['credentials', name],
        message:
          declared.length === 0
            ? `the "${dialect.name}" dialect takes no credentials`
            : `the "${dialect.name}" dialect has no credential "${name}"; it takes ${declared.map((d) => `"${d}"`).join(', ')}`,
      });
    }
    for (const [name, spec] of Object.entries(dialect.credentials)) {
      if (Object.hasOwn(c.credentials, name) || spec.default !== undefined || name === API_KEY_CREDENTIAL) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['credentials', name],
        message: `the "${dialect.name}" dialect needs the credential "${name}" (${spec.description}): pass --credential ${name}=<value> or set callbacks.credentials.${name}`,
      });
    }
    if (setting === 'default') return;
    const defaults = callbacksObjectSchema.parse({});
    for (const key of DEFAULT_ONLY) {
      if (JSON.stringify(c[key]) !== JSON.stringify(defaults[key])) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `applies only to the default dialect; the "${dialect.name}" dialect defines its own wire (edit its file instead)`,
        });
      }
    }
  })
  .transform(({ profile, dialect, ...c }) => ({ ...c, dialect: dialect ?? profile ?? 'default' }));

/**
 * The credential a dialect without a development value for it takes from `callbacks.apiKey`
 * (Betnex's `api_key`, a profile file's `{"from": "apiKey"}`).
 */
export const API_KEY_CREDENTIAL = 'apiKey';

const amountRange = z
  .strictObject({ min: z.coerce.number().positive(), max: z.coerce.number().positive() })
  .refine((r) => r.min <= r.max, { message: 'amount.min must not exceed amount.max' });

export const SCENARIOS = [
  'bet-win',
  'bet-lose',
  'bet-rollback',
  'duplicate-debit',
  'duplicate-credit',
  'rollback-unknown',
  'insufficient-funds',
  'burst',
  'session',
  'free-spins',
  'jackpot',
  'promotion',
  'win-rollback',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Scenarios that send a ROLLBACK: a profile without one (Betnex) cannot run them. */
export const ROLLBACK_SCENARIOS = ['bet-rollback', 'rollback-unknown'] as const satisfies readonly ScenarioName[];

/**
 * Why a scenario cannot run on a wire without ROLLBACK (or, for `win-rollback`, without a rollback
 * of a win: a vendor dialect's rollbackWin), or undefined when it can.
 */
export function rollbackScenarioRefusal(
  scenario: ScenarioName,
  profileName: string,
  hasRollback: boolean,
  hasRollbackWin = false,
): string | undefined {
  if (scenario === 'win-rollback' && !hasRollbackWin)
    return `the "win-rollback" scenario takes a win back with a rollbackWin call, and "${profileName}" has none (groove and slotegrator have one); use another scenario or profile`;
  if (hasRollback || !(ROLLBACK_SCENARIOS as readonly string[]).includes(scenario)) return undefined;
  return `the "${scenario}" scenario sends a ROLLBACK, and the "${profileName}" profile has no ROLLBACK callback; use another scenario or profile`;
}

export const scheduleEntrySchema = z
  .strictObject({
    scenario: z.enum(SCENARIOS),
    every: z.string().min(1).optional(),
    cron: z.string().min(1).optional(),
    players: z.array(z.string().min(1)).min(1).default(['p1', 'p2', 'p3']),
    amount: amountRange.default({ min: 1, max: 20 }),
    /** How many times the entry fires before it stops; unbounded when absent. */
    count: z.coerce.number().int().positive().optional(),
    /** `burst`: parallel bets; `session`: spins. */
    size: z.coerce.number().int().positive().optional(),
    /** `session`: return to player as a fraction (default 0.96). */
    rtp: z.coerce.number().min(0).max(1).optional(),
  })
  .refine((e) => Boolean(e.every) !== Boolean(e.cron), { message: 'give exactly one of "every" (e.g. "2s") or "cron"' });
export type ScheduleEntry = z.infer<typeof scheduleEntrySchema>;

export const walletSchema = z.strictObject({
  port: port.default(4001),
  /**
   * Player id → balance in major units (the player plays in `wallet.currency`), or
   * `{"balance": 1000, "currency": "JPY"}` for a player in another currency.
   */
  players: z
    .record(
      z.string().min(1),
      z.union([
        z.number().nonnegative(),
        z.strictObject({
          balance: z.number().nonnegative(),
          currency: z.string().regex(/^[A-Z0-9]{2,8}$/, 'expected a currency code such as "EUR", "JPY" or a configured one'),
        }),
      ]),
    )
    .default(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i + 1}`, 1000]))),
  /** The currency of players given as a bare balance. */
  currency: z.string().min(3).max(8).default('EUR'),
  /** Exposes POST /__state and GET /__players/:id (never on a real wallet). */
  testEndpoints: z.boolean().default(false),
});

/** A `wallet.players` entry as balance and currency (a bare balance is in `wallet.currency`). */
export function playerOpening(
  wallet: { players: Record<string, number | { balance: number; currency: string }>; currency: string },
  playerId: string,
): { balance: number; currency: string } | undefined {
  const opening = Object.hasOwn(wallet.players, playerId) ? wallet.players[playerId] : undefined;
  if (opening === undefined) return undefined;
  return typeof opening === 'number' ? { balance: opening, currency: wallet.currency } : opening;
}

export const DEFAULT_DATA_DIR = '.aggmock';

const configObjectSchema = z.strictObject({
  port: port.default(4000),
  host: z.string().min(1).default('127.0.0.1'),
  seed: z.union([z.number().int(), z.string().min(1)]).default(42),
  /** Base URL of launch links and image URLs; defaults to http://<host>:<port>. */
  publicUrl: httpUrl('https://games.example.test').optional(),
  /** The one folder aggmock writes to (its database, the wallet's), relative to the working directory. */
  dataDir: z.string().min(1).default(DEFAULT_DATA_DIR),
  /** SQLite file for the outbox and wallet state; default `<dataDir>/aggmock.db`; ":memory:" for throwaway runs. */
  db: z.string().min(1).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  catalog: catalogSchema.prefault({}),
  auth: authSchema.prefault({}),
  /** The aggregator API's behaviour towards the integrator's client: fault rules (see faults.ts) and its request journal. */
  api: z
    .strictObject({
      faults: faultRulesSchema,
      /** Journal every request the client makes (`/__admin/requests`); off, the API answers without a record (faults still apply). */
      journal: z.boolean().default(true),
    })
    .prefault({}),
  limits: z
    .strictObject({
      bodyBytes: z.coerce.number().int().min(1).default(1_048_576),
      /** Requests per window per client; off when absent. */
      rateLimit: z.strictObject({ requests: z.coerce.number().int().positive(), window: durationMs.default(1_000) }).optional(),
    })
    .prefault({}),
  launch: z
    .strictObject({
      expiresIn: z.coerce.number().int().positive().default(3600),
      /** Live launch sessions kept in memory; past it the oldest is forgotten (its link answers 404). */
      maxSessions: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
    })
    .prefault({}),
  callbacks: callbacksSchema.prefault({}),
  schedule: z.array(scheduleEntrySchema).default([]),
  admin: z.strictObject({ token: z.string().min(1).optional() }).prefault({}),
  wallet: walletSchema.prefault({}),
  operator: operatorSettingsSchema.prefault({}),
});

/** Whether the configured dialect has a rollback (and a rollback of a win), and its name. */
function wireRollback(callbacks: z.infer<typeof callbacksSchema>): {
  name: string;
  hasRollback: boolean;
  hasRollbackWin: boolean;
} {
  // Refinements run even when a setting was refused: a refused dialect has nothing to judge.
  if (callbacks?.dialect === undefined) return { name: '', hasRollback: true, hasRollbackWin: true };
  const { name, operations } = dialectOfSetting(callbacks.dialect, callbacks);
  return { name, hasRollback: operations.rollback !== undefined, hasRollbackWin: operations.rollbackWin !== undefined };
}

/** The routes of the configured dialect's operator API, or undefined (none, or a refused dialect). */
function configuredOperatorPaths(callbacks: z.infer<typeof callbacksSchema>): ((path: string) => boolean) | undefined {
  if (callbacks?.dialect === undefined) return undefined;
  const api = operatorApiOf(dialectOfSetting(callbacks.dialect, callbacks));
  return api ? operatorRoutePaths(api) : undefined;
}

/** The database lives in the data folder unless `db` names another file. */
export const configSchema = configObjectSchema
  .superRefine((config, ctx) => {
    // A scheduled ROLLBACK scenario on a wire without ROLLBACK would fail on every firing: refuse it at load.
    const { name, hasRollback, hasRollbackWin } = wireRollback(config.callbacks);
    config.schedule.forEach((entry, i) => {
      const refusal = rollbackScenarioRefusal(entry.scenario, name, hasRollback, hasRollbackWin);
      if (refusal) ctx.addIssue({ code: 'custom', path: ['schedule', i, 'scenario'], message: refusal });
    });
    // A fault rule's route: the seed's, a vendor's, or one of the configured dialect's operator API (its file's own).
    const operatorPaths = configuredOperatorPaths(config.callbacks);
    config.api.faults.forEach((rule, i) => {
      const refusal = rule.match.path === undefined ? undefined : faultRouteRefusal(rule.match.path, operatorPaths);
      if (refusal) ctx.addIssue({ code: 'custom', path: ['api', 'faults', i, 'match', 'path'], message: refusal });
    });
  })
  .transform((config) => ({
    ...config,
    db: config.db ?? `${config.dataDir.replace(/[\\/]+$/, '')}/aggmock.db`,
  }));

export type AggmockConfig = z.infer<typeof configSchema>;
export type AggmockConfigInput = z.input<typeof configSchema>;

/** The full default configuration, as `aggmock` runs with no file, env or flags. */
export function defaultConfig(): AggmockConfig {
  return configSchema.parse({});
}
