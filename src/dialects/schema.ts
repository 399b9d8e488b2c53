import { z } from 'zod';
import { operatorApiSchema } from './operator.ts';
import { ruleSourcesSchema } from './rule-sources.ts';
import { credentialName, fieldName, OPERATIONS, type Operation, replyPath, type Scalar, scalar } from './schema-parts.ts';
import { balanceSpec, replySchema } from './schema-reply.ts';
import { recipeSchema } from './schema-signing.ts';

export { OPERATIONS, type Operation, replyPath, type Scalar } from './schema-parts.ts';
export { type BalanceSpec, OUTCOME_CODES, type OutcomeCode, type ReplyRules, replySchema } from './schema-reply.ts';
export {
  type Recipe,
  recipeSchema,
  SIGNATURE_CHARACTERS,
  SIGNING_ALGORITHMS,
  type SignedRecipe,
  type SigningAlgorithm,
} from './schema-signing.ts';

/*
 * A dialect, as data: one aggregator's whole seamless-wallet protocol. Its operations (which calls
 * the aggregator makes), for each the HTTP request (method, path under the wallet's base URL,
 * encoding, headers, fields), the signing recipe, the credentials by the vendor's own names, and
 * how a reply is read. A user writes one as a JSON file; the built-in ones live in `builtin/`.
 * Where a vendor does something data cannot say, a dialect names a hook (see hooks.ts).
 */

/** The operations that move money, and which way. */
export const MONEY_OPERATIONS: Readonly<Partial<Record<Operation, 'debit' | 'credit' | 'reverse'>>> = {
  bet: 'debit',
  win: 'credit',
  betWin: 'debit',
  rollback: 'reverse',
  rollbackWin: 'reverse',
  promoWin: 'credit',
};

/**
 * What a field can carry: the facts of one call (see {@link CallFacts}). `amount` is the call's
 * amount, `betAmount`/`winAmount` split a round body; `betTransactionId` is the bet a win or a
 * rollback refers to; `sessionToken` is the launch's token; `requestId` identifies one call (the
 * same on every retry of it, so a wallet can answer a retry with the first reply); `nonce` is used
 * once: a new one on every attempt, retries included (Slotegrator's X-Nonce). `timestamp…` is when
 * the call was made, the same on every retry; `sentTimestamp…` is when this attempt is sent, for a
 * wire that checks a request's freshness or signs its time (Slotegrator's X-Timestamp): a late retry
 * is not refused as stale. `freeRoundId` and `freeRoundsLeft` are a free round's award and the rounds
 * of it left after this one (Slotegrator's freespin_id and quantity); other calls have neither.
 */
export const FACTS = [
  'operation',
  'type',
  'transactionId',
  'betTransactionId',
  'amount',
  'betAmount',
  'winAmount',
  'playerId',
  'roundId',
  'roundClosed',
  'gameId',
  'gameName',
  'provider',
  'currency',
  'timestamp',
  'timestampSeconds',
  'timestampMs',
  'sentTimestamp',
  'sentTimestampSeconds',
  'sentTimestampMs',
  'bonusKind',
  'bonusId',
  'freeRoundId',
  'freeRoundsLeft',
  'sessionToken',
  'requestId',
  'nonce',
] as const;
export type Fact = (typeof FACTS)[number];

/**
 * One field of a request: a fact of the call (mapped or formatted), a credential, a constant, a
 * string made from a template, a nested object or a list.
 */
export type Field =
  | {
      from: Fact | Fact[];
      /** Replace a value by another (`{"free-spins": 1}` turns the bonus kind into a flag). */
      map?: Record<string, Scalar> | undefined;
      default?: Scalar | undefined;
      /** How a value is written: `string` turns numbers and booleans into text; `negate` a debit into a negative amount. */
      as?: 'string' | 'number' | 'negate' | undefined;
    }
  | { credential: string }
  | { const: Scalar }
  | { template: string }
  | { object: Record<string, Field>; omitWhenEmpty?: boolean | undefined }
  | { list: Field[] }
  /** The JSON text of the field inside: a JSON document carried in a string (Evoplay's `details`). */
  | { json: Field };

export const fieldSchema: z.ZodType<Field> = z.lazy(() =>
  z.union([
    z.strictObject({
      from: z.union([z.enum(FACTS), z.array(z.enum(FACTS)).min(1)]).describe('the fact (or the first fact that has a value)'),
      map: z.record(z.string(), scalar).optional().describe('value → what is written instead'),
      default: scalar.optional().describe('written when no fact has a value (else the field is left out)'),
      as: z.enum(['string', 'number', 'negate']).optional(),
    }),
    z.strictObject({ credential: credentialName.describe('a credential by the vendor\u2019s name') }),
    z.strictObject({ const: scalar }),
    z
      .strictObject({ template: z.string().max(512) })
      .describe('text with {fact} and {credential.name} placeholders, e.g. "Basic {credential.apiKey}"'),
    z.strictObject({ object: z.record(fieldName, fieldSchema), omitWhenEmpty: z.boolean().optional() }),
    z.strictObject({ list: z.array(fieldSchema).max(16) }),
    z
      .strictObject({ json: fieldSchema })
      .describe('the JSON text of the field inside: a JSON document carried in a string (Evoplay: details)'),
  ]),
);

/** Fields in the order they are written. */
export const fieldsSchema = z.record(fieldName, fieldSchema);
export type Fields = Record<string, Field>;

const httpMethod = z.enum(['GET', 'POST', 'PUT', 'DELETE']);

/** How the fields travel: a JSON body, a form body, or the query string of the URL. */
/** Headers aggmock's transport sets itself: a dialect naming one would send it twice (CL.CL, two Hosts, a second User-Agent). */
export const RESERVED_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'user-agent',
  'content-type',
  'te',
  'upgrade',
  'expect',
  'trailer',
] as const;

/** A dialect's headers: any name but the {@link RESERVED_HEADERS}, refused naming the header. */
const dialectHeaders = <T extends z.ZodType>(value: T) =>
  z
    .record(z.string().min(1).max(128), value)
    .default({})
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if ((RESERVED_HEADERS as readonly string[]).includes(name.trim().toLowerCase()))
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `the header ${JSON.stringify(name)} is set by aggmock itself and cannot be set by a dialect (reserved: ${RESERVED_HEADERS.join(', ')})`,
          });
      }
    });

export const ENCODINGS = ['json', 'form', 'query'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** One operation's request. */
export const operationSchema = z.strictObject({
  method: httpMethod.default('POST'),
  path: z
    .string()
    .max(256)
    .regex(
      /^(\/[^\s?#]*)?$/,
      'expected a path under the base URL such as "/transaction/bet" or "/players/{playerId}/balance" ("" is the URL itself)',
    )
    .describe('appended to the wallet\u2019s base URL; {fact} placeholders are filled and escaped'),
  encoding: z.enum(ENCODINGS).optional().describe('absent: the dialect\u2019s request.encoding'),
  headers: dialectHeaders(fieldSchema),
  fields: fieldsSchema.describe('the body (json, form) or the query (query), field by field'),
  /** Overrides of the dialect's reply rules for this operation (Pragmatic's refund reply has no balance). */
  reply: z
    .strictObject({
      balance: z
        .union([z.boolean(), balanceSpec])
        .optional()
        .describe(
          'false: this reply carries no balance; a path or {sum}: where this reply has it, instead of reply.balance (Red Tiger\u2019s refund puts it beside result)',
        ),
      code: z
        .boolean()
        .optional()
        .describe(
          'false: this reply need carry no outcome code: a JSON object in a 2xx without one is an acceptance; one that carries a code is read by it',
        ),
      token: z
        .string()
        .max(128)
        .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/)
        .optional()
        .describe('where this reply gives the session token to use from then on (Caleta swaps it)'),
      retryCodes: z
        .array(scalar)
        .optional()
        .describe(
          'code values that mean "try again" on this call, instead of reply.retryCodes (Pragmatic\u2019s endRound: 100 and 130)',
        ),
      rolledBackOn: z
        .array(scalar)
        .optional()
        .describe(
          'refusal codes after which the vendor cannot tell whether the wallet applied this call and rolls it back (a reply that is not JSON too): Caleta\u2019s bet on RS_ERROR_UNKNOWN and RS_ERROR_TIMEOUT',
        ),
      finalCodes: z
        .array(scalar)
        .optional()
        .describe(
          'the refusal codes that end this call: a refusal by any other code is sent again, as the vendor does (Groove re-sends a rollback on every code but 102 and 110; Caleta a win or rollback on all but its final statuses)',
        ),
      root: replyPath
        .optional()
        .describe(
          'the member this reply is wrapped in; every reply path is read under it (Habanero: fundtransferresponse, playerdetailresponse)',
        ),
    })
    .optional(),
});
export type OperationDefinition = z.infer<typeof operationSchema>;

export const amountSchema = z
  .strictObject({
    format: z.enum(['decimal', 'minor']).default('decimal'),
    as: z.enum(['number', 'string']).default('number'),
    exponent: z
      .number()
      .int()
      .min(0)
      .max(8)
      .optional()
      .describe('a scale fixed by the wire whatever the currency (Hub88: 5, amounts × 100000); absent: the currency\u2019s'),
  })
  .prefault({});

const source = z.strictObject({
  title: z.string().min(1),
  url: z.string().optional(),
  grade: z.enum(['primary', 'secondary']).describe('the vendor\u2019s own text, or a third party\u2019s implementation'),
});

export const dialectSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a lower-case name such as "hub88"'),
    description: z.string().default(''),
    sources: z.array(source).default([]),
    unknown: z.array(z.string()).default([]).describe('what the sources do not say (never invented)'),
    credentials: z
      .record(
        credentialName,
        z.strictObject({
          description: z.string(),
          kind: z.enum(['secret', 'private-key', 'text']).default('secret'),
          default: z.string().optional().describe('a development value, printed at start like aggmock-dev-secret'),
        }),
      )
      .default({}),
    session: z
      .strictObject({
        token: z.enum(['required', 'optional', 'none']).default('none'),
        checkedOn: z.array(z.enum(OPERATIONS)).default([]).describe('the operations on which the wallet must check the token'),
        tokenLength: z
          .strictObject({ min: z.int().min(1).max(512), max: z.int().min(1).max(512) })
          .refine((l) => l.min <= l.max, { message: 'expected min <= max' })
          .optional()
          .describe("the lengths of session token the vendor's wallets accept: tokens aggmock mints are padded to min"),
        staleToken: z
          .strictObject({
            refusedOn: z
              .array(z.enum(OPERATIONS))
              .default([])
              .describe('calls a wallet must refuse when they carry the token an authenticate reply replaced'),
            acceptedOn: z
              .array(z.enum(OPERATIONS))
              .default([])
              .describe('calls a wallet must still accept with that old token (a win or rollback after the session moved on)'),
          })
          .optional()
          .describe(
            'what the vendor says of a token the wallet replaced (rule stale-token): absent, verify judges no call made with one',
          ),
      })
      .prefault({}),
    request: z
      .strictObject({
        encoding: z.enum(ENCODINGS).default('json'),
        headers: dialectHeaders(fieldSchema),
        query: fieldsSchema.default({}).describe('parameters every call carries in its query string (a static token)'),
      })
      .prefault({}),
    operations: z
      .partialRecord(z.enum(OPERATIONS), operationSchema)
      .refine((ops) => ops.bet !== undefined && ops.win !== undefined, 'a dialect needs at least bet and win'),
    amounts: amountSchema,
    calls: z
      .strictObject({
        rollbackStyle: z
          .enum(['reference', 'original'])
          .default('reference')
          .describe(
            "'reference': a rollback has a transaction id of its own and names the bet in betTransactionId; 'original': it carries the reversed bet's id as its own (aggmock's default wire with callbacks.rollbackStyle \"original\")",
          ),
        winsNameBet: z
          .boolean()
          .default(true)
          .describe('whether a win carries the transaction id of the bet it settles (betTransactionId)'),
        idHexDigits: z
          .number()
          .int()
          .min(8)
          .max(32)
          .default(22)
          .describe(
            'hex digits of the transaction ids aggmock generates (tx_<namespace>_<hex>); 22 fits a 32-character cap such as Red Tiger\u2019s',
          ),
        idMaxLength: z
          .number()
          .int()
          .min(16)
          .max(256)
          .optional()
          .describe(
            'the longest transaction or round id the vendor\u2019s wallets accept (Red Tiger: 32); ids the engine and verify make up are kept within it',
          ),
      })
      .prefault({})
      .describe('how the calls of one round name each other, and how long generated ids are'),
    signing: recipeSchema,
    reply: replySchema.prefault({}),
    rules: ruleSourcesSchema,
    operator: operatorApiSchema.optional().describe('the vendor\u2019s operator API (casino → aggregator), see operator.ts'),
    hooks: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'a JavaScript module (.mjs, .js or .cjs) with the dialect\u2019s hooks, relative to the dialect file (see docs/dialects.md)',
      ),
  })
  .superRefine((dialect, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const undeclared = (name: string) => `names the credential "${name}", which credentials does not declare`;
    for (const [op, def] of Object.entries(dialect.operations)) {
      const encoding = def?.encoding ?? dialect.request.encoding;
      if (encoding === 'query' && def?.method !== 'GET' && def?.method !== 'DELETE')
        issue(['operations', op, 'encoding'], 'a query-string request is a GET or a DELETE');
    }
    if (dialect.reply.unknownRollback === 'not-found' && dialect.reply.codes.TRANSACTION_NOT_FOUND === undefined)
      issue(
        ['reply', 'unknownRollback'],
        '"not-found" needs reply.codes.TRANSACTION_NOT_FOUND (the code such a refusal carries)',
      );
    const recipe = dialect.signing;
    if ('key' in recipe && recipe.key && !(recipe.key in dialect.credentials)) issue(['signing', 'key'], undeclared(recipe.key));
    if ('algorithm' in recipe && /^(hmac|rsa|ecdsa)/.test(recipe.algorithm) && !('key' in recipe && recipe.key))
      issue(['signing', 'key'], `${recipe.algorithm} needs a key credential`);
    if ('payload' in recipe && recipe.payload.over === 'hook') {
      if (dialect.hooks === undefined)
        issue(
          ['hooks'],
          'signing.payload.over is "hook": name the module that exports signedText, e.g. "hooks": "./my-hooks.mjs"',
        );
      for (const [i, name] of recipe.payload.credentials.entries())
        if (!(name in dialect.credentials)) issue(['signing', 'payload', 'credentials', i], undeclared(name));
    }
  });
export type Dialect = z.infer<typeof dialectSchema>;
export type DialectInput = z.input<typeof dialectSchema>;
