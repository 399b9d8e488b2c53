import { z } from 'zod';
import { isOperatorRoutePath } from '../dialects/builtin/operator/index.ts';
import { editDistance } from '../shared/index.ts';
import { parseDuration } from './duration.ts';

/*
 * Fault rules on the aggregator API (`api.faults` in config, `POST /__admin/faults`): which client
 * requests a rule matches and what goes wrong with them. Defined once here, in the foundation, so
 * the config, the admin API, the OpenAPI document and the rule book all validate the same shape.
 * Every number is bounded: a rule is test input, and a typo must not hold a socket for a day.
 */

/** Fault rules kept at most (config and admin together). */
export const MAX_FAULT_RULES = 100;
/** The longest delay any rule can impose (a drawn delay is capped to it too). */
export const MAX_FAULT_DELAY_MS = 60_000;
/** How long a `timeout` fault holds a request before closing it, when the client never gives up. */
export const MAX_FAULT_HOLD_MS = 600_000;
/** The longest a `drip` reply may take: past it the chunks grow so the reply ends in time. */
export const MAX_DRIP_MS = 60_000;

/** The routes of the aggregator API, as a rule's `match.path` names them (also under `/casino`). */
export const API_ROUTES = [
  { method: 'GET', path: '/getallproviders' },
  { method: 'GET', path: '/getallgamesandprovider' },
  { method: 'POST', path: '/getgameurl' },
] as const;

/** The HTTP methods a rule's `match.method` may name (any case). */
export const HTTP_METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The fault kinds that bend a launch: they apply to the launch route (POST /getgameurl) only, whatever the rule's match says. */
export const LAUNCH_ONLY_FAULT_KINDS: readonly string[] = ['expired-link', 'used-link'];
/** The launch route, the only one a {@link LAUNCH_ONLY_FAULT_KINDS} rule matches. */
export const LAUNCH_ROUTE = { method: 'POST', path: '/getgameurl' } as const;

/** A bounded duration in ms, as a number of ms or a string such as "250ms" or "2s". */
function delayMs(max = MAX_FAULT_DELAY_MS) {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms < 0 || ms > max) {
      ctx.addIssue({ code: 'custom', message: `expected a duration from 0 to ${max} ms, such as 250, "250ms" or "2s"` });
      return z.NEVER;
    }
    return ms;
  });
}

const text = z.string().min(1).max(200);

const delayFault = z
  .strictObject({
    kind: z.literal('delay'),
    /** A fixed delay. */
    ms: delayMs().optional(),
    /** A delay drawn uniformly from [min, max]. */
    uniform: z
      .strictObject({ min: delayMs(), max: delayMs() })
      .refine((r) => r.min <= r.max, { message: 'uniform.min must not exceed uniform.max' })
      .optional(),
    /** A delay drawn from a log-normal distribution: its median and the sigma of its logarithm (capped at the maximum delay). */
    lognormal: z.strictObject({ median: delayMs(), sigma: z.number().min(0).max(4) }).optional(),
  })
  .refine((f) => [f.ms, f.uniform, f.lognormal].filter((v) => v !== undefined).length === 1, {
    message: 'a delay needs exactly one of "ms" (fixed), "uniform" {min, max} or "lognormal" {median, sigma}',
  });

const retryAfter = z.number().int().min(0).max(86_400).optional();

export const faultSchema = z.discriminatedUnion(
  'kind',
  [
    delayFault,
    /** An HTTP error with the API's JSON error body. */
    z.strictObject({
      kind: z.literal('status'),
      status: z.number().int().min(400).max(599),
      message: text.optional(),
      /** Seconds, sent as `Retry-After`. */
      retryAfter,
    }),
    /** The connection closes without a byte of reply. */
    z.strictObject({ kind: z.literal('empty') }),
    /** The connection is reset (TCP RST) without a reply. */
    z.strictObject({ kind: z.literal('reset') }),
    /** The real reply's headers and only the first bytes of its body (default half), then the connection closes. */
    z.strictObject({ kind: z.literal('cut'), afterBytes: z.number().int().min(0).max(1_048_576).optional() }),
    /** The real reply, its body sent a few bytes at a time. */
    z.strictObject({
      kind: z.literal('drip'),
      chunkBytes: z.number().int().min(1).max(65_536).default(64),
      intervalMs: delayMs(5_000).default(100),
    }),
    /** No reply at all: the request hangs until the client gives up (or 10 minutes pass). */
    z.strictObject({ kind: z.literal('timeout') }),
    /** The real status and headers with a body that is not valid JSON (the real one cut short, with a matching length). */
    z.strictObject({ kind: z.literal('malformed') }),
    /** A real launch whose link has already expired when the client opens it (POST /getgameurl only). */
    z.strictObject({ kind: z.literal('expired-link') }),
    /** A real launch whose link has already been used (opened once) when the client opens it: 410 (POST /getgameurl only). */
    z.strictObject({ kind: z.literal('used-link') }),
    /** 503 with the API's error body: the provider is under maintenance. */
    z.strictObject({ kind: z.literal('maintenance'), message: text.optional(), retryAfter }),
  ],
  {
    error: (issue): string | undefined =>
      issue.code === 'invalid_union' ? `expected a fault kind: ${FAULT_KINDS.join(', ')}` : undefined,
  },
);

export const FAULT_KINDS = kindsOf(faultSchema);
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The `kind` of each option of a discriminated union, in its order: the list is read off the schema that defines them. */
function kindsOf<K extends string>(union: { options: readonly { shape: { kind: { value: K } } }[] }): [K, ...K[]] {
  return union.options.map((option) => option.shape.kind.value) as [K, ...K[]];
}

const METHODS_EXPECTED = `expected an HTTP method: ${HTTP_METHODS.join(', ')} (any case)`;
const ROUTES_EXPECTED = `expected an API route: ${API_ROUTES.map((r) => r.path).join(', ')} (also under /casino), without a query`;

/**
 * Why a fault rule's route is one no request can have, or undefined: a route of the seed's API, of
 * a built-in vendor operator API, or of the configured dialect's operator API (`operatorPaths`, for
 * a dialect file with its own operator section). The one judge for the config and the admin API.
 *
 * @example faultRouteRefusal('/casino/getgamurl') // 'no API route /casino/getgamurl (did you mean /getgameurl?); …'
 */
export function faultRouteRefusal(route: string, operatorPaths?: (path: string) => boolean): string | undefined {
  if (API_ROUTES.some((r) => r.path === route) || isOperatorRoutePath(route) || operatorPaths?.(route)) return undefined;
  const nearest = nearestRoute(route);
  return `no API route ${route}${nearest ? ` (did you mean ${nearest.path}?)` : ''}; ${ROUTES_EXPECTED}${operatorPaths ? ", or a route of the dialect's operator API" : ''}`;
}

export const faultMatchSchema = z.strictObject({
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/, METHODS_EXPECTED)
    .transform((m, ctx) => {
      const method = m.toUpperCase();
      if ((HTTP_METHODS as readonly string[]).includes(method)) return method;
      ctx.addIssue({ code: 'custom', message: METHODS_EXPECTED });
      return z.NEVER;
    })
    .optional(),
  /** The route, with or without `/casino` and without a query: `/getgameurl`, `/getallgamesandprovider`, `/getallproviders`. */
  path: z
    .string()
    .max(200)
    .regex(/^\/[^?#\s]*$/, ROUTES_EXPECTED)
    // Which routes exist depends on the configured dialect (its operator API may come from its file):
    // the config's refinement and the rule book judge the route with faultRouteRefusal.
    .transform((p) => routePath(p))
    .optional(),
  /**
   * A provider code or name (trimmed, any case), as the listing's `provider` query takes it: the
   * rule book resolves it to the catalog's code and refuses one the catalog does not have. Matches
   * the listing's `provider` query, or the launched game's provider.
   */
  provider: text.optional(),
  /** A game id: the launch's `gameId`. */
  game: text.optional(),
  /** A player: the launch's `username`. */
  player: text.optional(),
  /** Fields of the JSON body by dotted path, each equal to the value given: `{"currency": "EUR", "extras.vip": true}`. */
  body: z
    .record(z.string().min(1).max(200), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
    .refine((b) => Object.keys(b).length <= 20, { message: 'at most 20 body fields' })
    .optional(),
});

/** A rule's id: letters, digits, `-` and `_`; generated when absent. */
const ruleId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1 to 64 letters, digits, "-" or "_"')
  .optional();

/** When a rule that matches fires; the API's and the callbacks' rules alike (see {@link firesNow}). */
const firing = {
  /** Apply to the next N matching calls (or attempts), then stop. */
  times: z.number().int().min(1).max(1_000_000).optional(),
  /** Apply only to the Nth matching call (1 = the next one). */
  nth: z.number().int().min(1).max(1_000_000).optional(),
  /** Apply to each matching call with this probability, drawn from a seeded generator. */
  probability: z.number().min(0).max(1).optional(),
  /**
   * The probability's seed. Default: the config's `seed` and the rule's given `id`, or without one
   * its definition (match, fault, times/nth/probability) and its place among rules defined alike;
   * never a generated id, so the same config gives the same faults run after run.
   */
  seed: z.union([z.number().int(), z.string().min(1).max(200)]).optional(),
};

export const faultRuleSchema = z
  .strictObject({ id: ruleId, match: faultMatchSchema.prefault({}), fault: faultSchema, ...firing })
  .superRefine((rule, ctx) => {
    firingModeIssues(rule, ctx);
    if (!LAUNCH_ONLY_FAULT_KINDS.includes(rule.fault.kind)) return;
    // A launch-bending kind matches the launch route only: a match that names another can never fire.
    for (const key of ['path', 'method'] as const) {
      if (rule.match[key] !== undefined && rule.match[key] !== LAUNCH_ROUTE[key])
        ctx.addIssue({
          code: 'custom',
          path: ['match', key],
          message:
            key === 'path'
              ? `a "${rule.fault.kind}" fault applies to ${LAUNCH_ROUTE.path} only (also under /casino); expected ${LAUNCH_ROUTE.path} or no path`
              : `a "${rule.fault.kind}" fault applies to ${LAUNCH_ROUTE.method} ${LAUNCH_ROUTE.path} only; expected ${LAUNCH_ROUTE.method} or no method`,
        });
    }
  });
export type FaultRuleInput = z.input<typeof faultRuleSchema>;
export type FaultRule = z.infer<typeof faultRuleSchema>;
export type Fault = FaultRule['fault'];

export const faultRulesSchema = z
  .array(faultRuleSchema)
  .max(MAX_FAULT_RULES, `at most ${MAX_FAULT_RULES} fault rules`)
  .superRefine(uniqueIds)
  .default([]);

/** The route a request path names: without `/casino`, the query or a trailing slash. */
export function routePath(path: string): string {
  const q = path.indexOf('?');
  return routeOf(q >= 0 ? path.slice(0, q) : path);
}

/** The route a path without a query names, as the journal's filters compare it: without `/casino` and a trailing slash. */
export function routeOf(path: string): string {
  let p = path;
  if (p.startsWith('/casino/')) p = p.slice('/casino'.length);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** The API route whose path is nearest (by edit distance, ignoring case) to `path`, when it is near enough to be a typo. */
export function nearestRoute(path: string): (typeof API_ROUTES)[number] | undefined {
  const wanted = path.toLowerCase();
  let best: (typeof API_ROUTES)[number] | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const route of API_ROUTES) {
    // A route inside a longer path (/api/v1/getgameurl) counts as near; a path past 200 characters is no typo.
    const d = wanted.endsWith(route.path) ? 0 : wanted.length > 200 ? Number.POSITIVE_INFINITY : editDistance(wanted, route.path);
    if (d < bestDistance) {
      bestDistance = d;
      best = route;
    }
  }
  return best && bestDistance <= Math.max(3, Math.floor(best.path.length / 3)) ? best : undefined;
}

/*
 * Fault rules on the callbacks aggmock sends (`callbacks.faults` in config, `POST /__admin/callback-faults`):
 * the domain cases a wallet must survive that a healthy aggregator rarely produces on demand.
 */

/** The callback kinds a rule can name (the engine's event kinds). */
export const CALLBACK_FAULT_EVENTS = ['debit', 'credit', 'rollback'] as const;

export const callbackFaultSchema = z.discriminatedUnion(
  'kind',
  [
    /**
     * aggmock gives up on the attempt as if it timed out, whatever the wallet answers: with no
     * `afterMs`, once the wallet's reply is in (so the wallet has applied it); with `afterMs`, that
     * long after sending or at the reply, whichever comes first (the request stays open, the
     * wallet may still be applying it). Then callbacks.retrySchedule goes on (the same callback
     * again), or with `giveUp` the event ends failed at once (a DEBIT is then rolled back).
     */
    z.strictObject({
      kind: z.literal('timeout'),
      afterMs: delayMs().optional(),
      giveUp: z.boolean().default(false),
    }),
    /** A second copy of the callback (the same body, signed afresh) sent `afterMs` after the first goes out (default 0: both in flight). */
    z.strictObject({ kind: z.literal('duplicate'), afterMs: delayMs().default(0) }),
  ],
  {
    error: (issue): string | undefined =>
      issue.code === 'invalid_union' ? `expected a callback fault kind: ${CALLBACK_FAULT_KINDS.join(', ')}` : undefined,
  },
);
export type CallbackFault = z.infer<typeof callbackFaultSchema>;
export const CALLBACK_FAULT_KINDS = kindsOf(callbackFaultSchema);

export const callbackFaultMatchSchema = z.strictObject({
  /** The callback's kind, or a list of kinds. */
  event: z
    .union([z.enum(CALLBACK_FAULT_EVENTS), z.array(z.enum(CALLBACK_FAULT_EVENTS)).min(1).max(3)], {
      error: `expected one of ${CALLBACK_FAULT_EVENTS.map((k) => `"${k}"`).join(', ')}, or a list of them`,
    })
    .optional(),
  /** The player the callback is for. */
  player: text.optional(),
  /** The callback's transaction id. */
  transactionId: text.optional(),
});

export const callbackFaultRuleSchema = z
  .strictObject({ id: ruleId, match: callbackFaultMatchSchema.prefault({}), fault: callbackFaultSchema, ...firing })
  .superRefine((rule, ctx) => firingModeIssues(rule, ctx));
export type CallbackFaultRuleInput = z.input<typeof callbackFaultRuleSchema>;
export type CallbackFaultRule = z.infer<typeof callbackFaultRuleSchema>;

export const callbackFaultRulesSchema = z
  .array(callbackFaultRuleSchema)
  .max(MAX_FAULT_RULES, `at most ${MAX_FAULT_RULES} callback fault rules`)
  .superRefine(uniqueIds)
  .default([]);

/** Rules in one list name distinct ids: a repeated one is refused at its index, naming the first. */
function uniqueIds(rules: readonly { id?: string | undefined }[], ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  rules.forEach((rule, index) => {
    if (rule.id === undefined) return;
    const earlier = first.get(rule.id);
    if (earlier === undefined) first.set(rule.id, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `the id ${JSON.stringify(rule.id)} is already rule ${earlier}'s; expected an id of its own`,
        input: rule.id,
      });
  });
}

/** A rule's firing mode: at most one of times, nth, probability; a seed only with a probability. */
function firingModeIssues(
  rule: { times?: number | undefined; nth?: number | undefined; probability?: number | undefined; seed?: unknown },
  ctx: z.RefinementCtx,
): void {
  const modes = (['times', 'nth', 'probability'] as const).filter((k) => rule[k] !== undefined);
  if (modes.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: [modes[1] as string],
      message: `give at most one of "times", "nth" or "probability" (got ${modes.join(' and ')})`,
    });
  }
  if (rule.seed !== undefined && rule.probability === undefined)
    ctx.addIssue({ code: 'custom', path: ['seed'], message: 'a seed only matters with "probability"' });
}

/** A fault rule that is not valid, or cannot be added: the message and each field's issue. */
export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
  constructor(
    message: string,
    readonly issues: { field: string; message: string; received?: unknown }[] = [],
  ) {
    super(message);
  }
}

/** How often a rule matched and fired, and whether it can fire again. */
export interface FiringState {
  times?: number | undefined;
  nth?: number | undefined;
  probability?: number | undefined;
  matched: number;
  fired: number;
  spent: boolean;
}

/**
 * Whether a rule fires for a call it matches (already counted in `matched`): always, for its next
 * `times` calls, on its `nth`, or with its `probability` drawn from `next` on every matching call
 * (so the sequence depends only on the seed and the calls). Counts the firing and spends the rule.
 * The API's and the callbacks' fault rules both decide here.
 */
export function firesNow(state: FiringState, next: () => number): boolean {
  const fires =
    state.nth !== undefined ? state.matched === state.nth : state.probability !== undefined ? next() < state.probability : true;
  if (!fires) return false;
  state.fired++;
  if ((state.times !== undefined && state.fired >= state.times) || state.nth !== undefined) state.spent = true;
  return true;
}
