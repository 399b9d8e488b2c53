import type { MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { emptyBodyError, parseJsonBytes, type RawBodyVariables } from '../http/body.ts';
import { ApiError, describeFieldErrors, type FieldError, fieldErrors } from '../http/errors.ts';

/*
 * How the admin API reads and refuses input: a 400 whose `errors` name each field, what was
 * expected and what came. A route's declaration (kit.ts `adminRoute`) puts these in front of its
 * handler, so the schemas it documents are the ones that judge the request.
 */

export type AdminEnv = { Variables: RawBodyVariables };

export function fieldError(field: string, message: string, received: unknown): ApiError {
  return new ApiError(400, `${field}: ${message}${received === undefined ? '' : ` (got ${JSON.stringify(received)})`}.`, {
    errors: [{ field, message, ...(received === undefined ? {} : { received }) }],
  });
}

/** The 400 for input a schema refused, naming each field. */
export function invalidInput(issues: readonly z.core.$ZodIssue[], input: unknown): ApiError {
  return invalidRequest(fieldErrors(issues, input));
}

function invalidRequest(errors: FieldError[]): ApiError {
  return new ApiError(400, `Invalid request: ${describeFieldErrors(errors)}.`, { errors });
}

/** What a declared route's validators do with a refusal (the sub-apps' `defaultHook`): the 400 above. */
export function refuseInvalid(result: { success: boolean; error?: z.ZodError; data?: unknown }): undefined {
  if (!result.success) throw invalidInput(result.error?.issues ?? [], result.data);
  return undefined;
}

/**
 * Refuses a query parameter `schema` does not name (a filter that would otherwise be ignored, so
 * a list looks filtered when it is not, or a misspelt `wiat=true` that would not wait) with a 400
 * naming it and the parameters taken.
 */
export function knownQueryOnly(schema: z.ZodObject): MiddlewareHandler<AdminEnv> {
  const accepted = Object.keys(schema.shape);
  return async (c, next) => {
    const query = c.req.query();
    const unknown = Object.keys(query).filter((name) => !accepted.includes(name));
    if (unknown.length > 0)
      throw invalidRequest(
        unknown.map((name) => ({
          field: name,
          message: `unknown query parameter; expected one of ${accepted.join(', ')}`,
          received: query[name],
        })),
      );
    await next();
  };
}

/**
 * The JSON object in the body readRawBody kept, parsed by the one strict reader (UTF-8, depth;
 * `src/http/body.ts`), refusing anything but an object with a 400 that says what was wrong; an
 * empty body is `{}` where the body is optional. The route's validator then reads that object:
 * the request it sees is remade over the same bytes (the stream is spent), through Hono's public
 * `raw`, as the aggregator API does.
 */
export function jsonInput(options: { optional: boolean }): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const body = jsonObjectBody(c.get('rawBody'), options);
    c.set('jsonBody', body);
    const raw = c.req.raw;
    const headers = new Headers(raw.headers);
    headers.delete('content-length');
    // The remade body is JSON whatever came (an optional body may come with no type at all: `curl -X POST`).
    headers.set('content-type', 'application/json');
    c.req.raw = new Request(raw.url, { method: raw.method, headers, body: JSON.stringify(body) });
    await next();
  };
}

/** The JSON object in `raw`, refusing unparseable bodies with a 400 that says what was wrong. */
export function jsonObjectBody(raw: Uint8Array, options: { optional?: boolean } = {}): unknown {
  if (Buffer.from(raw).toString('latin1').trim() === '') {
    if (options.optional) return {};
    throw emptyBodyError();
  }
  const value = parseJsonBytes(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'Expected a JSON object as the body.', {
      errors: [{ field: '(body)', message: 'expected a JSON object', received: value }],
    });
  }
  return value;
}
