import { createHash } from 'node:crypto';
import { shownUrl } from './index.ts';

/**
 * The one rule for "does this name hold a credential", and the masks built on it: the request
 * journal's headers, query, bodies and error replies (src/requests/describe.ts), the signature's
 * signed prefix (src/auth) and the config's error messages all ask it. Foundation: no imports
 * but node's.
 */

export const MASKED = '[masked]';

/**
 * Names whose value is a credential, in any case, anywhere in the name: keys, tokens, secrets,
 * signatures, passwords, auth, sessions, JWTs, bearer, credentials, cookies, access tokens, a
 * `sid`. `Access-Control-*` (CORS) is not one.
 */
const SECRET_NAME =
  /key|token|secret|sig|pass|pwd|auth|session|jwt|bearer|cred|cookie|access(?!-control)|otp|(?:^|[^a-z])sid(?:$|[^a-z])/i;

/** Whether a header, query parameter or body field named so holds a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Strips a UTF-8 byte order mark (a client that writes one still sends JSON). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A query string (without its `?`) as sent, but with every secret-named parameter's value
 * replaced by {@link MASKED}: the rest keeps its order and encoding.
 *
 * @example maskedSearch('provider=PG&api_key=k1') // 'provider=PG&api_key=[masked]'
 */
export function maskedSearch(search: string): string {
  if (search === '' || !SECRET_NAME.test(search)) return search;
  return search
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && isSecretName(safeDecode(name)) ? `${name}=${MASKED}` : pair;
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/** JSON nested deeper than this is masked as text ({@link maskedText}), not walked. */
const MAX_WALK_DEPTH = 200;

class TooDeep extends Error {}

/**
 * A parsed JSON value with every secret-named field's value — whatever its type: a string, a
 * number, an array, an object — replaced by {@link MASKED}, at any depth; a string that quotes a
 * body or a URL has its secrets masked as text; an error entry (`{field, received}`) naming a
 * secret field has its `received` masked. Undefined when the value nests too deep to walk.
 */
export function maskedJson(value: unknown): unknown {
  try {
    return walk(value, 0);
  } catch (error) {
    if (error instanceof TooDeep) return undefined;
    throw error;
  }
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return mayHoldSecret(value) ? maskedText(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_WALK_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return value.map((inner) => walk(inner, depth + 1));
  const record = value as Record<string, unknown>;
  const names = typeof record.field === 'string' && isSecretName(record.field);
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(record)) {
    const secret = isSecretName(name) || (names && (name === 'received' || name === 'value'));
    out[name] = secret ? MASKED : walk(inner, depth + 1);
  }
  return out;
}

/** Whether a text may hold a credential at all (it names one): most texts do not, and are kept as they are. */
function mayHoldSecret(text: string): boolean {
  return SECRET_NAME.test(text);
}

const JSON_PAIR = /("((?:[^"\\\n]|\\.){0,200})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g;
const ESCAPED_JSON_PAIR = /(\\"([^"\\\n]{0,200})\\"\s*:\s*)(\\"[^"]*?\\"|[^,}\]\s\\]+)/g;
const FORM_PAIR = /(^|[?&;\s])([^=&?;\s"]{1,200})=([^&;\s"]*)/g;
const MULTIPART_PART = /(name="([^"]{1,200})"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)/g;
const HEADER_LINE = /(^|[\r\n])([A-Za-z0-9-]{1,100}:[ \t]*)([^\r\n]*)/g;
/** A secret-named field whose value is an object or an array: text cannot say where it ends. */
const STRUCTURED_SECRET = /"((?:[^"\\\n]|\\.){0,200})"\s*:\s*[[{]/g;

/**
 * Text that could not be parsed (malformed JSON, a multipart form, a quoted body in an error
 * reply), its credentials masked by pattern: the value after every secret-named `"name": …`,
 * `name=…`, multipart part or `Name: …` header line. When a secret-named field holds an object or
 * an array, which a pattern cannot bound, only the text's length and SHA-256 are kept.
 */
export function maskedText(text: string): string {
  if (!mayHoldSecret(text)) return text;
  for (const match of text.matchAll(STRUCTURED_SECRET)) {
    if (isSecretName(match[1] as string)) return digestOnly(text);
  }
  return text
    .replace(JSON_PAIR, (all, lead: string, name: string) => (isSecretName(name) ? `${lead}"${MASKED}"` : all))
    .replace(ESCAPED_JSON_PAIR, (all, lead: string, name: string) => (isSecretName(name) ? `${lead}\\"${MASKED}\\"` : all))
    .replace(MULTIPART_PART, (all, lead: string, name: string) => (isSecretName(name) ? `${lead}${MASKED}` : all))
    .replace(FORM_PAIR, (all, lead: string, name: string) => (isSecretName(safeDecode(name)) ? `${lead}${name}=${MASKED}` : all))
    .replace(HEADER_LINE, (all, lead: string, name: string) => (isSecretName(name) ? `${lead}${name}${MASKED}` : all));
}

/** A text kept only as its length and digest: `[N bytes, sha256 …]`. */
export function digestOnly(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return `[${bytes.byteLength} bytes, sha256 ${sha256Hex(bytes)}: not kept, it may hold credentials]`;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A form body (`a=b&c=d`), whatever the content type said. */
const FORM_TEXT = /^[^=&\s{}[\]"<>]+=[^\s]*$/;

/**
 * A body as kept (the request journal, a 4xx reply quoting it): BOM stripped; JSON (any depth,
 * any value type) and forms (`a=b&…`, whatever the content type) with every secret-named field
 * masked; anything else (malformed JSON, multipart, text) masked by pattern ({@link maskedText}).
 * A body that names no credential is kept as sent.
 */
export function maskedBody(raw: string): string {
  const text = withoutBom(raw);
  if (!mayHoldSecret(text)) return text;
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return maskedText(text);
    }
    const masked = maskedJson(json);
    if (masked === undefined) return maskedText(text);
    const out = JSON.stringify(masked);
    return out === JSON.stringify(json) ? text : out;
  }
  if (FORM_TEXT.test(text)) {
    const form = new URLSearchParams(text);
    const masked = new URLSearchParams();
    for (const [name, value] of form) masked.append(name, isSecretName(name) ? MASKED : maskedText(value));
    return masked.toString();
  }
  return maskedText(text);
}

/**
 * A URL as a terminal or an agent is shown it: userinfo replaced by `…@` and every secret-named
 * query parameter masked (`?access_token=[masked]`); the rest as configured. Text that is not a
 * URL is masked as text.
 *
 * @example maskedUrl('http://ops:pw@127.0.0.1:4001/cb?access_token=t&x=1') // 'http://…@127.0.0.1:4001/cb?access_token=[masked]&x=1'
 */
export function maskedUrl(text: string): string {
  return shownUrl(text, maskedSearch) ?? maskedText(text);
}
