import { cached } from '../../shared/index.ts';
import { type Dialect, type DialectInput, dialectSchema } from '../schema.ts';
import { BETNEX } from './betnex.ts';
import { BLUEOCEAN } from './blueocean.ts';
import { CALETA } from './caleta.ts';
import { type DefaultWireSettings, defaultDialect } from './default.ts';
import { EVOLUTION } from './evolution.ts';
import { GROOVE } from './groove.ts';
import { HABANERO } from './habanero.ts';
import { HUB88 } from './hub88.ts';
import { HUNDRED_HP } from './hundredhp.ts';
import { PRAGMATIC } from './pragmatic.ts';
import { REDTIGER } from './redtiger.ts';
import { SLOTEGRATOR } from './slotegrator.ts';
import { SOFTSWISS } from './softswiss.ts';

/** The vendor dialects built in, by name. Each file cites its sources and says what they leave unknown. */
const BUILTIN: Readonly<Record<string, DialectInput>> = Object.freeze({
  hub88: HUB88,
  caleta: CALETA,
  evolution: EVOLUTION,
  pragmatic: PRAGMATIC,
  softswiss: SOFTSWISS,
  blueocean: BLUEOCEAN,
  redtiger: REDTIGER,
  '100hp': HUNDRED_HP,
  slotegrator: SLOTEGRATOR,
  habanero: HABANERO,
  groove: GROOVE,
});

/** The vendor dialects built in (each has a docs page and an independent receiver in test/dialects). */
export const BUILTIN_DIALECTS = Object.keys(BUILTIN);

/**
 * aggmock's own wires: `default` (the documented wire, shaped by four settings) and `betnex`. They
 * are dialects like the vendors'; they are listed apart because they predate them.
 */
export const BASE_DIALECTS = ['default', 'betnex'] as const;

/** Every built-in dialect name, aggmock's own first. */
export const DIALECT_NAMES: readonly string[] = [...BASE_DIALECTS, ...BUILTIN_DIALECTS];

/** The settings the default dialect is built from, as `aggmock` runs with none. */
export const DEFAULT_WIRE_SETTINGS: DefaultWireSettings = Object.freeze({
  types: Object.freeze({ debit: 'DEBIT', credit: 'CREDIT', rollback: 'ROLLBACK' }),
  rollbackStyle: 'original',
  amountFormat: 'decimal',
  extraFields: Object.freeze([]),
});

/** Whether a name is a built-in dialect (default, betnex or a vendor's). */
export function isBuiltinDialect(name: string): boolean {
  return name === 'default' || name === 'betnex' || Object.hasOwn(BUILTIN, name);
}

const parsed = new Map<string, Dialect>();
const defaults = new WeakMap<DefaultWireSettings, Dialect>();

/**
 * The default dialect built from these settings, validated once per settings object.
 *
 * @example defaultWireDialect(config.callbacks).operations.bet?.fields.type // { const: 'DEBIT' }
 */
export function defaultWireDialect(settings: DefaultWireSettings): Dialect {
  return cached(defaults, settings, () => dialectSchema.parse(defaultDialect(settings)));
}

/**
 * A built-in dialect, validated once (`default` as `aggmock` runs with no settings: see {@link defaultWireDialect}).
 *
 * @example builtinDialect('hub88').operations.bet?.path // '/transaction/bet'
 */
export function builtinDialect(name: string): Dialect {
  if (name === 'default') return defaultWireDialect(DEFAULT_WIRE_SETTINGS);
  if (!isBuiltinDialect(name)) throw new Error(`unknown dialect "${name}": expected one of ${DIALECT_NAMES.join(', ')}`);
  return cached(parsed, name, () => dialectSchema.parse(name === 'betnex' ? BETNEX : BUILTIN[name]));
}

export type { DefaultWireSettings };
