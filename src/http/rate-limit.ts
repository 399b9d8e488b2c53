import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from './errors.ts';

export interface RateLimitOptions {
  requests: number;
  windowMs: number;
  now?: () => number;
  /** Which client a request counts against: its API key when it sent one, else its address. */
  clientKey: (c: Parameters<MiddlewareHandler>[0]) => string;
}

/** Fixed-window limit per client; over it, 429 with Retry-After (whole seconds). */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const t = now();
    const key = options.clientKey(c);
    let w = windows.get(key);
    if (!w || t - w.start >= options.windowMs) {
      if (windows.size > 10_000) windows.clear();
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    c.header('RateLimit-Limit', String(options.requests));
    c.header('RateLimit-Remaining', String(Math.max(0, options.requests - w.count)));
    if (w.count > options.requests) {
      const retryAfter = Math.max(1, Math.ceil((w.start + options.windowMs - t) / 1000));
      throw new ApiError(
        429,
        `Rate limit of ${options.requests} requests per ${options.windowMs} ms exceeded; retry after ${retryAfter}s (config limits.rateLimit).`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    return next();
  };
}

/** The address a request came from (the socket's peer); `local` for `app.request()`. */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}
