/**
 * What every independent operator client shares and that has nothing vendor-specific in it: the
 * HTTP call and its typed failure, the tamper switches for negative tests, PHP's http_build_query
 * (two vendors sign it), and a loopback server that tests use to stand in for the vendor.
 *
 * These clients are the integrator's side of a vendor's operator API (casino -> aggregator), written
 * from the vendor's public material only: node:http, node:crypto and fetch, nothing from aggmock.
 */
import { generateKeyPairSync, type KeyObject, sign, timingSafeEqual, verify } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How a client spoils its own request, to prove that the server refuses it the vendor's way:
 * - `wrong-key`: signs (or authenticates) with a key or secret the server does not know;
 * - `tampered-body`: signs the true request, then sends it with one value changed;
 * - `no-signature`: leaves the signature (or credential) out.
 */
export type Tamper = 'wrong-key' | 'tampered-body' | 'no-signature';

/**
 * What every client's launch() takes: aggmock's launch concepts, mapped by each client to its
 * vendor's field names. Vendors that issue their own session ignore `token` (said in their file).
 */
export interface LaunchRequest {
  player: string;
  currency: string;
  gameId: string;
  mode: 'real' | 'demo';
  /** The operator's session token, which the vendor's wallet calls carry back. */
  token: string;
  language?: string;
  platform?: 'desktop' | 'mobile';
  lobbyUrl?: string;
  depositUrl?: string;
  country?: string;
  ip?: string;
}

/** A vendor refused a call, or answered something the client cannot read. */
export class OperatorCallError extends Error {
  constructor(
    readonly route: string,
    readonly status: number,
    readonly body: unknown,
    reason: string,
  ) {
    super(`${route}: ${reason} (HTTP ${status}): ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'OperatorCallError';
  }
}

export interface HttpReply {
  status: number;
  /** The body as text, exactly as received. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  headers: Headers;
}

/** One HTTP call; the reply whatever its status (the caller decides what is a refusal). */
export async function call(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  fetchImpl: typeof fetch = fetch,
): Promise<HttpReply> {
  const response = await fetchImpl(url, { method: init.method, headers: init.headers, body: init.body, redirect: 'manual' });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers };
}

/** The reply's JSON object, or an OperatorCallError naming what was expected. */
export function jsonObject(route: string, reply: HttpReply): Record<string, unknown> {
  if (reply.json === null || typeof reply.json !== 'object' || Array.isArray(reply.json)) {
    throw new OperatorCallError(route, reply.status, reply.text, 'expected a JSON object');
  }
  return reply.json as Record<string, unknown>;
}

/**
 * The same parameters with one value changed: the first string value (in key order) gets its
 * last character replaced. Used after signing, so the signature no longer covers what is sent.
 */
export function tamperedCopy<T extends Record<string, unknown>>(params: T): T {
  const copy: Record<string, unknown> = { ...params };
  for (const key of Object.keys(copy)) {
    const value = copy[key];
    if (typeof value === 'string' && value.length > 0) {
      copy[key] = value.slice(0, -1) + (value.endsWith('X') ? 'Y' : 'X');
      return copy as T;
    }
    if (typeof value === 'number') {
      copy[key] = value + 1;
      return copy as T;
    }
  }
  throw new Error('nothing to tamper with: no string or number parameter');
}

/**
 * PHP's http_build_query for a flat map, as vendors' PHP samples sign it: entries whose value is
 * null or undefined are left out, keys and values are urlencode()d (RFC 1738: spaces as '+',
 * everything but A-Z a-z 0-9 - _ . percent-encoded), true/false become 1/0.
 */
export function phpBuildQuery(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    const text = value === true ? '1' : value === false ? '0' : String(value);
    parts.push(`${phpUrlencode(key)}=${phpUrlencode(text)}`);
  }
  return parts.join('&');
}

function phpUrlencode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * POST a JSON body with its signature in a header: the scheme of Hub88, Caleta and SoftSwiss. The
 * signature is computed over the exact bytes of JSON.stringify(body); `tamper` spoils it the way
 * its name says (the caller passes a signer holding the wrong key for `wrong-key`).
 */
export async function postSignedJson(options: {
  url: string;
  body: Record<string, unknown>;
  signatureHeader: string;
  sign: (text: string) => string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}): Promise<HttpReply> {
  const signedText = JSON.stringify(options.body);
  const sentText = options.tamper === 'tampered-body' ? JSON.stringify(tamperedCopy(options.body)) : signedText;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.tamper !== 'no-signature') headers[options.signatureHeader] = options.sign(signedText);
  return call(options.url, { method: 'POST', headers, body: sentText }, options.fetch);
}

/** The body without the fields the caller left undefined (JSON.stringify would drop them anyway). */
export function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** RSA-SHA256 (PKCS#1 v1.5) over the UTF-8 text, base64: Hub88's and Caleta's signature. */
export function rsaSha256Base64(text: string, privateKey: KeyObject | string): string {
  return sign('sha256', Buffer.from(text, 'utf8'), privateKey).toString('base64');
}

/** The vendor's check of rsaSha256Base64: false for a missing, malformed or foreign signature. */
export function verifyRsaSha256Base64(
  text: Buffer | string,
  signature: string | undefined,
  publicKey: KeyObject | string,
): boolean {
  if (!signature) return false;
  try {
    return verify(
      'sha256',
      Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'),
      publicKey,
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** A fresh RSA key nobody registered: what `wrong-key` signs with. */
export function strangerRsaKey(): KeyObject {
  stranger ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  return stranger;
}
let stranger: KeyObject | undefined;

/** Keys sorted byte-wise ascending, as PHP ksort() and Java's TreeMap order ASCII keys. */
export function sortedByKey(params: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(params).sort()) sorted[key] = params[key];
  return sorted;
}

/** Equal strings, compared in time that does not depend on where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

// ---------------------------------------------------------------------------------------------
// A loopback stand-in for the vendor, for the clients' own tests.

export interface ReceivedCall {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
}

export interface ServedReply {
  status: number;
  /** A string is sent as is; anything else as JSON. */
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface LoopbackVendor {
  url: string;
  /** Every call received, in order. */
  calls: ReceivedCall[];
  stop(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 on a free port and answers every call with `handle`. A handler that throws
 * is answered 500 with the error text, so a bug in a test's stand-in shows as a failed call.
 */
export async function startLoopbackVendor(handle: (call: ReceivedCall) => ServedReply): Promise<LoopbackVendor> {
  const calls: ReceivedCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://vendor.invalid');
      const received: ReceivedCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
      };
      calls.push(received);
      let reply: ServedReply;
      try {
        reply = handle(received);
      } catch (error) {
        reply = { status: 500, body: { error: `stand-in failed: ${(error as Error).message}` } };
      }
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
