import { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from '../http/errors.ts';
import type { AdminDeps } from './deps.ts';
import {
  adminRoute,
  errors,
  fieldError,
  idParams,
  json,
  jsonBody,
  jsonObjectBody,
  parse,
  parseQuery,
  rawBodyOf,
  serve,
} from './kit.ts';
import {
  requestCountResponseSchema,
  requestResponseSchema,
  requestsClearedResponseSchema,
  requestsResponseSchema,
} from './responses.ts';
import { eventIdSchema, requestMatcherSchema, requestsQuerySchema } from './schemas.ts';

/** `/requests`: the journal of the requests the client made to the aggregator API (credentials masked). */

export const REQUEST_ROUTES = {
  list: adminRoute({
    method: 'get',
    path: '/requests',
    summary:
      'The requests the client made to the aggregator API, newest first (credentials masked); a page ends at `limit` entries or 4 MiB, and nextBefore starts the next; view=summary leaves headers, body and reply out',
    request: { query: requestsQuerySchema },
    responses: { 200: json(requestsResponseSchema, 'One page'), ...errors(400, 401) },
  }),
  one: adminRoute({
    method: 'get',
    path: '/requests/{id}',
    summary: 'One journaled request',
    request: { params: idParams },
    responses: { 200: json(requestResponseSchema, 'The request'), ...errors(400, 401, 404) },
  }),
  count: adminRoute({
    method: 'post',
    path: '/requests/count',
    summary: 'How many journaled requests match (method, path, status, query, body fields, headers, fault rule, auth)',
    request: { body: jsonBody(requestMatcherSchema, false) },
    responses: { 200: json(requestCountResponseSchema, 'The count'), ...errors(400, 401) },
  }),
  clear: adminRoute({
    method: 'delete',
    path: '/requests',
    summary: 'Forget every journaled request',
    request: {},
    responses: { 200: json(requestsClearedResponseSchema, 'Cleared'), ...errors(401) },
  }),
};

export function requestRoutes(journal: NonNullable<AdminDeps['journal']>): OpenAPIHono {
  const app = new OpenAPIHono();
  serve(app, REQUEST_ROUTES.list, (c) => {
    const q = parseQuery(requestsQuerySchema, c.req.query());
    const requests = journal.list({
      ...(q.path ? { path: q.path } : {}),
      ...(q.method ? { method: q.method } : {}),
      ...(q.status ? { status: q.status } : {}),
      limit: q.limit,
      ...(q.before ? { beforeId: q.before } : {}),
      summary: q.view === 'summary',
    });
    const last = requests.at(-1);
    // A page ends at `limit` entries or at the byte cap, whichever comes first: either way the next starts below it.
    const more = (requests.length === q.limit || requests.truncated === true) && last;
    return c.json({ requests: [...requests], nextBefore: more ? last.id : null });
  });
  serve(app, REQUEST_ROUTES.count, (c) => {
    const matcher = parse(requestMatcherSchema, jsonObjectBody(rawBodyOf(c), { optional: true }));
    return c.json({ count: journal.count(matcher) });
  });
  serve(app, REQUEST_ROUTES.clear, (c) => {
    journal.clear();
    return c.json({ cleared: true });
  });
  serve(app, REQUEST_ROUTES.one, (c) => {
    const id = eventIdSchema.safeParse(c.req.param('id'));
    if (!id.success) throw fieldError('id', 'expected a request id (a positive integer)', c.req.param('id'));
    const entry = journal.get(id.data);
    if (!entry) throw new ApiError(404, `No journaled request with id ${id.data}.`);
    return c.json({ request: entry });
  });
  return app;
}
