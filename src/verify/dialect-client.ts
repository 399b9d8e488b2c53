import { generateKeyPairSync } from 'node:crypto';
import {
  buildRequest,
  type CallFacts,
  type Credentials,
  type Dialect,
  type ReadReply as DialectReadReply,
  readReply as readDialectReply,
  type SignedRequest,
  type SignOptions,
} from '../dialects/index.ts';
import { VERSION } from '../version.ts';
import type { Exchange, WebhookClient } from './client.ts';

/*
 * verify's requests under a vendor dialect: built and signed by `buildRequest` exactly as the
 * engine sends them, to `<base URL><path>`, and the forgeries the signature checks need (no
 * signature, keys the wallet does not know, the signature of another request) made from the same
 * recipe, wherever the dialect places its signature (a header, a body field, a query parameter).
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
    if (forgery.unsigned) return buildRequest({ ...this.dialect, signing: { algorithm: 'none' } }, facts, this.credentials);
    const credentials = forgery.wrongKeys ? wrongKeys(this.dialect, this.credentials) : this.credentials;
    const own = buildRequest(this.dialect, facts, credentials, this.signOptions);
    if (!forgery.signatureOf) return own;
    const other = buildRequest(this.dialect, forgery.signatureOf, credentials, this.signOptions);
    const signature = placedSignature(this.dialect, other);
    return signature === undefined ? own : withSignature(this.dialect, own, signature);
  }

  /** Sends one call and records it. */
  async call(label: string, facts: CallFacts, forgery: DialectForgery = {}): Promise<Exchange> {
    const req = this.request(facts, forgery);
    const url = joinUrl(this.baseUrl, req.path);
    const exchange = await this.recorder.exchange(label, {
      method: req.method,
      url,
      headers: { ...req.headers, 'user-agent': `aggmock/${VERSION} (verify)` },
      body: req.body ?? '',
    });
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

/** The credentials with every key that makes the signature replaced by one the wallet does not know. */
export function wrongKeys(dialect: Dialect, credentials: Credentials): Credentials {
  const recipe = dialect.signing;
  if (!('payload' in recipe)) return credentials;
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

/** The signature a signed request carries, where its recipe places it. */
function placedSignature(dialect: Dialect, req: SignedRequest): string | undefined {
  const recipe = dialect.signing;
  if (!('place' in recipe)) return undefined;
  const place = recipe.place;
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
function withSignature(dialect: Dialect, req: SignedRequest, signature: string): SignedRequest {
  const recipe = dialect.signing;
  if (!('place' in recipe)) return req;
  const place = recipe.place;
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
