import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { ApiError } from '../http/errors.ts';
import { nextBefore } from '../http/paging.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, answerEnqueued, ENQUEUED_RESPONSES, errors, idParams, json } from './kit.ts';
import { kindOf, toDelivery } from './money.ts';
import { deliveriesResponseSchema, deliveryResponseSchema, enqueuedResponseSchema } from './responses.ts';
import { deliveriesQuerySchema, waitQuerySchema } from './schemas.ts';

/** `/deliveries`: the callbacks sent, each with every attempt; replay one, or roll a DEBIT back. */

export const DELIVERY_ROUTES = {
  list: adminRoute({
    method: 'get',
    path: '/deliveries',
    summary: 'List deliveries, newest first',
    request: { query: deliveriesQuerySchema },
    responses: { 200: json(deliveriesResponseSchema, 'One page'), ...errors(400, 401) },
  }),
  one: adminRoute({
    method: 'get',
    path: '/deliveries/{id}',
    summary: 'One delivery with every attempt (request headers and body, reply, latency)',
    request: { params: idParams },
    responses: { 200: json(deliveryResponseSchema, 'The delivery'), ...errors(400, 401, 404) },
  }),
  replay: adminRoute({
    method: 'post',
    path: '/deliveries/{id}/replay',
    summary: 'Send the same callback again (same transactionId, same bytes re-signed)',
    request: { params: idParams, query: waitQuerySchema },
    responses: { ...ENQUEUED_RESPONSES(enqueuedResponseSchema), ...errors(400, 401, 404) },
  }),
  rollback: adminRoute({
    method: 'post',
    path: '/deliveries/{id}/rollback',
    summary: 'Roll back a DEBIT',
    request: { params: idParams, query: waitQuerySchema },
    responses: { ...ENQUEUED_RESPONSES(enqueuedResponseSchema), ...errors(400, 401, 404, 409) },
  }),
};

export function deliveryRoutes(deps: Pick<AdminDeps, 'engine' | 'config'>): OpenAPIHono<AdminEnv> {
  const { engine, config } = deps;
  return adminApp()
    .openapi(DELIVERY_ROUTES.list, (c) => {
      const q = c.req.valid('query');
      const deliveries = engine.outbox.list({
        ...(q.player ? { playerId: q.player } : {}),
        ...(q.type ? { kind: kindOf(q.type, config) } : {}),
        ...(q.status ? { status: q.status } : {}),
        ...(q.group ? { group: q.group } : {}),
        limit: q.limit,
        ...(q.before ? { beforeId: q.before } : {}),
      });
      const shown = deliveries.map((e) => toDelivery(e, config));
      return c.json({ deliveries: shown, nextBefore: nextBefore(deliveries, q.limit) }, 200);
    })
    .openapi(DELIVERY_ROUTES.one, (c) => {
      const event = delivery(engine, c.req.valid('param').id);
      return c.json({ delivery: toDelivery(event, config), attempts: engine.outbox.attempts(event.id) }, 200);
    })
    .openapi(DELIVERY_ROUTES.replay, async (c) => {
      const event = delivery(engine, c.req.valid('param').id);
      return answerEnqueued(c, deps, c.req.valid('query'), () => engine.replay(event.id));
    })
    .openapi(DELIVERY_ROUTES.rollback, async (c) => {
      const debit = delivery(engine, c.req.valid('param').id);
      if (debit.kind !== 'debit') {
        throw new ApiError(409, `Delivery ${debit.id} is a ${debit.kind.toUpperCase()}; only a DEBIT can be rolled back.`, {
          extra: { kind: debit.kind },
        });
      }
      return answerEnqueued(c, deps, c.req.valid('query'), () =>
        engine.enqueue({
          kind: 'rollback',
          playerId: debit.playerId,
          amountMinor: debit.amountMinor,
          referenceTransactionId: debit.transactionId,
          source: `manual-rollback:${debit.id}`,
          // Where the DEBIT went (a launch's callback_url), not the default webhook.
          url: debit.url,
          ...(debit.roundId ? { roundId: debit.roundId } : {}),
          ...(debit.gameId ? { gameId: debit.gameId } : {}),
          ...(debit.currency ? { currency: debit.currency } : {}),
        }),
      );
    });
}

function delivery(engine: CallbackEngine, id: number): StoredEvent {
  const event = engine.outbox.get(id);
  if (!event) throw new ApiError(404, `No delivery with id ${id}.`);
  return event;
}
