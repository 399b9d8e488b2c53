import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import {
  callbackFaultCreatedResponseSchema,
  callbackFaultsResponseSchema,
  deliveriesResponseSchema,
  deliveryResponseSchema,
  discrepanciesResponseSchema,
  enqueuedResponseSchema,
  faultCreatedResponseSchema,
  faultsRemovedResponseSchema,
  faultsResponseSchema,
  ledgerResponseSchema,
  requestCountResponseSchema,
  requestResponseSchema,
  requestsClearedResponseSchema,
  requestsResponseSchema,
  resetResponseSchema,
  scenarioRunResponseSchema,
  scenariosResponseSchema,
  scheduleResponseSchema,
} from '../admin/responses.ts';
import {
  deliveriesQuerySchema,
  discrepanciesQuerySchema,
  eventIdSchema,
  requestMatcherSchema,
  requestsQuerySchema,
  runScenarioSchema,
  triggerEventSchema,
  waitQuerySchema,
} from '../admin/schemas.ts';
import { callbackFaultRuleSchema, faultRuleSchema } from '../config/index.ts';
import { apiErrorSchema } from '../http/error-schema.ts';
import { SCENARIOS } from '../scenarios/plan.ts';

/*
 * The admin API (`/__admin`, mounted by the runtime) in the OpenAPI document, so clients can be
 * generated for it. The routes live in src/admin/index.ts; this only describes them, with the
 * request schemas they validate with and the response schemas a test checks their answers against.
 */

type Registry = OpenAPIHono['openAPIRegistry'];
type Responses = Parameters<Registry['registerPath']>[0]['responses'];

const TAG = 'admin';
const PREFIX = '/__admin';

const idParams = z.object({ id: eventIdSchema });

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

function errors(...statuses: (400 | 401 | 404 | 409)[]): Responses {
  const words = {
    400: 'Bad input; `errors` names each field',
    401: 'Missing or wrong bearer token (with admin.token set)',
    404: 'No such delivery, scenario, fault rule or journaled request',
    409: 'Not a DEBIT',
  };
  return Object.fromEntries(statuses.map((s) => [s, json(apiErrorSchema, words[s])]));
}

export function registerAdminPaths(registry: Registry): void {
  registry.registerComponent('securitySchemes', 'adminBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'Only when config admin.token (AGGMOCK_ADMIN_TOKEN) is set: `Authorization: Bearer <token>`.',
  });
  // Open by default; with a token, every admin route wants it.
  const security: Record<string, string[]>[] = [{}, { adminBearer: [] }];
  const path = (
    method: 'get' | 'post' | 'delete',
    route: string,
    summary: string,
    request: Parameters<Registry['registerPath']>[0]['request'],
    responses: Responses,
  ) => registry.registerPath({ method, path: PREFIX + route, tags: [TAG], summary, security, request, responses });

  const enqueued = {
    200: json(enqueuedResponseSchema, 'With ?wait=true: the settled event'),
    202: json(enqueuedResponseSchema, 'Enqueued (or not settled within the wait timeout)'),
  };
  path(
    'post',
    '/events',
    'Send one callback (debit, credit or rollback) to the webhook',
    { query: waitQuerySchema, body: { required: true, content: { 'application/json': { schema: triggerEventSchema } } } },
    { ...enqueued, ...errors(400, 401) },
  );
  path('get', '/scenarios', 'List the scenarios', {}, { 200: json(scenariosResponseSchema, 'Every scenario'), ...errors(401) });
  path(
    'post',
    '/scenarios/{name}/run',
    'Run a scenario (a planned sequence of callbacks)',
    {
      params: z.object({ name: z.enum(SCENARIOS) }),
      query: waitQuerySchema,
      body: { required: false, content: { 'application/json': { schema: runScenarioSchema } } },
    },
    {
      200: json(scenarioRunResponseSchema, 'With ?wait=true: the finished run'),
      202: json(scenarioRunResponseSchema, 'Started: its planned steps and enqueued events'),
      ...errors(400, 401, 404),
    },
  );
  path(
    'get',
    '/deliveries',
    'List deliveries, newest first',
    { query: deliveriesQuerySchema },
    { 200: json(deliveriesResponseSchema, 'One page'), ...errors(400, 401) },
  );
  path(
    'get',
    '/deliveries/{id}',
    'One delivery with every attempt (request headers and body, reply, latency)',
    { params: idParams },
    { 200: json(deliveryResponseSchema, 'The delivery'), ...errors(400, 401, 404) },
  );
  path(
    'post',
    '/deliveries/{id}/replay',
    'Send the same callback again (same transactionId, same bytes re-signed)',
    { params: idParams, query: waitQuerySchema },
    { ...enqueued, ...errors(400, 401, 404) },
  );
  path(
    'post',
    '/deliveries/{id}/rollback',
    'Roll back a DEBIT',
    { params: idParams, query: waitQuerySchema },
    { ...enqueued, ...errors(400, 401, 404, 409) },
  );
  path(
    'get',
    '/discrepancies',
    "The shadow ledger's discrepancies, newest first",
    { query: discrepanciesQuerySchema },
    { 200: json(discrepanciesResponseSchema, 'One page'), ...errors(400, 401) },
  );
  path(
    'get',
    '/ledger',
    'Balances as the wallet last reported them',
    {},
    { 200: json(ledgerResponseSchema, 'Every player seen'), ...errors(401) },
  );
  path(
    'get',
    '/schedule',
    'The schedule entries and their next firing',
    {},
    { 200: json(scheduleResponseSchema, 'Every entry'), ...errors(401) },
  );
  path(
    'post',
    '/faults',
    'Add a fault rule on the aggregator API (what the client meets: a delay, a status, a reset, a hang, …)',
    { body: { required: true, content: { 'application/json': { schema: faultRuleSchema } } } },
    { 201: json(faultCreatedResponseSchema, 'The rule, with its id'), ...errors(400, 401) },
  );
  path(
    'get',
    '/faults',
    'The fault rules and how often each matched and fired',
    {},
    {
      200: json(faultsResponseSchema, 'Every rule'),
      ...errors(401),
    },
  );
  path(
    'delete',
    '/faults',
    'Remove every fault rule',
    {},
    { 200: json(faultsRemovedResponseSchema, 'How many'), ...errors(401) },
  );
  path(
    'delete',
    '/faults/{id}',
    'Remove one fault rule',
    { params: z.object({ id: z.string() }) },
    { 200: json(faultsRemovedResponseSchema, 'Removed'), ...errors(401, 404) },
  );
  path(
    'post',
    '/callback-faults',
    'Add a fault rule on the callbacks aggmock sends (a timeout after the wallet applied one, a duplicate while the first is in flight)',
    { body: { required: true, content: { 'application/json': { schema: callbackFaultRuleSchema } } } },
    { 201: json(callbackFaultCreatedResponseSchema, 'The rule, with its id'), ...errors(400, 401) },
  );
  path(
    'get',
    '/callback-faults',
    'The callback fault rules and how often each matched and fired',
    {},
    { 200: json(callbackFaultsResponseSchema, 'Every rule'), ...errors(401) },
  );
  path(
    'delete',
    '/callback-faults',
    'Remove every callback fault rule',
    {},
    { 200: json(faultsRemovedResponseSchema, 'How many'), ...errors(401) },
  );
  path(
    'delete',
    '/callback-faults/{id}',
    'Remove one callback fault rule',
    { params: z.object({ id: z.string() }) },
    { 200: json(faultsRemovedResponseSchema, 'Removed'), ...errors(401, 404) },
  );
  path(
    'get',
    '/requests',
    'The requests the client made to the aggregator API, newest first (credentials masked); a page ends at `limit` entries or 4 MiB, and nextBefore starts the next; view=summary leaves headers, body and reply out',
    { query: requestsQuerySchema },
    { 200: json(requestsResponseSchema, 'One page'), ...errors(400, 401) },
  );
  path(
    'get',
    '/requests/{id}',
    'One journaled request',
    { params: z.object({ id: eventIdSchema }) },
    { 200: json(requestResponseSchema, 'The request'), ...errors(400, 401, 404) },
  );
  path(
    'post',
    '/requests/count',
    'How many journaled requests match (method, path, status, query, body fields, headers, fault rule, auth)',
    { body: { required: false, content: { 'application/json': { schema: requestMatcherSchema } } } },
    { 200: json(requestCountResponseSchema, 'The count'), ...errors(400, 401) },
  );
  path(
    'delete',
    '/requests',
    'Forget every journaled request',
    {},
    {
      200: json(requestsClearedResponseSchema, 'Cleared'),
      ...errors(401),
    },
  );
  path(
    'post',
    '/reset',
    'Forget every delivery, balance and discrepancy',
    {},
    { 200: json(resetResponseSchema, 'Reset'), ...errors(401) },
  );
}
