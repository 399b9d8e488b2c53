import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { DialectHooksError, type HooksOptIn, hooksOptIn, loadHooks } from '../dialects/index.ts';
import { commaList, valueAt } from '../shared/index.ts';
import { openUnions, shownValue } from './issues.ts';
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
  API_KEY: (v) => ({ auth: { apiKeys: commaList(v) } }),
  SECRET: (v) => ({ auth: { signing: { secrets: commaList(v) } }, callbacks: { signing: { secrets: commaList(v) } } }),
  ADMIN_TOKEN: (v) => ({ admin: { token: v } }),
};

/**
 * `AGGMOCK_*` names that are not configuration: the SQLite driver (`AGGMOCK_SQLITE_DRIVER`, read
 * by src/storage), the hooks opt-in (`AGGMOCK_ALLOW_HOOKS`, read by src/dialects/hooks.ts), and names read by the examples (`AGGMOCK_URL`) and the tests (`AGGMOCK_CHROMIUM`,
 * `AGGMOCK_UI_SHOTS`, `AGGMOCK_PACKAGE_MATRIX`, `AGGMOCK_EXPORT_RUNS`, and the sizes `npm run test:nightly` sets). Any other
 * unknown name is refused.
 */
export const NON_CONFIG_ENV = [
  'URL',
  'CHROMIUM',
  'UI_SHOTS',
  'SQLITE_DRIVER',
  'PACKAGE_MATRIX',
  'CRASH_EVENTS',
  'CRASH_KILLS',
  'FUZZ_RUNS',
  'FAULTS_BOTH_MODES',
  'ALLOW_HOOKS',
  'EXPORT_RUNS',
].map((n) => ENV_PREFIX + n);

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
  /**
   * The flag that sets a key (`{"callbacks.webhookUrl": "--webhook"}`), so an invalid value from the
   * command line is reported as `callbacks.webhookUrl (from --webhook)`; the longest matching key wins.
   */
  flagNames?: Record<string, string>;
  cwd?: string;
  /** Where a deprecation note goes (default: stderr, once per process). */
  onDeprecated?: (message: string) => void;
  /** A command that sends and verifies nothing (profiles, contracts without --out, mcp's info): a dialect's hooks module is not loaded. */
  readOnly?: boolean;
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
  const env = readEnv(options.env ?? process.env);
  const flags = options.flags ?? {};
  const merged = [file.layer, env.layer, flags].reduce(deepMerge, {});
  const key = wireKeyOf(merged, options.onDeprecated ?? noteOnce);
  const wireFile = readWireFile(merged, key, cwd, hooksOptIn(options.env ?? process.env, options.readOnly));
  // Where an invalid value came from, when not the file (the message's first line names the file).
  const origin = (path: readonly PropertyKey[]): string | undefined => {
    if (valueAt(flags, path) !== undefined) return longestPrefix(path, options.flagNames ?? {}) ?? COMMAND_LINE;
    if (valueAt(env.layer, path) !== undefined) return longestPrefix(path, env.sources);
    return undefined;
  };
  try {
    return validateConfig(merged, file.path, origin);
  } catch (error) {
    if (error instanceof ConfigError && wireFile) {
      throw new ConfigError(`${error.message}\n  (callbacks.${key} was read from ${wireFile})`);
    }
    throw error;
  }
}

/** The deprecation note of `callbacks.profile`, written once per process. */
export const PROFILE_KEY_NOTE =
  'aggmock: callbacks.profile is now callbacks.dialect (the old name still works; see docs/configuration.md)';
let noted = false;
function noteOnce(message: string): void {
  if (noted) return;
  noted = true;
  process.stderr.write(`${message}\n`);
}

/** Which key names the wire: `dialect`, or its old name `profile` (noted as deprecated). */
function wireKeyOf(merged: Layer, onDeprecated: (message: string) => void): 'dialect' | 'profile' {
  const callbacks = merged.callbacks;
  if (!isPlainObject(callbacks) || callbacks.profile === undefined || callbacks.dialect !== undefined) return 'dialect';
  onDeprecated(PROFILE_KEY_NOTE);
  return 'profile';
}

/**
 * A `callbacks.dialect` (or `callbacks.profile`) that names a file (it ends in .json) is read here,
 * relative to the working directory, and put in its place, so the schema validates the definition
 * (a dialect, or a profile it converts) like any other setting. Returns the file's path when one was read.
 */
function readWireFile(merged: Layer, key: 'dialect' | 'profile', cwd: string, optIn: HooksOptIn): string | undefined {
  const callbacks = merged.callbacks;
  if (!isPlainObject(callbacks)) return undefined;
  const setting = callbacks[key];
  if (typeof setting !== 'string' || !setting.endsWith('.json')) return undefined;
  const at = `callbacks.${key}`;
  const path = resolve(cwd, setting);
  if (!existsSync(path)) throw new ConfigError(`${at}: dialect or profile file not found: ${path}`);
  if (statSync(path).isDirectory())
    throw new ConfigError(`${at}: ${path} is a folder; expected a dialect or profile file (.json)`);
  const parsed = readJson(path, `${at}: file ${path}`);
  if (isPlainObject(parsed) && typeof parsed.hooks === 'string') parsed.hooks = hooksPath(parsed.hooks, path, at, optIn);
  callbacks[key] = parsed;
  return path;
}

/**
 * A dialect file's `hooks` module: resolved from the dialect file's folder and loaded now, so a
 * missing module or a bad export stops the start with its name rather than the first callback.
 */
function hooksPath(hooks: string, dialectFile: string, at: string, optIn: HooksOptIn): string {
  const path = resolve(dirname(dialectFile), hooks);
  try {
    loadHooks(hooks, dirname(dialectFile), optIn);
  } catch (error) {
    if (error instanceof DialectHooksError) throw new ConfigError(`${at}: ${dialectFile}: hooks: ${error.message}`);
    throw error;
  }
  return path;
}

/**
 * Validates a raw object against the schema, turning zod issues into one readable ConfigError;
 * `origin` names the flag or variable that set a value, where one did.
 */
export function validateConfig(
  raw: unknown,
  source?: string,
  origin?: (path: readonly PropertyKey[]) => string | undefined,
): AggmockConfig {
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(describeIssues(result.error.issues, raw, source, origin));
}

export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  source?: string,
  origin: (path: readonly PropertyKey[]) => string | undefined = () => undefined,
): string {
  const lines = openUnions(issues).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `  ${unknownKeyMessage([...issue.path, key].join('.'))}`);
    }
    const from = origin(issue.path);
    const key = issue.path.join('.') || '(root)';
    const got = shownValue(issue.path, valueAt(raw, issue.path));
    const by = from === undefined ? '' : from === COMMAND_LINE ? ', set on the command line' : `, set by ${from}`;
    return [`  ${key}: ${issue.message} (got ${got})${by}`];
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
  if (statSync(path).isDirectory()) {
    const how = configPath ? `--config ${configPath}` : DEFAULT_CONFIG_FILE;
    throw new ConfigError(
      `Config file ${path} is a folder (from ${how}); expected a JSON file such as ${resolve(path, DEFAULT_CONFIG_FILE)}.`,
    );
  }
  const parsed = readJson(path, `Config file ${path}`);
  if (!isPlainObject(parsed))
    throw new ConfigError(`Config file ${path} must hold a JSON object, got ${JSON.stringify(parsed)}.`);
  const { $schema: _ignored, ...layer } = parsed;
  const unknown = unknownKeys(configSchema, layer);
  if (unknown.length > 0) {
    throw new ConfigError(`Config file ${path}:\n${unknown.map((key) => `  ${unknownKeyMessage(key)}`).join('\n')}`);
  }
  return { layer, path };
}

/** A JSON file's value; a file that cannot be read (permissions, say) or parsed is a ConfigError naming it, not a stack trace. */
function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    // A byte-order mark (some Windows editors write one) is no JSON syntax error.
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`${what} cannot be read (${code ?? message}); check that it is a file this user may read.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${what} is not valid JSON: ${jsonErrorDetail(text, error)}`);
  }
}

/**
 * A JSON.parse error with the line and column, the line itself and a caret under the spot:
 * `Expected double-quoted property name at line 5, column 3:` (V8 gives only a character position).
 */
export function jsonErrorDetail(text: string, error: unknown): string {
  const message = (error as Error).message;
  if (text.trim() === '') return 'the file is empty (expected a JSON object such as {"port": 4000})';
  const at = /at position (\d+)/.exec(message);
  // V8 gives no position for "Unexpected token 'x'": find it with a small scanner.
  const position = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : syntaxErrorAt(text);
  if (position === undefined) return message;
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  const source = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const what = message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/\s*at position \d+.*$/s, '')
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'Unexpected end of the file (a bracket or quote left open?)');
  return `${what}${jsonHint(text, position)} at line ${line}, column ${column}:\n    ${source}\n    ${' '.repeat(Math.max(0, column - 1))}^`;
}

/** The usual cause of a JSON syntax error at `position`, as people write JSON by hand. */
function jsonHint(text: string, position: number): string {
  const c = text[position];
  if (c === '/' || c === '#') return ' (JSON has no comments)';
  if (c === "'") return ' (JSON takes double quotes, not single)';
  if ((c === '}' || c === ']') && text.slice(0, position).trimEnd().endsWith(',')) return ' (a trailing comma before it?)';
  if (c !== undefined && /[A-Za-z_$]/.test(c) && text.slice(0, position).trimEnd().match(/[{,]$/))
    return ' (keys take double quotes: "key")';
  if (c === '"' && /[\d"\]}el]$/.test(text.slice(0, position).trimEnd())) return ' (a comma missing before it?)';
  return '';
}

/** Where the first JSON syntax error in `text` is, by a small recursive-descent scanner; undefined when none is found. */
function syntaxErrorAt(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail();
      i += c === '\\' ? 2 : 1;
    }
    fail();
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === close) {
          i++;
          return;
        }
        if (text[i] !== ',') fail();
        i++;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const token =
      /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))?.[0] ||
      ['true', 'false', 'null'].find((literal) => text.startsWith(literal, i));
    if (!token) fail();
    i += (token as string).length;
  };
  try {
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (thrown) {
    // A number is the position; anything else (a nesting too deep for the stack) is not worth a position.
    return typeof thrown === 'number' ? thrown : undefined;
  }
}

/** The origin of a value from a flag {@link LoadOptions.flagNames} does not name. */
const COMMAND_LINE = 'the command line';

/** The value of the longest dotted key of `names` that `path` starts with. */
function longestPrefix(path: readonly PropertyKey[], names: Record<string, string>): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const name = names[path.slice(0, n).join('.')];
    if (name !== undefined) return name;
  }
  return undefined;
}

/** Reads `AGGMOCK_*` variables into a config-shaped layer, refusing names that are no setting. */
export function envLayer(env: NodeJS.ProcessEnv): Layer {
  return readEnv(env).layer;
}

/** {@link envLayer}, plus which variable set each dotted key (`{"port": "AGGMOCK_PORT"}`). */
function readEnv(env: NodeJS.ProcessEnv): { layer: Layer; sources: Record<string, string> } {
  let layer: Layer = {};
  const sources: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined || value === '' || NON_CONFIG_ENV.includes(name)) continue;
    const rest = name.slice(ENV_PREFIX.length);
    // Own keys only: AGGMOCK_hasOwnProperty or AGGMOCK___proto__ are unknown names, not Object's members.
    const alias = Object.hasOwn(ENV_ALIASES, rest) ? ENV_ALIASES[rest] : undefined;
    if (alias) {
      const part = alias(value);
      for (const key of leafKeys(part)) sources[key] = name;
      layer = deepMerge(layer, part);
      continue;
    }
    const path = rest.split('__').map(camelCase);
    if (!isKnownKey(configSchema, path)) {
      unknown.push(unknownEnvMessage(name, path.join('.')));
      continue;
    }
    sources[path.join('.')] = name;
    layer = deepMerge(layer, nest(path, parseEnvValue(name, value)));
  }
  if (unknown.length > 0) throw new ConfigError(`Environment:\n${unknown.map((line) => `  ${line}`).join('\n')}`);
  return { layer, sources };
}

/** The dotted keys of the non-object values in `layer`. */
function leafKeys(layer: Layer, prefix = ''): string[] {
  return Object.entries(layer).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return isPlainObject(value) ? leafKeys(value, path) : [path];
  });
}

function unknownEnvMessage(name: string, path: string): string {
  const nearest = nearestKey(path, configKeys());
  const aliases = Object.keys(ENV_ALIASES).map((a) => ENV_PREFIX + a);
  if (nearest) return `${name} is no setting (did you mean ${envNameOf(nearest)}, key ${nearest}?)`;
  return `${name} is no setting (names are ${ENV_PREFIX} + a key path, e.g. ${envNameOf('callbacks.timeScale')}; short names: ${aliases.join(', ')})`;
}

/** JSON when it parses; a value that starts like a JSON array or object but does not parse is refused, not taken as a string. */
function parseEnvValue(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    if (/^\s*[[{]/.test(value))
      throw new ConfigError(`Environment:\n  ${name} is not valid JSON: ${jsonErrorDetail(value, error)}`);
    return value;
  }
}

function camelCase(segment: string): string {
  return segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function nest(path: string[], value: unknown): Layer {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Layer;
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
