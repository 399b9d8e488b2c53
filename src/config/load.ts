import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { valueAt } from '../shared/index.ts';
import { isKnownKey, nearestKey, schemaKeys, unknownKeys } from './keys.ts';
import { type AggmockConfig, configSchema } from './schema.ts';

export const DEFAULT_CONFIG_FILE = 'aggmock.config.json';
export const ENV_PREFIX = 'AGGMOCK_';

/** A configuration that cannot be used. The message names the key, the value and what was expected. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Layer = Record<string, unknown>;

/** Short env names for the settings people set most; every key also has a generic name. */
const ENV_ALIASES: Record<string, (value: string) => Layer> = {
  WEBHOOK_URL: (v) => ({ callbacks: { webhookUrl: v } }),
  WEBHOOK: (v) => ({ callbacks: { webhookUrl: v } }),
  API_KEY: (v) => ({ auth: { apiKeys: splitList(v) } }),
  SECRET: (v) => ({ auth: { signing: { secrets: splitList(v) } }, callbacks: { signing: { secrets: splitList(v) } } }),
  ADMIN_TOKEN: (v) => ({ admin: { token: v } }),
};

/**
 * `AGGMOCK_*` names that are not configuration: read by the examples (`AGGMOCK_URL`) and by the
 * browser tests (`AGGMOCK_CHROMIUM`, `AGGMOCK_UI_SHOTS`). Any other unknown name is refused.
 */
export const NON_CONFIG_ENV = ['URL', 'CHROMIUM', 'UI_SHOTS'].map((n) => ENV_PREFIX + n);

let knownKeys: string[] | undefined;
/** Every dotted key of the schema (computed once, on the first unknown key). */
function configKeys(): string[] {
  knownKeys ??= schemaKeys(configSchema);
  return knownKeys;
}

/** `unknown key "callbacks.timescale" (did you mean callbacks.timeScale?)`, or the keys allowed there. */
export function unknownKeyMessage(path: string): string {
  const nearest = nearestKey(path, configKeys());
  if (nearest) return `unknown key "${path}" (did you mean ${nearest}?)`;
  const parent = path.split('.').slice(0, -1).join('.');
  const depth = parent ? parent.split('.').length + 1 : 1;
  const siblings = configKeys().filter((k) => k.startsWith(parent ? `${parent}.` : '') && k.split('.').length === depth);
  return `unknown key "${path}" (valid keys${parent ? ` in ${parent}` : ''}: ${siblings.join(', ')})`;
}

/** `callbacks.timeScale` → `AGGMOCK_CALLBACKS__TIME_SCALE`. */
export function envNameOf(path: string): string {
  return (
    ENV_PREFIX +
    path
      .split('.')
      .map((key) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase())
      .join('__')
  );
}

export interface LoadOptions {
  /** Path given with --config; when absent, ./aggmock.config.json is read if it exists. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags, already shaped like the config. */
  flags?: Layer;
  cwd?: string;
}

/**
 * Resolves the configuration: flags > env (`AGGMOCK_*`) > file > defaults, validated by one schema.
 *
 * Env names: `AGGMOCK_PORT`, and nested keys with `__`: `AGGMOCK_CALLBACKS__TIME_SCALE=0.01`.
 * Values are JSON when they parse as JSON (`4000`, `true`, `["a","b"]`), otherwise strings.
 *
 * @example loadConfig({ flags: { port: 0 } }).port // 0
 */
export function loadConfig(options: LoadOptions = {}): AggmockConfig {
  const cwd = options.cwd ?? process.cwd();
  const file = readConfigFile(options.configPath, cwd);
  const env = envLayer(options.env ?? process.env);
  const merged = [file.layer, env, options.flags ?? {}].reduce(deepMerge, {});
  const profileFile = readProfileFile(merged, cwd);
  try {
    return validateConfig(merged, file.path);
  } catch (error) {
    if (error instanceof ConfigError && profileFile) {
      throw new ConfigError(`${error.message}\n  (callbacks.profile was read from ${profileFile})`);
    }
    throw error;
  }
}

/**
 * A `callbacks.profile` that names a file (it ends in .json) is read here, relative to the working
 * directory, and put in its place, so the schema validates the definition like any other setting.
 * Returns the file's path when one was read.
 */
function readProfileFile(merged: Layer, cwd: string): string | undefined {
  const callbacks = merged.callbacks;
  if (!isPlainObject(callbacks) || typeof callbacks.profile !== 'string' || !callbacks.profile.endsWith('.json'))
    return undefined;
  const path = resolve(cwd, callbacks.profile);
  if (!existsSync(path)) throw new ConfigError(`callbacks.profile: profile file not found: ${path}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`callbacks.profile: profile file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  callbacks.profile = parsed;
  return path;
}

/** Validates a raw object against the schema, turning zod issues into one readable ConfigError. */
export function validateConfig(raw: unknown, source?: string): AggmockConfig {
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(describeIssues(result.error.issues, raw, source));
}

export function describeIssues(issues: readonly z.core.$ZodIssue[], raw: unknown, source?: string): string {
  const lines = issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `  ${unknownKeyMessage([...issue.path, key].join('.'))}`);
    }
    const key = issue.path.join('.') || '(root)';
    const value = valueAt(raw, issue.path);
    const got = value === undefined ? 'nothing' : JSON.stringify(value);
    return [`  ${key}: ${issue.message} (got ${got})`];
  });
  const where = source ? ` (file: ${source}, plus env and flags)` : '';
  return `Invalid configuration${where}:\n${lines.join('\n')}`;
}

function readConfigFile(configPath: string | undefined, cwd: string): { layer: Layer; path?: string } {
  const path = resolve(cwd, configPath ?? DEFAULT_CONFIG_FILE);
  if (!existsSync(path)) {
    if (configPath) throw new ConfigError(`Config file not found: ${path} (from --config ${configPath}).`);
    return { layer: {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed))
    throw new ConfigError(`Config file ${path} must hold a JSON object, got ${JSON.stringify(parsed)}.`);
  const { $schema: _ignored, ...layer } = parsed;
  const unknown = unknownKeys(configSchema, layer);
  if (unknown.length > 0) {
    throw new ConfigError(`Config file ${path}:\n${unknown.map((key) => `  ${unknownKeyMessage(key)}`).join('\n')}`);
  }
  return { layer, path };
}

/** Reads `AGGMOCK_*` variables into a config-shaped layer, refusing names that are no setting. */
export function envLayer(env: NodeJS.ProcessEnv): Layer {
  let layer: Layer = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined || value === '' || NON_CONFIG_ENV.includes(name)) continue;
    const rest = name.slice(ENV_PREFIX.length);
    const alias = ENV_ALIASES[rest];
    if (alias) {
      layer = deepMerge(layer, alias(value));
      continue;
    }
    const path = rest.split('__').map(camelCase);
    if (!isKnownKey(configSchema, path)) {
      unknown.push(unknownEnvMessage(name, path.join('.')));
      continue;
    }
    layer = deepMerge(layer, nest(path, parseEnvValue(value)));
  }
  if (unknown.length > 0) throw new ConfigError(`Environment:\n${unknown.map((line) => `  ${line}`).join('\n')}`);
  return layer;
}

function unknownEnvMessage(name: string, path: string): string {
  const nearest = nearestKey(path, configKeys());
  const aliases = Object.keys(ENV_ALIASES).map((a) => ENV_PREFIX + a);
  if (nearest) return `${name} is no setting (did you mean ${envNameOf(nearest)}, key ${nearest}?)`;
  return `${name} is no setting (names are ${ENV_PREFIX} + a key path, e.g. ${envNameOf('callbacks.timeScale')}; short names: ${aliases.join(', ')})`;
}

function parseEnvValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function camelCase(segment: string): string {
  return segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function nest(path: string[], value: unknown): Layer {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Layer;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Objects merge key by key; arrays and scalars from the later layer replace the earlier. */
export function deepMerge(base: Layer, over: Layer): Layer {
  const out: Layer = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const prev = out[key];
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Layer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
