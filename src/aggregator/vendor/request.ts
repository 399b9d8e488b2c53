import type { OperatorRoute } from '../../dialects/operator.ts';
import type { OperatorRequestParts } from '../../dialects/operator-auth.ts';
import { parseJsonBytes } from '../../http/body.ts';

/*
 * An operator's request as the recipes and the field mapping read it: the parameters a signature
 * covers, every field by dotted path (nested JSON flattened, path parameters included), the raw
 * bytes. A body that is not what the route's encoding says is a BadOperatorRequest naming it.
 */

export class BadOperatorRequest extends Error {
  override name = 'BadOperatorRequest';
}

/** Values as text: numbers and booleans as JSON writes them, objects as JSON. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Nested members by dotted path; a list is its JSON text at its own path and each item at `path.<index>`. */
function flatten(value: unknown, prefix: string, out: Record<string, string>): void {
  if (Array.isArray(value) && prefix) {
    out[prefix] = text(value);
    value.forEach((item, i) => {
      flatten(item, `${prefix}.${i}`, out);
    });
    return;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      flatten(child, prefix ? `${prefix}.${key}` : key, out);
    }
    return;
  }
  if (prefix) out[prefix] = text(value);
}

function pairs(search: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of search) out[key] = value;
  return out;
}

/** The JSON object of a body, or a BadOperatorRequest. */
function jsonObject(raw: Uint8Array): Record<string, unknown> {
  if (raw.byteLength === 0) throw new BadOperatorRequest('the body is empty; expected a JSON object');
  let parsed: unknown;
  try {
    parsed = parseJsonBytes(raw);
  } catch (error) {
    throw new BadOperatorRequest((error as Error).message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new BadOperatorRequest('expected the body to be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * The parts of a request for one route's encoding.
 *
 * @example requestParts('json', raw, headers, new URLSearchParams(), { casinoKey: 'k' }).fields['player.session.id']
 */
export function requestParts(
  encoding: OperatorRoute['encoding'],
  rawBody: Uint8Array,
  headers: Readonly<Record<string, string | undefined>>,
  query: URLSearchParams,
  pathParams: Readonly<Record<string, string>>,
): OperatorRequestParts {
  const fields: Record<string, string> = Object.create(null);
  let params: Record<string, string>;
  switch (encoding) {
    case 'json': {
      const body = jsonObject(rawBody);
      params = Object.create(null);
      for (const [key, value] of Object.entries(body)) params[key] = text(value);
      flatten(body, '', fields);
      break;
    }
    case 'form':
      params = pairs(new URLSearchParams(Buffer.from(rawBody).toString('utf8')));
      Object.assign(fields, params);
      break;
    case 'query':
      params = pairs(query);
      Object.assign(fields, params);
      break;
    case 'query+json':
      params = pairs(query);
      if (rawBody.byteLength > 0) flatten(jsonObject(rawBody), '', fields);
      Object.assign(fields, params);
      break;
  }
  Object.assign(fields, pathParams);
  return { rawBody, headers, params, fields };
}
