import { cached } from '../../../shared/index.ts';
import { escapeRegExp } from '../../call-routes.ts';
import { type OperatorApi, type OperatorApiInput, operatorApiSchema } from '../../operator.ts';
import type { Dialect } from '../../schema.ts';
import { BLUEOCEAN_OPERATOR } from './blueocean.ts';
import { CALETA_OPERATOR } from './caleta.ts';
import { EVOLUTION_OPERATOR } from './evolution.ts';
import { HUB88_OPERATOR } from './hub88.ts';
import { PRAGMATIC_OPERATOR } from './pragmatic.ts';
import { SLOTEGRATOR_OPERATOR } from './slotegrator.ts';
import { SOFTSWISS_OPERATOR } from './softswiss.ts';

/*
 * The operator halves built in, by the name of the dialect whose wallet half they complete. Each
 * file cites its sources and says what is unknown (research: docs/research/operator-apis.md).
 */
const BUILTIN: Readonly<Record<string, OperatorApiInput>> = Object.freeze({
  hub88: HUB88_OPERATOR,
  caleta: CALETA_OPERATOR,
  pragmatic: PRAGMATIC_OPERATOR,
  slotegrator: SLOTEGRATOR_OPERATOR,
  blueocean: BLUEOCEAN_OPERATOR,
  softswiss: SOFTSWISS_OPERATOR,
  evolution: EVOLUTION_OPERATOR,
});

export const BUILTIN_OPERATOR_APIS = Object.keys(BUILTIN);

const parsed = new Map<string, OperatorApi>();

/** A built-in operator API, validated once; undefined when the vendor has none built in. */
export function builtinOperatorApi(name: string): OperatorApi | undefined {
  if (!Object.hasOwn(BUILTIN, name)) return undefined;
  return cached(parsed, name, () => operatorApiSchema.parse(BUILTIN[name]));
}

/**
 * A dialect's operator API: the one its file describes, else the built-in one of its name.
 *
 * @example operatorApiOf(builtinDialect('hub88'))?.basePath // '/operator/generic/v2'
 */
export function operatorApiOf(dialect: Pick<Dialect, 'name'> & { operator?: OperatorApi | undefined }): OperatorApi | undefined {
  return dialect.operator ?? builtinOperatorApi(dialect.name);
}

/** `:name` segments as one path segment each. */
function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)))
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Whether a path (no query, no trailing slash) is a route of this operator API, as a fault rule's
 * `match.path` may name it.
 *
 * @example operatorRoutePaths(api)('/operator/generic/v2/game/url') // true under hub88
 */
export function operatorRoutePaths(api: OperatorApi): (path: string) => boolean {
  const patterns = api.routes.map((route) => routePattern(`${api.basePath}${route.path}`.replace(/\/$/, '')));
  return (path) => patterns.some((pattern) => pattern.test(path));
}

let builtinPaths: ((path: string) => boolean)[] | undefined;

/**
 * Whether a path (no query, no trailing slash) is a route of a built-in operator API, as a fault
 * rule's `match.path` may name it.
 *
 * @example isOperatorRoutePath('/operator/generic/v2/game/url') // true
 */
export function isOperatorRoutePath(path: string): boolean {
  builtinPaths ??= BUILTIN_OPERATOR_APIS.map((name) => operatorRoutePaths(builtinOperatorApi(name) as OperatorApi));
  return builtinPaths.some((test) => test(path));
}
