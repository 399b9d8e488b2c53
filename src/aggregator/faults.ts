import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Catalog, findGame, findProvider } from '../catalog/index.ts';
import { type Fault, MAX_DRIP_MS, MAX_FAULT_HOLD_MS, routePath } from '../config/index.ts';
import { parseJsonBytes } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import type { LaunchSessions } from '../launch/sessions.ts';
import type { FiredFault, RequestFacts } from '../requests/index.ts';

/**
 * The faults half of the client's view of the aggregator API (src/aggregator/client-faults.ts wires
 * it with the journaling half, journaling.ts): what a fault rule that fired does to a request — it
 * answers, delays, holds or breaks it, or bends the real reply rendered through the app's fetch.
 */
export interface FaultDeps {
  catalog: Catalog;
  sessions: LaunchSessions;
  /** The app's own fetch: a fault that bends the real reply (cut, drip, malformed, expired link) renders it through it. */
  fetch: (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => Response | Promise<Response>;
}

/** The facts a rule matches on: the listing's provider from the query; the launch's game, player and game provider from the body. */
export function factsOf(
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

/** Applies the fault that fired: answers, delays, holds or breaks the request. */
export function applyFault(
  deps: FaultDeps,
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
    case 'status': {
      const message = fault.message ?? `Injected by aggmock fault rule ${fired.ruleId}: HTTP ${fault.status}.`;
      const retry = fault.retryAfter === undefined ? {} : { headers: { 'Retry-After': String(fault.retryAfter) } };
      sendError(res, new ApiError(fault.status as 400, message, retry));
      return;
    }
    case 'maintenance': {
      // A provider the request names (its listing query, its game's provider): that provider is down; none: the whole API is.
      const provider = factsProvider(deps.catalog, req, body);
      const down = provider
        ? {
            message: `Provider ${provider} is under maintenance; try again later.`,
            extra: { error: 'PROVIDER_MAINTENANCE', provider },
          }
        : { message: 'The aggregator is under maintenance; try again later.', extra: { error: 'MAINTENANCE' } };
      const headers = { 'Retry-After': String(fault.retryAfter ?? 60) };
      sendError(res, new ApiError(503, fault.message ?? down.message, { extra: down.extra, headers }));
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
  deps: FaultDeps,
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

function bendReply(deps: FaultDeps, fault: Fault, real: RealReply, req: IncomingMessage, res: ServerResponse): void {
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
    case 'used-link':
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
    default:
      res.writeHead(real.status, { ...real.headers, 'content-length': String(bytes.byteLength) });
      res.end(bytes);
  }
}
