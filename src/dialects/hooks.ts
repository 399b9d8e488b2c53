import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { type Credentials, DialectRequestError } from './request.ts';
import type { Dialect } from './schema.ts';

/*
 * A dialect's hooks: a small JavaScript module for what a vendor does that data cannot say, named
 * by the dialect's `hooks` and loaded once. Today one hook: `signedText`, the text a signature
 * covers when no recipe payload can build it (Evoplay joins values with "*" and nested values with
 * ":"). The recipe still says the algorithm, the encoding and where the signature goes, so the
 * hook is one pure function that the sender and the receiving wallet both call.
 */

/** What a request shows a `signedText` hook, on the sending side and on the receiving side alike. */
export interface SignedParts {
  /** The HTTP method in capitals. */
  method: string;
  /** The path under the base URL, without the query string. */
  path: string;
  /** The query string without `?` and without a signature placed in it. */
  query: string;
  /** The body text without a signature field; undefined for a query-string request. */
  body: string | undefined;
  /** The parameters in the order sent: a JSON body's top level (objects as JSON), or the form or query pairs. */
  params: [string, string][];
  /** The fields without the signature: a JSON body's object as it is (nested values kept), or the form or query pairs as an object. */
  fields: Readonly<Record<string, unknown>>;
  /** The request's headers, names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
}

/** What a hooks module may export (named exports, or one default export object holding them). */
export interface DialectHooks {
  /** The text the signature covers; the recipe's algorithm signs it. Pure: the same parts give the same text. */
  signedText?: (parts: SignedParts, credentials: Readonly<Credentials>) => string;
}

const HOOK_NAMES = ['signedText'] as const satisfies readonly (keyof DialectHooks)[];

/** Thrown when a dialect's hooks module cannot be loaded, does not export what a hook is, or a hook fails. */
export class DialectHooksError extends DialectRequestError {
  override name = 'DialectHooksError';
}

/** The longest text a hook may return: a signature covers a request, which is bounded too. */
const MAX_SIGNED_TEXT = 1024 * 1024;

const loaded = new Map<string, DialectHooks>();
const require = createRequire(import.meta.url);

/**
 * Whether this run may load hooks modules: only what the user said for this run — `--allow-hooks`
 * on the command line or `AGGMOCK_ALLOW_HOOKS=1` in the environment — never a dialect file or a
 * config file found in the working folder. `readOnly` commands (profiles, contracts, mcp's
 * information) never load one: they check its path and leave it unloaded.
 */
export interface HooksOptIn {
  allow: boolean;
  readOnly?: boolean;
}

/** The environment variable that allows hooks, like `--allow-hooks`. */
export const ALLOW_HOOKS_ENV = 'AGGMOCK_ALLOW_HOOKS';

/** The opt-in an environment gives (`AGGMOCK_ALLOW_HOOKS=1`; the CLI's `--allow-hooks` sets it). */
export function hooksOptIn(env: NodeJS.ProcessEnv = process.env, readOnly = false): HooksOptIn {
  return { allow: env[ALLOW_HOOKS_ENV] === '1', readOnly };
}

/** A hooks module a run loaded: its absolute path and SHA-256, for the banners. */
export interface LoadedHooks {
  file: string;
  sha256: string;
}
const notices: LoadedHooks[] = [];

/** The hooks modules loaded so far (each once), for every banner to name. */
export function loadedHooks(): readonly LoadedHooks[] {
  return notices;
}

/** The banner line of the hooks modules loaded, or undefined when none was. */
export function hooksBannerLine(): string | undefined {
  return notices.length === 0 ? undefined : hooksLine(notices);
}

function hooksLine(modules: readonly LoadedHooks[]): string {
  return `hooks → ${modules.map((h) => `${h.file} (sha256 ${h.sha256})`).join(', ')}: JavaScript running with your privileges (--allow-hooks)`;
}

const MODULE_EXTENSIONS = ['.mjs', '.cjs', '.js'];

/**
 * Loads a hooks module (ES module or CommonJS; Node ≥ 20.19 requires ES modules synchronously)
 * and checks what it exports. `path` is taken from `from`, the dialect file's folder, and must stay
 * inside it (no `..`, no absolute path elsewhere, no symlink out) and be a .mjs, .cjs or .js file.
 * A hooks module is code: it loads only with the run's opt-in ({@link HooksOptIn}); a read-only
 * command checks the path and loads nothing.
 *
 * @example loadHooks('./evoplay-hooks.mjs', '/work/dialects', { allow: true }).signedText
 */
export function loadHooks(path: string, from: string, optIn: HooksOptIn): DialectHooks {
  const file = hooksFile(path, from);
  const known = loaded.get(file);
  if (known) return known;
  if (optIn.readOnly) return NOT_LOADED;
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (!optIn.allow)
    throw new DialectHooksError(
      `the dialect names the hooks module ${file} (sha256 ${sha256}), which is JavaScript that would run with your privileges; review it like a dependency, then allow it for this run with --allow-hooks or ${ALLOW_HOOKS_ENV}=1`,
    );
  let exported: Record<string, unknown>;
  try {
    exported = require(file) as Record<string, unknown>;
  } catch (error) {
    throw new DialectHooksError(`the hooks module ${file} could not be loaded: ${(error as Error).message}`);
  }
  const hooks = hooksIn(file, exported);
  loaded.set(file, hooks);
  const notice = { file, sha256 };
  notices.push(notice);
  // Every command says so, on stderr, once a module (serve's banner names them all): code from a dialect now runs.
  process.stderr.write(`aggmock: ${hooksLine([notice])}\n`);
  return hooks;
}

/** The module's absolute path, checked: inside `from`, an existing .mjs/.cjs/.js file. */
function hooksFile(path: string, from: string): string {
  const folder = resolve(from);
  const file = isAbsolute(path) ? resolve(path) : resolve(folder, path);
  const inside = (f: string, dir: string) => {
    const rel = relative(dir, f);
    return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
  };
  if (!inside(file, folder))
    throw new DialectHooksError(
      `the hooks module ${file} is outside the dialect file's folder ${folder} (hooks: ${JSON.stringify(path)}); a hooks module sits beside its dialect file`,
    );
  if (!MODULE_EXTENSIONS.includes(extname(file)))
    throw new DialectHooksError(
      `the hooks module ${file} is not a JavaScript module (hooks: ${JSON.stringify(path)}); expected a ${MODULE_EXTENSIONS.join(', ')} file`,
    );
  if (!existsSync(file) || statSync(file).isDirectory())
    throw new DialectHooksError(`the hooks module ${file} does not exist (hooks: ${JSON.stringify(path)})`);
  if (!inside(realpathSync(file), realpathSync(folder)))
    throw new DialectHooksError(`the hooks module ${file} links outside the dialect file's folder ${folder}`);
  return file;
}

/** A read-only command's hooks: the path checked, nothing loaded; using one says so. */
const NOT_LOADED: DialectHooks = Object.freeze({
  signedText: () => {
    throw new DialectHooksError(
      `hooks are not loaded by a read-only command; run a command that sends or verifies, with --allow-hooks`,
    );
  },
});

function hooksIn(file: string, exported: Record<string, unknown>): DialectHooks {
  const source =
    exported.default !== undefined && typeof exported.default === 'object' && exported.default !== null
      ? (exported.default as Record<string, unknown>)
      : exported;
  const hooks: DialectHooks = {};
  for (const [name, value] of Object.entries(source)) {
    if (name === 'default' || name === '__esModule' || name === 'module.exports') continue;
    if (!(HOOK_NAMES as readonly string[]).includes(name))
      throw new DialectHooksError(
        `the hooks module ${file} exports "${name}", which is not a hook; a hooks module exports ${HOOK_NAMES.join(', ')}`,
      );
    if (typeof value !== 'function')
      throw new DialectHooksError(`the hooks module ${file} exports "${name}" as ${typeof value}; expected a function`);
    hooks[name as keyof DialectHooks] = value as DialectHooks[keyof DialectHooks];
  }
  if (Object.keys(hooks).length === 0)
    throw new DialectHooksError(`the hooks module ${file} exports no hook; expected ${HOOK_NAMES.join(', ')}`);
  return hooks;
}

/**
 * The dialect's hooks: loaded when its file was read (its `hooks` path is absolute then), or now,
 * from the module's own folder, with this run's environment's opt-in.
 */
export function hooksOf(dialect: Dialect): DialectHooks | undefined {
  if (dialect.hooks === undefined) return undefined;
  return loaded.get(dialect.hooks) ?? loadHooks(dialect.hooks, resolve(dialect.hooks, '..'), hooksOptIn());
}

/** The text a `signedText` hook returns for a request, checked: a string, bounded; a throw names the module. */
export function hookedText(dialect: Dialect, parts: SignedParts, credentials: Credentials): string {
  const hook = hooksOf(dialect)?.signedText;
  if (!hook)
    throw new DialectHooksError(
      `the ${dialect.name} dialect signs over a hook (signing.payload.over: "hook") but its hooks module exports no signedText`,
    );
  let text: unknown;
  try {
    text = hook(parts, Object.freeze({ ...credentials }));
  } catch (error) {
    throw new DialectHooksError(`the ${dialect.name} dialect's signedText hook threw: ${(error as Error).message}`);
  }
  if (typeof text !== 'string')
    throw new DialectHooksError(`the ${dialect.name} dialect's signedText hook returned ${typeof text}; expected a string`);
  if (text.length > MAX_SIGNED_TEXT)
    throw new DialectHooksError(
      `the ${dialect.name} dialect's signedText hook returned ${text.length} characters; at most ${MAX_SIGNED_TEXT}`,
    );
  return text;
}
