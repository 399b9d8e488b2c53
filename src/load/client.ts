import { Pool } from 'undici';
import type { SignedRequest } from '../dialects/index.ts';

/**
 * The load generator's HTTP client: one undici keep-alive pool to the wallet's origin, one request
 * per connection at a time, no journal, no retries of its own (the run decides). The wallet's base
 * URL may carry a path; each call's path goes under it.
 */

/** What became of one attempt. */
export type AttemptResult = { ok: true; status: number; text: string } | { ok: false; error: ErrorClass; message: string };

/** Why an attempt got no reply. */
export type ErrorClass = 'timeout' | 'reset' | 'refused' | 'other';

export interface Sender {
  send(req: SignedRequest, timeoutMs: number): Promise<AttemptResult>;
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Keep-alive connections to the wallet (default 64). */
  connections?: number;
}

/**
 * A sender over an undici Pool.
 *
 * @example const s = poolSender('http://127.0.0.1:4001/wallet'); await s.send(buildRequest(...), 10_000);
 */
export function poolSender(baseUrl: string, options: PoolOptions = {}): Sender {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/$/, '');
  const baseQuery = url.search.slice(1);
  const pool = new Pool(url.origin, {
    connections: options.connections ?? 64,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  return {
    async send(req, timeoutMs) {
      const [pathOnly = '', query = ''] = splitQuery(req.path);
      const q = [baseQuery, query].filter((x) => x !== '').join('&');
      try {
        const res = await pool.request({
          origin: url.origin,
          path: `${prefix}${pathOnly}` === '' ? `/${q ? `?${q}` : ''}` : `${prefix}${pathOnly}${q ? `?${q}` : ''}`,
          method: req.method,
          headers: req.headers,
          ...(req.body === undefined ? {} : { body: req.body }),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        return { ok: true, status: res.statusCode, text: await res.body.text() };
      } catch (error) {
        return { ok: false, ...classify(error) };
      }
    },
    close: () => pool.close(),
  };
}

function splitQuery(path: string): [string, string] {
  const i = path.indexOf('?');
  return i < 0 ? [path, ''] : [path.slice(0, i), path.slice(i + 1)];
}

/** An undici or socket error as one of the classes the report counts. */
export function classify(error: unknown): { error: ErrorClass; message: string } {
  const e = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  const message = `${code ? `${code}: ` : ''}${e?.message ?? String(error)}`;
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  )
    return { error: 'timeout', message };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED')
    return { error: 'reset', message };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { error: 'refused', message };
  return { error: 'other', message };
}
