import type { z } from 'zod';
import { editDistance } from '../shared/index.ts';

/*
 * Every key the config schema knows, as dotted paths ("callbacks.timeScale"), read from the schema
 * itself so it never drifts. A typo in a config file or an `AGGMOCK_*` variable would otherwise do
 * nothing at all; with these, it is refused with the nearest valid key.
 */

/** `*` stands for any record key or array index (`wallet.players.*`, `schedule.*.every`). */
export const ANY = '*';

type Node = z.core.$ZodType;

/** The object, record or array inside optional/default/prefault/pipe wrappers, or undefined for a leaf. */
function container(schema: Node): Node | undefined {
  const def = schema._zod.def as { type: string; innerType?: Node; in?: Node; out?: Node; options?: Node[] };
  switch (def.type) {
    case 'object':
    case 'record':
    case 'array':
      return schema;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return def.innerType && container(def.innerType);
    case 'pipe':
      return (def.in && container(def.in)) ?? (def.out && container(def.out));
    default:
      return undefined;
  }
}

/** The schema of `key` one level below `schema`, or undefined when the key is not allowed there. */
function child(schema: Node, key: string): Node | 'leaf' | undefined {
  const inner = container(schema);
  if (!inner) return 'leaf';
  const def = inner._zod.def as { type: string; shape?: Record<string, Node>; valueType?: Node; element?: Node };
  if (def.type === 'object') return def.shape && Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
  if (def.type === 'record') return def.valueType;
  return def.element;
}

/** Every dotted key path of the schema, objects and leaves alike. */
export function schemaKeys(schema: Node, prefix = ''): string[] {
  const inner = container(schema);
  if (!inner) return [];
  const def = inner._zod.def as { type: string; shape?: Record<string, Node>; valueType?: Node; element?: Node };
  const entries: [string, Node][] =
    def.type === 'object' ? Object.entries(def.shape ?? {}) : [[ANY, (def.valueType ?? def.element) as Node]];
  return entries.flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...schemaKeys(value, path)];
  });
}

/**
 * Dotted paths in `raw` the schema has no place for. A value the schema takes as a whole (a leaf,
 * however shaped) is not looked into: its own validation reports what is wrong with it.
 */
export function unknownKeys(schema: Node, raw: unknown, prefix = ''): string[] {
  if (raw === null || typeof raw !== 'object') return [];
  const entries = Array.isArray(raw) ? raw.map((v, i) => [String(i), v] as const) : Object.entries(raw);
  return entries.flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const next = child(schema, key);
    if (next === undefined) return [path];
    return next === 'leaf' ? [] : unknownKeys(next, value, path);
  });
}

/** Whether a dotted path is a key of the schema (record keys and indexes match `*`). */
export function isKnownKey(schema: Node, path: readonly string[]): boolean {
  let node: Node | 'leaf' | undefined = schema;
  for (const key of path) {
    if (node === 'leaf') return false;
    node = child(node, key);
    if (node === undefined) return false;
  }
  return true;
}

/**
 * The valid key closest to `path` by edit distance on the whole dotted path, case-insensitive, so
 * both "callbacks.timescale" and "callback.timeScale" find "callbacks.timeScale". Array indexes in
 * `path` are kept in the answer ("schedule.0.evry" → "schedule.0.every").
 */
export function nearestKey(path: string, known: readonly string[]): string | undefined {
  const indexes = path.split('.').filter((s) => /^\d+$/.test(s));
  const wild = path
    .split('.')
    .map((s) => (/^\d+$/.test(s) ? ANY : s))
    .join('.');
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(wild.toLowerCase(), key.toLowerCase());
    if (!best || distance < best.distance) best = { key, distance };
  }
  // Far-off guesses mislead more than they help.
  if (!best || best.distance > Math.max(2, Math.floor(wild.length / 3))) return undefined;
  let i = 0;
  return best.key
    .split('.')
    .map((s) => (s === ANY && i < indexes.length ? (indexes[i++] as string) : s))
    .join('.');
}
