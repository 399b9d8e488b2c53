import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.ts';

/**
 * Why a request came from a browser, or undefined: an `Origin` header, `Sec-Fetch-Site` other
 * than `none` (a page's request, same-site or cross-site), or `Sec-Fetch-Mode` `navigate` or
 * `no-cors` (a form post, a link, an image, a no-cors fetch). An aggregator's server never sends
 * them; a server-side fetch (undici's `Sec-Fetch-Mode: cors`) is not refused.
 */
export function browserMarker(read: (name: string) => string | undefined): string | undefined {
  const origin = read('origin');
  if (origin !== undefined) return `Origin: ${origin.slice(0, 200)}`;
  const site = read('sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined && site !== 'none') return `Sec-Fetch-Site: ${site.slice(0, 40)}`;
  const mode = read('sec-fetch-mode')?.trim().toLowerCase();
  if (mode === 'navigate' || mode === 'no-cors') return `Sec-Fetch-Mode: ${mode}`;
  return undefined;
}

/**
 * Refuses (403) a request a browser sent, on routes only servers call (a wallet's webhooks): with
 * the public development credentials, any web page the developer visits could otherwise move money
 * in their local wallet with a form post, an image or a no-cors fetch (no preflight). `unless`
 * names the paths it leaves alone (the test endpoints, which have their own same-origin guard);
 * `bodyTypes`, when given, are the only content types a body may have.
 *
 * @example app.use(serverToServerOnly({ what: 'The wallet webhook', unless: (path) => path === '/health' }))
 */
export function serverToServerOnly(options: {
  what: string;
  unless?: (path: string) => boolean;
  /** The content types a body may have (a JSON wire's, a form wire's): text/plain, multipart and the rest get a 415. */
  bodyTypes?: readonly string[];
}): MiddlewareHandler {
  return async (c, next) => {
    if (options.unless?.(c.req.path)) return next();
    const marker = browserMarker((name) => c.req.header(name));
    if (marker === undefined) {
      const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
      if (options.bodyTypes && hasBody && !options.bodyTypes.includes(type)) {
        throw new ApiError(
          415,
          `${options.what} takes a body of type ${options.bodyTypes.join(' or ')}, not ${type === '' ? 'one without a Content-Type' : JSON.stringify(type.slice(0, 100))}: an aggregator sends its own wire's type (text/plain is what a browser page sends without a preflight).`,
          { errors: [{ field: 'content-type', message: `expected ${options.bodyTypes.join(' or ')}` }] },
        );
      }
      return next();
    }
    const message = `${options.what} is server-to-server only: this request carries a browser's ${marker}, which no aggregator sends, so it is refused and no money moved.`;
    const field = marker.split(':')[0]?.toLowerCase() ?? 'origin';
    throw new ApiError(403, message, { errors: [{ field, message: 'expected a server-to-server call, not a browser request' }] });
  };
}
