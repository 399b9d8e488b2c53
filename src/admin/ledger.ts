import type { OpenAPIHono } from '@hono/zod-openapi';
import { nextBefore } from '../http/paging.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRoute, errors, json } from './kit.ts';
import { currencyOfEvents, majorOf } from './money.ts';
import { discrepanciesResponseSchema, ledgerResponseSchema, scheduleResponseSchema } from './responses.ts';
import { discrepanciesQuerySchema } from './schemas.ts';

/** What aggmock knows of the wallet: the shadow ledger's discrepancies and balances, and the schedule. */

export const LEDGER_ROUTES = {
  discrepancies: adminRoute({
    method: 'get',
    path: '/discrepancies',
    summary: "The shadow ledger's discrepancies, newest first",
    request: { query: discrepanciesQuerySchema },
    responses: { 200: json(discrepanciesResponseSchema, 'One page'), ...errors(400, 401) },
  }),
  ledger: adminRoute({
    method: 'get',
    path: '/ledger',
    summary: 'Balances as the wallet last reported them',
    request: {},
    responses: { 200: json(ledgerResponseSchema, 'Every player seen'), ...errors(401) },
  }),
  schedule: adminRoute({
    method: 'get',
    path: '/schedule',
    summary: 'The schedule entries and their next firing',
    request: {},
    responses: { 200: json(scheduleResponseSchema, 'Every entry'), ...errors(401) },
  }),
};

export function ledgerRoutes({ engine, ledger, scheduler, config }: AdminDeps): OpenAPIHono<AdminEnv> {
  return adminApp()
    .openapi(LEDGER_ROUTES.discrepancies, (c) => {
      const q = c.req.valid('query');
      const filter = {
        ...(q.player ? { playerId: q.player } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.group ? { group: q.group } : {}),
      };
      const discrepancies = ledger.discrepancies({ ...filter, limit: q.limit, ...(q.before ? { beforeId: q.before } : {}) });
      const shown = discrepancies.map((d) => {
        const major = (minor: number | null) =>
          minor === null ? null : majorOf(minor, currencyOfEvents(engine, d.eventIds), config);
        return { ...d, expected: major(d.expectedMinor), actual: major(d.actualMinor) };
      });
      const page = { total: ledger.discrepancyCount(filter), nextBefore: nextBefore(discrepancies, q.limit) };
      return c.json({ discrepancies: shown, ...page }, 200);
    })
    .openapi(LEDGER_ROUTES.ledger, (c) => c.json({ balances: ledger.balances(), discrepancies: ledger.discrepancyCount() }, 200))
    .openapi(LEDGER_ROUTES.schedule, (c) => c.json({ entries: scheduler?.status() ?? [] }, 200));
}
