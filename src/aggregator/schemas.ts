import { z } from '@hono/zod-openapi';
import { MAX_ID_LENGTH, MAX_URL_LENGTH } from '../http/limits.ts';
import { MAX_AMOUNT_MINOR } from '../money/index.ts';

/**
 * Wire shapes of the aggregator REST API (SPEC §2), defined once: the routes validate with them,
 * the OpenAPI document is generated from them and the tests parse responses with them.
 */

export const providerCodeSchema = z.string().openapi({ example: 'PGSOFT', description: 'Upper-case provider code.' });

export const providerSummarySchema = z
  .object({
    code: providerCodeSchema,
    name: z.string().openapi({ example: 'PG Soft' }),
    status: z.string().openapi({ example: 'ACTIVE' }),
    totalGames: z.number().int().openapi({ example: 52 }),
    logo: z.string().optional().openapi({ description: 'Absolute URL of an SVG logo served by aggmock.' }),
  })
  .openapi('Provider');

export const providersResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    games: z.array(providerCodeSchema).openapi({ description: 'Provider codes (same list as `providers`).' }),
    providers: z.array(providerCodeSchema),
    data: z.array(providerSummarySchema),
  })
  .openapi('ProvidersResponse');

export const gameSchema = z
  .object({
    id: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .openapi({ example: 'a04d1f3eb8ccec8a4823bdf18e3f0e84', description: 'The gameId used at launch.' }),
    name: z.string().openapi({ example: 'Gates of Olympus' }),
    img: z.string().openapi({ description: 'Absolute URL of an image served by aggmock (offline, generated SVG).' }),
    type: z.string().openapi({ example: 'slot', description: 'slot, live, crash, table, fishing, …' }),
    provider: providerCodeSchema,
    rtp: z.number().optional().openapi({ example: 96.5 }),
    volatility: z.string().optional().openapi({ example: 'high' }),
    demo: z.boolean().optional(),
    platforms: z
      .array(z.string())
      .optional()
      .openapi({ example: ['desktop', 'mobile'] }),
    currencies: z
      .array(z.string())
      .optional()
      .openapi({ example: ['EUR', 'USD', 'GBP', 'JPY'], description: 'The currencies /getgameurl takes for this game.' }),
  })
  .catchall(z.unknown())
  .openapi('Game');

export const providerGamesResponseSchema = z
  .object({
    success: z.literal(true),
    provider: providerCodeSchema,
    totalGames: z.number().int(),
    games: z.array(gameSchema),
  })
  .openapi('ProviderGamesResponse');

export const allGamesResponseSchema = z
  .object({
    success: z.literal(true),
    totalGames: z.number().int(),
    providers: z.array(z.object({ provider: providerCodeSchema, totalGames: z.number().int(), games: z.array(gameSchema) })),
  })
  .openapi('AllGamesResponse');

export const gamesQuerySchema = z.object({
  provider: z
    .string()
    .optional()
    .openapi({
      param: { name: 'provider', in: 'query' },
      example: 'PRAGMATIC PLAY',
      description: 'Code or name, trimmed, case-insensitive.',
    }),
});

/** Money at launch: a non-negative amount with at most two decimals. */
const moneySchema = z
  .number({ error: 'expected a number (the player balance in major units, e.g. 1000 or 99.5)' })
  .nonnegative({ error: 'expected a balance of 0 or more' })
  // How many decimals depends on the launch currency (JPY none, KWD three): the route checks them.
  .max(MAX_AMOUNT_MINOR / 100, { error: `expected at most ${MAX_AMOUNT_MINOR / 100}` });

export const launchRequestSchema = z
  .object({
    username: z
      .string({ error: 'expected a string: the player id that callbacks carry as playerId' })
      .trim()
      .min(1, { error: 'expected a non-empty player id' })
      .max(MAX_ID_LENGTH, { error: `expected at most ${MAX_ID_LENGTH} characters` })
      .openapi({ example: 'player123' }),
    gameId: z
      .string({ error: 'expected a string: a game id from /getallgamesandprovider' })
      .regex(/^[0-9a-fA-F]{32}$/, { error: 'expected a 32-character hex game id from /getallgamesandprovider' })
      .openapi({ example: 'a04d1f3eb8ccec8a4823bdf18e3f0e84' }),
    money: moneySchema.openapi({ example: 1000 }),
    platform: z
      .union([z.literal(1), z.literal(2), z.literal('1'), z.literal('2')], { error: 'expected 1 (desktop) or 2 (mobile)' })
      .transform((p) => Number(p) as 1 | 2)
      .openapi({ example: 1, description: '1 = desktop, 2 = mobile' }),
    home_url: z
      .url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL the game returns to (e.g. https://casino.example)' })
      .max(MAX_URL_LENGTH, { error: `expected at most ${MAX_URL_LENGTH} characters` })
      .openapi({ example: 'https://example.com' }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3,5}$/, { error: 'expected a currency code such as EUR' })
      .optional()
      .openapi({ example: 'EUR' }),
    lang: z
      .string()
      .regex(/^[A-Za-z]{2}([-_][A-Za-z]{2})?$/, { error: 'expected a language code such as en or pt-BR' })
      .optional()
      .openapi({ example: 'en' }),
    callback_url: z
      .url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL for this session’s wallet callbacks' })
      .max(MAX_URL_LENGTH, { error: `expected at most ${MAX_URL_LENGTH} characters` })
      .optional()
      .openapi({
        description: 'Must match config callbacks.allowedUrls (default: loopback addresses, localhost and the webhook origin).',
      }),
    token: z
      .string({ error: "expected the operator's session token as a string" })
      .regex(/^[\x21-\x7e]{1,512}$/, {
        error: "expected the operator's session token: 1 to 512 printable characters without spaces",
      })
      .optional()
      .openapi({
        example: 'tok-player123-9f2c',
        description:
          "The operator's session token for this player: every wallet call of the session carries it (a vendor dialect's token field).",
      }),
    extras: z.record(z.string().max(MAX_ID_LENGTH), z.unknown()).optional(),
  })
  .openapi('LaunchRequest');
export type LaunchRequest = z.infer<typeof launchRequestSchema>;

export const launchResponseSchema = z
  .object({
    code: z.literal(0),
    msg: z.literal('Success'),
    success: z.literal(true),
    payload: z.object({
      game_launch_url: z.string().openapi({ example: 'http://127.0.0.1:4000/play/3f1c…' }),
      game_name: z.string(),
      provider: providerCodeSchema,
      expires_in: z.number().int().openapi({ description: 'Seconds until the launch URL expires.' }),
      session_id: z.string(),
    }),
  })
  .openapi('LaunchResponse');
export type LaunchResponse = z.infer<typeof launchResponseSchema>;
