import { generateKeyPairSync } from 'node:crypto';
import {
  buildRequest,
  type CallFacts,
  type Credentials,
  type Dialect,
  type ReadReply as DialectReadReply,
  type Rendered,
  readReply as readDialectReply,
  type SignedRequest,
  type SignOptions,
  signatureOf,
  signRequest,
  type UnsignedRequest,
  unsignedRequest,
} from '../dialects/index.ts';
import { signPayload } from '../signing/index.ts';
import { VERSION } from '../version.ts';
import type { Exchange, WebhookClient } from './client.ts';

/*
 * Every request verify sends, for every wire (a profile is a dialect too): built and signed by the
 * dialect (`buildRequest`) exactly as the engine sends them, to `<base URL><path>`, and the
 * forgeries the checks need (no signature, keys or secrets the wallet does not know, a stale
 * timestamp, the signature of another request, fields changed before signing, a body that is not
 * the dialect's) made from the same recipe, wherever the dialect places its signature (aggmock's
 * header schemes, a header, a body field, a query parameter).
 */

/** How a dialect request is (mis)signed. */
export interface DialectForgery {
  /** No signature at all. */
  unsigned?: true;
  /** Signed with keys the wallet does not know (another secret, another RSA/EC key pair). */
  wrongKeys?: true;
  /** Carries the signature made for these facts instead of its own (a replay of another request). */
  signatureOf?: CallFacts;
  /** Carries the signature of the same call with these facts: it was changed after signing. */
  signedAs?: Partial<CallFacts>;
  /** aggmock's header schemes: signed with these secrets instead of the configured ones (a rotation, a wrong secret). */
  secrets?: readonly string[];
  /** aggmock's header schemes: the signature's time, Unix seconds (a stale or future one). */
  timestamp?: number;
  /** Changes the rendered fields before signing (a wrong API key, an amount written finer than the currency). */
  edit?: (fields: Record<string, Rendered>) => void;
  /** Sends this body text instead, signed over it where the recipe signs the body bytes (a body that is not JSON). */
  body?: (rendered: string) => string;
  /** Renders and signs with these credentials instead (a wrong static credential, such as a query token or a header key). */
  credentials?: (real: Credentials) => Credentials;
  /** Changes the whole request before signing: its query, headers and fields (a credential left out, fields cut off). */
  request?: (req: UnsignedRequest) => void;
}

/** How a check's call is forged: `timestamp`, `edit` and `body` as DialectForgery's. */
export interface SendOptions extends Pick<DialectForgery, 'timestamp' | 'edit' | 'body'> {
  /** false: no signature at all. */
  sign?: boolean;
  /** Signed with these secrets instead of the configured ones (aggmock's header schemes); keys the wallet does not know under a vendor's recipe. */
  secrets?: string[];
  /** The amount is changed by 0.01 after signing (a tampered request), whatever the wire. */
  tamperAmount?: true;
  /** Carries the signature of this earlier request, wherever the wire places it (a replay). */
  replayOf?: { exchange: Exchange };
  /** Other forgeries of the request as built: other credentials, a changed query, headers or fields. */
  forgery?: Pick<DialectForgery, 'credentials' | 'request'>;
}

/** The facts each exchange was sent with, so a reply can be read again under the dialect. */
const sentFacts = new WeakMap<Exchange, CallFacts>();

export function factsOf(exchange: Exchange): CallFacts | undefined {
  return sentFacts.get(exchange);
}

/** A reply read under the dialect, with the facts it answered. */
export function readDialectExchange(dialect: Dialect, exchange: Exchange): DialectReadReply | undefined {
  const facts = sentFacts.get(exchange);
  const res = exchange.response;
  if (!facts || !res) return undefined;
  return readDialectReply(dialect, facts, { status: res.status, text: res.body });
}

export class DialectClient {
  constructor(
    readonly baseUrl: string,
    readonly dialect: Dialect,
    private readonly credentials: Credentials,
    private readonly signOptions: SignOptions,
    private readonly recorder: WebhookClient,
  ) {}

  /** The request of one call, (mis)signed as asked. */
  request(facts: CallFacts, forgery: DialectForgery = {}): SignedRequest {
    const dialect = forgery.unsigned ? { ...this.dialect, signing: { algorithm: 'none' as const } } : this.dialect;
    const real = forgery.credentials ? forgery.credentials(this.credentials) : this.credentials;
    const credentials = forgery.wrongKeys ? wrongKeys(this.dialect, real) : real;
    const options = this.optionsOf(forgery);
    const sign = (f: CallFacts) => {
      const unsigned = unsignedRequest(dialect, f, credentials);
      forgery.edit?.(unsigned.fields);
      forgery.request?.(unsigned);
      return signRequest(dialect, unsigned, credentials, options);
    };
    let own = sign(facts);
    if (forgery.body) own = signedOverBody(dialect, own, forgery.body(own.body ?? ''), credentials, options);
    if (!forgery.signatureOf) return own;
    const other = buildRequest(this.dialect, forgery.signatureOf, credentials, options);
    return withSignatureOf(this.dialect, own, other, this.unsignedHeaders(facts));
  }

  /** The options a (mis)signed request is signed with: the configured ones, other secrets or another time. */
  private optionsOf(forgery: DialectForgery): SignOptions {
    const scheme = this.signOptions.scheme;
    return {
      ...this.signOptions,
      ...(forgery.secrets && scheme ? { scheme: { ...scheme, secrets: forgery.secrets } } : {}),
      ...(forgery.timestamp === undefined ? {} : { timestamp: forgery.timestamp }),
    };
  }

  /** The header names a call carries before it is signed (the others are its signature). */
  private unsignedHeaders(facts: CallFacts): Set<string> {
    const bare = buildRequest({ ...this.dialect, signing: { algorithm: 'none' } }, facts, this.credentials);
    return new Set(Object.keys(bare.headers));
  }

  /** Sends one call and records it. */
  async call(label: string, facts: CallFacts, forgery: DialectForgery = {}): Promise<Exchange> {
    const req = this.request(facts, forgery);
    const url = joinUrl(this.baseUrl, req.path);
    // Content-Type and User-Agent first, then the dialect's headers and the signature, as the engine sends them.
    const headers: Record<string, string> = {};
    const contentType = req.headers['content-type'];
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    headers['User-Agent'] = `aggmock/${VERSION} (verify)`;
    for (const [name, value] of Object.entries(req.headers)) if (name !== 'content-type') headers[name] = value;
    const exchange = await this.recorder.exchange(label, { method: req.method, url, headers, body: req.body ?? '' });
    sentFacts.set(exchange, facts);
    return exchange;
  }
}

/** The wallet's base URL and a dialect path: "http://h/wallet/" + "/transaction/bet" → "http://h/wallet/transaction/bet". */
export function joinUrl(base: string, path: string): string {
  if (path === '' || path.startsWith('?')) return `${base}${path}`;
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** A key pair the wallet cannot know, made once per process (RSA and EC signing recipes). */
let strangers: { rsa: string; ec: string } | undefined;
function strangerKeys(): { rsa: string; ec: string } {
  strangers ??= {
    rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ec: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
  return strangers;
}

/** The credentials with every key that makes the signature (or, unsigned, the static keys a call carries) replaced by one the wallet does not know. */
export function wrongKeys(dialect: Dialect, credentials: Credentials): Credentials {
  const recipe = dialect.signing;
  if (!('payload' in recipe)) {
    // No recipe over credentials: the keys a wallet compares are those the calls carry as they are (betnex's api_key).
    const out: Record<string, string> = { ...credentials };
    for (const def of Object.values(dialect.operations))
      for (const field of Object.values(def?.fields ?? {}))
        if ('credential' in field) out[field.credential] = `aggmock-wrong-${field.credential}`;
    return out;
  }
  const signing = new Set<string>();
  if (recipe.key) signing.add(recipe.key);
  const templates =
    recipe.payload.over === 'params'
      ? [recipe.payload.prefix, recipe.payload.suffix]
      : recipe.payload.over === 'template'
        ? [recipe.payload.template]
        : [];
  for (const text of templates) for (const m of text.matchAll(/\{credential\.([A-Za-z0-9_]+)\}/g)) signing.add(m[1] as string);
  if (recipe.payload.over === 'hook') for (const name of recipe.payload.credentials) signing.add(name);
  const out: Record<string, string> = { ...credentials };
  for (const name of signing) {
    if (recipe.key === name && recipe.algorithm === 'rsa-sha256') out[name] = strangerKeys().rsa;
    else if (recipe.key === name && recipe.algorithm === 'ecdsa-sha256') out[name] = strangerKeys().ec;
    else out[name] = `aggmock-wrong-${name}`;
  }
  return out;
}

/**
 * `own` carrying the signature of `other` instead of its own, where the recipe places it: aggmock's
 * header schemes and header recipes in their headers (those a call has not before it is signed), a
 * query or body recipe in its parameter.
 */
function withSignatureOf(
  dialect: Dialect,
  own: SignedRequest,
  other: SignedRequest,
  unsigned: ReadonlySet<string>,
): SignedRequest {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none') return own;
  if (recipe.algorithm === 'scheme' || 'header' in recipe.place) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(own.headers)) if (unsigned.has(name)) headers[name] = value;
    for (const [name, value] of Object.entries(other.headers)) if (!unsigned.has(name)) headers[name] = value;
    return { ...own, headers };
  }
  const signature = placedSignature(recipe.place, other);
  return signature === undefined ? own : withSignature(recipe.place, own, signature);
}

type Placement = Exclude<Dialect['signing'], { algorithm: 'none' } | { algorithm: 'scheme' }>['place'];

/** The signature a signed request carries in a query parameter or a body field. */
function placedSignature(place: Placement, req: SignedRequest): string | undefined {
  if ('header' in place) return req.headers[place.header.toLowerCase()];
  if ('query' in place) return new URLSearchParams(req.path.split('?')[1] ?? '').get(place.query) ?? undefined;
  if (req.body === undefined) return undefined;
  if (req.body.trimStart().startsWith('{')) {
    const value = (JSON.parse(req.body) as Record<string, unknown>)[place.field];
    return typeof value === 'string' ? value : undefined;
  }
  return new URLSearchParams(req.body).get(place.field) ?? undefined;
}

/** The request with its signature replaced by `signature`, in the same place. */
function withSignature(place: Placement, req: SignedRequest, signature: string): SignedRequest {
  if ('header' in place) return { ...req, headers: { ...req.headers, [place.header.toLowerCase()]: signature } };
  if ('query' in place) {
    const [path, query = ''] = req.path.split('?') as [string, string | undefined];
    const params = new URLSearchParams(query);
    params.set(place.query, signature);
    return { ...req, path: `${path}?${params.toString()}` };
  }
  if (req.body === undefined) return req;
  if (req.body.trimStart().startsWith('{')) {
    const body = JSON.parse(req.body) as Record<string, unknown>;
    body[place.field] = signature;
    return { ...req, body: JSON.stringify(body) };
  }
  const params = new URLSearchParams(req.body);
  params.set(place.field, signature);
  return { ...req, body: params.toString() };
}

/**
 * The request with `body` as its body, signed over those bytes where the recipe signs the body as
 * it is sent (aggmock's header schemes, a body recipe placed in a header or the query); unchanged
 * signatures elsewhere (what capabilities' `signsBodyBytes` rules out).
 */
function signedOverBody(
  dialect: Dialect,
  req: SignedRequest,
  body: string,
  credentials: Credentials,
  options: SignOptions,
): SignedRequest {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none') return { ...req, body };
  if (recipe.algorithm === 'scheme') {
    const keys = options.scheme;
    if (!keys) return { ...req, body };
    const signature = signPayload({
      scheme: recipe.scheme ?? keys.scheme,
      secrets: keys.secrets,
      headerNames: keys.headerNames,
      payload: body,
      timestamp: options.timestamp,
      id: options.id,
    });
    return { ...req, headers: Object.assign({ ...req.headers }, signature), body };
  }
  if (recipe.payload.over !== 'body' || 'field' in recipe.place) return { ...req, body };
  const signature = signatureOf(recipe, body, credentials);
  return withSignature(
    recipe.place,
    { ...req, body },
    'header' in recipe.place ? `${recipe.place.prefix ?? ''}${signature}` : signature,
  );
}
