import { z } from 'zod';
import { credentialName, SAFE_KEY } from './schema-parts.ts';

/*
 * The other half of a dialect: the vendor's operator API, what the casino's backend calls on the
 * aggregator (list games, launch one, round details, free spins, close a session), as data. The
 * routes (method, path, encoding), how the operator proves itself (operator-auth.ts verifies it the
 * vendor's way), the refusals the vendor answers with, where each request field lands in aggmock's
 * launch vocabulary, and each reply as a template rendered from the catalog and the launch. The
 * surface serving it is src/aggregator/vendor; the built-in sections are in builtin/operator/.
 * It imports only schema-parts.ts: schema.ts imports it.
 */

const fieldPath = z
  .string()
  .min(1)
  .max(256)
  .regex(SAFE_KEY, 'expected a field name or a dotted path such as "player.session.id"');

/** What a request field means to aggmock: the launch's and the catalog's concepts. */
export const OPERATOR_CONCEPTS = [
  'player',
  'token',
  'currency',
  'gameId',
  'language',
  'country',
  'platform',
  'lobbyUrl',
  'depositUrl',
  'ip',
  'operatorId',
  'mode',
  'roundId',
  'page',
  'perPage',
  /** A free-round award: its id (the vendor's bonusCode, freespin_id, reward_uuid), round count, stake per round, end. */
  'awardId',
  'rounds',
  'betAmount',
  'validUntil',
  /** A free-round campaign (Caleta's campaign_uuid): a template awards are made from; its name. */
  'campaignId',
  'campaignName',
  'validFrom',
] as const;
export type OperatorConcept = (typeof OPERATOR_CONCEPTS)[number];

export const requestFieldSchema = z.strictObject({
  to: z.enum(OPERATOR_CONCEPTS).describe('the launch or catalog concept the field carries'),
  map: z
    .record(z.string(), z.string())
    .optional()
    .describe('vendor value → aggmock value, e.g. {"GPL_MOBILE": "mobile"} or {"DEMO": "demo"}'),
  demoWhen: z.string().optional().describe('this value of the field asks for demo play (Hub88 currency "XXX", Caleta "FUN")'),
  list: z
    .enum(['comma', 'json'])
    .optional()
    .describe(
      'the field holds several values: text separated by commas (Blue Ocean gameids "1,2") or a JSON list (SoftSwiss games)',
    ),
  exponent: z
    .number()
    .int()
    .min(0)
    .max(8)
    .optional()
    .describe('an amount written as an integer of 10^-exponent major units (Hub88 and Caleta bet_value: 5)'),
});

/** What a reply field can be rendered from. */
export const REPLY_SOURCES = [
  'game.id',
  'game.numericId',
  'game.name',
  'game.provider',
  'game.providerName',
  'game.type',
  'game.rtp',
  'game.volatility',
  'game.lines',
  'game.thumbnailUrl',
  'game.demo',
  'game.mobile',
  'game.platforms',
  'game.currencies',
  'game.releaseDate',
  'launch.url',
  'launch.path',
  'launch.sessionId',
  'launch.token',
  'launch.currency',
  'launch.player',
  'round.url',
  'round.id',
  'award.id',
  'award.player',
  'award.gameId',
  'award.currency',
  'award.rounds',
  'award.left',
  'award.status',
  /** The players a cancel took the award from (Blue Ocean's removeFreeRounds successfull_removals). */
  'award.removed',
  /** A campaign (Caleta): its id, name, game, currency, rounds, stake × 100000 (an integer) and start/end (ISO). */
  'campaign.id',
  'campaign.name',
  'campaign.gameId',
  'campaign.gameNumericId',
  'campaign.currency',
  'campaign.rounds',
  'campaign.betValue',
  'campaign.startTime',
  'campaign.endTime',
  'error.message',
  'paging.totalCount',
  'paging.pageCount',
  'paging.currentPage',
  'paging.perPage',
] as const;
export type ReplySource = (typeof REPLY_SOURCES)[number];

/** A reply body built from aggmock's values: the same {from}/{const}/{object} words as wallet bodies. */
export type ReplyNode =
  | {
      from: ReplySource;
      /** `string` writes numbers and booleans as text, `number` text as a number, `flag` a boolean as 1/0. */
      as?: 'string' | 'number' | 'flag' | undefined;
      map?: Record<string, unknown> | undefined;
    }
  | { const: unknown }
  | { template: string }
  | { object: Record<string, ReplyNode> }
  | { list: ReplyNode[] }
  /** The catalog's games (one page of them on a paged route), each rendered with `item`. */
  | { games: ReplyNode }
  /** The games as an object keyed by a source (Evolution's `{tables: {<id>: …}}`). */
  | { gamesKeyed: { key: ReplySource; item: ReplyNode } }
  /** The free-round campaigns, each rendered with `item` (its `campaign.*` sources). */
  | { campaigns: ReplyNode };

export const replyNodeSchema: z.ZodType<ReplyNode> = z.lazy(() =>
  z.union([
    z.strictObject({
      from: z.enum(REPLY_SOURCES),
      as: z.enum(['string', 'number', 'flag']).optional(),
      map: z.record(z.string(), z.unknown()).optional(),
    }),
    z.strictObject({ const: z.unknown() }),
    z.strictObject({ template: z.string().max(512).describe('text with {source} placeholders, e.g. "{launch.path}&embedded"') }),
    z.strictObject({ object: z.record(z.string().regex(SAFE_KEY), replyNodeSchema) }),
    z.strictObject({ list: z.array(replyNodeSchema).max(16) }),
    z.strictObject({ games: replyNodeSchema }),
    z.strictObject({ gamesKeyed: z.strictObject({ key: z.enum(REPLY_SOURCES), item: replyNodeSchema }) }),
    z.strictObject({ campaigns: replyNodeSchema }),
  ]),
);

export const replyTemplateSchema = z
  .strictObject({
    status: z.number().int().min(200).max(599).default(200),
    body: replyNodeSchema.optional().describe('absent: an empty body'),
    text: z
      .string()
      .max(4096)
      .optional()
      .describe(
        'a text body instead of JSON (Evolution\u2019s HTML round render) with {source} placeholders, HTML-escaped; give its content-type in headers',
      ),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .refine((t) => t.body === undefined || t.text === undefined, 'give either body (JSON) or text, not both');
export type ReplyTemplate = z.infer<typeof replyTemplateSchema>;

/** How the operator proves itself; each recipe names the exact bytes it covers (operator-auth.ts). */
export const operatorAuthSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('rsa-body'),
      header: z.string().min(1),
      hash: z.enum(['sha256', 'sha1', 'sha512']).default('sha256'),
      publicKey: credentialName.describe('the credential holding the operator\u2019s RSA public key (PEM)'),
    })
    .describe('RSA PKCS#1 v1.5 over the raw body, base64, in a header (Hub88, Caleta)'),
  z
    .strictObject({
      kind: z.literal('hmac-body'),
      header: z.string().min(1),
      hash: z.enum(['sha256', 'sha1', 'sha512']).default('sha256'),
      encoding: z.enum(['hex', 'base64']).default('hex'),
      secret: credentialName,
    })
    .describe('an HMAC over the raw body, in a header (SoftSwiss)'),
  z
    .strictObject({
      kind: z.literal('sorted-params'),
      place: z.union([z.strictObject({ field: z.string().min(1) }), z.strictObject({ header: z.string().min(1) })]),
      hash: z.enum(['md5', 'sha1', 'sha256']),
      mode: z
        .enum(['append-secret', 'hmac'])
        .describe('digest of the text with the secret appended (Pragmatic), or an HMAC keyed by it (Slotegrator)'),
      encodeValues: z.enum(['none', 'php-urlencode']).default('none'),
      skipEmpty: z.boolean().default(true),
      includeHeaders: z.array(z.string().min(1)).default([]).describe('headers signed as if they were parameters'),
      secret: credentialName,
      timestamp: z
        .strictObject({ header: z.string().min(1), toleranceSeconds: z.number().int().positive() })
        .optional()
        .describe('a Unix-seconds header the request must carry, this close to the clock'),
    })
    .describe('a digest of the parameters sorted by name, joined k=v&k=v (Pragmatic, Slotegrator)'),
  z
    .strictObject({
      kind: z.literal('static'),
      fields: z
        .record(fieldPath, credentialName)
        .refine((f) => Object.keys(f).length > 0, 'name at least one field')
        .describe('request field (or path parameter) → the credential it must equal (Blue Ocean, Evolution UA2)'),
    })
    .describe('credentials carried as they are in the request'),
  z
    .strictObject({ kind: z.literal('basic'), user: credentialName, password: credentialName })
    .describe('HTTP Basic with two credentials (Evolution\u2019s lobby and render APIs)'),
]);
export type OperatorAuth = z.infer<typeof operatorAuthSchema>;

export const OPERATOR_CAPABILITIES = [
  'list-games',
  'launch',
  /** One game's lobby (Slotegrator /games/lobby): the reply rendered with the game the request names. */
  'lobby',
  'round-details',
  'award-free-spins',
  'cancel-free-spins',
  /** A free-round campaign (Caleta /freebet/campaigns/create): a template rewards name by campaign id. */
  'create-campaign',
  'list-campaigns',
  /** One campaign by its id (Hub88 /freebet/campaigns/info); an unknown id is the not-found refusal. */
  'campaign-info',
  'close-session',
  'acknowledge',
] as const;

export const operatorRouteSchema = z.strictObject({
  method: z.enum(['GET', 'POST']).default('POST'),
  /** Under basePath; `:name` segments are request fields (Evolution's /ua/v1/:casinoKey/:apiToken). */
  path: z.string().regex(/^\/[^\s?#]*$/, 'expected a path starting with "/"'),
  encoding: z.enum(['json', 'form', 'query', 'query+json']).default('json'),
  selector: z
    .strictObject({ field: z.string().min(1), equals: z.string() })
    .optional()
    .describe('one endpoint, many operations (Blue Ocean): the field and value that pick this route'),
  does: z.enum(OPERATOR_CAPABILITIES),
  /** Demo play by route (Slotegrator /games/init-demo, SoftSwiss /demo). */
  mode: z.enum(['real', 'demo']).optional(),
  request: z.record(fieldPath, requestFieldSchema).default({}),
  required: z.array(fieldPath).default([]),
  requiredWhenReal: z.array(fieldPath).default([]).describe('fields a real-money launch must carry (the player, the token)'),
  /** A paged listing: its default and largest page size. */
  paging: z
    .strictObject({
      defaultPerPage: z.number().int().positive().default(50),
      maxPerPage: z.number().int().positive().default(50),
    })
    .optional(),
  auth: operatorAuthSchema.optional().describe('this route\u2019s own recipe (else the API\u2019s)'),
  awardDefaults: z
    .strictObject({
      rounds: z.number().int().positive().max(10_000).optional(),
      bet: z
        .string()
        .regex(/^\d{1,9}(\.\d{1,8})?$/, 'expected a stake in major units such as "1.00"')
        .optional(),
    })
    .optional()
    .describe(
      'what an award takes when the request does not say (Hub88 and Caleta: the prepaid template\u2019s bet_count and bet_value)',
    ),
  reply: replyTemplateSchema,
});
export type OperatorRoute = z.infer<typeof operatorRouteSchema>;

export const REFUSAL_REASONS = ['auth', 'bad-request', 'unknown-game', 'not-found'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const operatorApiSchema = z.strictObject({
  description: z.string().default(''),
  sources: z
    .array(z.strictObject({ title: z.string().min(1), url: z.string().optional(), grade: z.enum(['primary', 'secondary']) }))
    .default([]),
  unknown: z.array(z.string()).default([]).describe('what the sources do not say, and what is accepted because of it'),
  basePath: z
    .string()
    .regex(/^(\/[^\s?#]*[^/\s?#])?$/, 'expected "" or a path such as "/operator/generic/v2" (no trailing slash)')
    .default(''),
  credentials: z
    .record(
      credentialName,
      z.strictObject({
        description: z.string(),
        kind: z.enum(['secret', 'public-key', 'text']).default('secret'),
        default: z.string().describe('a development value, documented like aggmock-dev-key'),
      }),
    )
    .default({}),
  auth: operatorAuthSchema,
  operatorId: z
    .strictObject({
      field: fieldPath.optional(),
      header: z.string().min(1).optional(),
      credential: credentialName,
      refusal: z.enum(REFUSAL_REASONS).default('not-found'),
    })
    .refine((o) => (o.field === undefined) !== (o.header === undefined), 'name either field or header')
    .optional()
    .describe(
      'where the operator names itself (Hub88 operator_id, Pragmatic secureLogin, Slotegrator X-Merchant-Id) and the credential it must equal',
    ),
  /** The vendor's refusal for each reason; `error.message` is aggmock's explanation. */
  refusals: z.partialRecord(z.enum(REFUSAL_REASONS), replyTemplateSchema).default({}),
  /** The token the wallet calls carry: the launch's (the operator's) or one aggmock issues (Blue Ocean, SoftSwiss). */
  sessionToken: z.enum(['operator', 'issued']).default('operator'),
  routes: z.array(operatorRouteSchema).min(1),
});
export type OperatorApi = z.infer<typeof operatorApiSchema>;
export type OperatorApiInput = z.input<typeof operatorApiSchema>;

/** The operator credentials a user gives (config `operator.credentials`), by the vendor's names. */
export const operatorSettingsSchema = z.strictObject({
  credentials: z
    .record(credentialName, z.string().min(1))
    .default({})
    .describe('the operator API\u2019s credentials by the vendor\u2019s names; a public key as PEM text or a file path'),
});
