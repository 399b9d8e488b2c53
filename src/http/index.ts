/**
 * HTTP plumbing every server shares: the raw body read once (body.ts), the API error shape and
 * field errors (errors.ts), size limits, rate limiting, the same-origin guard, security headers
 * and loopback host names. Foundation: it imports only shared, and must not import engines,
 * surfaces or the CLI.
 */
export { parseJsonBody, parseJsonBytes, type RawBodyVariables, readRawBody } from './body.ts';
export { ApiError, type ApiErrorBody, type ApiErrorOptions, errorResponse, type FieldError } from './errors.ts';
export { isLoopbackHost } from './loopback.ts';
