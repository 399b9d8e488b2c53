import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, Handler } from 'hono';
import { z } from 'zod';
import type { Enqueued } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { parseJsonBytes, type RawBodyVariables } from '../http/body.ts';
import { apiErrorSchema } from '../http/error-schema.ts';
import { ApiError } from '../http/errors.ts';
import type { AdminDeps } from './deps.ts';
import { parse } from './input.ts';
import { toDelivery } from './money.ts';
import { eventIdSchema, waitQuerySchema } from './schemas.ts';

/*
 * What every capability of the admin API shares: how a route is declared (once, with
 * `createRoute`: the same object routes the request and documents it), how input is read and
 * refused, and how an enqueued callback is answered.
 */

export { fieldError, parse, parseQuery } from './input.ts';

/** Where the runtime mounts the admin API. */
export const ADMIN_PREFIX = '/__admin';

/** The request and response parts of a route declaration. */
type Declared = Pick<RouteConfig, 'method' | 'path' | 'summary' | 'request' | 'responses'>;

/** Open by default; with a token, every admin route wants it. */
const SECURITY: Record<string, string[]>[] = [{}, { adminBearer: [] }];

/** One admin route, declared once: its path under `/__admin`, its input and every answer it gives. */
export function adminRoute<R extends Declared>(route: R) {
  const { method, path, summary, request, responses } = route;
  // In the order the document has always listed them.
  return createRoute({ method, path, tags: ['admin'], summary, security: SECURITY, request, responses } as R & {
    tags: string[];
    security: typeof SECURITY;
  });
}
export type AdminRoute = ReturnType<typeof adminRoute>;

export const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

/** A required or optional JSON body of `schema`. */
export const jsonBody = (schema: z.ZodType, required = true) => ({
  required,
  content: { 'application/json': { schema } },
});

/** The error answers a route gives, each an {@link apiErrorSchema} body. */
export function errors(...statuses: (400 | 401 | 404 | 409)[]) {
  const words = {
    400: 'Bad input; `errors` names each field',
    401: 'Missing or wrong bearer token (with admin.token set)',
    404: 'No such delivery, scenario, fault rule or journaled request',
    409: 'Not a DEBIT',
  };
  return Object.fromEntries(statuses.map((s) => [s, json(apiErrorSchema, words[s])]));
}

/** The answers of a route that enqueues one callback: 202 at once, 200 once settled with `?wait=true`. */
export const ENQUEUED_RESPONSES = (schema: z.ZodType) => ({
  200: json(schema, 'With ?wait=true: the settled event'),
  202: json(schema, 'Enqueued (or not settled within the wait timeout)'),
});

/** A delivery's or a journaled request's id in the path. */
export const idParams = z.object({ id: eventIdSchema });

/**
 * Serves a declared route on `app`. The handler validates its own input with the route's schemas
 * (the admin API's error bodies name each field as its tests pin them), so the declaration adds
 * no second validator: it routes the request and is the OpenAPI entry.
 */
export function serve(app: OpenAPIHono, route: AdminRoute, handler: Handler<{ Variables: RawBodyVariables }>): void {
  app.on(route.method.toUpperCase(), route.path.replace(/\{(\w+)\}/g, ':$1'), handler as Handler);
}

/** Every declared admin route into an OpenAPI registry, under `/__admin`, with the bearer scheme. */
export function registerAdminDocument(registry: OpenAPIHono['openAPIRegistry'], routes: readonly AdminRoute[]): void {
  registry.registerComponent('securitySchemes', 'adminBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'Only when config admin.token (AGGMOCK_ADMIN_TOKEN) is set: `Authorization: Bearer <token>`.',
  });
  for (const route of routes) registry.registerPath({ ...route, path: ADMIN_PREFIX + route.path });
}

/** The bytes readRawBody kept for this request. */
export function rawBodyOf(c: Context): Uint8Array {
  return (c as Context<{ Variables: RawBodyVariables }>).get('rawBody');
}

/** The JSON object in the body (read by readRawBody), refusing unparseable bodies with a 400 that says what was wrong. */
export function jsonObjectBody(raw: Uint8Array, options: { optional?: boolean } = {}): unknown {
  if (Buffer.from(raw).toString('latin1').trim() === '') {
    if (options.optional) return {};
    throw new ApiError(400, 'The request body is empty; expected a JSON object.', {
      errors: [{ field: '(body)', message: 'expected a JSON object' }],
    });
  }
  const value = parseJsonBytes(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'Expected a JSON object as the body.', {
      errors: [{ field: '(body)', message: 'expected a JSON object', received: value }],
    });
  }
  return value;
}

/** The promise's value, or undefined when it takes longer than `ms` (real time: this is an HTTP wait). */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * 202 with the event as stored, or with `?wait=true` 200 with the settled event. The query is
 * checked before `enqueue` runs: a bad `?wait` must not leave an event behind its 400.
 */
export async function answerEnqueued(
  c: Context,
  deps: Pick<AdminDeps, 'engine' | 'config'>,
  enqueue: () => Enqueued,
): Promise<Response> {
  const { wait, timeout } = parse(waitQuerySchema, c.req.query());
  const enqueued = enqueue();
  if (wait) {
    const settled = await withTimeout(enqueued.settled, timeout);
    if (settled) return c.json({ event: toDelivery(settled, deps.config) }, 200);
    const current = deps.engine.outbox.get(enqueued.event.id) ?? enqueued.event;
    return c.json(
      {
        event: toDelivery(current, deps.config),
        waited: timeout,
        message: 'not settled yet; GET /__admin/deliveries/:id to follow it',
      },
      202,
    );
  }
  return c.json({ event: toDelivery(enqueued.event, deps.config) }, 202);
}

/** The Random scenario runs draw from: the one given, else one seeded from `config.seed`. */
export function adminRandom(deps: Pick<AdminDeps, 'random' | 'config'>) {
  return deps.random ?? seededRandom(`${deps.config.seed}:admin`);
}
