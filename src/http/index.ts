/**
 * HTTP plumbing every server shares: the raw body read once (body.ts), the API error shape and
 * field errors (errors.ts), size limits, paging of lists (paging.ts), rate limiting, the same-origin guard, security headers,
 * loopback host names and serving the pages' browser scripts (browser-scripts.ts). Foundation: it imports only shared, and must not import engines,
 * surfaces or the CLI.
 */

export { parseJsonBody, parseJsonBytes, type RawBodyVariables, readRawBody } from './body.ts';
export { type BoundedText, MAX_REPLY_BYTES, readBoundedText } from './bounded-read.ts';
export {
  BROWSER_SCRIPTS,
  BROWSER_SCRIPTS_PATH,
  type BrowserScript,
  browserScriptRoutes,
  pageDataTag,
  scriptJson,
  scriptTag,
} from './browser-scripts.ts';
export { ApiError, type ApiErrorBody, type ApiErrorOptions, errorResponse, type FieldError } from './errors.ts';
export { dialsLoopback, isLoopbackHost, localPortOf } from './loopback.ts';
