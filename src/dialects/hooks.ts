import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
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
 * Loads a hooks module (ES module or CommonJS; Node ≥ 20.19 requires ES modules synchronously)
 * and checks what it exports. A relative path is taken from `from` (the dialect file's folder).
 *
 * @example loadHooks('./evoplay-hooks.mjs', '/work/dialects').signedText
 */
export function loadHooks(path: string, from = process.cwd()): DialectHooks {
  const file = isAbsolute(path) ? path : resolve(from, path);
  const known = loaded.get(file);
  if (known) return known;
  if (!existsSync(file) || statSync(file).isDirectory())
    throw new DialectHooksError(`the hooks module ${file} does not exist (hooks: ${JSON.stringify(path)})`);
  let exported: Record<string, unknown>;
  try {
    exported = require(file) as Record<string, unknown>;
  } catch (error) {
    throw new DialectHooksError(`the hooks module ${file} could not be loaded: ${(error as Error).message}`);
  }
  const hooks = hooksIn(file, exported);
  loaded.set(file, hooks);
  return hooks;
}

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

/** The dialect's hooks, loaded on first use (its `hooks` path is absolute once a dialect file is read). */
export function hooksOf(dialect: Dialect): DialectHooks | undefined {
  return dialect.hooks === undefined ? undefined : loadHooks(dialect.hooks);
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
