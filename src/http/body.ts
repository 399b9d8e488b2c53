import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.ts';

export interface RawBodyVariables {
  /** The request body exactly as received (empty for GET), for signatures. */
  rawBody: Uint8Array;
  /** The body parsed as JSON, when the route takes JSON. */
  jsonBody: unknown;
}

/**
 * Reads the raw body once, refusing more than `maxBytes` with a 413 before buffering it all.
 * Everything after (signature checks, JSON parsing) works on the same bytes.
 */
export function readRawBody(maxBytes: number): MiddlewareHandler<{ Variables: RawBodyVariables }> {
  return async (c, next) => {
    // Check the method first: touching `raw.body` makes the Node adapter build a full Request,
    // which costs more than serving a cached listing.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      c.set('rawBody', EMPTY);
      return next();
    }
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, declared);
    const body = c.req.raw.body;
    if (!body) {
      c.set('rawBody', EMPTY);
      return next();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes, size);
      }
      chunks.push(value);
    }
    c.set('rawBody', Buffer.concat(chunks));
    return next();
  };
}

/** Requires `application/json` (415 otherwise) and parses the raw body (400 naming the problem). */
export function parseJsonBody(): MiddlewareHandler<{ Variables: RawBodyVariables }> {
  return async (c, next) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) {
      throw new ApiError(415, `Expected Content-Type: application/json, got ${type ? JSON.stringify(type) : 'none'}.`, [
        {
          field: 'content-type',
          message: 'expected application/json',
          expected: 'application/json',
          received: type || undefined,
        },
      ]);
    }
    const raw = c.get('rawBody');
    if (raw.byteLength === 0) {
      throw new ApiError(400, 'The request body is empty; expected a JSON object.', [
        { field: '(body)', message: 'expected a JSON object' },
      ]);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw new ApiError(400, 'The request body is not valid UTF-8; expected a JSON object.', [
        { field: '(body)', message: 'expected UTF-8 JSON' },
      ]);
    }
    try {
      c.set('jsonBody', JSON.parse(text));
    } catch (error) {
      throw new ApiError(400, `Malformed JSON in request body: ${(error as Error).message}.`, [
        { field: '(body)', message: 'expected a JSON object', received: text.length > 200 ? `${text.slice(0, 200)}…` : text },
      ]);
    }
    return next();
  };
}

const EMPTY = new Uint8Array();

function tooLarge(limit: number, size: number): ApiError {
  return new ApiError(
    413,
    `Request body of ${size} bytes or more exceeds the limit of ${limit} bytes (config limits.bodyBytes).`,
    [{ field: '(body)', message: `expected at most ${limit} bytes` }],
  );
}
