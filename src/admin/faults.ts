import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { callbackFaultRuleSchema, faultRuleSchema } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';
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

/** A book's four routes under `path`: only the rule's schema and the add route's answer differ. */
function ruleBookDeclarations(
  path: string,
  noun: string,
  addSummary: string,
  rule: z.ZodType,
  created: z.ZodType,
  list: z.ZodType,
) {
  return {
    add: adminRoute({
      method: 'post',
      path,
      summary: addSummary,
      request: { body: jsonBody(rule) },
      responses: { 201: json(created, 'The rule, with its id'), ...errors(400, 401) },
    }),
    list: adminRoute({
      method: 'get',
      path,
      summary: `The ${noun}s and how often each matched and fired`,
      request: {},
      responses: { 200: json(list, 'Every rule'), ...errors(401) },
    }),
    clear: adminRoute({
      method: 'delete',
      path,
      summary: `Remove every ${noun}`,
      request: {},
      responses: { 200: json(faultsRemovedResponseSchema, 'How many'), ...errors(401) },
    }),
    remove: adminRoute({
      method: 'delete',
      path: `${path}/{id}`,
      summary: `Remove one ${noun}`,
      request: { params: ruleId },
      responses: { 200: json(faultsRemovedResponseSchema, 'Removed'), ...errors(401, 404) },
    }),
  };
}

export const FAULT_ROUTES = ruleBookDeclarations(
  '/faults',
  'fault rule',
  'Add a fault rule on the aggregator API (what the client meets: a delay, a status, a reset, a hang, …)',
  faultRuleSchema,
  faultCreatedResponseSchema,
  faultsResponseSchema,
);

export const CALLBACK_FAULT_ROUTES = ruleBookDeclarations(
  '/callback-faults',
  'callback fault rule',
  'Add a fault rule on the callbacks aggmock sends (a timeout after the wallet applied one, a duplicate while the first is in flight)',
  callbackFaultRuleSchema,
  callbackFaultCreatedResponseSchema,
  callbackFaultsResponseSchema,
);

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
export function ruleBookRoutes(
  book: RuleBook,
  declared: ReturnType<typeof ruleBookDeclarations>,
  noun: string,
): OpenAPIHono<AdminEnv> {
  return adminApp()
    .openapi(declared.add, (c) => c.json({ fault: book.add(c.get('jsonBody')) }, 201))
    .openapi(declared.list, (c) => c.json({ faults: book.list() }, 200))
    .openapi(declared.clear, (c) => c.json({ removed: book.clear() }, 200))
    .openapi(declared.remove, (c) => {
      const { id } = c.req.valid('param');
      if (!book.remove(id))
        throw new ApiError(404, `No ${noun} ${JSON.stringify(id)}. GET /__admin${declared.list.path} lists them.`);
      return c.json({ removed: 1 }, 200);
    });
}
