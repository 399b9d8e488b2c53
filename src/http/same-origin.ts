import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { ApiError, unsupportedType } from './errors.ts';
import { isLoopbackHost } from './loopback.ts';

export interface SameOriginOptions {
  /**
   * The address the server binds (config `host`); a wildcard (0.0.0.0, ::) accepts any IP address as
   * Host (one of this machine's), but a DNS name only when it is loopback or `publicUrl`'s.
   */
  bindHost: string;
  /** config `publicUrl`: its host is aggmock's own too. */
  publicUrl?: string | undefined;
  /** Body types accepted besides application/json (the UI's HTML launch form). */
  alsoAccept?: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Guards routes that change state (admin API, UI actions) against other web pages: any page a
 * developer visits can POST to 127.0.0.1. A browser sends such a request with a `text/plain` or
 * form body, an `Origin` of the other site and `Sec-Fetch-Site: cross-site`; this refuses all three,
 * and a foreign `Referer` where a browser sent no `Origin`. The Host check stops DNS rebinding (an
 * attacker's name resolving to 127.0.0.1, or to this machine's address on a wildcard binding), for
 * reads too.
 */
export function sameOriginGuard(options: SameOriginOptions): MiddlewareHandler {
  const accepted = ['application/json', ...(options.alsoAccept ?? [])];
  const foreignHost = hostCheck(options);
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const refusal = foreignHost(host);
    if (refusal) throw forbidden(refusal, 'host');
    if (SAFE_METHODS.has(c.req.method)) return next();
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') {
      throw forbidden(
        `Cross-site request refused (Sec-Fetch-Site: ${site}); call this route from its own pages or a script.`,
        'sec-fetch-site',
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !sameHost(origin, host)) {
      throw forbidden(`Cross-origin request refused: Origin ${JSON.stringify(origin)} is not ${host}.`, 'origin');
    }
    // A browser that sends no Origin still names the page it came from (our pages: Referrer-Policy same-origin).
    const referer = c.req.header('referer');
    if (origin === undefined && referer && !sameHost(referer, host)) {
      throw forbidden(`Cross-origin request refused: Referer ${JSON.stringify(referer)} is not on ${host}.`, 'referer');
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
    if ((type !== '' || hasBody) && !accepted.includes(type)) {
      throw unsupportedType(accepted, type, JSON.stringify(type || 'none'));
    }
    return next();
  };
}

/**
 * The Host check alone (against DNS rebinding): `undefined` for one of this server's names, else
 * why not. For servers whose callers are not browsers (the reference wallet's webhook), where the
 * rest of {@link sameOriginGuard} does not apply.
 */
export function hostCheck(options: Pick<SameOriginOptions, 'bindHost' | 'publicUrl'>): (host: string) => string | undefined {
  const ownHosts = new Set([options.bindHost.toLowerCase()]);
  if (options.publicUrl) ownHosts.add(new URL(options.publicUrl).hostname.toLowerCase());
  const anyHost = WILDCARD_HOSTS.has(options.bindHost);
  return (host) => {
    const hostname = hostnameOf(host);
    // Rebinding needs a DNS name: on a wildcard binding an address literal is one of this machine's.
    if (isLoopbackHost(hostname) || ownHosts.has(hostname) || (anyHost && isIP(hostname.replace(/^\[|\]$/g, '')) !== 0)) {
      return undefined;
    }
    return `Host ${JSON.stringify(host)} is not this server's address (config host ${options.bindHost}, publicUrl); refused so another site's DNS name cannot reach it.`;
  };
}

/**
 * Whether a browser sent this request from a page of another site: `Sec-Fetch-Site: cross-site`,
 * or an `Origin` whose host name is not the `Host`'s (ports aside, as a site ignores them; an
 * opaque `Origin: null` counts, a sandboxed page sends it). Scripts and servers send neither
 * header, and a page of this site (another port of the same host) is not cross-site. The request
 * journal marks such requests and fault rules skip them (src/aggregator/journaling.ts, client-faults.ts).
 */
export function isCrossSiteRequest(headers: {
  origin?: string | undefined;
  host?: string | undefined;
  'sec-fetch-site'?: string | string[] | undefined;
}): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && String(site).trim().toLowerCase() === 'cross-site') return true;
  const origin = headers.origin;
  if (origin === undefined) return false;
  return !URL.canParse(origin) || new URL(origin).hostname.toLowerCase() !== hostnameOf(headers.host ?? '');
}

function hostnameOf(host: string): string {
  return URL.canParse(`http://${host}`) ? new URL(`http://${host}`).hostname.toLowerCase() : host.toLowerCase();
}

function sameHost(origin: string, host: string): boolean {
  if (!URL.canParse(origin) || !URL.canParse(`http://${host}`)) return false;
  return new URL(origin).host.toLowerCase() === new URL(`http://${host}`).host.toLowerCase();
}

function forbidden(message: string, field: string): ApiError {
  return new ApiError(403, message, { errors: [{ field, message: 'expected a same-origin request' }] });
}
