import { createRoute, OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Enqueued } from '../callbacks/engine.ts';
import { seededRandom } from '../callbacks/random.ts';
import { apiErrorSchema } from '../http/error-schema.ts';
import { withTimeout } from '../shared/index.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, jsonInput, knownQueryOnly, refuseInvalid } from './input.ts';
import { toDelivery } from './money.ts';
import { eventIdSchema } from './schemas.ts';

/*
 * What every capability of the admin API shares: how a route is declared (once, with
 * `createRoute`: each sub-app serves the declaration with `.openapi`, so the same object routes
 * the request, judges its input and is its entry in /openapi.json once the admin API is mounted),
 * and how an enqueued callback is answered.
 */

export { type AdminEnv, fieldError, refuseInvalid } from './input.ts';

/** Where the runtime mounts the admin API. */
export const ADMIN_PREFIX = '/__admin';

/** The request and response parts of a route declaration. */
type Declared = Pick<RouteConfig, 'method' | 'path' | 'summary' | 'request' | 'responses'>;

/** Open by default; with a token, every admin route wants it. */
const SECURITY: Record<string, string[]>[] = [{}, { adminBearer: [] }];

/**
 * One admin route, declared once: its path under `/__admin`, its input and every answer it gives.
 * In front of the handler, besides the schemas' validators: a query parameter the route does not
 * name is refused, and a body is read by the one strict JSON reader before its schema judges it.
 */
export function adminRoute<R extends Declared>(route: R) {
  const { method, path, summary, request, responses } = route;
  const middleware: MiddlewareHandler<AdminEnv>[] = [];
  if (request?.query) middleware.push(knownQueryOnly(request.query as z.ZodObject));
  if (request?.body) middleware.push(jsonInput({ optional: request.body.required !== true }));
  // In the order the document has always listed them.
  return createRoute({ method, path, tags: ['admin'], summary, security: SECURITY, request, responses, middleware } as R & {
    tags: string[];
    security: typeof SECURITY;
    middleware: MiddlewareHandler[];
  });
}

export const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

/** A required or optional JSON body of `schema`. */
export const jsonBody = <S extends z.ZodType>(schema: S, required = true) => ({
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

/** A capability's sub-app: serve each declared route with `.openapi(ROUTE, handler)`; input a schema refuses is a 400 naming each field. */
export function adminApp(): OpenAPIHono<AdminEnv> {
  return new OpenAPIHono<AdminEnv>({ defaultHook: refuseInvalid });
}

/** The bearer scheme every admin route names, into the admin API's document. */
export function registerAdminBearer(app: OpenAPIHono): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'Only when config admin.token (AGGMOCK_ADMIN_TOKEN) is set: `Authorization: Bearer <token>`.',
  });
}

/**
 * 202 with the event as stored, or with `?wait=true` 200 with the settled event. The route's
 * validator checked the query before the handler runs: a bad `?wait` leaves no event behind its 400.
 */
export async function answerEnqueued(
  c: Context,
  deps: Pick<AdminDeps, 'engine' | 'config'>,
  { wait, timeout }: { wait: boolean; timeout: number },
  enqueue: () => Enqueued,
) {
  const enqueued = enqueue();
  if (wait) {
    const settled = await withTimeout(enqueued.settled, timeout);
    if (settled) return c.json({ event: toDelivery(settled, deps.config) }, 200);
    const event = toDelivery(deps.engine.outbox.get(enqueued.event.id) ?? enqueued.event, deps.config);
    return c.json({ event, waited: timeout, message: 'not settled yet; GET /__admin/deliveries/:id to follow it' }, 202);
  }
  return c.json({ event: toDelivery(enqueued.event, deps.config) }, 202);
}

/** The Random scenario runs draw from: the one given, else one seeded from `config.seed`. */
export function adminRandom(deps: Pick<AdminDeps, 'random' | 'config'>) {
  return deps.random ?? seededRandom(`${deps.config.seed}:admin`);
}
