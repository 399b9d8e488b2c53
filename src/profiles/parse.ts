import { type AmountCodec, currencyExponent, decodeAmount } from '../money/index.ts';
import { BONUS_KINDS, type BonusKind } from './render.ts';
import type { BodyField, BodyTemplate, ValueSource } from './schema.ts';
import type { Wire, WireEventKind } from './wire.ts';

/*
 * The inverse of renderBody: the facts of one callback read back from its JSON under a profile.
 * The reference wallet reads every wire with it, so what the aggregator writes and what the
 * wallet reads come from the same templates.
 */

/**
 * What one callback asks. `round` is a round body carrying both a bet and a win (Betnex with
 * bet_amount > 0 and win_amount > 0): the bet (`amountMinor`) and the win (`winMinor`) apply together.
 */
export interface ParsedWireEvent {
  kind: WireEventKind | 'round';
  transactionId: string;
  referenceTransactionId?: string;
  playerId: string;
  /** Integer minor units: the amount, or a round's bet. */
  amountMinor: number;
  /** `round` only: the win, in minor units. */
  winMinor?: number;
  currency?: string;
  bonus?: { kind: BonusKind; id: string };
  roundId?: string;
  gameId?: string;
  gameName?: string;
  provider?: string;
  /** The body's `{"from":"apiKey"}` field, for the wallet to check. */
  apiKey?: string;
}

/** One wrong field: its dotted name in the body and what was expected (the shape of http's FieldError). */
export interface BodyFieldError {
  field: string;
  message: string;
  received?: unknown;
}

export type ParsedBody = { ok: true; event: ParsedWireEvent } | { ok: false; errors: BodyFieldError[] };

export interface ParseBodyOptions {
  /** The currency of a player, for a body that names none (its amounts are in that currency's decimals). */
  currencyOf?: (playerId: string) => string | undefined;
  /** Lets negative amounts through (only the `negative-amounts` faulty wallet wants them). */
  allowNegative?: boolean;
  /** The longest id accepted. */
  maxIdLength?: number;
}

/** Where each source sits in a body: its dotted field name, single-source fields first. */
type Locations = Map<ValueSource, string[]>;

function locate(template: BodyTemplate): Locations {
  const single: [ValueSource, string[]][] = [];
  const multi: [ValueSource[], string[]][] = [];
  const visit = (field: BodyField, path: string[]) => {
    if ('object' in field) for (const [name, inner] of Object.entries(field.object)) visit(inner, [...path, name]);
    else if ('from' in field) {
      if (Array.isArray(field.from) && field.from.length > 1) multi.push([field.from, path]);
      else single.push([Array.isArray(field.from) ? (field.from[0] as ValueSource) : field.from, path]);
    }
  };
  for (const [name, field] of Object.entries(template)) visit(field, [name]);
  const out: Locations = new Map();
  for (const [source, path] of single) if (!out.has(source)) out.set(source, path);
  // A field of several sources ("game_round": roundId, else transactionId) reads back as the first one not found elsewhere.
  for (const [list, path] of multi) {
    const first = list.find((s) => !out.has(s));
    if (first) out.set(first, path);
  }
  return out;
}

function valueAtPath(json: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = json;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Whether the body's constants and type string are those of this event's template. */
function matches(wire: Wire, kind: WireEventKind, json: Record<string, unknown>): boolean {
  const template = wire.body(kind);
  if (!template) return false;
  const check = (field: BodyField, path: string[]): boolean => {
    if ('const' in field) return valueAtPath(json, path) === field.const;
    if ('object' in field) return Object.entries(field.object).every(([name, inner]) => check(inner, [...path, name]));
    const single = Array.isArray(field.from) ? field.from.length === 1 && field.from[0] : field.from;
    return single !== 'type' || valueAtPath(json, path) === wire.type(kind);
  };
  return Object.entries(template).every(([name, field]) => check(field, [name]));
}

const KINDS: readonly WireEventKind[] = ['debit', 'credit', 'rollback'];

/** The event kind the body is, or the error naming its type field. */
function kindOf(wire: Wire, json: Record<string, unknown>): WireEventKind | BodyFieldError {
  const kinds = KINDS.filter((kind) => matches(wire, kind, json));
  if (kinds[0] !== undefined) return kinds[0];
  const typePath = locate(wire.body('debit') as BodyTemplate).get('type');
  const types = KINDS.map((k) => wire.type(k)).filter((t): t is string => t !== undefined);
  if (typePath && types.length > 0) {
    const field = typePath.join('.');
    return {
      field,
      message: `expected one of ${types.map((t) => JSON.stringify(t)).join(', ')}`,
      ...received(valueAtPath(json, typePath)),
    };
  }
  return { field: '(body)', message: `expected a ${wire.name} callback body (its constant fields do not match)` };
}

function received(value: unknown): { received?: unknown } {
  return value === undefined ? {} : { received: value };
}

/** Reads the fields of one event kind from the body, collecting every error. */
class BodyReader {
  readonly errors: BodyFieldError[] = [];
  constructor(
    private readonly json: Record<string, unknown>,
    private readonly where: Locations,
    private readonly maxIdLength: number,
  ) {}

  has(source: ValueSource): boolean {
    return this.where.has(source);
  }

  fieldName(source: ValueSource): string {
    return (this.where.get(source) ?? [source]).join('.');
  }

  raw(source: ValueSource): unknown {
    const path = this.where.get(source);
    return path ? valueAtPath(this.json, path) : undefined;
  }

  fail(source: ValueSource, message: string): undefined {
    this.errors.push({ field: this.fieldName(source), message, ...received(this.raw(source)) });
    return undefined;
  }

  /** A non-empty string id; `required` ones must be there. */
  id(source: ValueSource, required: boolean): string | undefined {
    const value = this.raw(source);
    if (value === undefined || value === null)
      return required && this.has(source) ? this.fail(source, 'expected a non-empty string') : undefined;
    if (typeof value !== 'string' || value.length === 0) return this.fail(source, 'expected a non-empty string');
    if (value.length > this.maxIdLength) return this.fail(source, `expected at most ${this.maxIdLength} characters`);
    return value;
  }

  amount(source: ValueSource, codec: AmountCodec, allowNegative: boolean): number | undefined {
    const value = this.raw(source);
    const minor = decodeAmount(value, codec);
    if (minor === undefined || (minor < 0 && !allowNegative)) {
      return this.fail(source, `expected ${describeAmount(codec)}, got ${JSON.stringify(value) ?? 'nothing'}`);
    }
    return minor;
  }
}

/** What a valid amount looks like, for the error message. */
export function describeAmount(codec: AmountCodec): string {
  const { format, as, exponent } = codec;
  const written = as === 'string' ? 'a JSON string' : 'a JSON number';
  if (format === 'minor')
    return `a whole number of minor units, 0 or more, e.g. ${as === 'string' ? '"1050"' : '1050'} for 10.50`;
  const decimals = exponent === 0 ? 'with no decimals, e.g. 1050' : `with at most ${exponent} decimals, e.g. 10.5`;
  return `${written} in major units, 0 or more, ${decimals}`;
}

/**
 * Reads a callback body under the wire's profile: the event kind (from the type string; for a
 * round body from bet and win: a bet alone is a DEBIT, a win alone or nothing a CREDIT, both a
 * whole round), the ids, the amounts in minor units of the event's currency (the body's, else the
 * player's, else the wire's) and the optional fields. Extra fields are ignored, so an aggregator
 * that adds fields never breaks a wallet. Every wrong field is named.
 *
 * @example parseBody(wireOf(config.callbacks), { type: 'DEBIT', transactionId: 't1', amount: 10.5, playerId: 'p1' })
 * // { ok: true, event: { kind: 'debit', transactionId: 't1', playerId: 'p1', amountMinor: 1050 } }
 */
export function parseBody(wire: Wire, json: unknown, options: ParseBodyOptions = {}): ParsedBody {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, errors: [{ field: '(body)', message: 'expected a JSON object', ...received(json) }] };
  }
  const body = json as Record<string, unknown>;
  const kind = kindOf(wire, body);
  if (typeof kind !== 'string') return { ok: false, errors: [kind] };
  const read = new BodyReader(body, locate(wire.body(kind) as BodyTemplate), options.maxIdLength ?? 256);
  const transactionId = read.id('transactionId', true);
  const playerId = read.id('playerId', true);
  const ids = optionalIds(read);
  const codec = codecFor(wire, read, ids.currency ?? (playerId ? options.currencyOf?.(playerId) : undefined));
  const amounts = codec ? readAmounts(read, kind, codec, options.allowNegative === true) : undefined;
  const bonus = readBonus(read);
  if (read.errors.length > 0 || !transactionId || !playerId || !amounts) return { ok: false, errors: read.errors };
  return { ok: true, event: { ...amounts, transactionId, playerId, ...ids, ...(bonus ? { bonus } : {}) } };
}

/** The optional ids a body may carry, read (and checked) when its template has them. */
const OPTIONAL_IDS = ['referenceTransactionId', 'currency', 'roundId', 'gameId', 'apiKey'] as const;

/** Descriptive fields: taken when they are non-empty strings, never a reason to refuse a body. */
const DESCRIPTIONS = ['gameName', 'provider'] as const;

function optionalIds(read: BodyReader) {
  const out: Partial<Pick<ParsedWireEvent, (typeof OPTIONAL_IDS)[number] | (typeof DESCRIPTIONS)[number]>> = {};
  for (const source of OPTIONAL_IDS) {
    const value = read.id(source, false);
    if (value !== undefined) out[source] = value;
  }
  for (const source of DESCRIPTIONS) {
    const value = read.raw(source);
    if (typeof value === 'string' && value !== '') out[source] = value;
  }
  return out;
}

/** The codec of the event's currency; an unknown currency code is a field error. */
function codecFor(wire: Wire, read: BodyReader, currency: string | undefined): AmountCodec | undefined {
  if (currency !== undefined && currencyExponent(currency, wire.currencies) === undefined) {
    return read.fail('currency', 'expected a known currency code such as "EUR", "JPY" or a configured one');
  }
  return wire.codec(currency);
}

type Amounts = Pick<ParsedWireEvent, 'kind' | 'amountMinor' | 'winMinor'>;

function readAmounts(read: BodyReader, kind: WireEventKind, codec: AmountCodec, allowNegative: boolean): Amounts | undefined {
  if (kind === 'rollback' || read.has('amount') || !read.has('betAmount') || !read.has('winAmount')) {
    const source = read.has('amount') ? 'amount' : kind === 'credit' ? 'winAmount' : 'betAmount';
    const amountMinor = read.amount(source, codec, allowNegative);
    return amountMinor === undefined ? undefined : { kind, amountMinor };
  }
  // A round body: the kind follows from what the round carries.
  const bet = read.amount('betAmount', codec, allowNegative);
  const win = read.amount('winAmount', codec, allowNegative);
  if (bet === undefined || win === undefined) return undefined;
  if (bet !== 0 && win !== 0) return { kind: 'round', amountMinor: bet, winMinor: win };
  return bet !== 0 ? { kind: 'debit', amountMinor: bet } : { kind: 'credit', amountMinor: win };
}

function readBonus(read: BodyReader): ParsedWireEvent['bonus'] {
  const kind = read.raw('bonusKind');
  const id = read.id('bonusId', false);
  if (kind === undefined || kind === null) return undefined;
  if (!(BONUS_KINDS as readonly unknown[]).includes(kind)) {
    return read.fail('bonusKind', `expected one of ${BONUS_KINDS.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  if (id === undefined) return read.fail('bonusId', 'expected the bonus id as a non-empty string');
  return { kind: kind as BonusKind, id };
}
