/**
 * Reading a vendor's JSON body field by field, collecting one plain sentence per deviation (which
 * field, what came, what the docs expect) instead of stopping at the first. Vendor-neutral: each
 * receiver says which fields its vendor requires and what type they have.
 */

export type JsonObject = Record<string, unknown>;

/** The body as a JSON object, or a sentence saying why it is not one. */
export function parseJsonObject(raw: Buffer): { body: JsonObject } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    return { problem: `body is not JSON (${(error as Error).message}); expected a JSON object` };
  }
  if (!isObject(value)) return { problem: `body is ${describe(value)}; expected a JSON object` };
  return { body: value };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short, bounded description of a value for an error message. */
export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
}

interface FieldRule {
  /** Absent is fine (the docs do not mark the field required). */
  optional?: boolean;
  /** null is accepted as "absent" (the docs say the value may be NULL). */
  nullable?: boolean;
}

/**
 * Reads typed fields out of a JSON object and records each deviation in `problems`. Every reader
 * returns undefined when the field is absent or wrong, so the caller only acts on good values.
 */
export class FieldReader {
  constructor(
    private readonly prefix = '',
    /** One sentence per deviation; shared with nested readers so one request's problems stay together. */
    readonly problems: string[] = [],
  ) {}

  private take(object: JsonObject, name: string, rule: FieldRule, expected: string): unknown {
    const value = object[name];
    if (value === undefined || (value === null && (rule.nullable || rule.optional))) {
      if (!rule.optional && !(value === null && rule.nullable)) {
        this.problems.push(`${this.prefix}${name}: required by the docs but missing; expected ${expected}`);
      }
      return undefined;
    }
    return value;
  }

  /** Records a deviation the typed readers cannot see (a format, a range), named by its full path. */
  report(name: string, message: string): undefined {
    this.problems.push(`${this.prefix}${name}: ${message}`);
    return undefined;
  }

  private wrong(name: string, value: unknown, expected: string): undefined {
    this.problems.push(`${this.prefix}${name}: got ${describe(value)}; expected ${expected}`);
    return undefined;
  }

  /** A string; `nonEmpty` refuses "", `maxLength` bounds it. */
  string(object: JsonObject, name: string, rule: FieldRule & { nonEmpty?: boolean; maxLength?: number } = {}) {
    const expected = `a${rule.nonEmpty ? ' non-empty' : ''} string${rule.maxLength ? ` of at most ${rule.maxLength} characters` : ''}`;
    const value = this.take(object, name, rule, expected);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.wrong(name, value, expected);
    if (rule.nonEmpty && value.length === 0) return this.wrong(name, value, expected);
    if (rule.maxLength !== undefined && value.length > rule.maxLength) return this.wrong(name, value, expected);
    return value;
  }

  boolean(object: JsonObject, name: string, rule: FieldRule = {}) {
    const value = this.take(object, name, rule, 'true or false');
    if (value === undefined) return undefined;
    return typeof value === 'boolean' ? value : this.wrong(name, value, 'true or false');
  }

  /** A JSON integer within the safe range, at least `min` when given. */
  integer(object: JsonObject, name: string, rule: FieldRule & { min?: number } = {}) {
    const expected = `an integer${rule.min !== undefined ? ` >= ${rule.min}` : ''}`;
    const value = this.take(object, name, rule, expected);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return this.wrong(name, value, expected);
    if (rule.min !== undefined && value < rule.min) return this.wrong(name, value, expected);
    return value;
  }

  /** A JSON number (not a numeric string). */
  number(object: JsonObject, name: string, rule: FieldRule = {}) {
    const value = this.take(object, name, rule, 'a JSON number');
    if (value === undefined) return undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : this.wrong(name, value, 'a JSON number');
  }

  object(object: JsonObject, name: string, rule: FieldRule = {}) {
    const value = this.take(object, name, rule, 'a JSON object');
    if (value === undefined) return undefined;
    return isObject(value) ? value : this.wrong(name, value, 'a JSON object');
  }

  /** A reader for a nested object whose messages name the full path (`game.id`). */
  nested(name: string): FieldReader {
    return new FieldReader(`${this.prefix}${name}.`, this.problems);
  }
}
