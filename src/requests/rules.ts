import { RuleBook, type RuleCounters } from '../callbacks/rule-book.ts';
import {
  type Fault,
  type FaultRule,
  FaultRuleError,
  faultRouteRefusal,
  faultRuleSchema,
  firesNow,
  LAUNCH_ONLY_FAULT_KINDS,
  LAUNCH_ROUTE,
  MAX_FAULT_DELAY_MS,
} from '../config/index.ts';
import { valueAt } from '../shared/index.ts';

export { FaultRuleError };

/** What a rule can match on in one client request; fields the request does not carry are undefined. */
export interface RequestFacts {
  method: string;
  /** The route path: no `/casino`, no query (see routePath). */
  path: string;
  provider?: string | undefined;
  game?: string | undefined;
  player?: string | undefined;
  /** The parsed JSON body, when there is one. */
  body?: unknown;
}

/** A rule as stored and listed: the rule, how often it matched and fired, and whether it is spent. */
export type FaultRuleState = FaultRule & RuleCounters;

/** The rule that fired for a request and the fault to apply (a delay already drawn). */
export interface FiredFault {
  ruleId: string;
  fault: Fault;
  /** For a delay: the drawn ms. */
  delayMs?: number;
}

/** The catalog's providers as a rule's `match.provider` may name them (src/runtime.ts builds it from the catalog). */
export interface ProviderLookup {
  /** The code of the provider a code or name names (trimmed, any case, as the listing's `provider` query), or undefined. */
  codeOf(query: string): string | undefined;
  /** Every provider code, to say what was expected. */
  codes: readonly string[];
}

/**
 * The fault rules in force and their counters: which rule (the first added wins) fires for a
 * request, drawn from a generator seeded per rule so the same seed gives the same faults. Pure
 * logic: no HTTP, no timers; src/aggregator/client-faults.ts applies what it returns.
 *
 * @example
 * const rules = new FaultRules({ seed: 42 });
 * rules.add({ match: { path: '/getgameurl' }, fault: { kind: 'status', status: 503 }, times: 1 });
 * rules.fire({ method: 'POST', path: '/getgameurl' }); // → { ruleId, fault: { kind: 'status', status: 503 } }
 * rules.fire({ method: 'POST', path: '/getgameurl' }); // → undefined: spent
 */
export class FaultRules extends RuleBook<FaultRule> {
  /**
   * With `providers`, a rule's `match.provider` is resolved to the catalog's code (a name works as
   * in the listing's query) and an unknown one is refused, naming the field; a config rule refused
   * so throws with its index first (`0.match.provider`).
   */
  constructor(options: {
    seed: number | string;
    rules?: readonly FaultRule[];
    providers?: ProviderLookup;
    /** The configured dialect's operator routes (a dialect file's own), which a rule's `match.path` may name too. */
    operatorPaths?: ((path: string) => boolean) | undefined;
  }) {
    const { providers, operatorPaths } = options;
    super(
      {
        schema: faultRuleSchema,
        noun: 'fault rule',
        route: '/__admin/faults',
        idPrefix: 'f',
        seedTag: 'fault',
        seed: options.seed,
        prepare: (rule: FaultRule) => {
          checkRoute(rule, operatorPaths);
          return providers ? withProviderCode(rule, providers) : rule;
        },
      },
      options.rules,
    );
  }

  /** Whether some live rule could match this method and route before the body is read: no rule, no work. */
  mayMatch(method: string, path: string): boolean {
    for (const { state } of this.rules) {
      if (!state.spent && onRoute(state, method, path)) return true;
    }
    return false;
  }

  /** Whether a rule needs the body to decide (a player, a game or a body field). */
  needsBody(method: string, path: string): boolean {
    return this.rules.some(
      ({ state }) =>
        !state.spent &&
        onRoute(state, method, path) &&
        (state.match.player !== undefined ||
          state.match.game !== undefined ||
          state.match.body !== undefined ||
          state.match.provider !== undefined),
    );
  }

  /**
   * Counts the request against every matching rule and returns the fault of the first that fires.
   * Every matching rule counts the call (its `nth` is the Nth matching call, whichever fired).
   */
  fire(request: RequestFacts): FiredFault | undefined {
    let fired: FiredFault | undefined;
    for (const rule of this.rules) {
      const { state } = rule;
      if (state.spent || !matches(state, request)) continue;
      state.matched++;
      if (fired || !firesNow(state, rule.next)) continue;
      fired = { ruleId: state.id, fault: state.fault };
      if (state.fault.kind === 'delay') fired.delayMs = drawDelay(state.fault, rule.next);
    }
    return fired;
  }
}

/**
 * Whether a rule's method and route fit: those it names, and for a kind that bends a launch
 * (expired-link, used-link) the launch route whatever it names, so it is never spent on a listing.
 */
function onRoute({ match, fault }: FaultRuleState, method: string, path: string): boolean {
  if (LAUNCH_ONLY_FAULT_KINDS.includes(fault.kind) && (method !== LAUNCH_ROUTE.method || path !== LAUNCH_ROUTE.path))
    return false;
  return (match.method === undefined || match.method === method) && (match.path === undefined || match.path === path);
}

function matches(state: FaultRuleState, request: RequestFacts): boolean {
  const { match } = state;
  if (!onRoute(state, request.method, request.path)) return false;
  if (match.provider !== undefined && !sameCode(match.provider, request.provider)) return false;
  if (match.game !== undefined && match.game !== request.game) return false;
  if (match.player !== undefined && match.player !== request.player) return false;
  if (match.body !== undefined) {
    for (const [path, expected] of Object.entries(match.body)) {
      if (valueAt(request.body, path.split('.')) !== expected) return false;
    }
  }
  return true;
}

/** The rule with its `match.provider` as the catalog's code; an unknown provider is refused naming the field. */
/** A rule's route must be one a request can have (the schema only normalises it): the one judge, faultRouteRefusal. */
function checkRoute(rule: FaultRule, operatorPaths: ((path: string) => boolean) | undefined): void {
  if (rule.match.path === undefined) return;
  const message = faultRouteRefusal(rule.match.path, operatorPaths);
  if (message === undefined) return;
  throw new FaultRuleError(`Invalid fault rule: match.path: ${message}.`, [
    { field: 'match.path', message, received: rule.match.path },
  ]);
}

function withProviderCode(rule: FaultRule, providers: ProviderLookup): FaultRule {
  const given = rule.match.provider;
  if (given === undefined) return rule;
  const code = providers.codeOf(given);
  if (code !== undefined) return code === given ? rule : { ...rule, match: { ...rule.match, provider: code } };
  const shown = providers.codes.slice(0, 8).join(', ');
  const more = providers.codes.length > 8 ? `, … (${providers.codes.length} in all)` : '';
  const message = `no such provider in the catalog; expected a provider code or name as GET /getallproviders lists them (trimmed, any case): ${shown}${more}`;
  throw new FaultRuleError(`Invalid fault rule: match.provider: ${message}.`, [
    { field: 'match.provider', message, received: given },
  ]);
}

/** Provider codes as the API matches them: trimmed, any case. */
function sameCode(a: string, b: string | undefined): boolean {
  return b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();
}

type DelayFault = Extract<Fault, { kind: 'delay' }>;

/** The delay to apply, drawn from the rule's generator, whole ms, at most the cap. */
export function drawDelay(fault: DelayFault, next: () => number): number {
  if (fault.ms !== undefined) return fault.ms;
  if (fault.uniform) return Math.round(fault.uniform.min + next() * (fault.uniform.max - fault.uniform.min));
  const { median, sigma } = fault.lognormal as { median: number; sigma: number };
  // Box–Muller: a standard normal from two uniforms (1 - u keeps log away from 0).
  const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return Math.min(MAX_FAULT_DELAY_MS, Math.round(median * Math.exp(sigma * normal)));
}
