import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, errors, json } from './kit.ts';
import { resetResponseSchema } from './responses.ts';

/** `/reset`: forget every delivery, balance and discrepancy. */

export const RESET_ROUTES = {
  reset: adminRoute({
    method: 'post',
    path: '/reset',
    summary: 'Forget every delivery, balance and discrepancy',
    request: {},
    responses: { 200: json(resetResponseSchema, 'Reset'), ...errors(401) },
  }),
};

export function resetRoutes({ engine, ledger }: Pick<AdminDeps, 'engine' | 'ledger'>): OpenAPIHono<AdminEnv> {
  return adminApp().openapi(RESET_ROUTES.reset, (c) => {
    const before = engine.outbox.counts();
    engine.outbox.reset();
    ledger.reset();
    const removed = Object.values(before).reduce((a, b) => a + b, 0);
    return c.json({ reset: true, removedDeliveries: removed }, 200);
  });
}
