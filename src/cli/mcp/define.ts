import { z } from 'zod';
import { MAX_ID_LENGTH } from '../../http/limits.ts';
import { callAggmock } from './client.ts';
import type { AggmockTarget } from './target.ts';

/**
 * The MCP tools: each one a request to the target aggmock's aggregator or admin API (so aggmock's
 * own validation and its messages naming the field apply), or `aggmock verify` run in-process.
 * Input schemas give an agent the shape and meaning of every field; aggmock judges the values.
 */
export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  /** Reads only: safe to call again. */
  readOnly: boolean;
  run(args: z.infer<z.ZodObject<Shape>>, target: AggmockTarget): Promise<unknown>;
}

/** A non-empty id: `noun` is what a missing or wrong one is told to be, `description` what the field means. */
export const id = (noun: string, description = noun) => {
  const error = `expected ${noun} as a string of 1 to ${MAX_ID_LENGTH} characters`;
  return z.string({ error }).min(1, { error }).max(MAX_ID_LENGTH, { error }).describe(description);
};
/** A whole number in a range, with its default (`count(1, 500, 20, …)`). */
export const count = (min: number, max: number, fallback: number, what: string) => {
  const error = `expected a whole number from ${min} to ${max}, e.g. ${fallback}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback).describe(what);
};
/** An amount in major units, as the admin API takes it: 10.5 or "10.50". */
export const amount = (what: string) =>
  z
    .union([z.number(), z.string().max(32)])
    .describe(`${what}, in major units: a number such as 10.5 or a string such as "10.50"`);

export function tool<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** What a family of fault rules (on the aggregator API, on the callbacks) says about itself in its add, list and clear tools. */
interface FaultRuleFamily {
  /** The admin path of its rules, e.g. `/__admin/faults`. */
  path: string;
  /** The tools' names and titles: add, list, clear. */
  names: readonly [string, string, string];
  titles: readonly [string, string, string];
  /** What a rule fires on ("request", "callback") and what the list says its rules are on. */
  target: string;
  listedOn: string;
  /** The rule's kind in words ("fault rule", "callback fault rule"). */
  noun: string;
  /** The add tool's description and its rule schema's fields: id, match, fault, times, nth, probability, seed. */
  addDescription: string;
  rule: Record<'id' | 'match' | 'fault' | 'times' | 'nth' | 'probability' | 'seed', z.ZodType>;
  match: string;
  fault: string;
}

/** The add, list and clear tools of one family of fault rules: the same requests, worded for what the rules fire on. */
export function faultRuleTools(family: FaultRuleFamily): ToolDefinition[] {
  const { path, names, titles, target: on, rule } = family;
  return [
    tool({
      name: names[0],
      title: titles[0],
      description: family.addDescription,
      inputSchema: {
        id: rule.id.describe('an id of your own for the rule: 1 to 64 letters, digits, "-" or "_" (default: generated)'),
        match: rule.match.describe(family.match),
        fault: rule.fault.describe(family.fault),
        times: rule.times.describe(`apply to the next N matching ${on}s only, then stop`),
        nth: rule.nth.describe(`apply to the Nth matching ${on} only (1 = the next one)`),
        probability: rule.probability.describe(`apply to each matching ${on} with this probability, from 0 to 1`),
        seed: rule.seed.describe('with probability: the seed of its draws (the same seed, the same faults)'),
      },
      readOnly: false,
      run: async (args, target) => callAggmock(target, { method: 'POST', path, admin: true, body: args }),
    }),
    tool({
      name: names[1],
      title: titles[1],
      description: `The fault rules in force on ${family.listedOn} (GET ${path}), in the order they are tried: each with its match, fault and limits, where it came from (config or admin), how many ${on}s it matched and fired on, and whether it is spent.`,
      inputSchema: {},
      readOnly: true,
      run: async (_args, target) => callAggmock(target, { method: 'GET', path, admin: true }),
    }),
    tool({
      name: names[2],
      title: titles[2],
      description: `Remove one ${family.noun} by its id (DELETE ${path}/<id>), or every rule without an id (DELETE ${path}), the ones from the config file included. Answers how many were removed.`,
      inputSchema: {
        id: id(
          `a ${family.noun} id`,
          `the id of the rule to remove, from ${names[0]} or ${names[1]} (default: remove every rule)`,
        ).optional(),
      },
      readOnly: false,
      run: async ({ id: ruleId }, target) =>
        callAggmock(target, {
          method: 'DELETE',
          path: ruleId === undefined ? path : `${path}/${encodeURIComponent(ruleId)}`,
          admin: true,
        }),
    }),
  ];
}
