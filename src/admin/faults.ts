import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { callbackFaultRuleSchema, faultRuleSchema } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, errors, json, jsonBody } from './kit.ts';
import {
  callbackFaultCreatedResponseSchema,
  callbackFaultsResponseSchema,
  faultCreatedResponseSchema,
  faultsRemovedResponseSchema,
  faultsResponseSchema,
} from './responses.ts';

/*
 * The two fault rule books: `/faults` on the aggregator API (what the client meets: a delay, a
 * status, a reset, a hang, …) and `/callback-faults` on the callbacks aggmock sends (a timeout
 * after the wallet applied one, a duplicate while the first is in flight). Same four routes each.
 */

const ruleId = z.object({ id: z.string() });

export const FAULT_ROUTES = {
  add: adminRoute({
    method: 'post',
    path: '/faults',
    summary: 'Add a fault rule on the aggregator API (what the client meets: a delay, a status, a reset, a hang, …)',
    request: { body: jsonBody(faultRuleSchema) },
    responses: { 201: json(faultCreatedResponseSchema, 'The rule, with its id'), ...errors(400, 401) },
  }),
  list: adminRoute({
    method: 'get',
    path: '/faults',
    summary: 'The fault rules and how often each matched and fired',
    request: {},
    responses: { 200: json(faultsResponseSchema, 'Every rule'), ...errors(401) },
  }),
  clear: adminRoute({
    method: 'delete',
    path: '/faults',
    summary: 'Remove every fault rule',
    request: {},
    responses: { 200: json(faultsRemovedResponseSchema, 'How many'), ...errors(401) },
  }),
  remove: adminRoute({
    method: 'delete',
    path: '/faults/{id}',
    summary: 'Remove one fault rule',
    request: { params: ruleId },
    responses: { 200: json(faultsRemovedResponseSchema, 'Removed'), ...errors(401, 404) },
  }),
};

export const CALLBACK_FAULT_ROUTES = {
  add: adminRoute({
    method: 'post',
    path: '/callback-faults',
    summary:
      'Add a fault rule on the callbacks aggmock sends (a timeout after the wallet applied one, a duplicate while the first is in flight)',
    request: { body: jsonBody(callbackFaultRuleSchema) },
    responses: { 201: json(callbackFaultCreatedResponseSchema, 'The rule, with its id'), ...errors(400, 401) },
  }),
  list: adminRoute({
    method: 'get',
    path: '/callback-faults',
    summary: 'The callback fault rules and how often each matched and fired',
    request: {},
    responses: { 200: json(callbackFaultsResponseSchema, 'Every rule'), ...errors(401) },
  }),
  clear: adminRoute({
    method: 'delete',
    path: '/callback-faults',
    summary: 'Remove every callback fault rule',
    request: {},
    responses: { 200: json(faultsRemovedResponseSchema, 'How many'), ...errors(401) },
  }),
  remove: adminRoute({
    method: 'delete',
    path: '/callback-faults/{id}',
    summary: 'Remove one callback fault rule',
    request: { params: ruleId },
    responses: { 200: json(faultsRemovedResponseSchema, 'Removed'), ...errors(401, 404) },
  }),
};

/** What both books offer: add (validating the rule), list, clear, remove by id. */
interface RuleBook {
  add(rule: unknown): unknown;
  list(): unknown[];
  clear(): number;
  remove(id: string): boolean;
}

/**
 * A book's four routes. The add route's validator checked the rule's shape; the book judges it
 * whole (across fields, against the catalog, ids in use), from the JSON as sent.
 */
function ruleBookRoutes(
  book: RuleBook,
  routes: typeof FAULT_ROUTES | typeof CALLBACK_FAULT_ROUTES,
  noun: string,
  listPath: string,
): OpenAPIHono<AdminEnv> {
  // The two declarations differ only in the rule's schema, which no handler here reads.
  const declared = routes as typeof FAULT_ROUTES;
  return adminApp()
    .openapi(declared.add, (c) => c.json({ fault: book.add(c.get('jsonBody')) }, 201))
    .openapi(declared.list, (c) => c.json({ faults: book.list() }, 200))
    .openapi(declared.clear, (c) => c.json({ removed: book.clear() }, 200))
    .openapi(declared.remove, (c) => {
      const { id } = c.req.valid('param');
      if (!book.remove(id)) throw new ApiError(404, `No ${noun} ${JSON.stringify(id)}. GET /__admin${listPath} lists them.`);
      return c.json({ removed: 1 }, 200);
    });
}

/** `/faults`: the aggregator API's fault rules. */
export function faultRoutes(rules: NonNullable<AdminDeps['rules']>): OpenAPIHono<AdminEnv> {
  return ruleBookRoutes(rules, FAULT_ROUTES, 'fault rule', '/faults');
}

/** `/callback-faults`: the fault rules on the callbacks the engine sends. */
export function callbackFaultRoutes(engine: AdminDeps['engine']): OpenAPIHono<AdminEnv> {
  return ruleBookRoutes(engine.faults, CALLBACK_FAULT_ROUTES, 'callback fault rule', '/callback-faults');
}
