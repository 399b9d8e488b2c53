import { type Dialect, type DialectInput, dialectSchema } from '../schema.ts';
import { BLUEOCEAN } from './blueocean.ts';
import { CALETA } from './caleta.ts';
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

export const BUILTIN_DIALECTS = Object.keys(BUILTIN);

/** Whether a name is a built-in vendor dialect. */
export function isBuiltinDialect(name: string): boolean {
  return Object.hasOwn(BUILTIN, name);
}

const parsed = new Map<string, Dialect>();

/** A built-in dialect, validated once. */
export function builtinDialect(name: string): Dialect {
  if (!isBuiltinDialect(name)) throw new Error(`unknown dialect "${name}": expected one of ${BUILTIN_DIALECTS.join(', ')}`);
  let dialect = parsed.get(name);
  if (!dialect) {
    dialect = dialectSchema.parse(BUILTIN[name]);
    parsed.set(name, dialect);
  }
  return dialect;
}
