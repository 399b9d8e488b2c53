import type { Context, MiddlewareHandler } from 'hono';
import { constantTimeEqual } from '../signing/constant-time.ts';
import { ApiError } from './errors.ts';
import { isLoopbackHost } from './loopback.ts';

/** What decides whether an instance is reachable beyond this machine (config `host` and `publicUrl`). */
export interface ExposureSettings {
  host: string;
  publicUrl?: string | undefined;
}

// A wildcard binding listens on every interface: loopback by name, but the network reaches it.
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** Headers a reverse proxy or tunnel adds: their presence means the request came from beyond this machine. */
export const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'] as const;

/**
 * Why this instance is EXPOSED (reachable by others than this machine's user), or undefined when it
 * is not: bound beyond loopback (a wildcard too), or published at a `publicUrl` that is not
 * loopback (a reverse proxy or tunnel in front of a loopback bind). The one place that decides:
 * the start-up token and warning, the admin API, the launch form, the spins, the `callback_url`
 * default and the reference wallet all ask it.
 */
export function exposureOf(settings: ExposureSettings): string | undefined {
  const host = settings.host.toLowerCase();
  if (WILDCARD_HOSTS.has(host) || !isLoopbackHost(host)) return `bound to ${settings.host}, not loopback`;
  if (settings.publicUrl !== undefined) {
    if (!URL.canParse(settings.publicUrl)) return `published at ${settings.publicUrl}`;
    const { hostname, origin } = new URL(settings.publicUrl);
    if (!isLoopbackHost(hostname)) return `published at ${origin} (publicUrl is not loopback)`;
  }
  return undefined;
}

export function isExposed(settings: ExposureSettings): boolean {
  return exposureOf(settings) !== undefined;
}

/** Why this request is exposed: the instance is, or the request came through a proxy. */
export function requestExposure(settings: ExposureSettings, headers: Headers): string | undefined {
  // A header a reverse proxy or tunnel adds.
  const proxied = PROXY_HEADERS.find((name) => headers.has(name));
  return exposureOf(settings) ?? (proxied ? `the request came through a proxy (${proxied} header)` : undefined);
}

export interface CredentialGuardOptions extends ExposureSettings {
  /** config `admin.token`. */
  token?: string | undefined;
  /**
   * `always`: with a token set every request needs it (the admin API). `when-exposed`: only when
   * the instance or the request is exposed (the launch form, spins: local use stays token-free).
   */
  require: 'always' | 'when-exposed';
  /** What is guarded, for the messages: "The admin API", "Launching from the UI". */
  what: string;
  /** Where else the token may come from besides `Authorization: Bearer` (the HTML launch form's field). */
  tokenFrom?: (c: Context) => string | undefined;
}

/**
 * Credentials for every surface that changes state or moves money. Exposed (see {@link exposureOf},
 * or the request came through a proxy), it wants `Authorization: Bearer <admin.token>`; exposed
 * with no token configured it refuses outright (403), since nothing could prove who is asking.
 */
export function credentialGuard(options: CredentialGuardOptions): MiddlewareHandler {
  const { token, what } = options;
  return async (c, next) => {
    const exposed = requestExposure(options, c.req.raw.headers);
    if (exposed === undefined && (options.require === 'when-exposed' || token === undefined)) return next();
    if (token === undefined) {
      throw new ApiError(
        403,
        `${what} is refused: this instance is exposed (${exposed}) and has no admin token. Set admin.token (or AGGMOCK_ADMIN_TOKEN) and send "Authorization: Bearer <token>".`,
        { errors: [{ field: 'authorization', message: 'expected an admin token; none is configured' }] },
      );
    }
    const match = /^Bearer\s+(.+)$/i.exec((c.req.header('authorization') ?? '').trim());
    const given = match?.[1] ?? options.tokenFrom?.(c);
    if (given === undefined || given === '') {
      throw new ApiError(
        401,
        `${what} needs "Authorization: Bearer <token>" (config admin.token or AGGMOCK_ADMIN_TOKEN)${exposed ? `: this instance is exposed (${exposed})` : ''}.`,
        { headers: { 'WWW-Authenticate': 'Bearer realm="aggmock-admin"' } },
      );
    }
    if (!constantTimeEqual(given, token)) {
      throw new ApiError(401, `The admin bearer token is wrong: it must equal config admin.token (AGGMOCK_ADMIN_TOKEN).`, {
        headers: { 'WWW-Authenticate': 'Bearer realm="aggmock-admin", error="invalid_token"' },
      });
    }
    return next();
  };
}

/**
 * Refuses a request that is one of aggmock's own callbacks (its `User-Agent: aggmock/<version>`):
 * a launch's `callback_url` may name another local aggmock, and a callback body is a valid body
 * for its admin API. No normal client of these routes (a browser, curl, a test script) sends it.
 */
export function refuseAggmockCallbacks(what: string): MiddlewareHandler {
  return async (c, next) => {
    const agent = c.req.header('user-agent') ?? '';
    // Every User-Agent sent, not their joined value: a second one ("aggmock/0.1.0, curl/8.0") must not hide the first.
    const raw = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders ?? [];
    const agents = [agent, ...raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === 'user-agent')];
    if (agents.some((a) => /^aggmock\//i.test(a.trim()) || /(^|,\s*)aggmock\//i.test(a))) {
      throw new ApiError(
        403,
        `${what} refuses aggmock's own callbacks (User-Agent ${JSON.stringify(agent)}): a launch's callback_url cannot drive it.`,
        { errors: [{ field: 'user-agent', message: 'expected a client, not an aggmock callback' }] },
      );
    }
    return next();
  };
}
