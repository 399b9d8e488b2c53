import { API_ROUTES, nearestRoute, routePath } from '../config/index.ts';
import { jsonDepth } from '../http/body.ts';
import { parseJsonOr } from '../shared/index.ts';

export { nearestRoute };

/** Headers that always carry credentials, whatever the config names. */
const ALWAYS_SECRET = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/** Query parameters and body fields whose value is masked too (a client that puts its key in the URL, a launch's session token). */
const SECRET_PARAM = /key|token|secret|sig|pass|auth/i;

export const MASKED = '[masked]';

/**
 * Masks every credential in a request's headers: the configured API key and signature headers
 * and the usual authorization headers. The journal and anything shown from it never hold a
 * key, a secret or a signature.
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
      out[lower] = secret.has(lower) ? MASKED : Array.isArray(value) ? value.join(', ') : value;
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
    const value = SECRET_PARAM.test(name) ? MASKED : raw;
    const prior = out[name];
    out[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

/** JSON bodies nested deeper than this are kept as sent: no client's call nests so, and masking walks no deeper. */
const MAX_MASKED_DEPTH = 16;

/**
 * A request body as the journal keeps it: every JSON field (at any depth) or form field whose name
 * says it holds a credential — the query's rule: a launch's session `token`, a key, a signature, a
 * password — has its value replaced by {@link MASKED}. A body with none, or that is neither JSON
 * nor a form, is kept as sent.
 */
export function maskedBody(text: string, contentType: string | undefined): string {
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') {
    if (jsonDepth(text) > MAX_MASKED_DEPTH) return text;
    const json = parseJsonOr(text, undefined);
    return json !== null && typeof json === 'object' && holdsSecret(json) ? JSON.stringify(maskSecrets(json)) : text;
  }
  if (contentType?.toLowerCase().includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(text);
    if (![...form.keys()].some((name) => SECRET_PARAM.test(name))) return text;
    const masked = new URLSearchParams();
    for (const [name, value] of form) masked.append(name, SECRET_PARAM.test(name) ? MASKED : value);
    return masked.toString();
  }
  return text;
}

function holdsSecret(value: object): boolean {
  for (const [name, inner] of Object.entries(value)) {
    if (!Array.isArray(value) && SECRET_PARAM.test(name) && inner !== null && typeof inner !== 'object') return true;
    if (inner !== null && typeof inner === 'object' && holdsSecret(inner)) return true;
  }
  return false;
}

function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    out[name] = SECRET_PARAM.test(name) && inner !== null && typeof inner !== 'object' ? MASKED : maskSecrets(inner);
  }
  return out;
}

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
