/**
 * Inbound authentication of the aggregator API (HMAC-signed requests or an API key) as Hono
 * middleware. Surface plumbing: it imports only the foundation (config, http, signing); it must
 * not import engines, other surfaces or the CLI.
 */
import type { MiddlewareHandler } from 'hono';
import type { AggmockConfig } from '../config/index.ts';
import { DEV_API_KEY, DEV_SECRET, signingKeys } from '../config/index.ts';
import type { RawBodyVariables } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { maskedSearch, sha256Hex } from '../shared/secrets.ts';
import {
  constantTimeMatcher,
  requestPayload,
  SignatureError,
  schemeHeaders,
  signedString,
  verifySignature,
} from '../signing/index.ts';

export type AuthConfig = AggmockConfig['auth'];

/** How the request proved who it is, for logs and tests. */
export type AuthResult = { method: 'none' } | { method: 'api-key'; header: string } | { method: 'hmac'; secretIndex: number };

export interface AuthVariables extends RawBodyVariables {
  auth: AuthResult;
}

/**
 * Inbound authentication of the aggregator API (SPEC §2): an API key, an HMAC signature over
 * `<METHOD>.<path?query>.<rawBody>` in the configured scheme, either of them, or none.
 * Needs `readRawBody` before it. A refusal is a 401 whose body says what was missing or wrong.
 *
 * @example app.use('/getgameurl', readRawBody(1 << 20), inboundAuth(config.auth))
 */
export function inboundAuth(
  config: AuthConfig,
  now: () => number = () => Date.now(),
  exposure?: string,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const check = authCheck(config, now, exposure);
  // The UI's own server-side launch (its env names the visitor, `uiClient`), which the admin token
  // already guards when exposed, and an in-process call (no socket) may use the development key.
  const internal = exposure === undefined ? check : authCheck(config, now);
  return async (c, next) => {
    const env = c.env as { uiClient?: string; incoming?: object } | undefined;
    // Refused only for what arrived over the network: not the UI's call, not an in-process app.request.
    const fromNetwork = env?.incoming !== undefined && env.uiClient === undefined;
    // Headers are read one by one: the Node adapter builds a full Headers object only when asked.
    const result = (fromNetwork ? check : internal)(c.req.method, c.req.url, c.get('rawBody') ?? EMPTY, (name) =>
      c.req.header(name),
    );
    if (result instanceof ApiError) throw result;
    c.set('auth', result);
    const incoming = (c.env as { incoming?: object } | undefined)?.incoming;
    if (incoming) rememberAuth(incoming, result);
    return next();
  };
}

/**
 * The property of a Node request object that holds the credentials it was accepted with: a
 * property, not a WeakMap entry, which cost a quarter of a microsecond a request on the listings
 * fast path (and more in the garbage collector), and leaves with the request all the same.
 */
const ACCEPTED = Symbol('aggmock.acceptedAuth');

/**
 * Records that a request's credentials were accepted, so the request journal shows the verdict
 * without checking (an HMAC over the body) a second time: the route or the fast path that checked
 * calls it; a refused request is judged again, once, for the string it should have signed.
 */
export function rememberAuth(request: object, result: AuthResult): void {
  (request as { [ACCEPTED]?: AuthResult })[ACCEPTED] = result;
}

/** How a request's credentials were accepted, if a check accepted them ({@link rememberAuth}). */
export function acceptedAuth(request: object): AuthResult | undefined {
  return (request as { [ACCEPTED]?: AuthResult })[ACCEPTED];
}

/**
 * Checks one request's credentials; `inboundAuth` and the API's fast path both call it, so
 * the rule lives here once. `url` is absolute (its origin is ignored); `read` reads a header.
 */
export type AuthCheck = (
  method: string,
  url: string,
  raw: Uint8Array,
  read: (name: string) => string | undefined,
) => AuthResult | ApiError;

const EMPTY = new Uint8Array();

/**
 * The check {@link inboundAuth} applies, outside Hono: the accepted credential, or the 401 to
 * answer. `exposure` (why the instance is exposed, src/http/exposure.ts): the public development
 * API key and signing secret are refused, since anyone can read them.
 */
export function authCheck(config: AuthConfig, now: () => number = () => Date.now(), exposure?: string): AuthCheck {
  const devRefused = (what: string) =>
    unauthorized(
      `The development ${what} is public and refused on an exposed instance (${exposure}): set your own in auth.apiKeys / auth.signing.secrets (AGGMOCK_AUTH__API_KEYS, AGGMOCK_AUTH__SIGNING__SECRETS) and send that.`,
      'DEV_CREDENTIALS_REFUSED',
    );
  const keys = signingKeys(config.signing);
  const signatureHeaders = schemeHeaders(keys.scheme, config.signing.headers);

  const apiKeys = config.apiKeys.map(constantTimeMatcher);
  const checkApiKey = (read: (name: string) => string | undefined): AuthResult | ApiError | undefined => {
    for (const header of config.apiKeyHeaders) {
      const value = read(header);
      if (value === undefined) continue;
      // Check every configured key so timing does not reveal which one is close.
      let matched = false;
      const candidate = value.trim();
      for (const matches of apiKeys) matched = matches(candidate) || matched;
      if (matched && exposure !== undefined && candidate === DEV_API_KEY) return devRefused(`API key ${DEV_API_KEY}`);
      if (matched) return { method: 'api-key', header };
      return unauthorized(`The API key in header ${header} is not recognised.`, 'INVALID_API_KEY');
    }
    return undefined;
  };

  const checkSignature = (
    method: string,
    url: string,
    raw: Uint8Array,
    read: (name: string) => string | undefined,
  ): AuthResult | ApiError | undefined => {
    if (!signatureHeaders.some((h) => read(h) !== undefined)) return undefined;
    const { pathname, search } = new URL(url);
    const payload = requestPayload(method, pathname + search, raw);
    try {
      // Own fields before the spread: Node 20's V8 builds `{ ...keys, payload, … }` on a slow path (~1 µs a field).
      const verified = verifySignature({ payload, headers: read, now: Math.floor(now() / 1000), ...keys });
      if (exposure !== undefined && config.signing.secrets[verified.secretIndex] === DEV_SECRET)
        return devRefused(`signing secret ${DEV_SECRET}`);
      return { method: 'hmac', secretIndex: verified.secretIndex };
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      const extra: Record<string, unknown> = { reason: error.reason };
      if (config.explain) {
        extra.explain = {
          scheme: keys.scheme,
          ...signatureParts(config, method, pathname, search, raw, read),
          hint: `${SCHEME_DESCRIPTIONS[keys.scheme]}. ${SIGNED_PARTS_HINT}`,
        };
      }
      // The error speaks of the signed prefix, which this reply carries only with explain on: say where else it is.
      const message =
        config.explain || error.reason !== 'NO_MATCHING_SIGNATURE'
          ? error.message
          : `${error.message} It is not in this reply (auth.explain is off): GET /__admin/requests shows it for each refused request, or start aggmock with --explain-auth.`;
      return unauthorized(message, 'INVALID_SIGNATURE', extra);
    }
  };

  return (method, url, raw, read) => {
    if (config.mode === 'none') return NONE;
    const apiKey = config.mode === 'hmac' ? undefined : checkApiKey(read);
    const signature = config.mode === 'api-key' ? undefined : checkSignature(method, url, raw, read);

    const accepted = [apiKey, signature].find((r): r is AuthResult => r !== undefined && !(r instanceof ApiError));
    if (accepted) return accepted;
    const refused = [signature, apiKey].find((r): r is ApiError => r instanceof ApiError);
    return refused ?? unauthorized(missingMessage(config), 'MISSING_CREDENTIALS');
  };
}

const NONE: AuthResult = { method: 'none' };

/**
 * What a refused signature should have been computed over, without the body itself (which may be
 * a MiB, and hold credentials): the string's head up to the body — `<t>.<METHOD>.<path?query>.`,
 * the query's credentials masked — and the body's SHA-256 and length. The sender hashes its own
 * body to see whether aggmock received it as signed.
 */
export interface SignatureParts {
  /** The signed string up to the raw body (timestamp, id, method, path and query, credentials in the query masked). */
  signedPrefix: string;
  /** Hex SHA-256 of the raw body aggmock received. */
  bodySha256: string;
  /** The raw body's length in bytes. */
  bodyBytes: number;
}

/** How to use {@link SignatureParts}, for the 401's hint and the journal. */
export const SIGNED_PARTS_HINT =
  'The string to sign is signedPrefix followed by your raw body exactly as sent (query credentials are shown masked); bodySha256 is the SHA-256 (hex) of the bodyBytes bytes aggmock received: hash your body to compare.';

/** The {@link SignatureParts} of a request, with the timestamp and id it sent (or placeholders). */
export function signatureParts(
  config: AuthConfig,
  method: string,
  pathname: string,
  search: string,
  raw: Uint8Array,
  read: (name: string) => string | undefined,
): SignatureParts {
  const names = config.signing.headers;
  const timestamp = read(names.webhookTimestamp) ?? /(?:^|,)\s*t=(\d+)/.exec(read(names.signature) ?? '')?.[1];
  const query = search === '' ? '' : `?${maskedSearch(search.slice(1))}`;
  const prefix = requestPayload(method, pathname + query, '');
  return {
    signedPrefix: signedString(config.signing.scheme, prefix, timestamp, read(names.webhookId)),
    bodySha256: sha256Hex(raw),
    bodyBytes: raw.byteLength,
  };
}

function missingMessage(config: AuthConfig): string {
  const keyHeaders = config.apiKeyHeaders.join(' or ');
  const sig =
    config.signing.scheme === 'standard-webhooks'
      ? 'webhook-id, webhook-timestamp and webhook-signature headers'
      : `an ${config.signing.headers.signature} header`;
  if (config.mode === 'api-key') return `Missing API key: send it in header ${keyHeaders}.`;
  if (config.mode === 'hmac')
    return `Missing signature: sign the request (${SCHEME_DESCRIPTIONS[config.signing.scheme]}) and send ${sig}.`;
  return `Missing credentials: send an API key in header ${keyHeaders}, or sign the request (${SCHEME_DESCRIPTIONS[config.signing.scheme]}) and send ${sig}.`;
}

/** What each scheme signs and sends, as a 401 tells it. */
const SCHEME_DESCRIPTIONS: Record<AuthConfig['signing']['scheme'], string> = {
  timestamped: 'X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<METHOD>.<path?query>.<raw body>">',
  'hmac-hex': 'X-Signature: <hex HMAC-SHA256 of "<METHOD>.<path?query>.<raw body>">',
  'standard-webhooks':
    'webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<METHOD>.<path?query>.<raw body>">',
};

function unauthorized(message: string, error: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(401, message, { extra: { error, ...extra }, headers: { 'WWW-Authenticate': 'HMAC-SHA256, ApiKey' } });
}
