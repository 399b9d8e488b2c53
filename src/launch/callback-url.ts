import type { AggmockConfig } from '../config/index.ts';
import { dialsLoopback, isLoopbackHost } from '../http/loopback.ts';

/**
 * Whether a launch's `callback_url` may receive this server's signed callbacks. Without the check
 * anyone who reaches the launch form could make aggmock sign and send requests to any host: a
 * cloud metadata address, an internal service, aggmock's own admin API.
 *
 * The one place that decides: the launch route, its fast path (both through `launchGame`) and the
 * spin that sends a session's callbacks all ask this policy.
 */
export interface CallbackUrlPolicy {
  /**
   * The URL to send to (normalised by the WHATWG parser, the parser the transport dials with), or
   * why not, naming `callbacks.allowedUrls`. `self` is how the asking request reached aggmock.
   */
  judge(url: string, self?: AggmockSelf): { url: string } | { refusal: string };
  /** `undefined` when the URL is allowed; otherwise why not, naming `callbacks.allowedUrls`. */
  refusal(url: string, self?: AggmockSelf): string | undefined;
}

/** How a request reached aggmock: never a callback target, whatever the list says. */
export interface AggmockSelf {
  /**
   * The port it came in on (the socket's): aggmock's own even where the policy was made before
   * the server listened (an embedder's `createApp` on port 0).
   */
  port?: number | undefined;
  /** Origins that are aggmock (its base URL, `publicUrl`: a local proxy in front of it). */
  origins?: readonly (string | undefined)[];
}

export interface CallbackUrlPolicyOptions {
  callbacks: Pick<AggmockConfig['callbacks'], 'allowedUrls' | 'webhookUrl'>;
  /** aggmock's own port: never a callback target, whatever the list says (its admin API lives there). */
  ownPort?: () => number | undefined;
  /**
   * The instance is exposed (`exposureOf` in http/exposure.ts): without an explicit list, only the
   * configured webhook's origin, so an anonymous visitor cannot aim signed callbacks at this
   * machine's other services.
   */
  exposed?: boolean;
}

export function callbackUrlPolicy(options: CallbackUrlPolicyOptions): CallbackUrlPolicy {
  const { allowedUrls, webhookUrl } = options.callbacks;
  const explicit = allowedUrls.map((prefix) => new URL(prefix));
  const webhookOrigin = new URL(webhookUrl).origin;
  const listed = (url: URL) =>
    explicit.length > 0
      ? explicit.some((p) => url.origin === p.origin && url.pathname.startsWith(p.pathname))
      : // Loopback by address or `localhost`: a name DNS answers for (`x.localhost`, `localhost.`) could point anywhere.
        (!options.exposed && dialsLoopback(url.hostname)) || url.origin === webhookOrigin;
  const setting =
    explicit.length > 0
      ? `callbacks.allowedUrls (${allowedUrls.join(', ')})`
      : options.exposed
        ? `callbacks.allowedUrls (default on an exposed instance: only the webhook's origin ${webhookOrigin})`
        : `callbacks.allowedUrls (default: loopback addresses, localhost and ${webhookOrigin})`;
  const judge = (text: string, self: AggmockSelf = {}): { url: string } | { refusal: string } => {
    if (!URL.canParse(text)) return { refusal: `expected an absolute http(s) URL allowed by ${setting}` };
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { refusal: `expected an http(s) URL, got ${url.protocol}` };
    if (url.username || url.password) return { refusal: 'expected a URL without credentials' };
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    // Every name that may be this machine, the DNS-dependent ones too: none of them on aggmock's own port.
    if ((isLoopbackHost(url.hostname) || dialsLoopback(url.hostname)) && (port === options.ownPort?.() || port === self.port)) {
      return { refusal: `expected a URL that is not aggmock itself (port ${port}); allowed by ${setting}` };
    }
    if (self.origins?.some((origin) => origin !== undefined && originOf(origin) === url.origin)) {
      return { refusal: `expected a URL that is not aggmock itself (${url.origin}); allowed by ${setting}` };
    }
    // A path prefix on the list is only a boundary if the receiver cannot read the path another way:
    // `/hook/..%2fadmin` starts with `/hook/`, but a server that decodes %2F before routing serves `/admin`.
    if (explicit.length > 0 && ambiguousPath(url.pathname)) {
      return {
        refusal: `expected a path without encoded slashes or dot segments (got ${url.pathname}); allowed by ${setting}`,
      };
    }
    return listed(url) ? { url: url.href } : { refusal: `expected a URL allowed by ${setting}` };
  };
  return {
    judge,
    refusal(text, self) {
      const judged = judge(text, self);
      return 'refusal' in judged ? judged.refusal : undefined;
    },
  };
}

function originOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}

/** A path segment that decodes to a slash or backslash, or to `.`/`..` (with `;` parameters, as Tomcat reads `..;`). */
function ambiguousPath(pathname: string): boolean {
  return pathname.split('/').some((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return true;
    }
    if (decoded.includes('/') || decoded.includes('\\')) return true;
    const bare = decoded.split(';')[0];
    return bare === '.' || bare === '..';
  });
}
