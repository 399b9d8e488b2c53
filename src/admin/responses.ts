import { z } from '@hono/zod-openapi';
import { EVENT_KINDS, EVENT_STATUSES } from '../callbacks/events.ts';
import { CALLBACK_FAULT_KINDS, FAULT_KINDS } from '../config/index.ts';
import { pageSchema } from '../http/paging.ts';
import { DISCREPANCY_KINDS } from '../ledger/reducer.ts';
import { AUTH_METHODS } from '../requests/index.ts';
import { SCENARIOS } from '../scenarios/plan.ts';

/*
 * What the admin API answers, as zod schemas: the OpenAPI document describes the routes with
 * them (each route's declaration) and a test checks real answers against them, so the document a
 * client is generated from cannot drift from the routes. Strict, so a new field must be added here.
 */

const ms = z.number().int().describe('milliseconds since the epoch');

export const deliverySchema = z
  .strictObject({
    id: z.number().int().positive(),
    kind: z.enum(EVENT_KINDS),
    transactionId: z.string(),
    referenceTransactionId: z.string().optional(),
    playerId: z.string(),
    amountMinor: z.number().int().describe('the amount in minor units (cents)'),
    amount: z.number().describe('the amount in major units'),
    roundId: z.string().optional(),
    gameId: z.string().optional(),
    currency: z.string().optional(),
    source: z.string().describe('what enqueued it: manual, scenario:<name>, schedule, play, …'),
    group: z.string().optional().describe('the scenario run it belongs to'),
    orderingKey: z.string(),
    url: z.string().describe('the webhook it is sent to'),
    body: z.string().describe('the exact bytes sent on every attempt'),
    facts: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the call's facts each attempt is built and signed from (operation, requestId, sessionToken, …)"),
    request: z
      .strictObject({
        method: z.string(),
        path: z.string(),
        headers: z.record(z.string(), z.string()),
        attempt: z.number().int().positive().optional().describe('the attempt that sent this request (the last one)'),
      })
      .optional()
      .describe(
        "the request: method, path under the webhook (the wallet's base URL), headers. Once sent, the last attempt's (`attempt`), signature included; before, as stored, without the signature, which each attempt makes when it is sent",
      ),
    status: z.enum(EVENT_STATUSES),
    attemptCount: z.number().int().min(0),
    nextAttemptAt: ms.optional(),
    createdAt: ms,
    settledAt: ms.optional(),
    reply: z.strictObject({ status: z.number().int(), body: z.unknown() }).optional().describe("the wallet's last answer"),
    error: z.string().optional(),
  })
  .openapi('AdminDelivery');

export const attemptSchema = z
  .strictObject({
    eventId: z.number().int().positive(),
    n: z.number().int().positive(),
    startedAt: ms,
    latencyMs: z.number().min(0),
    requestHeaders: z.record(z.string(), z.string()),
    requestBody: z.string(),
    requestMethod: z.string().optional().describe('the HTTP method, when not POST (a query-string wire sends GET)'),
    requestPath: z
      .string()
      .optional()
      .describe(
        "the path and query under the delivery's URL (a dialect with paths, e.g. /transaction/bet); absent for a profile",
      ),
    responseStatus: z.number().int().optional(),
    responseBody: z.string().optional().describe('the reply as stored: at most its first 4 KiB (see responseBytes)'),
    responseBytes: z
      .number()
      .int()
      .optional()
      .describe('only when responseBody is cut: the length in bytes of the whole reply as judged'),
    responseSha256: z.string().optional().describe('only when responseBody is cut: the sha256 (hex) of the whole reply'),
    error: z.string().optional(),
    outcome: z.enum(['delivered', 'rejected', 'retry', 'failed']),
  })
  .openapi('AdminAttempt');

export const enqueuedResponseSchema = z.strictObject({
  event: deliverySchema,
  waited: z.number().int().optional().describe('with ?wait=true, when the event had not settled within `timeout` ms'),
  message: z.string().optional(),
});

export const deliveriesResponseSchema = pageSchema('deliveries', deliverySchema);

export const deliveryResponseSchema = z.strictObject({ delivery: deliverySchema, attempts: z.array(attemptSchema) });

export const discrepancySchema = z
  .strictObject({
    id: z.number().int().positive(),
    playerId: z.string(),
    kind: z.enum(DISCREPANCY_KINDS),
    expectedMinor: z.number().int().nullable(),
    actualMinor: z.number().int().nullable(),
    expected: z.number().nullable().describe('major units'),
    actual: z.number().nullable().describe('major units'),
    eventIds: z.array(z.number().int()),
    message: z.string(),
    createdAt: ms,
    group: z.string().optional(),
  })
  .openapi('AdminDiscrepancy');

export const discrepanciesResponseSchema = pageSchema('discrepancies', discrepancySchema, { total: z.number().int().min(0) });

export const playerBalanceSchema = z
  .strictObject({
    playerId: z.string(),
    balanceMinor: z.number().int().nullable(),
    balance: z.number().nullable().describe('major units, as the wallet last reported it'),
    uncertain: z.boolean().describe('true after a failed event: the next reply sets a new baseline'),
    note: z.string().optional(),
    lastEventId: z.number().int().optional(),
    updatedAt: ms.optional(),
  })
  .openapi('AdminPlayerBalance');

export const ledgerResponseSchema = z.strictObject({
  balances: z.array(playerBalanceSchema),
  discrepancies: z.number().int().min(0).describe('how many are stored'),
});

export const scheduleResponseSchema = z.strictObject({
  entries: z.array(
    z.strictObject({
      entry: z.number().int().min(0),
      scenario: z.enum(SCENARIOS),
      when: z.string(),
      fired: z.number().int().min(0),
      count: z.number().int().optional(),
      nextAt: ms.optional(),
    }),
  ),
});

export const scenariosResponseSchema = z.strictObject({
  scenarios: z.array(z.strictObject({ name: z.enum(SCENARIOS), description: z.string() })),
});

export const scenarioRunResponseSchema = z.strictObject({
  scenario: z.enum(SCENARIOS),
  group: z.string(),
  playerId: z.string(),
  description: z.string(),
  ok: z.boolean().optional().describe('with ?wait=true: whether every step settled as planned'),
  events: z.array(deliverySchema),
  steps: z.array(
    z.strictObject({
      key: z.string(),
      status: z.string().optional(),
      eventId: z.number().int().optional(),
      reason: z.string().optional(),
      error: z.string().optional(),
      kind: z.enum(EVENT_KINDS).optional(),
      purpose: z.string().optional(),
      after: z.unknown().optional(),
    }),
  ),
});

export const resetResponseSchema = z.strictObject({ reset: z.literal(true), removedDeliveries: z.number().int().min(0) });

/** A fault rule as the admin API lists it (`/__admin/faults`, `/__admin/callback-faults`): the rule, its counters and where it came from. */
function ruleStateSchema(kinds: readonly [string, ...string[]], name: string) {
  return z
    .object({
      id: z.string(),
      source: z.enum(['config', 'admin']),
      match: z.record(z.string(), z.unknown()),
      fault: z.object({ kind: z.enum(kinds) }).passthrough(),
      times: z.number().int().optional(),
      nth: z.number().int().optional(),
      probability: z.number().optional(),
      seed: z.union([z.number(), z.string()]).optional(),
      matched: z.number().int().min(0),
      fired: z.number().int().min(0),
      spent: z.boolean(),
    })
    .openapi(name);
}

export const faultRuleStateSchema = ruleStateSchema(FAULT_KINDS, 'AdminFaultRule');
export const faultCreatedResponseSchema = z.strictObject({ fault: faultRuleStateSchema });
export const faultsResponseSchema = z.strictObject({ faults: z.array(faultRuleStateSchema) });
export const faultsRemovedResponseSchema = z.strictObject({ removed: z.number().int().min(0) });

export const callbackFaultRuleStateSchema = ruleStateSchema(CALLBACK_FAULT_KINDS, 'AdminCallbackFaultRule');
export const callbackFaultCreatedResponseSchema = z.strictObject({ fault: callbackFaultRuleStateSchema });
export const callbackFaultsResponseSchema = z.strictObject({ faults: z.array(callbackFaultRuleStateSchema) });

/** One request the client made to the aggregator API, as journaled. */
export const journaledRequestSchema = z
  .strictObject({
    id: z.number().int().positive(),
    at: z.string().describe('ISO 8601'),
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    headers: z.record(z.string(), z.string()).describe('credentials masked as "[masked]"; {} in a summary (view=summary)'),
    body: z
      .string()
      .nullable()
      .describe('the request body, credentials masked, cut at 16 KiB (and the row at 32 KiB); null in a summary'),
    bodyBytes: z.number().int().min(0),
    auth: z.union([
      z.strictObject({
        ok: z.literal(true),
        method: z.enum(AUTH_METHODS).describe("'operator': a vendor operator API's own credentials"),
        header: z.string().optional(),
        secretIndex: z.number().int().optional(),
      }),
      z.strictObject({
        ok: z.literal(false),
        error: z.string(),
        message: z.string(),
        reason: z.string().optional(),
        signedPrefix: z
          .string()
          .optional()
          .describe(
            'on a signature mismatch: the string aggmock expected to be signed, up to the raw body (query credentials masked); the body follows it as sent',
          ),
        bodySha256: z.string().optional().describe('on a signature mismatch: the SHA-256 (hex) of the raw body aggmock received'),
        bodyBytes: z.number().int().min(0).optional().describe('on a signature mismatch: the raw body’s length in bytes'),
      }),
    ]),
    status: z.number().int().nullable().describe('null when no reply was sent (reset, empty reply, the client gave up)'),
    reply: z
      .string()
      .nullable()
      .describe('the reply body, cut at 512 bytes (a success) or 2 KiB (an error, credentials masked); null in a summary'),
    replyBytes: z.number().int().min(0),
    complete: z.boolean(),
    latencyMs: z.number(),
    fault: z.strictObject({ ruleId: z.string(), kind: z.string(), delayMs: z.number().optional() }).nullable(),
    hint: z.string().nullable().describe('for a refused or unmatched request: the nearest route or the field that failed'),
    crossSite: z
      .literal(true)
      .optional()
      .describe(
        'present when a web page of another site sent it: no fault rule fires for it, and counts leave it out unless asked',
      ),
  })
  .openapi('AdminJournaledRequest');

export const requestsResponseSchema = pageSchema('requests', journaledRequestSchema);
export const requestResponseSchema = z.strictObject({ request: journaledRequestSchema });
export const requestCountResponseSchema = z.strictObject({ count: z.number().int().min(0) });
export const requestsClearedResponseSchema = z.strictObject({ cleared: z.literal(true) });
