import { type IncomingMessage, ServerResponse } from 'node:http';
import { type AuthCheck, type AuthResult, acceptedAuth, authCheck, type SignatureParts } from '../auth/index.ts';
import type { AggmockConfig } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';
import { exposureOf } from '../http/exposure.ts';
import { isCrossSiteRequest } from '../http/same-origin.ts';
import {
  type AuthVerdict,
  credentialMasker,
  type FiredFault,
  type HeldCall,
  journaledReplyLimit,
  MAX_JOURNALED_REPLY_BODY,
  MAX_JOURNALED_REQUEST_BODY,
  maskedBody,
  maskedQuery,
  type NewJournaledRequest,
  type RequestJournal,
  refusalHint,
  sameStrings,
} from '../requests/index.ts';
import { maskedText } from '../shared/secrets.ts';

/**
 * The journaling half of the client's view of the aggregator API (src/aggregator/client-faults.ts
 * wires it with the faults half, faults.ts): every request watched by its {@link JournaledResponse},
 * and at its close an entry (credentials masked, bodies bounded, the auth verdict and the reply)
 * pushed onto the journal's queue. Entries built from parts reused while a client repeats them.
 */
export interface JournalRecorder {
  /** The response's 'close' listener: one function for every request, with the response as `this`. */
  onClose: (this: ServerResponse) => void;
  /** A call's entry as its response stands now (at its close, or while a fault holds it). */
  entryOf: (
    res: JournaledResponse,
    status: number | null,
    accepted: AuthResult | undefined,
    latencyMs: number,
  ) => NewJournaledRequest;
}

export function journalRecorder(config: AggmockConfig, journal: RequestJournal, now: () => number): JournalRecorder {
  // The journal always shows what aggmock expected to be signed, whatever `auth.explain` says for the 401 body.
  const check = authCheck({ ...config.auth, explain: true }, now, exposureOf(config));
  const mask = credentialMasker([
    ...config.auth.apiKeyHeaders,
    config.auth.signing.headers.signature,
    config.auth.signing.headers.webhookSignature,
  ]);
  const replyText = replyTextReuse();
  const okVerdict = acceptedVerdictReuse();

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
    const sent = replyText(res, journaledReplyLimit(status));
    // A refusal may quote the request (a malformed body, a field's value): masked like the request.
    const text = sent !== null && status !== null && status >= 400 ? maskedBody(sent) : sent;
    const { target, queryAt: q, requestBody: body, fired } = res;
    const method = req.method ?? 'GET';
    const pathname = q < 0 ? target : target.slice(0, q);
    return {
      at: res.arrivedAt,
      method,
      path: pathname,
      query: q < 0 ? NO_QUERY : maskedQuery(target.slice(q + 1)),
      headers: mask(req.headers, req.rawHeaders),
      body: body === undefined ? null : journaledBody(body),
      bodyBytes: body?.byteLength ?? Number(req.headers['content-length'] ?? 0),
      auth: res.operatorAuth ?? (accepted ? okVerdict(accepted) : verdict(check, method, req, target, body)),
      status,
      reply: text,
      replyBytes: res.writtenBytes,
      complete: res.writableFinished,
      latencyMs,
      fault: fired ? firedFault(fired) : null,
      hint: maskedHint(refusalHint(method, pathname, status, text)),
      ...(isCrossSiteRequest(req.headers) ? { crossSite: true as const } : {}),
    };
  }

  return { onClose: journalOnClose, entryOf };
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
export function watch(res: ServerResponse, target: string, queryAt: number, arrivedAt: number): JournaledResponse | undefined {
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
export function latencyOf(res: JournaledResponse): number {
  return Math.round((performance.now() - res.startedAt) * 1000) / 1000;
}

/** A request body as journaled: credential-like fields masked, then cut at {@link MAX_JOURNALED_REQUEST_BODY}. */
function journaledBody(body: Buffer): string {
  const text = maskedBody(body.toString('utf8'));
  return text.length > MAX_JOURNALED_REQUEST_BODY ? text.slice(0, MAX_JOURNALED_REQUEST_BODY) : text;
}

function maskedHint(hint: string | null): string | null {
  return hint === null ? null : maskedText(hint);
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

/**
 * A request no check accepted, judged again for the journal: the error and what it should have
 * signed — the signed string's prefix (query credentials masked) and the body's SHA-256 and length,
 * never the body itself (it may be a MiB, sent by anyone, and hold credentials).
 */
function verdict(check: AuthCheck, method: string, req: IncomingMessage, target: string, body: Buffer | undefined): AuthVerdict {
  const result = check(method, `http://localhost${target}`, body ?? EMPTY, (name) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  });
  if (!(result instanceof ApiError)) return { ok: true, ...result };
  const extra = result.extra as { error?: string; reason?: string; explain?: Partial<SignatureParts> };
  const parts = extra.explain;
  return {
    ok: false,
    error: extra.error ?? 'UNAUTHORIZED',
    message: result.message,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(parts?.signedPrefix === undefined
      ? {}
      : { signedPrefix: parts.signedPrefix, bodySha256: parts.bodySha256 as string, bodyBytes: parts.bodyBytes as number }),
  };
}

const EMPTY = new Uint8Array();
