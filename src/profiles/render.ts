import { z } from 'zod';
/** The bonus an event belongs to: a free-spin round, a jackpot win, a promotional credit. */
import { BONUS_KINDS, type BonusKind } from '../dialects/request.ts';
import { encodeAmount } from '../money/index.ts';
import { cached } from '../shared/index.ts';
import type { BodyField, BodyTemplate, ValueSource } from './schema.ts';
import type { Wire, WireEventKind } from './wire.ts';

export { BONUS_KINDS, type BonusKind };

/** The facts of one callback, before a profile turns them into body bytes. */
export interface WireFields {
  kind: WireEventKind;
  /** The wire transactionId. For an 'original'-style ROLLBACK it is the reversed DEBIT's id. */
  transactionId: string;
  referenceTransactionId?: string | undefined;
  playerId: string;
  /** Integer minor units of the event's currency. */
  amountMinor: number;
  /** A whole round (a DEBIT with its win, on a wire with bet and win fields): the win. */
  winMinor?: number | undefined;
  roundId?: string | undefined;
  gameId?: string | undefined;
  gameName?: string | undefined;
  provider?: string | undefined;
  currency?: string | undefined;
  bonus?: { kind: BonusKind; id: string } | undefined;
  /** ms epoch of the event. */
  createdAt?: number | undefined;
}

type Scalar = string | number | boolean;

/** The value of one source for one event, or undefined when the event has none. */
function sourceValue(wire: Wire, f: WireFields, source: ValueSource): Scalar | undefined {
  switch (source) {
    case 'type':
      return wire.type(f.kind);
    case 'transactionId':
      // An 'original'-style ROLLBACK carries the reversed DEBIT's id as its own.
      return f.kind === 'rollback' && wire.rollbackStyle === 'original'
        ? (f.referenceTransactionId ?? f.transactionId)
        : f.transactionId;
    case 'amount':
      return encodeAmount(f.amountMinor, wire.codec(f.currency));
    case 'betAmount':
      return encodeAmount(f.kind === 'credit' ? 0 : f.amountMinor, wire.codec(f.currency));
    case 'winAmount':
      return encodeAmount(f.kind === 'credit' ? f.amountMinor : (f.winMinor ?? 0), wire.codec(f.currency));
    case 'currency':
      return f.currency ?? wire.currency;
    case 'timestamp':
      return f.createdAt === undefined ? undefined : new Date(f.createdAt).toISOString();
    case 'timestampSeconds':
      return f.createdAt === undefined ? undefined : Math.floor(f.createdAt / 1000);
    case 'apiKey':
      return wire.apiKey;
    case 'bonusKind':
      return f.bonus?.kind;
    case 'bonusId':
      return f.bonus?.id;
    default:
      return f[source];
  }
}

type Rendered = Scalar | { [key: string]: Rendered };

function renderField(wire: Wire, f: WireFields, field: BodyField): Rendered | undefined {
  if ('const' in field) return field.const;
  if ('from' in field) {
    const list = typeof field.from === 'string' ? [field.from] : field.from;
    for (const source of list) {
      const value = sourceValue(wire, f, source);
      if (value !== undefined) return value;
    }
    return field.default;
  }
  const out = renderObject(wire, f, field.object);
  return field.omitWhenEmpty && Object.keys(out).length === 0 ? undefined : out;
}

function renderObject(wire: Wire, f: WireFields, template: BodyTemplate): Record<string, Rendered> {
  const out: Record<string, Rendered> = {};
  for (const [name, field] of entriesOf(template)) {
    const value = renderField(wire, f, field);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** A template's fields in order, listed once per template (a profile's templates never change). */
const templateEntries = new WeakMap<BodyTemplate, [string, BodyField][]>();
const entriesOf = (template: BodyTemplate): [string, BodyField][] => cached(templateEntries, template, Object.entries);

/**
 * The exact JSON bytes of a callback under the wire's profile: its fields in the order the
 * profile writes them, a field whose sources have no value left out. Amounts are integer minor
 * units until the currency's codec writes them.
 *
 * @example renderBody(wireOf(config.callbacks), { kind: 'debit', transactionId: 'tx_1', amountMinor: 1050, playerId: 'p1' })
 * // '{"type":"DEBIT","transactionId":"tx_1","amount":10.5,"playerId":"p1"}' with the default profile
 */
export function renderBody(wire: Wire, fields: WireFields): string {
  const template = wire.body(fields.kind);
  if (!template) throw new Error(`the "${wire.name}" profile has no ${fields.kind.toUpperCase()} callback`);
  return JSON.stringify(renderObject(wire, fields, template));
}

/** Sources every event of the kind has, so their field is always present. */
function alwaysPresent(source: ValueSource, kind: WireEventKind): boolean {
  if (source === 'referenceTransactionId') return kind === 'rollback';
  return ['type', 'transactionId', 'amount', 'betAmount', 'winAmount', 'playerId', 'currency', 'apiKey'].includes(source);
}

function sourceSchema(wire: Wire, source: ValueSource, kind: WireEventKind): z.ZodType {
  const { format, as } = wire.codec();
  const amount =
    as === 'string'
      ? z
          .string()
          .regex(/^-?\d+(\.\d+)?$/)
          .describe('an amount written as a string')
      : format === 'minor'
        ? z.number().int().describe('an amount in minor units (1050 = 10.50)')
        : z.number().describe("an amount in major units, with at most the currency's decimals");
  switch (source) {
    case 'type':
      return z.literal(wire.type(kind) ?? '');
    case 'amount':
    case 'betAmount':
    case 'winAmount':
      return amount;
    case 'timestamp':
      return z.iso.datetime();
    case 'timestampSeconds':
      return z.number().int();
    case 'bonusKind':
      return z.enum(BONUS_KINDS);
    default:
      return z.string().min(1);
  }
}

function fieldSchema(wire: Wire, field: BodyField, kind: WireEventKind): z.ZodType {
  if ('const' in field) return z.literal(field.const);
  if ('from' in field) {
    const list = Array.isArray(field.from) ? field.from : [field.from];
    const schemas = list.map((s) => sourceSchema(wire, s, kind));
    const schema = schemas.length === 1 ? (schemas[0] as z.ZodType) : z.union(schemas);
    const present = field.default !== undefined || list.some((s) => alwaysPresent(s, kind));
    return present ? schema : schema.optional().describe('present when known');
  }
  const inner = objectSchema(wire, field.object, kind);
  return field.omitWhenEmpty ? inner.optional() : inner;
}

function objectSchema(wire: Wire, template: BodyTemplate, kind: WireEventKind) {
  return z.strictObject(Object.fromEntries(Object.entries(template).map(([k, f]) => [k, fieldSchema(wire, f, kind)])));
}

/**
 * zod schemas of the bodies this wire sends (a ROLLBACK only when the profile has one). Unknown
 * keys are refused, so a test or a contract notices any field that should not be there.
 */
export function bodySchemas(wire: Wire): Partial<Record<WireEventKind, z.ZodType>> & { debit: z.ZodType; credit: z.ZodType } {
  const of = (kind: WireEventKind) => {
    const template = wire.body(kind);
    return template ? objectSchema(wire, template, kind) : undefined;
  };
  const rollback = of('rollback');
  return {
    debit: of('debit') as z.ZodType,
    credit: of('credit') as z.ZodType,
    ...(rollback ? { rollback } : {}),
  };
}
