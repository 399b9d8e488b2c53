import type { OpenAPIHono } from '@hono/zod-openapi';
import { NAMED_OPERATIONS, READ_OPERATIONS } from '../callbacks/events.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, answerEnqueued, ENQUEUED_RESPONSES, errors, fieldError, jsonBody } from './kit.ts';
import { kindOf, knownCurrency, minorOf } from './money.ts';
import { enqueuedResponseSchema } from './responses.ts';
import { triggerEventSchema, waitQuerySchema } from './schemas.ts';

/** `/events`: one callback, as the caller describes it (a vendor dialect's call its kind does not name, by its operation). */

export const EVENT_ROUTES = {
  trigger: adminRoute({
    method: 'post',
    path: '/events',
    summary: 'Send one callback (debit, credit or rollback) to the webhook',
    request: { query: waitQuerySchema, body: jsonBody(triggerEventSchema) },
    responses: { ...ENQUEUED_RESPONSES(enqueuedResponseSchema), ...errors(400, 401) },
  }),
};

export function eventRoutes(deps: Pick<AdminDeps, 'engine' | 'config'>): OpenAPIHono<AdminEnv> {
  const { engine, config } = deps;
  return adminApp().openapi(EVENT_ROUTES.trigger, async (c) => {
    const body = c.req.valid('json');
    // A vendor dialect's call its kind does not name (authenticate, balance, endRound, rollbackWin, promoWin) goes by its operation.
    const operation = NAMED_OPERATIONS.find((op) => op.toLowerCase() === body.type.trim().toLowerCase());
    const kind = operation === undefined ? kindOf(body.type, config) : operation === 'rollbackWin' ? 'rollback' : 'credit';
    const reads = operation !== undefined && READ_OPERATIONS.includes(operation);
    const reversed = operation === 'rollbackWin' ? 'credit' : 'debit';
    const currency = body.currency === undefined ? undefined : knownCurrency(body.currency, config);
    let amountMinor = reads ? 0 : body.amount === undefined ? undefined : minorOf(body.amount, 'amount', currency, config);
    if (kind === 'rollback' && body.referenceTransactionId === undefined) {
      throw fieldError(
        'referenceTransactionId',
        `a ${operation ?? 'rollback'} needs the transactionId of the ${reversed.toUpperCase()} it reverses`,
        undefined,
      );
    }
    if (amountMinor === undefined && kind === 'rollback') {
      amountMinor = engine.outbox.list({
        playerId: body.playerId,
        kind: reversed,
        transactionId: body.referenceTransactionId,
        limit: 1,
      })[0]?.amountMinor;
      if (amountMinor === undefined) {
        throw fieldError(
          'amount',
          `no ${reversed.toUpperCase()} ${body.referenceTransactionId} for player ${body.playerId} in the outbox: give the amount to reverse`,
          undefined,
        );
      }
    }
    if (amountMinor === undefined) throw fieldError('amount', 'expected an amount in major units, e.g. 10.5', undefined);
    return answerEnqueued(c, deps, c.req.valid('query'), () =>
      engine.enqueue({
        kind,
        playerId: body.playerId,
        amountMinor,
        source: 'manual',
        ...(operation === undefined ? {} : { operation }),
        ...(body.win === undefined ? {} : { winMinor: minorOf(body.win, 'win', currency, config) }),
        ...(body.transactionId ? { transactionId: body.transactionId } : {}),
        ...(body.referenceTransactionId ? { referenceTransactionId: body.referenceTransactionId } : {}),
        ...(body.roundId ? { roundId: body.roundId } : {}),
        ...(body.gameId ? { gameId: body.gameId } : {}),
        ...(currency ? { currency } : {}),
      }),
    );
  });
}
