import { hash } from 'node:crypto';
import { credentialsOf, dialectOf, shownRequest, signOptionsOf } from '../config/index.ts';
import { marksFreeBets } from '../dialects/capabilities.ts';
import {
  buildRequest,
  type CallFacts,
  devSessionToken,
  needsMessageId,
  type Operation,
  readsAttemptFacts,
  type SignedRequest,
  type SignOptions,
  schemeSigned,
  serialisedRequest,
  signsInHeaders,
  takesWholeRounds,
  unsignedRequest,
  withoutVendorSignature,
} from '../dialects/index.ts';
import { currencyExponent, DEFAULT_EXPONENT, type ExtraCurrencies } from '../money/index.ts';
import { VERSION } from '../version.ts';
import { type CallbacksConfig, operationOf, type StoredEvent, type StoredFacts } from './events.ts';
import type { DialectReading } from './reply.ts';

export { operationOf };

/*
 * An outbox event as a call under the configured dialect (ARCHITECTURE.md, "Dialects: the design"):
 * its facts, and the HTTP request they make — signed afresh on every attempt (but one the request
 * stored with its event stands for: `attemptRequest`), to `<base URL><path>`. `default` and
 * `betnex` are dialects whose path is "" (the webhook URL itself), so one path serves every wire.
 */

/** `User-Agent` of every callback. */
export const USER_AGENT = `aggmock/${VERSION}`;

/** What the wire can send, asked of the dialect. */
export interface CallCapabilities {
  name: string;
  hasRollback: boolean;
  /** Whether a DEBIT may carry its win (a whole round in one call). */
  roundBody: boolean;
  /** 'original': a ROLLBACK carries the reversed DEBIT's id as its own; 'reference': an id of its own. */
  rollbackStyle: 'original' | 'reference';
  /** Whether a win carries the transaction id of the bet it settles (the dialect's betTransactionId). */
  winsNameTheirBet: boolean;
  /** Whether a bet marks itself free (the dialect writes the bonus kind in a bet). */
  freeBets: boolean;
  /** The dialect's operations. */
  operations: readonly Operation[];
}

const capabilities = new WeakMap<object, CallCapabilities>();

/** What the configured dialect can send, worked out once per dialect. */
export function capabilitiesOf(cfg: CallbacksConfig): CallCapabilities {
  const dialect = dialectOf(cfg);
  let found = capabilities.get(dialect);
  if (!found) {
    found = Object.freeze({
      name: dialect.name,
      hasRollback: dialect.operations.rollback !== undefined,
      roundBody: takesWholeRounds(dialect),
      rollbackStyle: dialect.calls.rollbackStyle,
      winsNameTheirBet: dialect.calls.winsNameBet,
      freeBets: marksFreeBets(dialect),
      operations: Object.freeze(Object.keys(dialect.operations) as Operation[]),
    });
    capabilities.set(dialect, found);
  }
  return found;
}

/** Gives the facts the configured currencies ISO 4217 does not list, when there are any (BTC's 8 decimals). */
export function withCurrencies<T extends { currencies?: ExtraCurrencies | undefined }>(
  facts: T,
  currencies: ExtraCurrencies | undefined,
): T {
  for (const _ in currencies) {
    facts.currencies = currencies;
    break;
  }
  return facts;
}

/** The facts of an event: its stored facts (requestId, session token…) over what its columns say. */
export function callFactsOf(event: Omit<StoredEvent, 'id'>, cfg: CallbacksConfig): CallFacts {
  const stored = event.facts;
  const facts: CallFacts = {
    operation: stored?.operation ?? operationOf(event.kind, dialectOf(cfg), event.winMinor),
    playerId: event.playerId,
    currency: event.currency ?? cfg.currency,
    transactionId: event.transactionId,
    betTransactionId: event.referenceTransactionId,
    amountMinor: event.amountMinor,
    winMinor: event.winMinor,
    roundId: event.roundId,
    gameId: event.gameId,
    createdAt: event.createdAt,
  };
  if (stored) {
    const into = facts as unknown as Record<string, unknown>;
    for (const key of Object.keys(stored)) {
      const value = stored[key as keyof StoredFacts];
      if (value !== undefined) into[key] = value;
    }
  }
  if (facts.sessionToken === undefined) facts.sessionToken = sessionTokenOf(cfg, event.playerId);
  withCurrencies(facts, cfg.currencies);
  return facts;
}

/**
 * The session token a call of `playerId` carries when its request names none (a scheduled
 * scenario, `aggmock send` without --token): the configured one, else, on a dialect whose calls
 * carry tokens, the development token `aggmock wallet` issues every player. A launch's own token
 * (`/getgameurl` with `token`) is named by the request and wins over both.
 */
export function sessionTokenOf(cfg: CallbacksConfig, playerId: string): string | undefined {
  if (Object.hasOwn(cfg.sessionTokens, playerId)) return cfg.sessionTokens[playerId];
  const dialect = dialectOf(cfg);
  if (dialect.session.token === 'none') return undefined;
  return devSessionToken(playerId, dialect);
}

/** The request of a call, signed now (timestamped schemes get `signedAt`'s seconds). */
export function renderCall(
  cfg: CallbacksConfig,
  facts: CallFacts,
  sign: { signedAt: number; messageId?: string | undefined },
): SignedRequest {
  return buildRequest(dialectOf(cfg), facts, credentialsOf(cfg), signOptionsAt(cfg, sign.signedAt, sign.messageId));
}

/** The options a call is signed with at `signedAt` (ms epoch): the configured scheme, its seconds, a message id. */
function signOptionsAt(cfg: CallbacksConfig, signedAt: number, messageId: string | undefined): SignOptions {
  return { scheme: signOptionsOf(cfg).scheme, timestamp: Math.floor(signedAt / 1000), id: messageId };
}

/**
 * The request a new event was stored with, by the event while it is in memory, when every attempt
 * of the call sends it (see {@link attemptRequest}): calls whose request reads none of an attempt's
 * own facts. Under aggmock's header schemes it is kept unsigned and each attempt signs it when sent;
 * under any other recipe it is kept signed (a vendor recipe signs the request alone, so its
 * signature is the same whenever it is made). Only the request is kept: keeping the rendering
 * behind it costs more garbage collection than rendering again.
 */
const storedRequests = new WeakMap<object, SignedRequest>();

/**
 * The request of a new call as its event keeps it (the body every attempt sends, method, path,
 * headers): without a signature that travels in a header, which each attempt makes when it is sent
 * (a signature in the body or the query is part of the bytes kept). Throws a DialectRequestError
 * when the dialect cannot make the call (a credential missing).
 */
export function storedRequest(event: object, cfg: CallbacksConfig, facts: CallFacts): SignedRequest {
  const dialect = dialectOf(cfg);
  const kept = !readsAttemptFacts(dialect, facts.operation);
  if (signsInHeaders(dialect) && (dialect.signing.algorithm === 'scheme' || !kept)) {
    const unsigned = serialisedRequest(unsignedRequest(dialect, facts, credentialsOf(cfg)));
    if (kept) storedRequests.set(event, unsigned);
    return unsigned;
  }
  const request = buildRequest(dialect, facts, credentialsOf(cfg), signOptionsAt(cfg, facts.createdAt, undefined));
  if (kept) storedRequests.set(event, request);
  const headers = withoutVendorSignature(dialect, request.headers);
  return headers === request.headers ? request : { ...request, headers };
}

/** One attempt's request: method, the URL under the event's base URL, headers (content type, agent, signature), body. */
export interface AttemptRequest {
  method: SignedRequest['method'];
  url: string;
  /** The path (with its query) under the base URL, "" for the webhook URL itself (`default`, `betnex`). */
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The same request as the journal keeps and shows it: credentials masked. */
  shown: { path: string; headers: Record<string, string>; body: string };
}

/**
 * The request of one attempt, signed at `startedAt`. The body is built from the same facts on every
 * attempt, so a retry carries the same ids (requestId, transaction id) and the call's own time as
 * the first try; what is fresh is the signature's timestamp and what a wire says is the attempt's
 * own (`sentTimestamp…`, a derived nonce: Slotegrator's X-Timestamp and X-Nonce), so a wallet that
 * checks freshness does not refuse a late retry. `default` and `betnex` use neither: their retries
 * are the same bytes. A call that reads no fact of the attempt's own sends the request its event
 * was stored with (signed now under aggmock's header schemes); any other is rendered afresh.
 */
export function attemptRequest(event: StoredEvent, cfg: CallbacksConfig, startedAt: number): AttemptRequest {
  const dialect = dialectOf(cfg);
  const messageId = needsMessageId(dialect, cfg.signing.scheme) ? webhookMessageId(event) : undefined;
  const options = signOptionsAt(cfg, startedAt, messageId);
  const stored = storedRequests.get(event);
  let req: SignedRequest;
  if (stored !== undefined) {
    // Signed now under aggmock's header schemes; a vendor recipe's request was signed alike when stored.
    req = dialect.signing.algorithm === 'scheme' ? schemeSigned(dialect, stored, options) : stored;
  } else {
    const facts = callFactsOf(event, cfg);
    facts.sentAt = startedAt;
    req = buildRequest(dialect, facts, credentialsOf(cfg), options);
  }
  // Content-Type and User-Agent first, then the dialect's headers and the signature, as rendered.
  const headers: Record<string, string> = {};
  const contentType = req.headers['content-type'];
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  headers['User-Agent'] = USER_AGENT;
  for (const name of Object.keys(req.headers)) if (name !== 'content-type') headers[name] = req.headers[name] as string;
  const body = req.body ?? '';
  return {
    method: req.method,
    url: urlUnder(event.url, req.path),
    path: req.path,
    headers,
    body,
    shown: shownRequest(cfg, { path: req.path, headers, body }),
  };
}

/**
 * `<base URL><path>`: a path under a base that ends in "/" does not double the slash, and a query the
 * base URL has stays a query (after the path, joined with the path's own).
 */
export function urlUnder(base: string, path: string): string {
  if (path === '') return base;
  const q = base.indexOf('?');
  const head = q < 0 ? base : base.slice(0, q);
  const baseQuery = q < 0 ? '' : base.slice(q + 1);
  const p = path.indexOf('?');
  const pathOnly = p < 0 ? path : path.slice(0, p);
  const pathQuery = p < 0 ? '' : path.slice(p + 1);
  const joined = head.endsWith('/') && pathOnly.startsWith('/') ? `${head}${pathOnly.slice(1)}` : `${head}${pathOnly}`;
  const query = [baseQuery, pathQuery].filter((x) => x !== '').join('&');
  return query === '' ? joined : `${joined}?${query}`;
}

/** The Standard Webhooks message id: stable for an event across retries and restarts. */
function webhookMessageId(event: StoredEvent): string {
  return `msg_${hash('sha256', `${event.id}:${event.createdAt}:${event.transactionId}`, 'hex').slice(0, 24)}`;
}

/**
 * How replies read under the configured dialect, in a currency (default the configured one), for a
 * call of `operation` (default a bet). The engine, the shadow ledger and the play page all ask here.
 */
export function readingOf(cfg: CallbacksConfig): (currency?: string, operation?: Operation) => DialectReading {
  const dialect = dialectOf(cfg);
  return (currency, operation) => ({ dialect, currency: currency ?? cfg.currency, operation, currencies: cfg.currencies });
}

/** How the reply to one event reads. */
export function replyReadingOf(cfg: CallbacksConfig, event: StoredEvent): DialectReading {
  return {
    dialect: dialectOf(cfg),
    currency: event.currency ?? cfg.currency,
    operation: callNameOf(cfg, event),
    currencies: cfg.currencies,
  };
}

/** The decimals of a currency's minor units (EUR 2, JPY 0, KWD 3; configured extras), whatever the wire writes. */
export function exponentOf(cfg: CallbacksConfig, currency?: string): number {
  return currencyExponent(currency ?? cfg.currency, cfg.currencies) ?? DEFAULT_EXPONENT;
}

/** The name a call goes by: the dialect's operation (bet, win, rollback, authenticate…). */
export function callNameOf(cfg: CallbacksConfig, event: Omit<StoredEvent, 'id'>): Operation {
  // What callFactsOf(event, cfg).operation says, without building the rest of the facts.
  return event.facts?.operation ?? operationOf(event.kind, dialectOf(cfg), event.winMinor);
}
