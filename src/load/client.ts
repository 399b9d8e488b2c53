import type { HttpAnswer } from '../callbacks/dispatcher.ts';
import { createTransport, type Transport } from '../callbacks/transport.ts';
import type { SignedRequest } from '../dialects/index.ts';

/**
 * The load generator's HTTP client: aggmock's own keep-alive transport (src/callbacks/transport.ts,
 * the callback engine's), one request per connection at a time, no journal, no retries of its own
 * (the run decides). It costs about half the CPU a request of an undici Pool (bench/results/
 * callbacks.json, the HTTP clients table), which is what lets the generator come near a bare
 * POST loop. The wallet's base URL may carry a path; each call's path goes under it. A reply's
 * text is read up to 64 KiB (the transport's bound), far above any wallet reply.
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
 * A sender over one keep-alive connection pool to the wallet's origin.
 *
 * @example const s = poolSender('http://127.0.0.1:4001/wallet'); await s.send(buildRequest(...), 10_000);
 */
export function poolSender(baseUrl: string, options: PoolOptions = {}): Sender {
  return new PoolSender(baseUrl, options);
}

/** Paths whose URL is kept: a wire whose query differs per call would otherwise grow the map without end. */
const MAX_TARGETS = 1024;

/**
 * One class, no closures made per run: its methods stay optimized from one run to the next. One
 * promise a call: the transport's, mapped to an {@link AttemptResult} by two module functions.
 */
class PoolSender implements Sender {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly baseQuery: string;
  private readonly transport: Transport;
  /** Each call path's URL under the base URL, made once. */
  private readonly targets = new Map<string, string>();

  constructor(baseUrl: string, options: PoolOptions) {
    const url = new URL(baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/$/, '');
    this.baseQuery = url.search.slice(1);
    this.transport = createTransport({
      maxSockets: options.connections ?? 64,
      timeoutMs: 10_000,
      timeoutSetting: 'aggmock load --timeout',
    });
  }

  send(req: SignedRequest, timeoutMs: number): Promise<AttemptResult> {
    let target = this.targets.get(req.path);
    if (target === undefined) {
      target = targetOf(this.origin, this.prefix, this.baseQuery, req.path);
      if (this.targets.size >= MAX_TARGETS) this.targets.clear();
      this.targets.set(req.path, target);
    }
    return this.transport.post(target, req.headers, req.body ?? '', req.method, timeoutMs).then(answered, failed);
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

function answered(answer: HttpAnswer): AttemptResult {
  return { ok: true, status: answer.status, text: answer.body };
}

function failed(error: unknown): AttemptResult {
  return { ok: false, ...classify(error) };
}

/** The URL of a call: its path under the base URL's, the base URL's query before the call's own. */
export function targetOf(origin: string, prefix: string, baseQuery: string, path: string): string {
  const [pathOnly, query] = splitQuery(path);
  const q = baseQuery === '' ? query : query === '' ? baseQuery : `${baseQuery}&${query}`;
  const p = `${prefix}${pathOnly}` || '/';
  return q === '' ? `${origin}${p}` : `${origin}${p}?${q}`;
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
