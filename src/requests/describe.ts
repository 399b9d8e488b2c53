import { API_ROUTES, nearestRoute, routePath } from '../config/index.ts';
import { parseJsonOr } from '../shared/index.ts';
import { isSecretName, MASKED, maskedSearch } from '../shared/secrets.ts';

export { MASKED, maskedSearch, nearestRoute };

/** Headers that always carry credentials, whatever the config names (the rest go by {@link isSecretName}). */
const ALWAYS_SECRET = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/**
 * Masks every credential in a request's headers: the configured API key and signature headers,
 * the usual authorization headers, and every header whose name says it holds one (the rule query
 * and body fields follow: `X-Auth-Token`, `Api-Key`, `X-Session-Token` …). The journal and
 * anything shown from it never hold a key, a secret or a signature.
 */
export function credentialMasker(
  secretHeaders: readonly string[],
): (headers: Record<string, string | string[] | undefined>, raw?: readonly string[]) => Record<string, string> {
  const secret = new Set([...ALWAYS_SECRET, ...secretHeaders.map((h) => h.toLowerCase())]);
  // A client sends the same headers call after call: the last masked result is reused (the same
  // object, so the journal writes its JSON once) while the raw name/value list is the same.
  let lastRaw: readonly string[] = [];
  let last: Record<string, string> = {};
  return (headers, raw) => {
    if (raw === undefined) return mask(headers);
    if (sameStrings(raw, lastRaw)) return last;
    lastRaw = raw;
    last = mask(headers);
    return last;
  };
  function mask(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      out[lower] = secret.has(lower) || isSecretName(lower) ? MASKED : Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }
}

/** Whether two lists hold the same strings in the same order (a request's raw headers, say). */
export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

let lastSearch: string | undefined;
let lastMasked: Record<string, string | string[]> = {};

/**
 * A request target's query as an object (repeated names as arrays), credentials masked. The
 * same query string as the last call gives the same (frozen) object: a client repeats its queries.
 */
export function maskedQuery(search: string): Readonly<Record<string, string | string[]>> {
  if (search !== lastSearch) {
    lastMasked = Object.freeze(maskQuery(search));
    lastSearch = search;
  }
  return lastMasked;
}

function maskQuery(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, raw] of new URLSearchParams(search)) {
    const value = isSecretName(name) ? MASKED : raw;
    const prior = out[name];
    out[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

/** A request body (or an error reply that quotes one) as the journal keeps it: the one rule of src/shared/secrets.ts. */
export { maskedBody } from '../shared/secrets.ts';

/** Fields a hint names at most (the reply names them all). */
const MAX_HINT_FIELDS = 3;

/**
 * Why a request was refused or unmatched, in one line: the nearest API route for a path or method
 * that matches none (did you mean …?), else the fields the reply's `errors` name.
 */
export function refusalHint(method: string, path: string, status: number | null, reply: string | null): string | null {
  if (status === null || status < 400) return null;
  const body =
    reply === null ? undefined : (parseJsonOr(reply, undefined) as { message?: unknown; errors?: unknown } | undefined);
  const route = routePath(path);
  const known = API_ROUTES.find((r) => r.path === route);
  if (status === 405 && known) return `${method} is not served on ${route}: did you mean ${known.method} ${path}?`;
  if (status === 404 && typeof body?.message === 'string' && body.message.startsWith('No route')) {
    if (known) return `${method} is not served on ${route}: did you mean ${known.method} ${path}?`;
    const nearest = nearestRoute(route);
    return nearest
      ? `No route ${method} ${path}: did you mean ${nearest.method} ${path.startsWith('/casino/') ? '/casino' : ''}${nearest.path}?`
      : `No route ${method} ${path}: the API serves ${API_ROUTES.map((r) => `${r.method} ${r.path}`).join(', ')}.`;
  }
  const fields = (Array.isArray(body?.errors) ? (body.errors as { field?: unknown; message?: unknown }[]) : []).filter(
    (e) => typeof e?.field === 'string',
  );
  if (fields.length > 0) {
    const named = fields.slice(0, MAX_HINT_FIELDS).map((e) => `${String(e.field)}: ${String(e.message ?? 'refused')}`);
    return fields.length > MAX_HINT_FIELDS
      ? `${named.join('; ')}; and ${fields.length - MAX_HINT_FIELDS} more`
      : named.join('; ');
  }
  return typeof body?.message === 'string' ? body.message.slice(0, 300) : null;
}
