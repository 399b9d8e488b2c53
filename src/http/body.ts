import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { ApiError, unsupportedType } from './errors.ts';
import { MAX_JSON_DEPTH } from './limits.ts';

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
    // A declared length within the limit bounds the body (Node's parser ends it there): read it
    // straight from the socket (the Node adapter's `arrayBuffer`, not Hono's body cache, so a
    // route may still remake `raw` over other bytes). Only a chunked body is counted below.
    if (Number.isFinite(declared) && c.req.header('transfer-encoding') === undefined) {
      c.set('rawBody', Buffer.from(await c.req.raw.arrayBuffer()));
      return next();
    }
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

/** Whether a Content-Type names JSON: `application/json` or a `+json` type (`application/vnd.x+json`), any parameters. */
export function isJsonContentType(value: string): boolean {
  const mediaType = value.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

/** Requires `application/json` (415 otherwise) and parses the raw body (400 naming the problem). */
export function parseJsonBody(): MiddlewareHandler<{ Variables: RawBodyVariables }> {
  return async (c, next) => {
    const type = c.req.header('content-type') ?? '';
    if (!isJsonContentType(type)) {
      throw unsupportedType(['application/json'], type, type ? JSON.stringify(type) : 'none');
    }
    const raw = c.get('rawBody');
    if (raw.byteLength === 0) throw emptyBodyError();
    c.set('jsonBody', parseJsonBytes(raw));
    return next();
  };
}

/** The 400 for a request without the JSON object its route takes. */
export function emptyBodyError(): ApiError {
  return new ApiError(400, 'The request body is empty; expected a JSON object.', {
    errors: [{ field: '(body)', message: 'expected a JSON object' }],
  });
}

/**
 * A JSON body from its raw bytes: strict UTF-8 (invalid bytes would all decode to U+FFFD, so
 * distinct transaction ids would collapse into one) and at most MAX_JSON_DEPTH levels deep
 * (checked on the text, before a recursive walk of a 100,000-level array can overflow the stack).
 * Throws a 400 ApiError naming the problem.
 */
export function parseJsonBytes(raw: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new ApiError(400, 'The request body is not valid UTF-8; expected a JSON object.', {
      errors: [{ field: '(body)', message: 'expected UTF-8 JSON' }],
    });
  }
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    throw new ApiError(400, `The request body nests ${depth} levels deep; expected at most ${MAX_JSON_DEPTH}.`, {
      errors: [{ field: '(body)', message: `expected JSON nested at most ${MAX_JSON_DEPTH} levels deep`, received: depth }],
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const received = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ApiError(400, `Malformed JSON in request body: ${reason}.`, {
      errors: [{ field: '(body)', message: `expected a JSON object, but the body is not valid JSON: ${reason}`, received }],
    });
  }
}

/** The deepest nesting of arrays and objects in JSON text (strings skipped), in one pass. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) max = Math.max(max, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

const EMPTY = new Uint8Array();

function tooLarge(limit: number, size: number): ApiError {
  return new ApiError(
    413,
    `Request body of ${size} bytes or more exceeds the limit of ${limit} bytes (config limits.bodyBytes).`,
    { errors: [{ field: '(body)', message: `expected at most ${limit} bytes` }] },
  );
}

/** The whole body, or undefined when the request ends early (client gone, stream error). The request journal (src/aggregator/client-faults.ts) and both listing fast paths read bodies with it. */
export function readRequestBody(req: IncomingMessage, done: (body: Buffer | undefined) => void): void {
  // Already read by the request journal (src/aggregator/client-faults.ts): the stream is spent.
  const read = (req as IncomingMessage & { rawBody?: unknown }).rawBody;
  if (read instanceof Buffer) {
    done(read);
    return;
  }
  const chunks: Buffer[] = [];
  let settled = false;
  const finish = (body: Buffer | undefined) => {
    if (settled) return;
    settled = true;
    done(body);
  };
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
  req.on('error', () => finish(undefined));
  req.on('close', () => finish(undefined));
}
