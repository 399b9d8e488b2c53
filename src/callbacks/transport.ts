import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import type { HttpAnswer } from './dispatcher.ts';
import { Connection, ConnectionError, InterruptedError, type Job, TimeoutError } from './transport-connection.ts';

export { ConnectionError, InterruptedError, TimeoutError };

/**
 * POSTs callbacks over persistent HTTP/1.1 connections: one request at a time per connection
 * (no pipelining: a POST is not idempotent), connections reused while the server keeps them.
 *
 * Why not node:http or fetch: on the 2-core benchmark machine a keep-alive node:http Agent costs
 * about five times the CPU per request of this client and fetch about fifteen times (last run:
 * ~220 µs, ~650 µs and ~40 µs; bench/callbacks.ts measures it, bench/results/callbacks.json
 * holds the figures). The engine's whole budget at 5,000 callbacks/s is 200 µs, so the client
 * decides whether the target is reachable at all. It speaks the part of HTTP/1.1 a webhook reply needs:
 * Content-Length, chunked and close-delimited bodies, 1xx interim replies, `Connection: close`.
 */
export interface Transport {
  /** Sends one request (POST unless `method` says otherwise: a query-string wire's GET carries no body). */
  post(url: string, headers: Record<string, string>, body: string, method?: string, timeoutMs?: number): Promise<HttpAnswer>;
  /** Destroys every request in flight (each rejects with an {@link InterruptedError}). */
  abortAll(reason: string): void;
  /** Closes idle connections; later posts open new ones. */
  close(): void;
}

export interface TransportOptions {
  /** Connections per origin; requests beyond it wait for a free one. */
  maxSockets: number;
  /** Per request, from sending to the last byte of the answer (a post may give its own). */
  timeoutMs: number;
  /** Each answer carries its headers and whether its body was cut (verify's recorder; the engine needs neither). */
  keepHeaders?: boolean;
  /** The setting a timeout's message names (default `callbacks.timeout`). */
  timeoutSetting?: string;
}

/** Parsed targets kept: a wire whose query differs per call would otherwise grow the map without end. */
const MAX_TARGETS = 1024;

export function createTransport(options: TransportOptions): Transport {
  const origins = new Map<string, Origin>();
  const targets = new Map<string, { origin: Origin; path: string }>();

  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') {
        throw new Error(`callbacks.webhookUrl must be http or https, got ${JSON.stringify(url)}`);
      }
      const key = `${u.protocol}//${u.host}`;
      let origin = origins.get(key);
      if (!origin) {
        origin = new Origin(u, options);
        origins.set(key, origin);
      }
      target = { origin, path: `${u.pathname || '/'}${u.search}` };
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  return {
    post(url, headers, body, method = 'POST', timeoutMs) {
      try {
        const target = targetOf(url);
        const request = serialise(method, target.origin.hostHeader, target.path, headers, body);
        return target.origin.request(request, timeoutMs, options.keepHeaders === true);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    abortAll(reason) {
      for (const origin of origins.values()) origin.abortAll(reason);
    },
    close() {
      for (const origin of origins.values()) origin.closeIdle();
    },
  };
}

const SAFE_HEADER = /^[^\r\n]*$/;

/** An idle connection older than this is closed instead of reused (below Node's 5 s keepAliveTimeout). */
export const MAX_IDLE_REUSE_MS = 4_000;

function serialise(method: string, host: string, path: string, headers: Record<string, string>, body: string): string {
  if (!/^[A-Z]+$/.test(method)) throw new Error(`the HTTP method ${JSON.stringify(method)} is not a method name`);
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name] as string;
    if (!SAFE_HEADER.test(name) || !SAFE_HEADER.test(value)) {
      throw new Error(`header ${JSON.stringify(name)} contains a line break; header names and values must be one line`);
    }
    head += `${name}: ${value}\r\n`;
  }
  if (method === 'GET' && body === '') return `${head}\r\n`;
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The connections to one scheme://host:port. */
class Origin {
  readonly hostHeader: string;
  private readonly connect: () => net.Socket;
  private readonly idle: Connection[] = [];
  private readonly busy = new Set<Connection>();
  private readonly waiting: Job[] = [];

  constructor(
    url: URL,
    private readonly options: TransportOptions,
  ) {
    this.hostHeader = url.host;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const secure = url.protocol === 'https:';
    const port = Number(url.port) || (secure ? 443 : 80);
    this.connect = secure
      ? () => tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
      : () => net.connect({ host, port });
  }

  request(request: string, timeoutMs: number | undefined, keepHeaders: boolean): Promise<HttpAnswer> {
    return new Promise((resolve, reject) =>
      this.dispatch(keepHeaders ? { request, timeoutMs, headers: {}, resolve, reject } : { request, timeoutMs, resolve, reject }),
    );
  }

  abortAll(reason: string): void {
    // Waiting jobs first: a failing connection would otherwise hand them a fresh one.
    for (const job of this.waiting.splice(0)) job.reject(new InterruptedError(reason));
    for (const conn of [...this.busy]) conn.fail(new InterruptedError(reason));
  }

  closeIdle(): void {
    for (const conn of this.idle.splice(0)) conn.destroy();
  }

  private dispatch(job: Job): void {
    let conn = this.idle.pop();
    // Idle this long, a server may be closing it right now (Node closes after 5 s): a new
    // connection is cheaper than a request lost in that race. The idle list is oldest first.
    if (conn && performance.now() - conn.idleSince > MAX_IDLE_REUSE_MS) {
      for (const stale of [...this.idle.splice(0), conn]) stale.destroy();
      conn = undefined;
    }
    if (!conn) {
      if (this.busy.size >= this.options.maxSockets) {
        this.waiting.push(job);
        return;
      }
      conn = new Connection(this.connect(), this);
    }
    this.busy.add(conn);
    conn.send(job, this.options.timeoutMs, this.options.timeoutSetting);
  }

  /** A connection finished its request and may carry another (a waiting request gets it at once). */
  released(conn: Connection): void {
    this.busy.delete(conn);
    conn.idleSince = performance.now();
    const next = this.waiting.shift();
    if (next) {
      this.busy.add(conn);
      conn.send(next, this.options.timeoutMs, this.options.timeoutSetting);
    } else {
      this.idle.push(conn);
    }
  }

  /** A connection is gone: a waiting request takes its place on a new one. */
  dropped(conn: Connection): void {
    this.busy.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.waiting.shift();
    if (next) this.dispatch(next);
  }
}
