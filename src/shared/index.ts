/**
 * Small helpers every layer may use: parsing JSON without throwing, reading a value at a path,
 * escaping text for HTML and a seeded PRNG. It owns no rules of its own and must not import
 * anything from aggmock: it sits at the very bottom, beside signing.
 */

/** The JSON value in `text`, or `fallback` when `text` is not JSON. */
export function parseJsonOr<T>(text: string, fallback: T): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/**
 * The value at `path` inside `value` (object keys, array indexes), or undefined where the path
 * leaves it. Own properties only: "constructor" in a reply is the reply's member or nothing, never
 * Object's constructor.
 */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The Levenshtein distance between two strings: the did-you-mean of config keys and API routes. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Path segments that reach an object's prototype when written (`a.__proto__.x = 1` changes every
 * object): refused in any path or key that comes from a file or a request.
 */
export const PROTOTYPE_KEYS: readonly string[] = ['__proto__', 'prototype', 'constructor'];

/** The first segment of a dotted path that is one of {@link PROTOTYPE_KEYS}, or undefined. */
export function prototypeSegment(path: string): string | undefined {
  return path.split('.').find((segment) => PROTOTYPE_KEYS.includes(segment));
}

/**
 * mulberry32: a tiny seeded PRNG returning numbers in [0, 1). Good enough to make a flaky run
 * reproducible; not for anything that needs to be unpredictable.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A seed as the 32-bit number mulberry32 takes: a number as it is, a word by FNV-1a over its UTF-16
 * code units (every unit, so two emoji that share a high surrogate are two seeds).
 */
export function numericSeed(seed: number | string): number {
  if (typeof seed === 'number') return seed;
  let hash = 2_166_136_261;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 16_777_619);
  return hash >>> 0;
}

/**
 * `value` when it is a whole number from 1 to `max`; else a `Refusal` naming the field, what it
 * expected and what it got (scenario sizes, verify's numeric flags).
 *
 * @example positiveInt(0, '--timeout', VerifyUsageError) // throws "--timeout: expected a positive whole number, got 0."
 */
export function positiveInt(value: number, field: string, Refusal: new (message: string) => Error, max?: number): number {
  if (Number.isSafeInteger(value) && value >= 1 && value <= (max ?? value)) return value;
  const expected = max === undefined ? 'a positive whole number' : `a whole number from 1 to ${max}`;
  throw new Refusal(`${field}: expected ${expected}, got ${value}.`);
}

/**
 * `text` safe to print to a terminal: C0 and C1 control characters (ESC starts the sequences that
 * move the cursor, erase lines, recolour or retitle the terminal), DEL, and the Unicode line
 * separators and bidi overrides are written as visible escapes (`\x1b`, `\u202e`). Tab and line
 * feed stay, except with `oneLine`, where they are escaped too, so a wallet's text cannot start a
 * line of its own (a forged "PASS"). Every print of text a wallet, client or file supplied goes
 * through here.
 *
 * @example terminalSafe('\u001b[32mPASS') // '\\x1b[32mPASS'
 */
export function terminalSafe(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? ONE_LINE_UNSAFE : TERMINAL_UNSAFE, visibleEscape);
}

const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const ONE_LINE_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visibleEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  if (Object.hasOwn(NAMED_ESCAPES, ch)) return NAMED_ESCAPES[ch] as string;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe to put between HTML tags or inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

/** Whether two parsed JSON values are equal (object members in any order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The value `make` gives for `key`, made once and kept in `cache`. A Map keeps at most
 * `maxEntries` keys (beyond that the value is made afresh each time), so keys that come from
 * outside (a currency code in a request, say) cannot grow it without bound.
 *
 * @example cached(codecs, 'JPY', (code) => codecFor(code), 256)
 */
export function cached<K extends object, V>(cache: WeakMap<K, V>, key: K, make: (key: K) => V): V;
export function cached<K, V>(cache: Map<K, V>, key: K, make: (key: K) => V, maxEntries?: number): V;
export function cached<K, V>(
  cache: Map<K, V> | WeakMap<K & object, V>,
  key: K,
  make: (key: K) => V,
  maxEntries = Number.POSITIVE_INFINITY,
): V {
  const map = cache as Map<K, V>;
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    if (!(cache instanceof Map) || cache.size < maxEntries) map.set(key, value);
  }
  return value;
}

/**
 * Sets `value` at a dotted path ("data.money") of `target`, creating (or replacing non-object)
 * members on the way. It walks own members only and refuses a {@link PROTOTYPE_KEYS} segment, so
 * a path from a file can never write into Object.prototype.
 */
export function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const unsafe = prototypeSegment(path);
  if (unsafe !== undefined)
    throw new Error(`cannot set ${JSON.stringify(path)}: the segment "${unsafe}" is not allowed in a path`);
  const keys = path.split('.');
  let current = target;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(current, key) ? current[key] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next)) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[keys.at(-1) as string] = value;
}

/**
 * A URL as a page or document anyone may read shows it: scheme, host, port and path; any
 * userinfo and query (where a webhook carries its token, `?access_token=…`) replaced by `…`.
 * Text that is not a URL is shown as `(not a URL)`, never as itself.
 */
export function redactUrl(text: string): string {
  return shownUrl(text, () => '…') ?? '(not a URL)';
}

/** A URL's scheme, host, port and path, any userinfo as `…@` and a query as `shownQuery` shows it; undefined when `text` is not a URL. */
export function shownUrl(text: string, shownQuery: (query: string) => string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  const userinfo = url.username || url.password ? '…@' : '';
  const query = url.search ? `?${shownQuery(url.search.slice(1))}` : '';
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}`;
}

/** The promise's value, or undefined when it takes longer than `ms` (real time: an HTTP wait, a scenario step). */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The items of a comma-separated list, trimmed, empty ones left out: `"a, b,,c"` is `["a", "b", "c"]`. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `value` as an http or https URL; else a `Refusal` naming `what`, with an `example` of one. */
export function httpUrl(value: string, what: string, example: string, Refusal: new (message: string) => Error): URL {
  if (!URL.canParse(value))
    throw new Refusal(`${what}: expected an http(s) URL such as ${example}, got ${JSON.stringify(value)}.`);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Refusal(`${what}: expected an http or https URL, got ${JSON.stringify(value)}.`);
  return url;
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
