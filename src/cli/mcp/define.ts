import { z } from 'zod';
import { MAX_ID_LENGTH } from '../../http/limits.ts';
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
export const count = (min: number, max: number, fallback: number, what: string) =>
  z
    .number({ error: `expected a whole number from ${min} to ${max}, e.g. ${fallback}` })
    .int({ error: `expected a whole number from ${min} to ${max}, e.g. ${fallback}` })
    .min(min, { error: `expected a whole number from ${min} to ${max}, e.g. ${fallback}` })
    .max(max, { error: `expected a whole number from ${min} to ${max}, e.g. ${fallback}` })
    .default(fallback)
    .describe(what);
/** An amount in major units, as the admin API takes it: 10.5 or "10.50". */
export const amount = (what: string) =>
  z
    .union([z.number(), z.string().max(32)])
    .describe(`${what}, in major units: a number such as 10.5 or a string such as "10.50"`);

export function tool<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}
