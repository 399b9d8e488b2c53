import { cached } from '../shared/index.ts';
import { credentialsIn } from './capabilities.ts';
import type { Dialect, Fields, Operation } from './schema.ts';
import { OPERATIONS } from './schema.ts';

/*
 * What a wallet compiles once per dialect to read its calls (facts.ts reads with them): each
 * template as a regular expression, each operation's method and path, the credentials each call
 * carries. A dialect does not change once made, so each is cached by the dialect or the template.
 */

/** Compiled templates: a dialect's templates are few and fixed, so each is compiled once (bounded for profile files). */
const compiledTemplates = new Map<string, { pattern: RegExp; names: string[] }>();

/** `{fact}` and `{credential.name}` placeholders of a template, as a regular expression with a group each (compiled once). */
export function templatePattern(template: string): { pattern: RegExp; names: string[] } {
  return cached(compiledTemplates, template, compileTemplate, 4096);
}

function compileTemplate(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  let last = 0;
  const re = /\{\{|\}\}|\{([A-Za-z][A-Za-z0-9_.]*)\}/g;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    source += escapeRegExp(template.slice(last, m.index));
    if (m[1] === undefined) source += escapeRegExp((m[0] as string)[0] as string);
    else {
      names.push(m[1]);
      source += '(.*?)';
    }
    last = m.index + m[0].length;
  }
  source += escapeRegExp(template.slice(last));
  return { pattern: new RegExp(`^${source}$`, 's'), names };
}

/** Text matched as it is inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The path template of an operation as a regular expression with a group per placeholder. */
export function pathPattern(template: string): { pattern: RegExp; names: string[] } {
  return templatePattern(template);
}

/** The path without its query, as a template would have written it: an empty path is the base URL itself. */
export function bare(path: string): string {
  const q = path.indexOf('?');
  const p = q < 0 ? path : path.slice(0, q);
  return p === '/' ? '' : p;
}

/** Each operation's method and compiled path, in the dialect's order: worked out once per dialect. */
const routeTables = new WeakMap<Dialect, readonly { operation: Operation; method: string; pattern: RegExp }[]>();

function routesOf(dialect: Dialect): readonly { operation: Operation; method: string; pattern: RegExp }[] {
  return cached(routeTables, dialect, () =>
    OPERATIONS.flatMap((operation) => {
      const def = dialect.operations[operation];
      return def ? [{ operation, method: def.method, pattern: pathPattern(def.path === '/' ? '' : def.path).pattern }] : [];
    }),
  );
}

/** The operations whose method and path template match a request, in the dialect's order. */
export function operationsAt(dialect: Dialect, method: string, path: string): Operation[] {
  const target = bare(path);
  const upper = method.toUpperCase();
  const out: Operation[] = [];
  for (const route of routesOf(dialect)) if (route.method === upper && route.pattern.test(target)) out.push(route.operation);
  return out;
}

/**
 * The credentials a call carries as they are (an API key in a header, a caller password in the
 * query, a secret in the body), by the vendor's names: what a wallet compares, besides a signature.
 *
 * @example credentialsCarried(redtiger, 'bet') // ['apiKey'] (Authorization: Basic {credential.apiKey})
 */
export function credentialsCarried(dialect: Dialect, operation: Operation): readonly string[] {
  const byOperation = cached(carried, dialect, () => new Map<Operation, readonly string[]>());
  return cached(byOperation, operation, () => Object.freeze(collectCredentials(dialect, operation)));
}

/** The credentials each call of a dialect carries, worked out once. */
const carried = new WeakMap<Dialect, Map<Operation, readonly string[]>>();

function collectCredentials(dialect: Dialect, operation: Operation): string[] {
  const def = dialect.operations[operation];
  if (!def) return [];
  const fields = [dialect.request.headers, def.headers, dialect.request.query, def.fields].flatMap((f) => Object.values(f));
  return [
    ...new Set([def.path, ...fields].flatMap((field) => credentialsIn(typeof field === 'string' ? { template: field } : field))),
  ];
}

/** How many of a call's top-level fields a decoded request carries (flat pairs of a form or query, or a JSON object). */
export function namedFieldCount(fields: Fields, carried: unknown): number {
  const has =
    carried instanceof Map
      ? (name: string) => carried.has(name)
      : (name: string) => carried !== null && typeof carried === 'object' && Object.hasOwn(carried, name);
  return Object.keys(fields).filter(has).length;
}
