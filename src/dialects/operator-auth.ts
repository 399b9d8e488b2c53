import { createHash, createHmac, createPublicKey, type KeyObject, timingSafeEqual, verify } from 'node:crypto';
import { cached } from '../shared/index.ts';
import type { OperatorAuth } from './operator.ts';

/*
 * How aggmock checks an operator's request the vendor's way: the inverse of what the vendor's
 * client does (an RSA signature over the raw body, an HMAC over it, a digest of the sorted
 * parameters with a secret, credentials carried as they are, HTTP Basic). Pure: the caller gives
 * the request's parts and the credentials; a refusal says why and, for a signature, the exact
 * text that should have been signed (the journal shows it).
 */

/** A request as the recipes see it. */
export interface OperatorRequestParts {
  /** The raw body bytes, exactly as received. */
  rawBody: Uint8Array;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The parameters a sorted-params recipe signs: form or query pairs, or a JSON body's top level as text. */
  params: Readonly<Record<string, string>>;
  /** Every field by dotted path (nested JSON flattened) and every path parameter, as text. */
  fields: Readonly<Record<string, string>>;
}

export type AuthVerdict =
  | { ok: true }
  | {
      ok: false;
      /** What is wrong, naming the header, field or credential. */
      message: string;
      /** For a signature: the text that must be signed, so a client can compare its own. */
      expectedSigned?: string;
    };

/** Public keys parsed once per PEM text (parsing costs more than the RSA check itself). */
const publicKeys = new Map<string, KeyObject>();
const publicKeyOf = (pem: string): KeyObject => cached(publicKeys, pem, createPublicKey, 64);

/** Equal strings, compared in time that does not depend on where they first differ. */
function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** PHP's urlencode(): RFC 1738, spaces as '+', everything but A-Z a-z 0-9 - _ . percent-encoded. */
export function phpUrlencode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * The text a sorted-params recipe signs: the parameters (the signature's own field left out, and
 * empty ones when the recipe skips them) and the included headers, sorted byte-wise by name,
 * joined `k=v&k=v`, values PHP-urlencoded when the recipe says so.
 *
 * @example sortedParamsText(recipe, { params: { b: '2', a: '1' }, headers: {} }) // 'a=1&b=2'
 */
export function sortedParamsText(
  recipe: Extract<OperatorAuth, { kind: 'sorted-params' }>,
  parts: Pick<OperatorRequestParts, 'params' | 'headers'>,
): string {
  const all: Record<string, string> = {};
  for (const [key, value] of Object.entries(parts.params)) {
    if ('field' in recipe.place && key === recipe.place.field) continue;
    if (recipe.skipEmpty && value === '') continue;
    all[key] = value;
  }
  for (const name of recipe.includeHeaders) all[name] = parts.headers[name.toLowerCase()] ?? '';
  const encode = recipe.encodeValues === 'php-urlencode' ? phpUrlencode : (text: string) => text;
  return Object.keys(all)
    .sort()
    .map((key) => `${encode(key)}=${encode(all[key] as string)}`)
    .join('&');
}

/** The hex digest a sorted-params recipe makes of its text: of the text with the secret appended, or an HMAC keyed by it. */
export function sortedParamsDigest(
  recipe: Extract<OperatorAuth, { kind: 'sorted-params' }>,
  text: string,
  secret: string,
): string {
  return recipe.mode === 'append-secret'
    ? createHash(recipe.hash)
        .update(text + secret, 'utf8')
        .digest('hex')
    : createHmac(recipe.hash, secret).update(text, 'utf8').digest('hex');
}

/**
 * Checks a request against a recipe with the operator's credentials.
 *
 * @example verifyOperator({ kind: 'hmac-body', header: 'X-REQUEST-SIGN', hash: 'sha256', encoding: 'hex', secret: 'authToken' }, parts, { authToken: 't' })
 */
export function verifyOperator(
  auth: OperatorAuth,
  parts: OperatorRequestParts,
  credentials: Readonly<Record<string, string>>,
  nowMs: number = Date.now(),
): AuthVerdict {
  switch (auth.kind) {
    case 'rsa-body': {
      const signature = parts.headers[auth.header.toLowerCase()];
      const expectedSigned = Buffer.from(parts.rawBody).toString('utf8');
      if (!signature) return { ok: false, message: `${auth.header} is missing`, expectedSigned };
      let valid = false;
      try {
        valid = verify(
          auth.hash,
          parts.rawBody,
          publicKeyOf(credentials[auth.publicKey] ?? ''),
          Buffer.from(signature, 'base64'),
        );
      } catch {
        valid = false;
      }
      return valid
        ? { ok: true }
        : {
            ok: false,
            message: `${auth.header} is not an RSA-${auth.hash.toUpperCase()} signature (base64) of the raw body by the operator's key (credential ${auth.publicKey})`,
            expectedSigned,
          };
    }
    case 'hmac-body': {
      const signature = parts.headers[auth.header.toLowerCase()];
      const expectedSigned = Buffer.from(parts.rawBody).toString('utf8');
      if (!signature) return { ok: false, message: `${auth.header} is missing`, expectedSigned };
      const expected = createHmac(auth.hash, credentials[auth.secret] ?? '')
        .update(parts.rawBody)
        .digest(auth.encoding);
      return same(auth.encoding === 'hex' ? signature.toLowerCase() : signature, expected)
        ? { ok: true }
        : {
            ok: false,
            message: `${auth.header} is not the HMAC-${auth.hash.toUpperCase()} (${auth.encoding}) of the raw body keyed by ${auth.secret}`,
            expectedSigned,
          };
    }
    case 'sorted-params': {
      if (auth.timestamp) {
        const sent = parts.headers[auth.timestamp.header.toLowerCase()];
        const seconds = sent !== undefined && /^\d{1,12}$/.test(sent) ? Number(sent) : undefined;
        if (seconds === undefined)
          return { ok: false, message: `${auth.timestamp.header}: expected Unix seconds, got ${JSON.stringify(sent ?? null)}` };
        if (Math.abs(nowMs / 1000 - seconds) > auth.timestamp.toleranceSeconds)
          return {
            ok: false,
            message: `${auth.timestamp.header} ${seconds} is more than ${auth.timestamp.toleranceSeconds} s from the clock (${Math.floor(nowMs / 1000)})`,
          };
      }
      const text = sortedParamsText(auth, parts);
      const place = 'field' in auth.place ? `field ${auth.place.field}` : `header ${auth.place.header}`;
      const given = 'field' in auth.place ? parts.params[auth.place.field] : parts.headers[auth.place.header.toLowerCase()];
      const expectedSigned = auth.mode === 'append-secret' ? `${text}<${auth.secret}>` : text;
      if (!given) return { ok: false, message: `the signature (${place}) is missing`, expectedSigned };
      return same(given.toLowerCase(), sortedParamsDigest(auth, text, credentials[auth.secret] ?? ''))
        ? { ok: true }
        : {
            ok: false,
            message: `the signature (${place}) is not the ${auth.mode === 'hmac' ? `HMAC-${auth.hash.toUpperCase()}` : `${auth.hash.toUpperCase()} with ${auth.secret} appended`} (hex) of the sorted parameters`,
            expectedSigned,
          };
    }
    case 'static': {
      for (const [field, name] of Object.entries(auth.fields)) {
        const given = parts.fields[field];
        if (given === undefined || given === '') return { ok: false, message: `${field} is missing` };
        if (!same(given, credentials[name] ?? '')) return { ok: false, message: `${field} is not the configured ${name}` };
      }
      return { ok: true };
    }
    case 'basic': {
      const header = parts.headers.authorization;
      if (!header?.startsWith('Basic ')) return { ok: false, message: 'Authorization: Basic is missing' };
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const expected = `${credentials[auth.user] ?? ''}:${credentials[auth.password] ?? ''}`;
      return same(decoded, expected)
        ? { ok: true }
        : { ok: false, message: `Authorization: Basic is not ${auth.user}:${auth.password}` };
    }
  }
}
