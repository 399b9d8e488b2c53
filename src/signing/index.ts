/**
 * Signing and verifying payloads in every scheme (plain, timestamped X-Signature,
 * standard-webhooks): the code aggmock signs callbacks with and integrators verify with (it is
 * public API). The bottom layer: it imports nothing from aggmock, and everything may import it.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { constantTimeEqual } from './constant-time.ts';
import { SignatureError } from './errors.ts';

export { constantTimeEqual, constantTimeMatcher } from './constant-time.ts';
export { SignatureError, type SignatureFailure } from './errors.ts';

/** The HMAC-SHA256 schemes of SPEC §4: which headers, what is signed, how it is encoded. */
export const SIGNING_SCHEMES = ['timestamped', 'hmac-hex', 'standard-webhooks'] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

/** Two-sided window for timestamps, in seconds: older or newer than this is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface HeaderNames {
  /** `timestamped` and `hmac-hex`: the one signature header. */
  signature: string;
  /** `standard-webhooks` only. */
  webhookId: string;
  webhookTimestamp: string;
  webhookSignature: string;
}

export const DEFAULT_HEADER_NAMES: HeaderNames = {
  signature: 'X-Signature',
  webhookId: 'webhook-id',
  webhookTimestamp: 'webhook-timestamp',
  webhookSignature: 'webhook-signature',
};

/** The headers a scheme signs in, in the order it writes them. */
export function schemeHeaders(scheme: SigningScheme, names: HeaderNames): string[] {
  return scheme === 'standard-webhooks' ? [names.webhookId, names.webhookTimestamp, names.webhookSignature] : [names.signature];
}

export interface SigningKeys {
  scheme: SigningScheme;
  /** Every active secret. Signing signs with each (rotation); verifying accepts any. */
  secrets: readonly string[];
  /** Header names when they differ from {@link DEFAULT_HEADER_NAMES}. */
  headerNames?: Partial<HeaderNames>;
}

export type Payload = string | Uint8Array;

export interface SignOptions extends SigningKeys {
  /** The exact bytes that go on the wire. */
  payload: Payload;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  /** `standard-webhooks` message id; defaults to a random `msg_…`. */
  id?: string;
}

export type HeaderSource =
  | Headers
  | Record<string, string | string[] | undefined>
  | ((name: string) => string | undefined | null);

export interface VerifyOptions extends SigningKeys {
  payload: Payload;
  headers: HeaderSource;
  /** Unix seconds; defaults to now. Injected by tests. */
  now?: number;
  toleranceSeconds?: number;
}

export interface VerifiedSignature {
  scheme: SigningScheme;
  /** Which of the secrets matched (0 = the first, the current one). */
  secretIndex: number;
  timestamp?: number;
  id?: string;
}

/**
 * What an inbound request signs before the scheme adds its own parts: the method and the path
 * with query cover a GET, so `timestamped` ends up signing `<t>.<METHOD>.<path?query>.<rawBody>`.
 *
 * @example requestPayload('GET', '/getallproviders', '') // 'GET./getallproviders.'
 */
export function requestPayload(method: string, pathWithQuery: string, rawBody: Payload): Payload {
  const prefix = `${method.toUpperCase()}.${pathWithQuery}.`;
  if (typeof rawBody === 'string') return prefix + rawBody;
  return Buffer.concat([Buffer.from(prefix, 'utf8'), rawBody]);
}

/**
 * The exact string that is HMAC'd, for error messages and `--explain-auth`.
 * Binary payloads are shown as UTF-8, which is what every JSON body is.
 */
export function signedString(
  scheme: SigningScheme,
  payload: Payload,
  timestamp: number | string = '<t>',
  id = '<webhook-id>',
): string {
  const text = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  if (scheme === 'timestamped') return `${timestamp}.${text}`;
  if (scheme === 'standard-webhooks') return `${id}.${timestamp}.${text}`;
  return text;
}

/**
 * Signs `payload` and returns the headers to send, signed with every active secret.
 *
 * @example
 * const headers = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body });
 * await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
 */
export function signPayload(options: SignOptions): Record<string, string> {
  const { scheme, payload } = options;
  const secrets = requireSecrets(options.secrets);
  // Each name looked up where it is used: no completed copy of the names per signature.
  const name = (key: keyof HeaderNames) => options.headerNames?.[key] ?? DEFAULT_HEADER_NAMES[key];
  const timestamp = options.timestamp ?? nowSeconds();
  switch (scheme) {
    case 'timestamped': {
      const sigs = secrets.map((s) => `v1=${hmac(hmacKey(s), [`${timestamp}.`, payload], 'hex')}`);
      return { [name('signature')]: `t=${timestamp},${sigs.join(',')}` };
    }
    case 'hmac-hex': {
      const sigs = secrets.map((s) => hmac(hmacKey(s), [payload], 'hex'));
      return { [name('signature')]: sigs.join(',') };
    }
    case 'standard-webhooks': {
      const id = options.id ?? `msg_${randomUUID().replaceAll('-', '')}`;
      const sigs = secrets.map((s) => `v1,${hmac(hmacKey(s), [`${id}.${timestamp}.`, payload], 'base64')}`);
      return {
        [name('webhookId')]: id,
        [name('webhookTimestamp')]: String(timestamp),
        [name('webhookSignature')]: sigs.join(' '),
      };
    }
  }
}

/**
 * Verifies the signature headers of a request or callback against its raw body.
 * Throws a {@link SignatureError} whose message says exactly what is wrong.
 *
 * @example
 * // In an integrator's webhook, with the raw body as received:
 * verifySignature({ scheme: 'timestamped', secrets: [process.env.AGGMOCK_SECRET!], payload: rawBody, headers: req.headers });
 */
export function verifySignature(options: VerifyOptions): VerifiedSignature {
  const { scheme, payload } = options;
  const secrets = requireSecrets(options.secrets);
  const names = { ...DEFAULT_HEADER_NAMES, ...options.headerNames };
  const read = headerReader(options.headers);
  const now = options.now ?? nowSeconds();
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;

  switch (scheme) {
    case 'timestamped': {
      const raw = read(names.signature);
      if (!raw) throw missing([names.signature], 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">');
      const { timestamp, signatures } = parseTimestampedHeader(raw, names.signature);
      checkTimestamp(timestamp, now, tolerance);
      const candidates = secrets.map((s) => hmac(hmacKey(s), [`${timestamp}.`, payload], 'hex'));
      return match(scheme, signatures, candidates, () => signedString(scheme, payload, timestamp), { timestamp });
    }
    case 'hmac-hex': {
      const raw = read(names.signature);
      if (!raw) throw missing([names.signature], '<hex HMAC-SHA256 of the raw body>');
      const signatures = raw
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((s) => s.replace(/^sha256=/i, '').toLowerCase());
      const candidates = secrets.map((s) => hmac(hmacKey(s), [payload], 'hex'));
      return match(scheme, signatures, candidates, () => signedString(scheme, payload), {});
    }
    case 'standard-webhooks': {
      const id = read(names.webhookId);
      const ts = read(names.webhookTimestamp);
      const sig = read(names.webhookSignature);
      const absent = [
        [names.webhookId, id],
        [names.webhookTimestamp, ts],
        [names.webhookSignature, sig],
      ]
        .filter(([, v]) => !v)
        .map(([n]) => n as string);
      if (absent.length > 0 || !id || !ts || !sig) {
        throw missing(absent, 'webhook-id, webhook-timestamp and webhook-signature: "v1,<base64 HMAC of "<id>.<t>.<raw body>">"');
      }
      if (!/^\d+$/.test(ts.trim())) {
        throw new SignatureError(
          'MALFORMED_HEADER',
          `Header ${names.webhookTimestamp} must be whole unix seconds, got ${JSON.stringify(ts)}.`,
        );
      }
      const timestamp = Number(ts.trim());
      checkTimestamp(timestamp, now, tolerance);
      const signatures = sig
        .split(' ')
        .filter(Boolean)
        .map((part) => {
          const [version, value] = part.split(',', 2);
          return version === 'v1' && value ? value : '';
        })
        .filter(Boolean);
      if (signatures.length === 0) {
        throw new SignatureError(
          'MALFORMED_HEADER',
          `Header ${names.webhookSignature} has no "v1,<base64>" signature, got ${JSON.stringify(sig)}.`,
        );
      }
      const candidates = secrets.map((s) => hmac(hmacKey(s), [`${id}.${timestamp}.`, payload], 'base64'));
      return match(scheme, signatures, candidates, () => signedString(scheme, payload, timestamp, id), { timestamp, id });
    }
  }
}

/**
 * The key bytes of a secret. `whsec_<base64>` (the Standard Webhooks form) decodes to its bytes
 * under any scheme; a plain secret is its UTF-8 bytes, so `aggmock-dev-secret` and
 * `whsec_YWdnbW9jay1kZXYtc2VjcmV0` are the same key.
 */
export function keyBytes(_scheme: SigningScheme, secret: string): Buffer {
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/**
 * {@link keyBytes} decoded once per secret (every callback signs with the same few): a copy of the
 * secret in a buffer per signature cost about as much as a tenth of the HMAC. Never handed out, so
 * nobody can change a cached key.
 */
const hmacKeys = new Map<string, Buffer>();
function hmacKey(secret: string): Buffer {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    key = keyBytes('hmac-hex', secret);
    if (hmacKeys.size >= 64) hmacKeys.clear();
    hmacKeys.set(secret, key);
  }
  return key;
}

/** The `whsec_` form of a secret, as Standard Webhooks libraries expect it. */
export function toWhsec(secret: string): string {
  return secret.startsWith('whsec_') ? secret : `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

function hmac(key: Buffer, parts: readonly Payload[], encoding: 'hex' | 'base64'): string {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest(encoding);
}

function match(
  scheme: SigningScheme,
  received: readonly string[],
  expected: readonly string[],
  /** The signed string, for the error only (a copy of the whole payload, so not made on success). */
  signed: () => string,
  extra: { timestamp?: number; id?: string },
): VerifiedSignature {
  // Compare every pair so the time taken does not reveal which secret or position matched.
  let secretIndex = -1;
  for (let i = expected.length - 1; i >= 0; i--) {
    for (const sig of received) {
      if (constantTimeEqual(sig, expected[i] as string)) secretIndex = i;
    }
  }
  if (secretIndex < 0) {
    throw new SignatureError(
      'NO_MATCHING_SIGNATURE',
      'No signature matches the payload with any active secret. Are you signing the raw request body exactly as ' +
        'sent (not re-serialised JSON), with the right secret, over the signed prefix shown followed by that body (compare its SHA-256)?',
      signed(),
    );
  }
  return { scheme, secretIndex, ...extra };
}

function parseTimestampedHeader(raw: string, name: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of raw.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && value) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new SignatureError(
      'MALFORMED_HEADER',
      `Header ${name} must look like "t=<unix seconds>,v1=<hex>", got ${JSON.stringify(raw)}.`,
    );
  }
  return { timestamp, signatures };
}

function checkTimestamp(timestamp: number, now: number, tolerance: number): void {
  if (now - timestamp > tolerance) {
    throw new SignatureError(
      'TIMESTAMP_TOO_OLD',
      `Signature timestamp ${timestamp} is ${now - timestamp}s old; at most ${tolerance}s is accepted. ` +
        'Sign each request when it is sent, and check the clock of the sending machine.',
    );
  }
  if (timestamp - now > tolerance) {
    throw new SignatureError(
      'TIMESTAMP_TOO_NEW',
      `Signature timestamp ${timestamp} is ${timestamp - now}s in the future; at most ${tolerance}s is accepted. ` +
        'Check the clock of the sending machine.',
    );
  }
}

function missing(names: readonly string[], expected: string): SignatureError {
  const list = names.join(', ');
  return new SignatureError('MISSING_HEADER', `Missing signature header ${list}: expected ${expected}.`);
}

function requireSecrets(secrets: readonly string[]): readonly string[] {
  const usable = secrets.filter((s) => s.length > 0);
  if (usable.length === 0) throw new SignatureError('NO_SECRET', 'No signing secret is configured.');
  return usable;
}

function headerReader(source: HeaderSource): (name: string) => string | undefined {
  if (typeof source === 'function') return (name) => source(name) ?? undefined;
  if (source instanceof Headers) return (name) => source.get(name) ?? undefined;
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(source)) {
    if (v === undefined) continue;
    lower.set(k.toLowerCase(), Array.isArray(v) ? v.join(',') : v);
  }
  return (name) => lower.get(name.toLowerCase());
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
