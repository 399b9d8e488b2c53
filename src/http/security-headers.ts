import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

export interface SecurityHeadersOptions {
  /** Extra script and style sources for a path prefix (the Swagger UI at /docs loads from a CDN). */
  extraSources?: Record<string, string>;
}

/** The headers every response carries, HTML or not (the API fast path sends them too). */
export const EVERY_RESPONSE_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  // Not "no-referrer": with it Chromium sends `Origin: null` on the page's own form POSTs, which the
  // same-origin guard must refuse. "same-origin" still tells other sites nothing.
  ['Referrer-Policy', 'same-origin'],
];

/**
 * Headers on every response (`nosniff`, no framing, no referrer to other sites), and on HTML pages a
 * Content-Security-Policy that runs only the page's own scripts: each `<script>` the templates
 * write (inline, or a module from `/assets/js/` with the modules it imports) gets a per-response nonce, so an injected `javascript:` link or script does
 * not run. User text never reaches a page unescaped, so it cannot carry a literal `<script>`.
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of EVERY_RESPONSE_HEADERS) c.res.headers.set(name, value);
    if (!(c.res.headers.get('content-type') ?? '').startsWith('text/html')) return;
    const nonce = randomBytes(16).toString('base64');
    const path = new URL(c.req.url).pathname;
    const extra = Object.entries(options.extraSources ?? {}).find(([prefix]) => path.startsWith(prefix))?.[1] ?? '';
    const html = (await c.res.text()).replace(/<script(?=[\s>])/g, `<script nonce="${nonce}"`);
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    headers.set('Content-Security-Policy', contentSecurityPolicy(nonce, extra));
    c.res = new Response(html, { status: c.res.status, statusText: c.res.statusText, headers });
  };
}

function contentSecurityPolicy(nonce: string, extra: string): string {
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}'${extra ? ` ${extra}` : ''}`,
    `style-src 'self' 'unsafe-inline'${extra ? ` ${extra}` : ''}`,
    "img-src 'self' data: https: http:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}
