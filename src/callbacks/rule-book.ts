import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { FaultRuleError, MAX_FAULT_RULES } from '../config/index.ts';
import { valueAt } from '../shared/index.ts';
import { seededRandom } from './random.ts';

/** What a rule book keeps beside each rule: its id, where it came from, how often it matched and fired. */
export interface RuleCounters {
  id: string;
  /** Where it came from: the config file or the admin API (and so the UI and the test helpers). */
  source: 'config' | 'admin';
  matched: number;
  fired: number;
  /** A `times` or `nth` rule that can fire no more. */
  spent: boolean;
}

/** How one kind of rule is named, validated and seeded. */
export interface RuleBookSpec<Rule> {
  schema: z.ZodType<Rule>;
  /** "fault rule", "callback fault rule": in messages. */
  noun: string;
  /** The admin route that lists them, e.g. /__admin/faults. */
  route: string;
  idPrefix: string;
  /** The rule's generator is seeded `<seed>:<seedTag>:<id>` unless the rule has a seed of its own. */
  seedTag: string;
  seed: number | string;
}

/**
 * The rules of one kind in force, in the order added, each with its counters and its own seeded
 * generator (the same seed gives the same faults). The API's fault rules and the callbacks' share
 * it; each adds how a rule matches and fires.
 */
export class RuleBook<Rule extends { id?: string | undefined; seed?: number | string | undefined }> {
  protected readonly rules: { state: Rule & RuleCounters; next: () => number }[] = [];

  constructor(
    private readonly spec: RuleBookSpec<Rule>,
    rules: readonly Rule[] = [],
  ) {
    for (const rule of rules) this.insert(rule, 'config');
  }

  /** How many rules are set: a fast path checks this before anything else. */
  get size(): number {
    return this.rules.length;
  }

  /** Validates and adds a rule; a bad one throws a {@link FaultRuleError} naming each field. */
  add(input: unknown): Rule & RuleCounters {
    const parsed = this.spec.schema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({
        field: i.path.map(String).join('.') || '(body)',
        message: i.message,
        ...(valueAt(input, i.path) === undefined ? {} : { received: valueAt(input, i.path) }),
      }));
      throw new FaultRuleError(`Invalid ${this.spec.noun}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, issues);
    }
    return this.insert(parsed.data, 'admin');
  }

  private insert(rule: Rule, source: RuleCounters['source']): Rule & RuleCounters {
    const { noun, route, idPrefix, seedTag, seed } = this.spec;
    if (this.rules.length >= MAX_FAULT_RULES)
      throw new FaultRuleError(`At most ${MAX_FAULT_RULES} ${noun}s; DELETE ${route}/<id> one first.`);
    const id = rule.id ?? `${idPrefix}_${randomBytes(6).toString('hex')}`;
    if (this.rules.some((r) => r.state.id === id))
      throw new FaultRuleError(`A ${noun} with id ${JSON.stringify(id)} exists already.`, [
        { field: 'id', message: 'already used', received: id },
      ]);
    const state = { ...rule, id, source, matched: 0, fired: 0, spent: false };
    this.rules.push({ state, next: seededRandom(rule.seed ?? `${seed}:${seedTag}:${id}`).next });
    return { ...state };
  }

  list(): (Rule & RuleCounters)[] {
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
}
