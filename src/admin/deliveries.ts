import { OpenAPIHono } from '@hono/zod-openapi';
import type { CallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { ApiError } from '../http/errors.ts';
import type { AdminDeps } from './deps.ts';
import { adminRoute, answerEnqueued, ENQUEUED_RESPONSES, errors, fieldError, idParams, json, parseQuery, serve } from './kit.ts';
import { kindOf, toDelivery } from './money.ts';
import { deliveriesResponseSchema, deliveryResponseSchema, enqueuedResponseSchema } from './responses.ts';
import { deliveriesQuerySchema, eventIdSchema, waitQuerySchema } from './schemas.ts';

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

export function deliveryRoutes(deps: Pick<AdminDeps, 'engine' | 'config'>): OpenAPIHono {
  const { engine, config } = deps;
  const app = new OpenAPIHono();
  serve(app, DELIVERY_ROUTES.list, (c) => {
    const q = parseQuery(deliveriesQuerySchema, c.req.query());
    const deliveries = engine.outbox.list({
      ...(q.player ? { playerId: q.player } : {}),
      ...(q.type ? { kind: kindOf(q.type, config, 'type') } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.group ? { group: q.group } : {}),
      limit: q.limit,
      ...(q.before ? { beforeId: q.before } : {}),
    });
    const last = deliveries.at(-1);
    return c.json({
      deliveries: deliveries.map((e) => toDelivery(e, config)),
      nextBefore: deliveries.length === q.limit && last ? last.id : null,
    });
  });
  serve(app, DELIVERY_ROUTES.one, (c) => {
    const event = delivery(engine, c.req.param('id') as string);
    return c.json({ delivery: toDelivery(event, config), attempts: engine.outbox.attempts(event.id) });
  });
  serve(app, DELIVERY_ROUTES.replay, async (c) => {
    const event = delivery(engine, c.req.param('id') as string);
    return answerEnqueued(c, deps, () => engine.replay(event.id));
  });
  serve(app, DELIVERY_ROUTES.rollback, async (c) => {
    const debit = delivery(engine, c.req.param('id') as string);
    if (debit.kind !== 'debit') {
      throw new ApiError(409, `Delivery ${debit.id} is a ${debit.kind.toUpperCase()}; only a DEBIT can be rolled back.`, {
        extra: {
          kind: debit.kind,
        },
      });
    }
    return answerEnqueued(c, deps, () =>
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
  return app;
}

function delivery(engine: CallbackEngine, rawId: string): StoredEvent {
  const id = eventIdSchema.safeParse(rawId);
  if (!id.success) throw fieldError('id', 'expected a delivery id (a positive integer)', rawId);
  const event = engine.outbox.get(id.data);
  if (!event) throw new ApiError(404, `No delivery with id ${id.data}.`);
  return event;
}
