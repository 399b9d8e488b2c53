import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { valueAt } from '../shared/index.ts';
import type { apiErrorSchema } from './error-schema.ts';

/** One thing wrong with the input: which field, what was expected, what came. */
export interface FieldError {
  field: string;
  message: string;
  expected?: string;
  received?: unknown;
}

/** Every aggregator API error as JSON; the shape is defined once, in error-schema.ts. */
export type ApiErrorBody = z.infer<typeof apiErrorSchema>;

const ERROR_NAMES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'UNAVAILABLE',
};

export interface ApiErrorOptions {
  errors?: FieldError[] | undefined;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A failure that leaves the route as a real JSON response. Throw it anywhere in a handler. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** One entry per bad field, sent as `errors`. */
  readonly errors: FieldError[] | undefined;
  /** More top-level body fields (they win over the standard ones). */
  readonly extra: Record<string, unknown>;
  /** Response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toBody(): ApiErrorBody {
    return {
      success: false,
      code: this.status,
      msg: this.message,
      message: this.message,
      error: ERROR_NAMES[this.status] ?? 'ERROR',
      ...(this.errors?.length ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }
}

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toBody(), error.status);
}

/** zod issues → field errors that name the field, what was expected and what came. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], input?: unknown): FieldError[] {
  return issues.map((issue) => {
    const field = issue.path.map(String).join('.') || '(body)';
    const received = valueAt(input, issue.path);
    const expected = 'expected' in issue && typeof issue.expected === 'string' ? issue.expected : undefined;
    return {
      field,
      message: issue.message,
      ...(expected ? { expected } : {}),
      ...(received !== undefined ? { received } : {}),
    };
  });
}

/** One sentence that names every bad field, for `message`. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}

/** The 415 for a body of another type than `accepted`; `got` is the type as the message shows it. */
export function unsupportedType(accepted: readonly string[], type: string, got: string): ApiError {
  const expected = accepted.join(' or ');
  return new ApiError(415, `Expected Content-Type: ${expected}, got ${got}.`, {
    errors: [{ field: 'content-type', message: `expected ${expected}`, expected: accepted[0], received: type || undefined }],
  });
}
