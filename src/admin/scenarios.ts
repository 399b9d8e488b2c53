import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError } from '../http/errors.ts';
import { isScenarioName, planScenario, SCENARIO_DESCRIPTIONS, SCENARIOS, wireParamsOf } from '../scenarios/plan.ts';
import { type ScenarioRunSummary, startScenario } from '../scenarios/run.ts';
import { withTimeout } from '../shared/index.ts';
import type { AdminDeps } from './deps.ts';
import { type AdminEnv, adminApp, adminRandom, adminRoute, errors, json, jsonBody, refuseInvalid } from './kit.ts';
import { toDelivery } from './money.ts';
import { scenarioRunResponseSchema, scenariosResponseSchema } from './responses.ts';
import { runScenarioSchema, waitQuerySchema } from './schemas.ts';

/** `/scenarios`: the scenarios, and a run of one planned by the round planner as every surface plans it. */

/** Players a scenario run picks from when the request names none. */
export const DEFAULT_SCENARIO_PLAYERS = ['p1', 'p2', 'p3'];
export const DEFAULT_SCENARIO_AMOUNT = { min: 1, max: 20 };

export const SCENARIO_ROUTES = {
  list: adminRoute({
    method: 'get',
    path: '/scenarios',
    summary: 'List the scenarios',
    request: {},
    responses: { 200: json(scenariosResponseSchema, 'Every scenario'), ...errors(401) },
  }),
  run: adminRoute({
    method: 'post',
    path: '/scenarios/{name}/run',
    summary: 'Run a scenario (a planned sequence of callbacks)',
    request: {
      params: z.object({ name: z.enum(SCENARIOS) }),
      query: waitQuerySchema,
      body: jsonBody(runScenarioSchema, false),
    },
    responses: {
      200: json(scenarioRunResponseSchema, 'With ?wait=true: the finished run'),
      202: json(scenarioRunResponseSchema, 'Started: its planned steps and enqueued events'),
      ...errors(400, 401, 404),
    },
  }),
};

export function scenarioRoutes(deps: AdminDeps): OpenAPIHono<AdminEnv> {
  const { engine, ledger, config } = deps;
  const random = adminRandom(deps);
  const app = adminApp().openapi(SCENARIO_ROUTES.list, (c) =>
    c.json({ scenarios: SCENARIOS.map((name) => ({ name, description: SCENARIO_DESCRIPTIONS[name] })) }, 200),
  );
  return app.openapi(
    SCENARIO_ROUTES.run,
    async (c) => {
      const { name } = c.req.valid('param');
      const body = c.req.valid('json');
      const { wait, timeout } = c.req.valid('query');
      const amount =
        typeof body.amount === 'number' ? { min: body.amount, max: body.amount } : (body.amount ?? DEFAULT_SCENARIO_AMOUNT);
      const games = deps.catalog?.games ?? [];
      const gameId = games.length > 0 ? games[Math.floor(random.next() * games.length)]?.id : undefined;
      const plan = planScenario(
        name,
        {
          players: body.players ?? DEFAULT_SCENARIO_PLAYERS,
          amount,
          ...(body.size === undefined ? {} : { size: body.size }),
          ...(body.rtp === undefined ? {} : { rtp: body.rtp }),
          balances: ledger.knownBalances(),
          ...(gameId ? { gameId } : {}),
          ...wireParamsOf(config.callbacks),
        },
        random,
        () => engine.nextTransactionId(),
      );
      const started = startScenario(engine, plan);
      const head = { scenario: name, group: started.group, playerId: plan.playerId, description: SCENARIO_DESCRIPTIONS[name] };
      if (wait) {
        const summary = await withTimeout(started.done, timeout);
        if (summary) return c.json({ ...head, ...describeSummary(summary, config) }, 200);
      }
      const steps = plan.steps.map((s) => ({ key: s.key, kind: s.request.kind, purpose: s.purpose, after: s.after }));
      const events = wait ? engine.outbox.list({ group: started.group, limit: 1000 }).reverse() : started.enqueued;
      return c.json({ ...head, steps, events: events.map((e) => toDelivery(e, config)) }, 202);
    },
    // A scenario the path names that does not exist is not there: 404, not bad input.
    (result, c) => {
      const name = c.req.param('name') ?? '';
      if (!result.success && result.target === 'param' && !isScenarioName(name))
        throw new ApiError(404, `No scenario ${JSON.stringify(name)}; expected one of ${SCENARIOS.join(', ')}.`);
      return refuseInvalid(result);
    },
  );
}

function describeSummary(summary: ScenarioRunSummary, config: AdminDeps['config']) {
  return {
    ok: summary.ok,
    events: summary.events.map((e) => toDelivery(e, config)),
    steps: summary.steps.map((s) =>
      s.status === 'sent'
        ? { key: s.key, status: s.event.status, eventId: s.event.id }
        : s.status === 'skipped'
          ? { key: s.key, status: 'skipped', reason: s.reason }
          : { key: s.key, status: 'error', error: s.error },
    ),
  };
}
