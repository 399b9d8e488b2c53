import type { z } from 'zod';
import { ApiError, describeFieldErrors, fieldErrors } from '../http/errors.ts';

/** How the admin API refuses input: a 400 whose `errors` name each field, what was expected and what came. */

export function fieldError(field: string, message: string, received: unknown): ApiError {
  return new ApiError(400, `${field}: ${message}${received === undefined ? '' : ` (got ${JSON.stringify(received)})`}.`, {
    errors: [{ field, message, ...(received === undefined ? {} : { received }) }],
  });
}

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
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
export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, string>): z.infer<S> {
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
