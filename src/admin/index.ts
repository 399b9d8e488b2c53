/**
 * The admin API (/admin/*): trigger and replay callbacks, run scenarios, list deliveries and their
 * attempts, read the shadow ledger and the schedule, reset. A surface: it may import the engines
 * (callbacks, ledger, scenarios, schedule, launch) and the foundation (config, http, money,
 * signing, shared); it must not import other surfaces (aggregator, ui, play, verify) or the CLI.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { exponentOf as callbackExponent } from '../callbacks/call.ts';
import { type CallbackEngine, CallbackRequestError, type Enqueued } from '../callbacks/engine.ts';
import { type EventKind, NAMED_OPERATIONS, type StoredEvent } from '../callbacks/events.ts';
import { type Random, seededRandom } from '../callbacks/random.ts';
import type { AggmockConfig } from '../config/index.ts';
import { parseJsonBytes, type RawBodyVariables, readRawBody } from '../http/body.ts';
import { ApiError, describeFieldErrors, errorResponse, fieldErrors } from '../http/errors.ts';
import { credentialGuard, refuseAggmockCallbacks } from '../http/exposure.ts';
import { sameOriginGuard } from '../http/same-origin.ts';
import type { ShadowLedger } from '../ledger/index.ts';
import { currencyExponent, parseMajorString, toMajor, toMinor } from '../money/index.ts';
import { FaultRuleError, type FaultRules, type RequestJournal } from '../requests/index.ts';
import {
  isScenarioName,
  planScenario,
  SCENARIO_DESCRIPTIONS,
  SCENARIOS,
  ScenarioError,
  wireParamsOf,
} from '../scenarios/plan.ts';
import { type ScenarioRunSummary, startScenario } from '../scenarios/run.ts';
import type { Scheduler } from '../schedule/index.ts';
import {
  deliveriesQuerySchema,
  discrepanciesQuerySchema,
  EVENT_KINDS,
  eventIdSchema,
  requestMatcherSchema,
  requestsQuerySchema,
  runScenarioSchema,
  triggerEventSchema,
  waitQuerySchema,
} from './schemas.ts';

export * from './schemas.ts';

/** Players a scenario run picks from when the request names none. */
export const DEFAULT_SCENARIO_PLAYERS = ['p1', 'p2', 'p3'];
export const DEFAULT_SCENARIO_AMOUNT = { min: 1, max: 20 };

export interface AdminDeps {
  engine: CallbackEngine;
  ledger: ShadowLedger;
  scheduler?: Scheduler;
  /** When given, scenario runs carry a game id from it. */
  catalog?: { games: readonly { id: string }[] };
  config: AggmockConfig;
  /** Draws scenario players and amounts; default seeded from `config.seed`. */
  random?: Random;
  /** Called for errors that are aggmock's own fault (answered as a JSON 500). */
  onInternalError?: (error: unknown) => void;
  /** The fault rules on the aggregator API (`/faults`); without them those routes answer 404. */
  rules?: FaultRules;
  /** The journal of the client's requests (`/requests`). */
  journal?: RequestJournal;
}

/**
 * The admin API (SPEC §6), JSON only, mounted by the app at `/__admin`: trigger events and
 * scenarios, inspect and replay deliveries, read the shadow ledger and its discrepancies, reset.
 * With `config.admin.token` set, every route wants `Authorization: Bearer <token>`. Mutating
 * routes take only `application/json` bodies and refuse cross-origin requests (Origin, Host).
 *
 * @example
 * app.route('/__admin', createAdminRoutes({ engine, ledger, scheduler, catalog, config }));
 * // POST /__admin/events {"type":"debit","playerId":"p1","amount":5}  → 202 {event}
 */
export function createAdminRoutes(deps: AdminDeps): Hono {
  const { engine, ledger, config } = deps;
  const random = deps.random ?? seededRandom(`${config.seed}:admin`);
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof CallbackRequestError)
      return errorResponse(c, new ApiError(400, error.message, { errors: error.errors }));
    if (error instanceof ScenarioError) return errorResponse(c, new ApiError(400, error.message));
    if (error instanceof FaultRuleError)
      return errorResponse(c, new ApiError(error.issues.length > 0 ? 400 : 409, error.message, { errors: error.issues }));
    deps.onInternalError?.(error);
    return errorResponse(c, new ApiError(500, 'aggmock hit an internal error in the admin API; the details are in its log.'));
  });
  app.notFound((c) =>
    errorResponse(
      c,
      new ApiError(404, `No admin route ${c.req.method} ${new URL(c.req.url).pathname}. GET /__admin/scenarios lists scenarios.`),
    ),
  );

  // Any web page can POST to 127.0.0.1: only same-origin JSON changes anything here.
  app.use('*', sameOriginGuard({ bindHost: config.host, publicUrl: config.publicUrl }));
  // A launch's callback_url may name another local aggmock: its signed JSON callbacks are not admin requests.
  app.use('*', refuseAggmockCallbacks('The admin API'));
  // With a token, every route wants it; exposed (or reached through a proxy) without one, every route is refused.
  app.use(
    '*',
    credentialGuard({
      host: config.host,
      publicUrl: config.publicUrl,
      token: config.admin.token,
      require: 'always',
      what: 'The admin API',
    }),
  );

  // After the guards above: the one body reader every server uses, streamed, 413 past the limit.
  const rawBody = readRawBody(config.limits.bodyBytes) as MiddlewareHandler;
  for (const path of ['/events', '/scenarios/:name/run', '/faults', '/callback-faults', '/requests/count'])
    app.use(path, rawBody);

  // The fault rules on the callbacks the engine sends: a timeout after the wallet applied one, a duplicate in flight.
  const callbackFaults = deps.engine.faults;
  app.post('/callback-faults', (c) => c.json({ fault: callbackFaults.add(jsonObjectBody(rawBodyOf(c))) }, 201));
  app.get('/callback-faults', (c) => c.json({ faults: callbackFaults.list() }));
  app.delete('/callback-faults', (c) => c.json({ removed: callbackFaults.clear() }));
  app.delete('/callback-faults/:id', (c) => {
    const id = c.req.param('id');
    if (!callbackFaults.remove(id))
      throw new ApiError(404, `No callback fault rule ${JSON.stringify(id)}. GET /__admin/callback-faults lists them.`);
    return c.json({ removed: 1 });
  });

  const { rules, journal } = deps;
  if (rules) {
    app.post('/faults', (c) => c.json({ fault: rules.add(jsonObjectBody(rawBodyOf(c))) }, 201));
    app.get('/faults', (c) => c.json({ faults: rules.list() }));
    app.delete('/faults', (c) => c.json({ removed: rules.clear() }));
    app.delete('/faults/:id', (c) => {
      const id = c.req.param('id');
      if (!rules.remove(id)) throw new ApiError(404, `No fault rule ${JSON.stringify(id)}. GET /__admin/faults lists them.`);
      return c.json({ removed: 1 });
    });
  }
  if (journal) {
    app.get('/requests', (c) => {
      const q = parseQuery(requestsQuerySchema, c.req.query());
      const requests = journal.list({
        ...(q.path ? { path: q.path } : {}),
        ...(q.method ? { method: q.method } : {}),
        ...(q.status ? { status: q.status } : {}),
        limit: q.limit,
        ...(q.before ? { beforeId: q.before } : {}),
        summary: q.view === 'summary',
      });
      const last = requests.at(-1);
      // A page ends at `limit` entries or at the byte cap, whichever comes first: either way the next starts below it.
      const more = (requests.length === q.limit || requests.truncated === true) && last;
      return c.json({ requests: [...requests], nextBefore: more ? last.id : null });
    });
    app.post('/requests/count', (c) => {
      const matcher = parse(requestMatcherSchema, jsonObjectBody(rawBodyOf(c), { optional: true }));
      return c.json({ count: journal.count(matcher) });
    });
    app.delete('/requests', (c) => {
      journal.clear();
      return c.json({ cleared: true });
    });
    app.get('/requests/:id', (c) => {
      const id = eventIdSchema.safeParse(c.req.param('id'));
      if (!id.success) throw fieldError('id', 'expected a request id (a positive integer)', c.req.param('id'));
      const entry = journal.get(id.data);
      if (!entry) throw new ApiError(404, `No journaled request with id ${id.data}.`);
      return c.json({ request: entry });
    });
  }

  app.post('/events', async (c) => {
    const body = parse(triggerEventSchema, jsonObjectBody(rawBodyOf(c)));
    // A vendor dialect's call its kind does not name (authenticate, balance, endRound, rollbackWin) goes by its operation.
    const operation = NAMED_OPERATIONS.find((op) => op.toLowerCase() === body.type.trim().toLowerCase());
    const kind =
      operation === undefined ? kindOf(body.type, config, 'type') : operation === 'rollbackWin' ? 'rollback' : 'credit';
    const reads = operation !== undefined && operation !== 'rollbackWin';
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
      amountMinor = findEvent(engine, reversed, body.playerId, body.referenceTransactionId as string)?.amountMinor;
      if (amountMinor === undefined) {
        throw fieldError(
          'amount',
          `no ${reversed.toUpperCase()} ${body.referenceTransactionId} for player ${body.playerId} in the outbox: give the amount to reverse`,
          undefined,
        );
      }
    }
    if (amountMinor === undefined) throw fieldError('amount', 'expected an amount in major units, e.g. 10.5', undefined);
    return answerEnqueued(c, () =>
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

  app.get('/scenarios', (c) =>
    c.json({ scenarios: SCENARIOS.map((name) => ({ name, description: SCENARIO_DESCRIPTIONS[name] })) }),
  );

  app.post('/scenarios/:name/run', async (c) => {
    const name = c.req.param('name');
    if (!isScenarioName(name))
      throw new ApiError(404, `No scenario ${JSON.stringify(name)}; expected one of ${SCENARIOS.join(', ')}.`);
    const body = parse(runScenarioSchema, jsonObjectBody(rawBodyOf(c), { optional: true }));
    const { wait, timeout } = parse(waitQuerySchema, c.req.query());
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
    return c.json(
      {
        ...head,
        steps: plan.steps.map((s) => ({ key: s.key, kind: s.request.kind, purpose: s.purpose, after: s.after })),
        events: (wait ? engine.outbox.list({ group: started.group, limit: 1000 }).reverse() : started.enqueued).map((e) =>
          toDelivery(e, config),
        ),
      },
      202,
    );
  });

  app.get('/deliveries', (c) => {
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

  app.get('/deliveries/:id', (c) => {
    const event = delivery(engine, c.req.param('id'));
    return c.json({ delivery: toDelivery(event, config), attempts: engine.outbox.attempts(event.id) });
  });

  app.post('/deliveries/:id/replay', async (c) => {
    const event = delivery(engine, c.req.param('id'));
    return answerEnqueued(c, () => engine.replay(event.id));
  });

  app.post('/deliveries/:id/rollback', async (c) => {
    const debit = delivery(engine, c.req.param('id'));
    if (debit.kind !== 'debit') {
      throw new ApiError(409, `Delivery ${debit.id} is a ${debit.kind.toUpperCase()}; only a DEBIT can be rolled back.`, {
        extra: {
          kind: debit.kind,
        },
      });
    }
    return answerEnqueued(c, () =>
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

  app.get('/discrepancies', (c) => {
    const q = parseQuery(discrepanciesQuerySchema, c.req.query());
    const filter = {
      ...(q.player ? { playerId: q.player } : {}),
      ...(q.kind ? { kind: q.kind } : {}),
      ...(q.group ? { group: q.group } : {}),
    };
    const discrepancies = ledger.discrepancies({ ...filter, limit: q.limit, ...(q.before ? { beforeId: q.before } : {}) });
    const last = discrepancies.at(-1);
    return c.json({
      discrepancies: discrepancies.map((d) => ({
        ...d,
        expected: d.expectedMinor === null ? null : majorOf(d.expectedMinor, currencyOfEvents(engine, d.eventIds), config),
        actual: d.actualMinor === null ? null : majorOf(d.actualMinor, currencyOfEvents(engine, d.eventIds), config),
      })),
      total: ledger.discrepancyCount(filter),
      nextBefore: discrepancies.length === q.limit && last ? last.id : null,
    });
  });

  app.get('/ledger', (c) => c.json({ balances: ledger.balances(), discrepancies: ledger.discrepancyCount() }));

  app.get('/schedule', (c) => c.json({ entries: deps.scheduler?.status() ?? [] }));

  app.post('/reset', (c) => {
    const before = engine.outbox.counts();
    engine.outbox.reset();
    ledger.reset();
    const removed = Object.values(before).reduce((a, b) => a + b, 0);
    return c.json({ reset: true, removedDeliveries: removed });
  });

  /**
   * 202 with the event as stored, or with `?wait=true` 200 with the settled event. The query is
   * checked before `enqueue` runs: a bad `?wait` must not leave an event behind its 400.
   */
  async function answerEnqueued(c: Context, enqueue: () => Enqueued): Promise<Response> {
    const { wait, timeout } = parse(waitQuerySchema, c.req.query());
    const enqueued = enqueue();
    if (wait) {
      const settled = await withTimeout(enqueued.settled, timeout);
      if (settled) return c.json({ event: toDelivery(settled, config) }, 200);
      const current = engine.outbox.get(enqueued.event.id) ?? enqueued.event;
      return c.json(
        {
          event: toDelivery(current, config),
          waited: timeout,
          message: 'not settled yet; GET /__admin/deliveries/:id to follow it',
        },
        202,
      );
    }
    return c.json({ event: toDelivery(enqueued.event, config) }, 202);
  }

  return app;
}

/** A delivery as the admin API shows it: the stored event plus its amount in major units. */
export function toDelivery(event: StoredEvent, config: AggmockConfig): Omit<StoredEvent, 'replyAttempt'> & { amount: number } {
  const { replyAttempt: _stored, ...delivery } = event;
  return { ...delivery, amount: majorOf(event.amountMinor, event.currency, config) };
}

/**
 * The one conversion between the admin API's major units and minor units, in the currency's own
 * decimals (JPY 0, EUR 2, KWD 3; configured extras from callbacks.currencies): 5 JPY is 5, not 500.
 */
function exponentOf(currency: string | undefined, config: AggmockConfig): number {
  return callbackExponent(config.callbacks, currency);
}

function majorOf(minor: number, currency: string | undefined, config: AggmockConfig): number {
  return toMajor(minor, exponentOf(currency, config));
}

/** The ISO 4217 codes this Node knows (Intl): a well-formed code that is none of them (XYZ) is no currency. */
const ISO_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/**
 * A currency code the admin API takes: a real ISO 4217 code (upper case), the configured currency or
 * one of callbacks.currencies; else a 400 naming the field (never an amount guessed at two decimals).
 */
function knownCurrency(code: string, config: AggmockConfig): string {
  const known = Object.hasOwn(config.callbacks.currencies, code) || code === config.callbacks.currency || ISO_CODES.has(code);
  if (!known || currencyExponent(code, config.callbacks.currencies) === undefined)
    throw fieldError(
      'currency',
      `expected an ISO 4217 currency code in upper case such as "EUR" or "JPY"${Object.keys(config.callbacks.currencies).length ? `, or one of callbacks.currencies (${Object.keys(config.callbacks.currencies).join(', ')})` : ' (add others under callbacks.currencies)'}`,
      code,
    );
  return code;
}

/** The currency of a discrepancy's first event still in the outbox (the configured one when none is). */
function currencyOfEvents(engine: CallbackEngine, eventIds: readonly number[]): string | undefined {
  const id = eventIds[0];
  return id === undefined ? undefined : engine.outbox.get(id)?.currency;
}

function describeSummary(summary: ScenarioRunSummary, config: AggmockConfig) {
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

/** Maps "debit" (any case) or a configured type string ("BET") to the event kind. */
export function kindOf(type: string, config: AggmockConfig, field: string): EventKind {
  const wanted = type.trim().toLowerCase();
  for (const kind of EVENT_KINDS) {
    if (kind === wanted || config.callbacks.types[kind].toLowerCase() === wanted) return kind;
  }
  const configured = EVENT_KINDS.map((k) => config.callbacks.types[k]).join(', ');
  throw fieldError(field, `expected one of debit, credit, rollback (or the configured types ${configured})`, type);
}

function minorOf(amount: number | string, field: string, currency: string | undefined, config: AggmockConfig): number {
  const exponent = exponentOf(currency, config);
  const minor = typeof amount === 'number' ? toMinor(amount, exponent) : parseMajorString(amount, exponent);
  if (minor === undefined)
    throw fieldError(
      field,
      `expected an amount in major units with at most ${exponent} decimal${exponent === 1 ? '' : 's'} (${currency ?? config.callbacks.currency}), e.g. ${toMajor(1050 * 10 ** Math.max(0, exponent - 2), exponent)}`,
      amount,
    );
  return minor;
}

/** The DEBIT (or CREDIT) of a player with this transaction id, in the outbox. */
function findEvent(engine: CallbackEngine, kind: EventKind, playerId: string, transactionId: string): StoredEvent | undefined {
  return engine.outbox.list({ playerId, kind, transactionId, limit: 1 })[0];
}

function delivery(engine: CallbackEngine, rawId: string): StoredEvent {
  const id = eventIdSchema.safeParse(rawId);
  if (!id.success) throw fieldError('id', 'expected a delivery id (a positive integer)', rawId);
  const event = engine.outbox.get(id.data);
  if (!event) throw new ApiError(404, `No delivery with id ${id.data}.`);
  return event;
}

function fieldError(field: string, message: string, received: unknown): ApiError {
  return new ApiError(400, `${field}: ${message}${received === undefined ? '' : ` (got ${JSON.stringify(received)})`}.`, {
    errors: [{ field, message, ...(received === undefined ? {} : { received }) }],
  });
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error.issues, input);
  throw new ApiError(400, `Invalid request: ${describeFieldErrors(errors)}.`, { errors });
}

/**
 * A query validated by `schema`, refusing a parameter it does not name (a filter that would
 * otherwise be ignored, so the list looks filtered when it is not) with a 400 naming it and the
 * parameters taken.
 */
function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, string>): z.infer<S> {
  const accepted = Object.keys(schema.shape);
  const unknown = Object.keys(query).filter((name) => !accepted.includes(name));
  if (unknown.length > 0) {
    const errors = unknown.map((name) => ({
      field: name,
      message: `unknown query parameter; expected one of ${accepted.join(', ')}`,
      received: query[name],
    }));
    throw new ApiError(400, `Invalid request: ${describeFieldErrors(errors)}.`, { errors });
  }
  return parse(schema, query);
}

/** The bytes readRawBody kept for this request. */
function rawBodyOf(c: Context): Uint8Array {
  return (c as Context<{ Variables: RawBodyVariables }>).get('rawBody');
}

/** The JSON object in the body (read by readRawBody), refusing unparseable bodies with a 400 that says what was wrong. */
function jsonObjectBody(raw: Uint8Array, options: { optional?: boolean } = {}): unknown {
  if (Buffer.from(raw).toString('latin1').trim() === '') {
    if (options.optional) return {};
    throw new ApiError(400, 'The request body is empty; expected a JSON object.', {
      errors: [{ field: '(body)', message: 'expected a JSON object' }],
    });
  }
  const value = parseJsonBytes(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'Expected a JSON object as the body.', {
      errors: [{ field: '(body)', message: 'expected a JSON object', received: value }],
    });
  }
  return value;
}

/** The promise's value, or undefined when it takes longer than `ms` (real time: this is an HTTP wait). */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
