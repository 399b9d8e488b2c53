import { type IncomingMessage, ServerResponse } from 'node:http';
import { type AuthCheck, type AuthResult, acceptedAuth, authCheck } from '../auth/index.ts';
import { type Catalog, findGame, findProvider } from '../catalog/index.ts';
import { type AggmockConfig, type Fault, MAX_DRIP_MS, MAX_FAULT_HOLD_MS, routePath } from '../config/index.ts';
import { parseJsonBytes } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import type { LaunchSessions } from '../launch/sessions.ts';
import {
  type AuthVerdict,
  credentialMasker,
  type FaultRules,
  type FiredFault,
  type HeldCall,
  journaledReplyLimit,
  MAX_JOURNALED_REPLY_BODY,
  MAX_JOURNALED_REQUEST_BODY,
  maskedBody,
  maskedQuery,
  type NewJournaledRequest,
  type RequestFacts,
  type RequestJournal,
  refusalHint,
  sameStrings,
} from '../requests/index.ts';
import type { Intercept } from '../server.ts';

export interface ClientFaultsDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  rules: FaultRules;
  journal: RequestJournal;
  /** The app's own fetch: a fault that bends the real reply (cut, drip, malformed, expired link) renders it through it. */
  fetch: (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => Response | Promise<Response>;
  now?: () => number;
  /** The facts of a vendor operator route (its own field names), or undefined for any other request. */
  requestFacts?:
    | ((method: string, path: string, query: string, body: Buffer | undefined) => RequestFacts | undefined)
    | undefined;
}

/**
 * What the integrator's client meets on the aggregator API, in the Node listener before the fast
 * path and Hono: every request is journaled (credentials masked, bodies bounded, the auth verdict
 * and the reply), and a fault rule that fires bends or replaces the reply. With no rule set, a
 * GET costs a look at its path, a few fields set on its response ({@link JournaledResponse}, which
 * the server creates for every request and which counts what is written in those fields), one
 * shared 'close' listener, and at the close its entry (built from parts reused while a client
 * repeats them) pushed onto the journal's queue, written at the next batch; a POST's body is read
 * here once and handed on as `req.rawBody`.
 * aggmock's own pages, assets and admin API are neither journaled nor faulted.
 *
 * @example listen(app, { port, host, fastPath, intercept: clientFaults({ config, catalog, sessions, rules, journal, fetch: app.fetch }) })
 */
export function clientFaults(deps: ClientFaultsDeps): Intercept {
  const { config, rules, journal } = deps;
  const now = deps.now ?? Date.now;
  // The journal always shows the string aggmock expected to be signed, whatever `auth.explain` says for the 401 body.
  const check = authCheck({ ...config.auth, explain: true }, now);
  const mask = credentialMasker([
    ...config.auth.apiKeyHeaders,
    config.auth.signing.headers.signature,
    config.auth.signing.headers.webhookSignature,
  ]);
  const maxBody = config.limits.bodyBytes;
  const replyText = replyTextReuse();
  const okVerdict = acceptedVerdictReuse();

  const journaling = config.api.journal;

  /**
   * The last call journaled and what it was built from, while a call like it could repeat it: one
   * with no body, no fault, a reply sent from one buffer and credentials a check accepted.
   */
  let last: RepeatableCall | undefined;

  /**
   * The response's 'close' (sent to the end, cut, or the client gone): its entry, from what the
   * response recorded. One function for every request, with the response as `this`, so a request
   * adds no closure; the entry holds plain values only (see RequestJournal.append). A call that
   * repeats the last one (the same method, target, raw headers, credentials and reply bytes: a
   * client polling a listing) has the same entry in all but its arrival and latency, so it is
   * queued as like that entry without building one.
   */
  function journalOnClose(this: ServerResponse): void {
    const res = this as JournaledResponse;
    const req = res.req;
    const status = res.headersSent ? res.statusCode : null;
    const accepted = acceptedAuth(req);
    const latencyMs = latencyOf(res);
    const repeatable =
      accepted !== undefined && res.fired === undefined && res.requestBody === undefined && res.head === undefined;
    if (repeatable && last !== undefined && repeats(last, res, status, accepted)) {
      journal.appendLike(last.entry, res.arrivedAt, latencyMs);
      return;
    }
    const entry = entryOf(res, status, accepted, latencyMs);
    if (res.held !== undefined) {
      journal.settle(res.held, entry);
      last = undefined;
      return;
    }
    journal.append(entry);
    last = repeatable
      ? {
          entry,
          method: entry.method,
          target: res.target,
          raw: req.rawHeaders,
          accepted,
          status,
          source: res.firstChunk,
          bytes: res.writtenBytes,
          complete: res.writableFinished,
        }
      : undefined;
  }

  /** A call's entry as its response stands now (at its close, or while a fault holds it). */
  function entryOf(
    res: JournaledResponse,
    status: number | null,
    accepted: AuthResult | undefined,
    latencyMs: number,
  ): NewJournaledRequest {
    const req = res.req;
    const text = replyText(res, journaledReplyLimit(status));
    const { target, queryAt: q, requestBody: body, fired } = res;
    const method = req.method ?? 'GET';
    const pathname = q < 0 ? target : target.slice(0, q);
    return {
      at: res.arrivedAt,
      method,
      path: pathname,
      query: q < 0 ? NO_QUERY : maskedQuery(target.slice(q + 1)),
      headers: mask(req.headers, req.rawHeaders),
      body: body === undefined ? null : journaledBody(body, req.headers['content-type']),
      bodyBytes: body?.byteLength ?? Number(req.headers['content-length'] ?? 0),
      auth: res.operatorAuth ?? (accepted ? okVerdict(accepted) : verdict(check, method, req, target, body)),
      status,
      reply: text,
      replyBytes: res.writtenBytes,
      complete: res.writableFinished,
      latencyMs,
      fault: fired ? firedFault(fired) : null,
      hint: refusalHint(method, pathname, status, text),
    };
  }

  const intercept: Intercept = (req, res, proceed) => {
    // Journal off and no rule set: nothing to do, not even a look at the path.
    if (!journaling && rules.size === 0) return proceed();
    const target = req.url ?? '/';
    if (isOwnPath(target)) return proceed();
    const method = req.method ?? 'GET';
    const q = target.indexOf('?');
    const watched = journaling ? watch(res, target, q, now()) : undefined;
    if (watched) watched.on('close', journalOnClose);
    const withBody = hasReadableBody(req, method, maxBody);
    if (!withBody && rules.size === 0) return proceed();

    const decide = (body: Buffer | undefined) => {
      if (rules.size === 0) return proceed();
      const route = routePath(q < 0 ? target : target.slice(0, q));
      if (!rules.mayMatch(method, route)) return proceed();
      const vendorFacts = deps.requestFacts?.(method, route, q < 0 ? '' : target.slice(q + 1), body);
      const fired = rules.fire(vendorFacts ?? factsOf(deps.catalog, method, route, target, q, body));
      if (!fired) return proceed();
      if (watched) {
        watched.fired = fired;
        // On record at once, as it stands: a test that counts right after its client gave up on a
        // held call finds it, before aggmock has seen the connection close.
        watched.held = journal.appendHeld(entryOf(watched, null, acceptedAuth(req), latencyOf(watched)));
      }
      applyFault(deps, fired, req, res, body, proceed);
    };

    if (withBody) {
      readWholeBody(req, (read) => {
        if (read === undefined) return; // The client went away mid-body: nothing to answer.
        if (watched) watched.requestBody = read;
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = read;
        decide(read);
      });
      return;
    }
    decide(undefined);
  };
  intercept.ServerResponse = JournaledResponse as unknown as typeof ServerResponse;
  return intercept;
}

/**
 * The response the API's server creates for every request: while the journal watches it, it
 * records what is written — the bytes, the one buffer a cached listing is sent from, the head of
 * anything else — in its own fields, so watching a reply patches nothing and allocates nothing per
 * request (patching `write` and `end` on each response, with closures, was a measurable part of
 * the journal's cost on the listings fast path). Unwatched (aggmock's own pages), it is a plain
 * ServerResponse.
 */
export class JournaledResponse extends ServerResponse {
  // Set in the constructor, so they are held in the object itself: watching a reply adds no property to it.
  /** Whether the journal watches this reply. */
  watched = false;
  /** The request target as sent, and where its query starts (-1: none). */
  target = '';
  queryAt = -1;
  /** When the request arrived (epoch ms, the injected clock) and performance.now() then, for the latency. */
  arrivedAt = 0;
  startedAt = 0;
  /** The body the intercept read, the fault rule that fired, and its call as journaled while in progress. */
  requestBody: Buffer | undefined = undefined;
  fired: FiredFault | undefined = undefined;
  held: HeldCall | undefined = undefined;
  /** A vendor operator route's own verdict on the caller (src/aggregator/vendor), instead of the seed API's auth. */
  operatorAuth: AuthVerdict | undefined = undefined;
  /** What was written: the bytes, how many writes, the first chunk's buffer, the head kept for the journal. */
  writtenBytes = 0;
  writes = 0;
  firstChunk: Uint8Array | undefined = undefined;
  head: Buffer[] | undefined = undefined;
  headBytes = 0;
}

const { write: plainWrite, end: plainEnd } = ServerResponse.prototype;
// On the prototype, once: a watched response notes each chunk, then writes as node:http does.
JournaledResponse.prototype.write = function write(this: JournaledResponse, chunk: unknown, encoding?: unknown, cb?: unknown) {
  if (this.watched) noteWritten(this, chunk);
  return (plainWrite as (chunk: unknown, encoding?: unknown, cb?: unknown) => boolean).call(this, chunk, encoding, cb);
} as typeof JournaledResponse.prototype.write;
JournaledResponse.prototype.end = function end(this: JournaledResponse, chunk?: unknown, encoding?: unknown, cb?: unknown) {
  if (this.watched) noteWritten(this, chunk);
  return (plainEnd as (chunk?: unknown, encoding?: unknown, cb?: unknown) => ServerResponse).call(this, chunk, encoding, cb);
} as typeof JournaledResponse.prototype.end;

/** Starts watching a response (one the API's server created as a {@link JournaledResponse}). */
function watch(res: ServerResponse, target: string, queryAt: number, arrivedAt: number): JournaledResponse | undefined {
  if (!(res instanceof JournaledResponse)) return undefined;
  res.watched = true;
  res.target = target;
  res.queryAt = queryAt;
  res.arrivedAt = arrivedAt;
  res.startedAt = performance.now();
  return res;
}

function noteWritten(res: JournaledResponse, chunk: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
  if (res.writes++ === 0 && typeof chunk !== 'string') {
    // The common case, a reply sent from one buffer: kept by reference, nothing copied or cut.
    res.firstChunk = bytes;
    res.writtenBytes = bytes.byteLength;
    return;
  }
  if (res.head === undefined) {
    res.head = [];
    if (res.firstChunk !== undefined) keepHead(res, res.firstChunk);
  }
  res.writtenBytes += bytes.byteLength;
  keepHead(res, bytes);
}

function keepHead(res: JournaledResponse, bytes: Uint8Array): void {
  if (res.headBytes >= MAX_JOURNALED_REPLY_BODY) return;
  const part = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, MAX_JOURNALED_REPLY_BODY - res.headBytes));
  (res.head as Buffer[]).push(part);
  res.headBytes += part.byteLength;
}

function firedFault(fired: FiredFault): NonNullable<NewJournaledRequest['fault']> {
  return {
    ruleId: fired.ruleId,
    kind: fired.fault.kind,
    ...(fired.delayMs === undefined ? {} : { delayMs: fired.delayMs }),
  };
}

/** How long the call has taken so far, in ms to the microsecond. */
function latencyOf(res: JournaledResponse): number {
  return Math.round((performance.now() - res.startedAt) * 1000) / 1000;
}

/** A request body as journaled: credential-like fields masked, then cut at {@link MAX_JOURNALED_REQUEST_BODY}. */
function journaledBody(body: Buffer, contentType: string | undefined): string {
  const text = maskedBody(body.toString('utf8'), contentType);
  return text.length > MAX_JOURNALED_REQUEST_BODY ? text.slice(0, MAX_JOURNALED_REQUEST_BODY) : text;
}

/** What a journaled call's entry was built from, for {@link repeats}. */
interface RepeatableCall {
  entry: NewJournaledRequest;
  method: string;
  target: string;
  /** The raw header names and values (the masked headers are made from them alone). */
  raw: readonly string[];
  accepted: AuthResult;
  status: number | null;
  /** The one buffer the reply was sent from, and its length. */
  source: Uint8Array | undefined;
  bytes: number;
  complete: boolean;
}

/**
 * Whether a call without a body or a fault, answered from one buffer with accepted credentials,
 * would have the same entry as `last` but for its arrival and latency: everything the entry is
 * made of is the same (its query and path from the target, its masked headers and length from the
 * raw headers, its verdict from the credentials, its reply text and hint from the status and bytes).
 */
function repeats(last: RepeatableCall, res: JournaledResponse, status: number | null, accepted: AuthResult): boolean {
  return (
    res.firstChunk === last.source &&
    res.writtenBytes === last.bytes &&
    status === last.status &&
    res.writableFinished === last.complete &&
    res.target === last.target &&
    res.req.method === last.method &&
    sameAcceptance(accepted, last.accepted) &&
    sameStrings(res.req.rawHeaders, last.raw)
  );
}

/** aggmock's own surfaces: pages, assets, docs, health and the admin API are not the client's API calls. */
function isOwnPath(target: string): boolean {
  return (
    target === '/' ||
    target.startsWith('/?') ||
    target.startsWith('/__admin') ||
    target.startsWith('/assets/') ||
    target.startsWith('/play/') ||
    target.startsWith('/ui') ||
    target.startsWith('/docs') ||
    target === '/openapi.json' ||
    target === '/health' ||
    target === '/favicon.ico'
  );
}

/** A body this layer reads up front: declared with a length within the limit (anything else Hono reads and refuses as always). */
function hasReadableBody(req: IncomingMessage, method: string, maxBody: number): boolean {
  if (method === 'GET' || method === 'HEAD' || req.headers['transfer-encoding'] !== undefined) return false;
  const declared = Number(req.headers['content-length']);
  return declared > 0 && declared <= maxBody;
}

function readWholeBody(req: IncomingMessage, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let settled = false;
  const finish = (body: Buffer | undefined) => {
    if (settled) return;
    settled = true;
    done(body);
  };
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => finish(Buffer.concat(chunks)));
  req.on('error', () => finish(undefined));
  req.on('close', () => finish(undefined));
}

/** The facts a rule matches on: the listing's provider from the query; the launch's game, player and game provider from the body. */
function factsOf(
  catalog: Catalog,
  method: string,
  path: string,
  target: string,
  q: number,
  body: Buffer | undefined,
): RequestFacts {
  const facts: RequestFacts = { method, path };
  if (q >= 0) {
    const provider = new URLSearchParams(target.slice(q + 1)).get('provider');
    if (provider !== null) facts.provider = findProvider(catalog, provider)?.code ?? provider;
  }
  if (body !== undefined) {
    // A body that is not JSON (a form) has no JSON facts; the route refuses it, a rule still matches by path.
    let json: unknown;
    try {
      json = parseJsonBytes(body);
    } catch {
      json = undefined;
    }
    facts.body = json;
    if (json !== null && typeof json === 'object') {
      const { gameId, username } = json as { gameId?: unknown; username?: unknown };
      if (typeof gameId === 'string') {
        facts.game = gameId;
        facts.provider ??= findGame(catalog, gameId)?.provider;
      }
      if (typeof username === 'string') facts.player = username;
    }
  }
  return facts;
}

const NO_QUERY: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The verdict of credentials a route or the fast path accepted ({@link acceptedAuth}): the same
 * object while they are the same, so the journal writes its JSON once for a run of calls.
 */
function acceptedVerdictReuse(): (accepted: AuthResult) => AuthVerdict {
  let last: AuthVerdict | undefined;
  let lastAccepted: AuthResult | undefined;
  return (accepted) => {
    if (last === undefined || !sameAcceptance(accepted, lastAccepted as AuthResult)) {
      last = { ok: true, ...accepted };
      lastAccepted = accepted;
    }
    return last;
  };
}

/** The same method, key header or secret (compared field by field: a key string built per request cost more than the rest of the entry). */
function sameAcceptance(a: AuthResult, b: AuthResult): boolean {
  if (a.method !== b.method) return false;
  if (a.method === 'api-key') return a.header === (b as typeof a).header;
  if (a.method === 'hmac') return a.secretIndex === (b as typeof a).secretIndex;
  return true;
}

/**
 * The journal's text of a reply, reused while the reply is the same bytes: a listing is sent from
 * one cached buffer call after call, so its head is decoded once, not per request.
 */
function replyTextReuse(): (res: JournaledResponse, limit: number) => string | null {
  let lastSource: Uint8Array | undefined;
  let lastLimit = 0;
  let lastText: string | null = null;
  return (res, limit) => {
    if (res.writtenBytes === 0) return null;
    if (res.head !== undefined) return Buffer.concat(res.head).subarray(0, limit).toString('utf8');
    const source = res.firstChunk as Uint8Array;
    if (source !== lastSource || limit !== lastLimit) {
      lastText = Buffer.from(source.buffer, source.byteOffset, Math.min(source.byteLength, limit)).toString('utf8');
      lastSource = source;
      lastLimit = limit;
    }
    return lastText;
  };
}

/** A request no check accepted, judged again for the journal: the error and the string it should have signed. */
function verdict(check: AuthCheck, method: string, req: IncomingMessage, target: string, body: Buffer | undefined): AuthVerdict {
  const result = check(method, `http://localhost${target}`, body ?? EMPTY, (name) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  });
  if (!(result instanceof ApiError)) return { ok: true, ...result };
  const extra = result.extra as { error?: string; reason?: string; explain?: { signedString?: string } };
  return {
    ok: false,
    error: extra.error ?? 'UNAUTHORIZED',
    message: result.message,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.explain?.signedString === undefined ? {} : { signedString: extra.explain.signedString }),
  };
}

const EMPTY = new Uint8Array();

/** Applies the fault that fired: answers, delays, holds or breaks the request. */
function applyFault(
  deps: ClientFaultsDeps,
  fired: FiredFault,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
  proceed: () => void,
): void {
  const fault = fired.fault;
  switch (fault.kind) {
    case 'delay': {
      const timer = setTimeout(proceed, fired.delayMs ?? 0);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    case 'status':
      sendError(
        res,
        new ApiError(
          fault.status as 400,
          fault.message ?? `Injected by aggmock fault rule ${fired.ruleId}: HTTP ${fault.status}.`,
          {
            ...(fault.retryAfter === undefined ? {} : { headers: { 'Retry-After': String(fault.retryAfter) } }),
          },
        ),
      );
      return;
    case 'maintenance': {
      // A provider the request names (its listing query, its game's provider): that provider is down; none: the whole API is.
      const provider = factsProvider(deps.catalog, req, body);
      const down = provider
        ? {
            message: `Provider ${provider} is under maintenance; try again later.`,
            extra: { error: 'PROVIDER_MAINTENANCE', provider },
          }
        : { message: 'The aggregator is under maintenance; try again later.', extra: { error: 'MAINTENANCE' } };
      sendError(
        res,
        new ApiError(503, fault.message ?? down.message, {
          extra: down.extra,
          headers: { 'Retry-After': String(fault.retryAfter ?? 60) },
        }),
      );
      return;
    }
    case 'empty':
      // Closed without a byte: the client's "empty reply from server" / "other side closed".
      req.socket.destroy();
      return;
    case 'reset':
      req.socket.resetAndDestroy();
      return;
    case 'timeout': {
      // Never answered; closed only when the client gives up, or after the hold cap so a socket is never held for ever.
      const timer = setTimeout(() => req.socket.destroy(), MAX_FAULT_HOLD_MS);
      timer.unref();
      res.once('close', () => clearTimeout(timer));
      return;
    }
    case 'cut':
    case 'drip':
    case 'malformed':
    case 'expired-link':
    case 'used-link':
      realReply(deps, req, res, body).then(
        (real) => bendReply(deps, fault, real, req, res),
        () =>
          sendError(res, new ApiError(500, 'aggmock could not render the reply a fault rule bends; the details are in its log.')),
      );
      return;
  }
}

function factsProvider(catalog: Catalog, req: IncomingMessage, body: Buffer | undefined): string | undefined {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  return factsOf(catalog, req.method ?? 'GET', routePath(target), target, q, body).provider;
}

function sendError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent) return void res.destroy();
  const bytes = Buffer.from(JSON.stringify(error.toBody()));
  res.writeHead(error.status, {
    ...error.headers,
    'content-type': 'application/json',
    'content-length': String(bytes.byteLength),
  });
  res.end(bytes);
}

interface RealReply {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
}

/** The reply the app would give, rendered through its own fetch (the same routes, bytes and headers). */
async function realReply(
  deps: ClientFaultsDeps,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
): Promise<RealReply> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit = { method, headers };
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = new Uint8Array(body);
  const response = await deps.fetch(new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init), {
    incoming: req,
    outgoing: res,
  });
  const replyHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') replyHeaders[name] = value;
  });
  return { status: response.status, headers: replyHeaders, bytes: Buffer.from(await response.arrayBuffer()) };
}

function bendReply(deps: ClientFaultsDeps, fault: Fault, real: RealReply, req: IncomingMessage, res: ServerResponse): void {
  if (res.destroyed) return;
  const { bytes } = real;
  switch (fault.kind) {
    case 'cut': {
      const keep = Math.min(fault.afterBytes ?? Math.floor(bytes.byteLength / 2), bytes.byteLength);
      // The full length announced, part of it sent: the client sees the body end early.
      res.writeHead(real.status, { ...real.headers, 'content-length': String(bytes.byteLength) });
      res.write(bytes.subarray(0, keep), () => req.socket.destroy());
      return;
    }
    case 'malformed': {
      // A JSON object cut short is never valid JSON; the length matches, so only the parser fails.
      // Without the real reply's validators: a caching client must not keep these bytes under its ETag.
      const broken = bytes.byteLength < 2 ? Buffer.from('{') : bytes.subarray(0, Math.floor(bytes.byteLength / 2));
      const { etag: _etag, 'last-modified': _modified, ...headers } = real.headers;
      res.writeHead(real.status, { ...headers, 'cache-control': 'no-store', 'content-length': String(broken.byteLength) });
      res.end(broken);
      return;
    }
    case 'drip': {
      const chunks = Math.ceil(bytes.byteLength / fault.chunkBytes);
      const interval = fault.intervalMs;
      // Past the cap, bigger chunks: the reply still ends within MAX_DRIP_MS.
      const chunkBytes =
        chunks * interval > MAX_DRIP_MS && interval > 0
          ? Math.ceil(bytes.byteLength / Math.max(1, Math.floor(MAX_DRIP_MS / interval)))
          : fault.chunkBytes;
      res.writeHead(real.status, { ...real.headers, 'content-length': String(bytes.byteLength) });
      let offset = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return void clearInterval(timer);
        const next = Math.min(offset + chunkBytes, bytes.byteLength);
        const part = bytes.subarray(offset, next);
        offset = next;
        if (offset >= bytes.byteLength) {
          clearInterval(timer);
          res.end(part);
        } else res.write(part);
      }, interval);
      res.once('close', () => clearInterval(timer));
      return;
    }
    case 'expired-link':
    case 'used-link': {
      if (real.status === 200) {
        const sessionId = (parseJsonBytes(bytes) as { payload?: { session_id?: unknown } } | undefined)?.payload?.session_id;
        if (typeof sessionId === 'string') {
          if (fault.kind === 'expired-link') deps.sessions.expire(sessionId);
          else deps.sessions.markUsed(sessionId);
        }
      }
      res.writeHead(real.status, { ...real.headers, 'content-length': String(bytes.byteLength) });
      res.end(bytes);
      return;
    }
    default:
      res.writeHead(real.status, { ...real.headers, 'content-length': String(bytes.byteLength) });
      res.end(bytes);
  }
}
