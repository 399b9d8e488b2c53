import { z } from 'zod';
import { PROTOTYPE_KEYS, prototypeSegment } from '../shared/index.ts';
import { SIGNING_SCHEMES } from '../signing/index.ts';

/*
 * A profile file, as data: what a callback body looks like, how amounts are written, how the
 * wallet's reply is read and how requests are signed. A user writes one as a JSON file
 * (`profile.schema.json`, generated from this schema, helps an editor); the configuration converts
 * it to a dialect once (`dialects/profile.ts`), and every surface works from that dialect.
 */

/**
 * What a body field can carry. `amount` is the event's amount; `betAmount`/`winAmount` split it
 * for wires with both fields in one body (a DEBIT is a bet with no win, a CREDIT a win with no
 * bet). `type` is the event's type string. `apiKey` is `callbacks.apiKey`.
 */
export const VALUE_SOURCES = [
  'type',
  'transactionId',
  'referenceTransactionId',
  'amount',
  'betAmount',
  'winAmount',
  'playerId',
  'roundId',
  'gameId',
  'gameName',
  'provider',
  'currency',
  'timestamp',
  'timestampSeconds',
  'apiKey',
  'bonusKind',
  'bonusId',
] as const;
export type ValueSource = (typeof VALUE_SOURCES)[number];

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** The first PROTOTYPE_KEYS segment of a key or path from a profile file, as an issue message (it would write into every object's prototype). */
function prototypeSegmentIssue(what: string, path: string): string | undefined {
  const unsafe = prototypeSegment(path);
  return unsafe === undefined
    ? undefined
    : `expected ${what} without the segment "${unsafe}" (${PROTOTYPE_KEYS.join(', ')} would write into every object's prototype)`;
}

/** A record whose keys (names or dotted paths written by aggmock) must not reach an object's prototype. */
function safeKeyRecord<V extends z.ZodType>(value: V, what: string) {
  return z.record(z.string().min(1), value).superRefine((record, ctx) => {
    for (const key of Object.keys(record)) {
      const message = prototypeSegmentIssue(what, key);
      if (message) ctx.addIssue({ code: 'custom', message, path: [key], input: key });
    }
  });
}

/** A field copied from the event: the first source that has a value, else `default`, else the field is left out. */
const fromField = z.strictObject({
  from: z
    .union([z.enum(VALUE_SOURCES), z.array(z.enum(VALUE_SOURCES)).min(1)])
    .describe(`where the value comes from: one of ${VALUE_SOURCES.join(', ')} (or a list: the first with a value)`),
  default: scalar.optional().describe('the value when no source has one'),
});

/** A constant written as is. */
const constField = z.strictObject({ const: scalar.describe('a fixed value, written as is') });

export type BodyField =
  | z.infer<typeof fromField>
  | z.infer<typeof constField>
  | { object: Record<string, BodyField>; omitWhenEmpty?: boolean | undefined };

/** A nested object whose members are fields in turn. */
const objectField: z.ZodType<Extract<BodyField, { object: unknown }>> = z.strictObject({
  object: safeKeyRecord(
    z.lazy(() => bodyField),
    'a field name',
  ),
  omitWhenEmpty: z.boolean().optional().describe('leave the object out when none of its members has a value'),
});

export const bodyField: z.ZodType<BodyField> = z.union([fromField, constField, objectField]);

/** One body: field name → field, in the order written. */
export const bodyTemplateSchema = safeKeyRecord(bodyField, 'a field name');
export type BodyTemplate = z.infer<typeof bodyTemplateSchema>;

const eventSchema = z.strictObject({
  type: z.string().min(1).optional().describe('the type string, for a body field `{"from":"type"}`'),
  body: bodyTemplateSchema.describe('the callback body, field by field'),
});

/** A dotted path into the reply's JSON object, e.g. "balance" or "data.money". */
const replyPath = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'expected a dotted path such as "balance" or "data.balance"')
  .superRefine((path, ctx) => {
    const message = prototypeSegmentIssue('a reply path', path);
    if (message) ctx.addIssue({ code: 'custom', message, input: path });
  });

/** The rejections a check can ask for, by aggmock's name; a profile maps them to its own codes. */
export const WIRE_REPLY_CODES = [
  'INVALID_SIGNATURE',
  'PLAYER_NOT_FOUND',
  'INSUFFICIENT_FUNDS',
  'TRANSACTION_NOT_FOUND',
  'INVALID_REQUEST',
  'WRONG_CURRENCY',
] as const;

export const replyRulesSchema = z.strictObject({
  balance: replyPath.default('balance').describe("where the player's balance is"),
  success: z
    .strictObject({ path: replyPath, equals: scalar })
    .optional()
    .describe('when set, a 2xx reply is an acceptance only when this field equals this value'),
  error: replyPath
    .default('error')
    .describe('where an error code is; a non-empty string, a non-zero number or true means a rejection'),
  message: z.array(replyPath).default(['message', 'msg', 'description']).describe('where a human message may be'),
  duplicates: z
    .enum(['same-reply', 'same-outcome'])
    .default('same-reply')
    .describe(
      'what a repeated transaction must get: the first reply again (equal JSON), or the same outcome and balance (the message may differ)',
    ),
  balanceOnRejection: z
    .boolean()
    .default(true)
    .describe('whether a rejection reply carries the real balance (some wallets write 0 there)'),
  codes: z
    .partialRecord(z.enum(WIRE_REPLY_CODES), z.string().min(1))
    .optional()
    .describe("the wallet's code for each rejection; absent: the wire has no codes, and any rejection will do"),
  writes: z
    .strictObject({
      accepted: safeKeyRecord(scalar, 'a member path').optional(),
      rejected: safeKeyRecord(scalar, 'a member path').optional(),
    })
    .optional()
    .describe(
      'constant members a wallet adds to an acceptance or a rejection (Betnex: msg and handle); only the reference wallet writes them, judging ignores them',
    ),
});
export type ReplyRules = z.infer<typeof replyRulesSchema>;

export const PROFILE_SIGNING_SCHEMES = [...SIGNING_SCHEMES, 'none'] as const;

export const profileDefinitionSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a lower-case name such as "my-wallet"'),
    description: z.string().default(''),
    events: z
      .strictObject({
        debit: eventSchema.describe('a bet: money leaves the player'),
        credit: eventSchema.describe('a win: money reaches the player'),
        rollback: eventSchema.optional().describe('reverses a DEBIT; absent when the wire has no rollback'),
      })
      .describe('the events this wire has'),
    amounts: z
      .strictObject({
        format: z.enum(['decimal', 'minor']).default('decimal').describe('major units (10.5) or minor units (1050)'),
        as: z.enum(['number', 'string']).default('number').describe('a JSON number or a string ("10.50")'),
      })
      .prefault({}),
    reply: replyRulesSchema.prefault({}),
    signing: z
      .strictObject({
        scheme: z.enum(PROFILE_SIGNING_SCHEMES).describe('"none": no signature headers (say, an API key in the body)'),
      })
      .optional()
      .describe('absent: callbacks.signing decides'),
  })
  .superRefine((profile, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const debit = sources(profile.events.debit.body);
    for (const kind of ['debit', 'credit'] as const) {
      const used = kind === 'debit' ? debit : sources(profile.events.credit.body);
      const amount = kind === 'debit' ? 'betAmount' : 'winAmount';
      for (const fact of ['transactionId', 'playerId'] as const)
        if (!used.has(fact)) issue(['events', kind, 'body'], `no field carries the ${fact}`);
      if (!used.has('amount') && !used.has(amount))
        issue(['events', kind, 'body'], `no field carries the amount (amount or ${amount})`);
    }
    if (sameShape(profile.events.debit, profile.events.credit) && !debit.has('betAmount'))
      issue(
        ['events', 'credit'],
        'a DEBIT and a CREDIT would look the same: give them a type field or separate betAmount/winAmount fields',
      );
    const rollback = profile.events.rollback && sources(profile.events.rollback.body);
    if (rollback && !rollback.has('transactionId') && !rollback.has('referenceTransactionId'))
      issue(
        ['events', 'rollback', 'body'],
        'no field carries the reversed transaction (transactionId or referenceTransactionId)',
      );
  });
export type ProfileDefinition = z.infer<typeof profileDefinitionSchema>;
export type ProfileInput = z.input<typeof profileDefinitionSchema>;

/** Every source a body uses, nested objects included. */
export function sources(body: BodyTemplate): Set<ValueSource> {
  const out = new Set<ValueSource>();
  const visit = (field: BodyField) => {
    if ('from' in field) for (const s of Array.isArray(field.from) ? field.from : [field.from]) out.add(s);
    else if ('object' in field) for (const inner of Object.values(field.object)) visit(inner);
  };
  for (const field of Object.values(body)) visit(field);
  return out;
}

function sameShape(a: { type?: string | undefined; body: BodyTemplate }, b: { type?: string | undefined; body: BodyTemplate }) {
  return a.type === b.type && JSON.stringify(a.body) === JSON.stringify(b.body);
}
