import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { constantTimeEqual, type SigningKeys, signPayload, verifySignature } from '../signing/index.ts';
import { headerSchemeOf } from './capabilities.ts';
import { hookedText, type SignedParts } from './hooks.ts';
import {
  type Credentials,
  DialectRequestError,
  fillTemplate,
  flatParams,
  formText,
  type Rendered,
  type UnsignedRequest,
} from './request.ts';
import type { Dialect, Recipe, SignedRecipe } from './schema.ts';

/*
 * Signing recipes: what is signed (the body bytes, the sorted parameters with a secret around
 * them, a template), with which algorithm (HMAC-SHA1/256/512, MD5, SHA-1, SHA-256, RSA-SHA256,
 * ECDSA-SHA256), in which encoding, placed where (a header, a body field, a query parameter).
 * One function signs a request and its inverse verifies one, so the engine and the reference
 * wallet cannot disagree on a recipe.
 */

/** A request ready to send: the path with its query, the headers, the body bytes. */
export interface SignedRequest {
  method: UnsignedRequest['method'];
  /** The path under the base URL, with the query string when there is one. */
  path: string;
  headers: Record<string, string>;
  /** The body text; undefined for a query-string request. */
  body: string | undefined;
  /** The exact text that was signed (for `--explain-auth` and the deliveries inspector); undefined when unsigned. */
  signed?: string | undefined;
}

export interface SignOptions {
  /** aggmock's own header schemes (`algorithm: "scheme"`): the scheme, the secrets and header names of callbacks.signing. */
  scheme?: SigningKeys | undefined;
  /** Unix seconds for the timestamped schemes; default now. */
  timestamp?: number | undefined;
  /** standard-webhooks message id. */
  id?: string | undefined;
}

const CONTENT_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/** Parameters as a signature over "params" sees them: a JSON body's top level (objects as JSON), or the flat pairs. */
function paramsOf(req: Pick<UnsignedRequest, 'encoding' | 'fields'> & { query?: UnsignedRequest['query'] }): [string, string][] {
  if (req.encoding === 'query') return flatParams({ ...req.query, ...req.fields });
  if (req.encoding === 'form') return flatParams(req.fields);
  return Object.entries(req.fields).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}

function serialise(req: UnsignedRequest): { body: string | undefined; query: string } {
  const always = flatParams(req.query);
  if (req.encoding === 'json') return { body: JSON.stringify(req.fields), query: formText(always) };
  if (req.encoding === 'form') return { body: formText(flatParams(req.fields)), query: formText(always) };
  return { body: undefined, query: formText([...always, ...flatParams(req.fields)]) };
}

/** The signature's own parameter name, when it travels among the parameters. */
function placedName(recipe: SignedRecipe): string | undefined {
  return 'field' in recipe.place ? recipe.place.field : 'query' in recipe.place ? recipe.place.query : undefined;
}

/** The text a dialect's recipe signs for a request whose signature is not yet (or no longer) in it. */
export function signedText(
  dialect: Dialect,
  recipe: SignedRecipe,
  /** What is signed; the headers only for a recipe that signs some of them as parameters, or a hook. */
  parts: Omit<SignedParts, 'headers'> & { headers?: SignedParts['headers'] | undefined },
  credentials: Credentials,
): string {
  const placeholders = (name: string): string => {
    if (name === 'body') return parts.body ?? '';
    if (name === 'query') return parts.query;
    if (name === 'method') return parts.method;
    if (name === 'path') return parts.path;
    if (name.startsWith('credential.')) return credential(credentials, name.slice('credential.'.length));
    throw new DialectRequestError(
      `the signing template names {${name}}: expected body, query, method, path or credential.<name>`,
    );
  };
  const payload = recipe.payload;
  if (payload.over === 'body') return parts.body ?? parts.query;
  if (payload.over === 'template') return fillTemplate(payload.template, placeholders);
  if (payload.over === 'hook') return hookedText(dialect, { ...parts, headers: parts.headers ?? {} }, credentials);
  const own = placedName(recipe);
  const excluded = new Set([...payload.exclude, ...(own ? [own] : [])]);
  const signedHeaders = payload.headers.map((name): [string, string] => {
    const value = parts.headers?.[name.toLowerCase()];
    if (value === undefined)
      throw new DialectRequestError(`the ${name} header, which the signature covers, is missing from the request`);
    return [name, value];
  });
  let params = [...parts.params, ...signedHeaders].filter(([k, v]) => !excluded.has(k) && !(payload.skipEmpty && v === ''));
  if (payload.sort === 'key') params = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Sorted by the raw names, then escaped: PHP's ksort + http_build_query does the same.
  const write = payload.escape === 'form' ? formComponent : (text: string) => text;
  const joined = params.map(([k, v]) => `${write(k)}${payload.pair}${write(v)}`).join(payload.join);
  return fillTemplate(payload.prefix, placeholders) + joined + fillTemplate(payload.suffix, placeholders);
}

/**
 * One name or value as PHP's urlencode writes it inside http_build_query: spaces as `+`, every
 * character but letters, digits, `-`, `_` and `.` escaped (a form body leaves `*` as it is; PHP does not).
 */
function formComponent(text: string): string {
  return formText([['', text]])
    .slice(1)
    .replaceAll('*', '%2A');
}

function credential(credentials: Credentials, name: string): string {
  const value = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
  if (value === undefined || value === '')
    throw new DialectRequestError(
      `the credential "${name}" is not set: pass --credential ${name}=<value> or set callbacks.credentials.${name}`,
    );
  return value;
}

function encode(bytes: Buffer, encoding: SignedRecipe['encoding']): string {
  if (encoding === 'HEX') return bytes.toString('hex').toUpperCase();
  return bytes.toString(encoding);
}

function decode(text: string, encoding: SignedRecipe['encoding']): Buffer {
  return Buffer.from(text, encoding === 'HEX' ? 'hex' : encoding);
}

/** Private keys parsed once: PEM parsing costs more than the signature. */
const privateKeys = new Map<string, KeyObject>();
function privateKey(pem: string): KeyObject {
  let key = privateKeys.get(pem);
  if (!key) {
    try {
      key = createPrivateKey(pem);
    } catch (error) {
      throw new DialectRequestError(`the private key is not a PEM private key: ${(error as Error).message}`);
    }
    if (privateKeys.size > 64) privateKeys.clear();
    privateKeys.set(pem, key);
  }
  return key;
}

/** Public keys parsed once (from a public PEM, or derived from a private one). */
const publicKeys = new Map<string, KeyObject>();
function publicKey(pem: string): KeyObject {
  let key = publicKeys.get(pem);
  if (!key) {
    key = /PRIVATE KEY/.test(pem) ? createPublicKey(privateKey(pem)) : createPublicKey(pem);
    if (publicKeys.size > 64) publicKeys.clear();
    publicKeys.set(pem, key);
  }
  return key;
}

/** The signature bytes of a text under a recipe. */
export function signatureOf(recipe: SignedRecipe, text: string, credentials: Credentials): string {
  const data = Buffer.from(text, 'utf8');
  const key = () => credential(credentials, recipe.key as string);
  switch (recipe.algorithm) {
    case 'hmac-sha1':
    case 'hmac-sha256':
    case 'hmac-sha512':
      return encode(createHmac(recipe.algorithm.slice(5), key()).update(data).digest(), recipe.encoding);
    case 'md5':
    case 'sha1':
    case 'sha256':
      return encode(createHash(recipe.algorithm).update(data).digest(), recipe.encoding);
    case 'rsa-sha256':
      return encode(sign('sha256', data, privateKey(key())), recipe.encoding);
    case 'ecdsa-sha256':
      return encode(sign('sha256', data, { key: privateKey(key()), dsaEncoding: 'der' }), recipe.encoding);
  }
}

/**
 * Signs a request under the dialect's recipe and serialises it: the body (JSON or form) or the
 * query, the content type, the signature where the recipe places it.
 *
 * @example signRequest(pragmatic, unsignedRequest(pragmatic, facts, { secretKey: 'testKey' }), { secretKey: 'testKey' })
 * // { method: 'POST', path: '/bet.html', body: 'userId=p1&…&hash=5f0e…', … }
 */
export function signRequest(
  dialect: Dialect,
  req: UnsignedRequest,
  credentials: Credentials,
  options: SignOptions = {},
): SignedRequest {
  const recipe: Recipe = dialect.signing;
  const headers = { ...req.headers };
  if (req.encoding !== 'query') headers['content-type'] = CONTENT_TYPES[req.encoding];
  const { body, query } = serialise(req);
  const withQuery = (q: string) => (q ? `${req.path}?${q}` : req.path);
  if (recipe.algorithm === 'none') return { method: req.method, path: withQuery(query), headers, body };
  if (recipe.algorithm === 'scheme') {
    const signature = schemeSignature(recipe.scheme, body, options);
    return { method: req.method, path: withQuery(query), headers: Object.assign(headers, signature), body, signed: body ?? '' };
  }
  // The parameters and the hook's fields are worked out only for the recipes that read them.
  const over = recipe.payload.over;
  const reads = over === 'params' || over === 'hook';
  const text = signedText(
    dialect,
    recipe,
    {
      method: req.method,
      path: req.path,
      query,
      body,
      params: reads ? paramsOf(req) : [],
      fields: over === 'hook' ? hookFields(req) : req.fields,
      headers,
    },
    credentials,
  );
  const signature = signatureOf(recipe, text, credentials);
  const place = recipe.place;
  if ('header' in place) {
    headers[place.header.toLowerCase()] = `${place.prefix ?? ''}${signature}`;
    return { method: req.method, path: withQuery(query), headers, body, signed: text };
  }
  if ('query' in place) {
    return { method: req.method, path: withQuery(joinQuery(query, place.query, signature)), headers, body, signed: text };
  }
  const fields: Record<string, Rendered> = { ...req.fields, [place.field]: signature };
  const signedBody = serialise({ ...req, fields });
  return { method: req.method, path: withQuery(signedBody.query), headers, body: signedBody.body, signed: text };
}

/** The request as {@link signRequest} serialises it, with no signature made (its recipe's is made when it is sent). */
export function serialisedRequest(req: UnsignedRequest): SignedRequest {
  const headers = { ...req.headers };
  if (req.encoding !== 'query') headers['content-type'] = CONTENT_TYPES[req.encoding];
  const { body, query } = serialise(req);
  return { method: req.method, path: query ? `${req.path}?${query}` : req.path, headers, body };
}

/**
 * Whether the dialect's signature travels in a header, apart from the request's path and body:
 * aggmock's header schemes (`algorithm: "scheme"`) and the vendor recipes placed in a header
 * (Hub88's X-Hub88-Signature). A call of such a dialect is kept unsigned and signed when sent.
 */
export function signsInHeaders(dialect: Dialect): boolean {
  const recipe = dialect.signing;
  return recipe.algorithm === 'scheme' || (recipe.algorithm !== 'none' && 'header' in recipe.place);
}

/**
 * The headers without the signature a vendor recipe placed in a header (the name in lower case, as
 * {@link signRequest} writes it): what a call shows before it is sent. The same object when there is none.
 */
export function withoutVendorSignature(dialect: Dialect, headers: Record<string, string>): Record<string, string> {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none' || recipe.algorithm === 'scheme' || !('header' in recipe.place)) return headers;
  const name = recipe.place.header.toLowerCase();
  if (!Object.hasOwn(headers, name)) return headers;
  const { [name]: _signature, ...rest } = headers;
  return rest;
}

/**
 * A request {@link serialisedRequest} made, signed now with aggmock's header scheme (the dialect's
 * recipe is `algorithm: "scheme"`): the scheme signs the body alone and adds its headers after the
 * others, so this is what {@link signRequest} makes from the same rendering, without rendering again.
 */
export function schemeSigned(dialect: Dialect, unsigned: SignedRequest, options: SignOptions): SignedRequest {
  const recipe = dialect.signing;
  if (recipe.algorithm !== 'scheme')
    throw new Error(`schemeSigned: the ${dialect.name} dialect signs with a recipe, not a scheme`);
  const headers = Object.assign({ ...unsigned.headers }, schemeSignature(recipe.scheme, unsigned.body, options));
  return { method: unsigned.method, path: unsigned.path, headers, body: unsigned.body, signed: unsigned.body ?? '' };
}

/**
 * Whether a call under this dialect carries a message id of its own (kept across its retries):
 * the Standard Webhooks scheme signs `id.timestamp.body`, so a receiver can drop a message it saw.
 * `configured` is the scheme of `callbacks.signing`, used when the recipe names none.
 *
 * @example needsMessageId(builtinDialect('default'), 'standard-webhooks') // true
 */
export function needsMessageId(dialect: Dialect, configured: SigningKeys['scheme']): boolean {
  const recipe = dialect.signing;
  return recipe.algorithm === 'scheme' && headerSchemeOf(dialect, configured) === 'standard-webhooks';
}

/** The headers of aggmock's header scheme (`algorithm: "scheme"`) over a body: they sign the body alone. */
function schemeSignature(
  recipeScheme: SigningKeys['scheme'] | undefined,
  body: string | undefined,
  options: SignOptions,
): Record<string, string> {
  const keys = options.scheme;
  if (!keys) throw new DialectRequestError('this dialect signs with callbacks.signing, which was not given');
  // Written out, not spread: Node 20's V8 copies `{ ...keys, scheme, … }` on a slow path.
  return signPayload({
    scheme: recipeScheme ?? keys.scheme,
    secrets: keys.secrets,
    headerNames: keys.headerNames,
    payload: body ?? '',
    timestamp: options.timestamp,
    id: options.id,
  });
}

/** The fields as a hook sees them: a JSON body's object as it is; form or query fields as the flat pairs a wallet receives. */
function hookFields(req: UnsignedRequest): Record<string, unknown> {
  if (req.encoding === 'json') return req.fields;
  return Object.fromEntries(req.encoding === 'query' ? flatParams({ ...req.query, ...req.fields }) : flatParams(req.fields));
}

function joinQuery(query: string, name: string, value: string): string {
  const pair = formText([[name, value]]);
  return query ? `${query}&${pair}` : pair;
}

/** A request as a wallet received it. */
export interface ReceivedRequest {
  method: string;
  /** The path with its query string, as on the request line. */
  path: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: string /** The text the sender should have signed. */; expected?: string };

/**
 * Verifies a received request's signature under the dialect's recipe: the inverse of
 * {@link signRequest}. The reference wallet and the test receivers ask here.
 */
export function verifyRequest(
  dialect: Dialect,
  received: ReceivedRequest,
  credentials: Credentials,
  options: { scheme?: SigningKeys; now?: number } = {},
): VerifyResult {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none') return { ok: true };
  const [path = '', query = ''] = splitOnce(received.path, '?');
  if (recipe.algorithm === 'scheme') {
    if (!options.scheme) return { ok: false, reason: 'no callbacks.signing keys to verify with' };
    try {
      verifySignature({
        ...options.scheme,
        scheme: recipe.scheme ?? options.scheme.scheme,
        payload: received.body,
        headers: received.headers,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: (error as Error).message, expected: received.body };
    }
  }
  const place = recipe.place;
  const contentType = (received.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const isForm = contentType === CONTENT_TYPES.form;
  const isJson = contentType === CONTENT_TYPES.json;
  // A JSON body is sent as JSON: text/plain is what a browser page sends cross-site without a preflight.
  if (!isJson && !isForm && received.body.trim() !== '' && dialect.request.encoding === 'json')
    return {
      ok: false,
      reason: `expected Content-Type: ${CONTENT_TYPES.json} for this dialect's JSON body (got ${contentType ? contentType : 'none'})`,
    };
  const queryPairs = [...new URLSearchParams(query)];
  let body = received.body;
  let params: [string, string][];
  let jsonFields: Record<string, Rendered> | undefined;
  let given: string | undefined;
  if (isJson && received.body !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(received.body);
    } catch {
      return { ok: false, reason: 'the body is not JSON' };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return { ok: false, reason: 'the body is not a JSON object' };
    const fields = parsed as Record<string, Rendered>;
    if ('field' in place) {
      given = typeof fields[place.field] === 'string' ? (fields[place.field] as string) : undefined;
      const { [place.field]: _signature, ...rest } = fields;
      body = JSON.stringify(rest);
      params = paramsOf({ encoding: 'json', fields: rest });
      jsonFields = rest;
    } else {
      params = paramsOf({ encoding: 'json', fields });
      jsonFields = fields;
    }
  } else if (isForm) {
    const pairs = [...new URLSearchParams(received.body)];
    if ('field' in place) {
      given = pairs.find(([k]) => k === place.field)?.[1];
      const rest = pairs.filter(([k]) => k !== place.field);
      body = formText(rest);
      params = rest;
    } else params = pairs;
  } else params = queryPairs;
  let unsignedQuery = query;
  if ('query' in place) {
    given = queryPairs.find(([k]) => k === place.query)?.[1];
    const rest = queryPairs.filter(([k]) => k !== place.query);
    unsignedQuery = formText(rest);
    if (!isJson && !isForm) params = rest;
  }
  if ('header' in place) {
    const raw = received.headers[place.header.toLowerCase()];
    const prefix = place.prefix ?? '';
    given = raw?.startsWith(prefix) ? raw.slice(prefix.length) : undefined;
  }
  const where =
    'header' in place ? `header ${place.header}` : 'field' in place ? `field ${place.field}` : `query parameter ${place.query}`;
  if (given === undefined || given === '') return { ok: false, reason: `no signature in the ${where}` };
  let expected: string;
  try {
    expected = signedText(
      dialect,
      recipe,
      {
        method: received.method.toUpperCase(),
        path,
        query: unsignedQuery,
        body: isJson || isForm ? body : undefined,
        params,
        fields: jsonFields ?? Object.fromEntries(params),
        headers: received.headers,
      },
      credentials,
    );
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const valid =
    recipe.algorithm === 'rsa-sha256' || recipe.algorithm === 'ecdsa-sha256'
      ? verifyAsymmetric(recipe, expected, given, credentials)
      : constantTimeEqual(signatureOf(recipe, expected, credentials), given);
  return valid ? { ok: true } : { ok: false, reason: `the signature in the ${where} does not match`, expected };
}

function verifyAsymmetric(recipe: SignedRecipe, text: string, given: string, credentials: Credentials): boolean {
  const pem = credential(credentials, recipe.key as string);
  const key = publicKey(pem);
  const data = Buffer.from(text, 'utf8');
  try {
    return recipe.algorithm === 'ecdsa-sha256'
      ? verify('sha256', data, { key, dsaEncoding: 'der' }, decode(given, recipe.encoding))
      : verify('sha256', data, key, decode(given, recipe.encoding));
  } catch {
    return false;
  }
}

function splitOnce(text: string, separator: string): [string, string] {
  const i = text.indexOf(separator);
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
}
