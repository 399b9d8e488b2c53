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
  /** The rule's generator is seeded `<seed>:<seedTag>:<stream>` unless the rule has a seed of its own (see {@link streamKey}). */
  seedTag: string;
  seed: number | string;
  /**
   * Checks and completes a valid rule against what the book's owner knows (the API's: a provider
   * name resolved to its code); throws a {@link FaultRuleError} naming the field. Runs before the
   * rule is stored and seeded, for config rules and added ones alike.
   */
  prepare?: (rule: Rule) => Rule;
}

/** One rule in force: its state as listed, its generator, and what its stream was seeded from. */
interface HeldRule<Rule> {
  state: Rule & RuleCounters;
  next: () => number;
  /** Its canonical definition, when it has neither a seed nor an id of its own, and its ordinal among rules defined alike. */
  definition: string | undefined;
  ordinal: number;
}

/**
 * The rules of one kind in force, in the order added, each with its counters and its own seeded
 * generator (the same seed gives the same faults). The API's fault rules and the callbacks' share
 * it; each adds how a rule matches and fires.
 */
export class RuleBook<Rule extends { id?: string | undefined; seed?: number | string | undefined }> {
  protected readonly rules: HeldRule<Rule>[] = [];

  /** A config rule the book refuses (a duplicate id, an unknown provider) throws with its index first in each field: `0.match.provider`. */
  constructor(
    private readonly spec: RuleBookSpec<Rule>,
    rules: readonly Rule[] = [],
  ) {
    rules.forEach((rule, index) => {
      try {
        this.insert(rule, 'config');
      } catch (error) {
        if (!(error instanceof FaultRuleError) || error.issues.length === 0) throw error;
        const issues = error.issues.map((issue) => ({ ...issue, field: `${index}.${issue.field}` }));
        throw new FaultRuleError(
          `Invalid ${this.spec.noun} ${index}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`,
          issues,
        );
      }
    });
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

  private insert(input: Rule, source: RuleCounters['source']): Rule & RuleCounters {
    const { noun, route, idPrefix, seedTag, seed } = this.spec;
    if (this.rules.length >= MAX_FAULT_RULES)
      throw new FaultRuleError(`At most ${MAX_FAULT_RULES} ${noun}s; DELETE ${route}/<id> one first.`);
    const rule = this.spec.prepare ? this.spec.prepare(input) : input;
    const id = rule.id ?? `${idPrefix}_${randomBytes(6).toString('hex')}`;
    if (this.rules.some((r) => r.state.id === id))
      throw new FaultRuleError(`A ${noun} with id ${JSON.stringify(id)} exists already.`, [
        { field: 'id', message: 'already used', received: id },
      ]);
    // Seeded from what is the same run after run (a generated id is not): see streamKey.
    const definition = rule.seed === undefined && rule.id === undefined ? canonicalJson(definitionOf(rule)) : undefined;
    const ordinal = definition === undefined ? 0 : this.freeOrdinal(definition);
    const stream = rule.seed ?? `${seed}:${seedTag}:${streamKey(rule.id, definition, ordinal)}`;
    const state = { ...rule, id, source, matched: 0, fired: 0, spent: false };
    this.rules.push({ state, next: seededRandom(stream).next, definition, ordinal });
    return { ...state };
  }

  /** The lowest ordinal no rule in force defined alike holds: two identical rules draw apart, and a cleared book starts again at 0. */
  private freeOrdinal(definition: string): number {
    const taken = new Set(this.rules.filter((r) => r.definition === definition).map((r) => r.ordinal));
    let ordinal = 0;
    while (taken.has(ordinal)) ordinal++;
    return ordinal;
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

/**
 * What a rule's generator is seeded from beside the config's seed and the book's tag: its given
 * id, else its definition and its ordinal among the rules in force defined alike. Never a
 * generated id: the same config (or the same rules added in the same order) gives the same
 * faults in the same order, run after run.
 */
export function streamKey(id: string | undefined, definition: string | undefined, ordinal: number): string {
  // A given id is used as it is (as before: an id never holds a ":", so it cannot be taken for a definition).
  return id !== undefined ? id : `rule:${definition ?? ''}#${ordinal}`;
}

/** What a rule says, without the id and seed that name it: its match, fault and when-fields. */
function definitionOf(rule: object): Record<string, unknown> {
  const { id: _id, seed: _seed, ...definition } = rule as Record<string, unknown>;
  return definition;
}

/** JSON with every object's keys sorted, so two rules written alike serialise alike. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
