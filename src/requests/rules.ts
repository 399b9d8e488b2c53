import { randomBytes } from 'node:crypto';
import { seededRandom } from '../callbacks/random.ts';
import {
  type Fault,
  type FaultRule,
  FaultRuleError,
  type FaultRuleInput,
  faultRuleSchema,
  firesNow,
  MAX_FAULT_DELAY_MS,
  MAX_FAULT_RULES,
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
export interface FaultRuleState extends FaultRule {
  id: string;
  /** Where it came from: the config file or the admin API (and so the UI and the test helpers). */
  source: 'config' | 'admin';
  matched: number;
  fired: number;
  /** A `times` or `nth` rule that can fire no more. */
  spent: boolean;
}

/** The rule that fired for a request and the fault to apply (a delay already drawn). */
export interface FiredFault {
  ruleId: string;
  fault: Fault;
  /** For a delay: the drawn ms. */
  delayMs?: number;
}

interface LiveRule {
  state: FaultRuleState;
  next: () => number;
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
export class FaultRules {
  private readonly rules: LiveRule[] = [];
  private readonly seed: number | string;

  constructor(options: { seed: number | string; rules?: readonly FaultRule[] }) {
    this.seed = options.seed;
    for (const rule of options.rules ?? []) this.insert(rule, 'config');
  }

  /** How many rules are set: the API's fast path checks this before anything else. */
  get size(): number {
    return this.rules.length;
  }

  /** Validates and adds a rule; a bad one throws a {@link FaultRuleError} naming each field. */
  add(input: FaultRuleInput | unknown): FaultRuleState {
    const parsed = faultRuleSchema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({
        field: i.path.map(String).join('.') || '(body)',
        message: i.message,
        ...(valueAt(input, i.path) === undefined ? {} : { received: valueAt(input, i.path) }),
      }));
      throw new FaultRuleError(`Invalid fault rule: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, issues);
    }
    return this.insert(parsed.data, 'admin');
  }

  private insert(rule: FaultRule, source: FaultRuleState['source']): FaultRuleState {
    if (this.rules.length >= MAX_FAULT_RULES)
      throw new FaultRuleError(`At most ${MAX_FAULT_RULES} fault rules; DELETE /__admin/faults/<id> one first.`);
    const id = rule.id ?? `f_${randomBytes(6).toString('hex')}`;
    if (this.rules.some((r) => r.state.id === id))
      throw new FaultRuleError(`A fault rule with id ${JSON.stringify(id)} exists already.`, [
        { field: 'id', message: 'already used', received: id },
      ]);
    const state: FaultRuleState = { ...rule, id, source, matched: 0, fired: 0, spent: false };
    this.rules.push({ state, next: seededRandom(rule.seed ?? `${this.seed}:fault:${id}`).next });
    return { ...state };
  }

  list(): FaultRuleState[] {
    return this.rules.map((r) => ({ ...r.state }));
  }

  remove(id: string): boolean {
    const i = this.rules.findIndex((r) => r.state.id === id);
    if (i < 0) return false;
    this.rules.splice(i, 1);
    return true;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules.length = 0;
    return n;
  }

  /** Whether some live rule could match this method and route before the body is read: no rule, no work. */
  mayMatch(method: string, path: string): boolean {
    for (const { state } of this.rules) {
      if (!state.spent && (state.match.method ?? method) === method && (state.match.path ?? path) === path) return true;
    }
    return false;
  }

  /** Whether a rule needs the body to decide (a player, a game or a body field). */
  needsBody(method: string, path: string): boolean {
    return this.rules.some(
      ({ state: { match, spent } }) =>
        !spent &&
        (match.method ?? method) === method &&
        (match.path ?? path) === path &&
        (match.player !== undefined || match.game !== undefined || match.body !== undefined || match.provider !== undefined),
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

function matches({ match }: FaultRuleState, request: RequestFacts): boolean {
  if (match.method !== undefined && match.method !== request.method) return false;
  if (match.path !== undefined && match.path !== request.path) return false;
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
