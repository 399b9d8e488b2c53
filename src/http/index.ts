/**
 * HTTP plumbing every server shares: the raw body read once (body.ts), the API error shape and
 * field errors (errors.ts), size limits, paging of lists (paging.ts), rate limiting, the same-origin guard, security headers,
 * loopback host names and serving the pages' browser scripts (browser-scripts.ts). Foundation: it imports only shared, and must not import engines,
 * surfaces or the CLI.
 */

export { MAX_REPLY_BYTES, readBoundedText } from './bounded-read.ts';

export { isLoopbackHost } from './loopback.ts';
