import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface RunningServer {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Answers a request itself and returns true, or leaves it untouched and returns false. A fast path
 * that must read the body before it knows may also return true and later call `handOff`, which
 * gives the request to Hono (with the body it read kept as `req.rawBody`, where the Node adapter
 * reads it).
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse, handOff: () => void) => boolean;

/** How long a connection may take, so slow clients (slowloris) cannot hold sockets open. */
export interface ServerTimeouts {
  /** Until the request's headers are complete (Node: headersTimeout). */
  headersMs: number;
  /** Until the whole request, body included, has arrived (Node: requestTimeout). */
  requestMs: number;
  /** How long an idle kept-alive connection stays open (Node: keepAliveTimeout). */
  keepAliveMs: number;
  /** How often Node checks the two above: a timeout fires at most this much late. */
  checkEveryMs: number;
}

/** Bodies are small (limits.bodyBytes): a client that needs longer than this is not sending one. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

/**
 * Sees every request before the fast path and Hono, and calls `proceed` to have it answered as
 * usual — or answers it itself (a fault on the aggregator API, src/aggregator/client-faults.ts).
 * It may watch the reply and read the body first (keeping it as `req.rawBody`).
 */
export type Intercept = ((req: IncomingMessage, res: ServerResponse, proceed: () => void) => void) & {
  /**
   * The response class the server creates for it (a subclass of node:http's ServerResponse): one
   * that watches what is written in its own fields, so watching a reply allocates nothing per request.
   */
  ServerResponse?: typeof ServerResponse;
};

/**
 * Listens with `app.fetch` on host:port (port 0 picks a free one) and resolves once bound.
 * `fastPath` sees each request first and may answer it itself (returning true) before Hono's
 * adapter builds a Request; see src/aggregator/fast-path.ts.
 */
export function listen(
  app: { fetch: Parameters<typeof serve>[0]['fetch'] },
  options: { port: number; host: string; fastPath?: FastPath; intercept?: Intercept; timeouts?: Partial<ServerTimeouts> },
): Promise<RunningServer> {
  const { fastPath, intercept } = options;
  const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts };
  // Every server aggmock starts (API, reference wallet) closes slow connections the same way.
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkEveryMs,
  };
  const withFastPath =
    fastPath || intercept
      ? {
          createServer: ((serverOptions: object, listener: RequestListener) => {
            const dispatch = (req: IncomingMessage, res: ServerResponse) => {
              if (!fastPath || !answered(fastPath, req, res, () => listener(req, res))) listener(req, res);
            };
            const options = intercept?.ServerResponse
              ? { ...serverOptions, ServerResponse: intercept.ServerResponse }
              : serverOptions;
            return createServer(options, (req, res) => {
              if (intercept) intercept(req, res, () => dispatch(req, res));
              else dispatch(req, res);
            });
          }) as typeof createServer,
        }
      : {};
  const serveOptions = { fetch: app.fetch, port: options.port, hostname: options.host, serverOptions, ...withFastPath };
  return new Promise((resolve, reject) => {
    const server = serve(serveOptions, (info: AddressInfo) => {
      server.off('error', reject);
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            // Idle keep-alive sockets would hold close() open; end them first.
            (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
            server.close(() => done());
            setTimeout(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(), 2_000).unref();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** Did the fast path answer? A throw before it wrote anything hands the request to Hono instead of crashing. */
function answered(fastPath: FastPath, req: IncomingMessage, res: ServerResponse, handOff: () => void) {
  try {
    return fastPath(req, res, handOff);
  } catch {
    if (res.headersSent) res.destroy();
    return res.headersSent;
  }
}
