import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError } from '../http/errors.ts';
import { nextBefore } from '../http/paging.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, errors, json, jsonBody } from './kit.ts';
import {
  requestCountResponseSchema,
  requestResponseSchema,
  requestsClearedResponseSchema,
  requestsResponseSchema,
} from './responses.ts';
import { requestIdSchema, requestMatcherSchema, requestsQuerySchema } from './schemas.ts';

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
    request: { params: z.object({ id: requestIdSchema }) },
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

export function requestRoutes(journal: NonNullable<AdminDeps['journal']>): OpenAPIHono<AdminEnv> {
  return adminApp()
    .openapi(REQUEST_ROUTES.list, (c) => {
      const q = c.req.valid('query');
      const requests = journal.list({
        ...(q.path ? { path: q.path } : {}),
        ...(q.method ? { method: q.method } : {}),
        ...(q.status ? { status: q.status } : {}),
        limit: q.limit,
        ...(q.before ? { beforeId: q.before } : {}),
        summary: q.view === 'summary',
      });
      // A page ends at `limit` entries or at the byte cap, whichever comes first: either way the next starts below it.
      return c.json({ requests: [...requests], nextBefore: nextBefore(requests, q.limit) }, 200);
    })
    .openapi(REQUEST_ROUTES.one, (c) => {
      const { id } = c.req.valid('param');
      const entry = journal.get(id);
      if (!entry) throw new ApiError(404, `No journaled request with id ${id}.`);
      return c.json({ request: entry }, 200);
    })
    .openapi(REQUEST_ROUTES.count, (c) => c.json({ count: journal.count(c.req.valid('json')) }, 200))
    .openapi(REQUEST_ROUTES.clear, (c) => {
      journal.clear();
      return c.json({ cleared: true }, 200);
    });
}
