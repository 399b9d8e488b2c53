import type { AggmockConfig } from '../config/index.ts';
import { isLoopbackHost } from '../http/loopback.ts';

/**
 * Whether a launch's `callback_url` may receive this server's signed callbacks. Without the check
 * anyone who reaches the launch form could make aggmock sign and send requests to any host: a
 * cloud metadata address, an internal service, aggmock's own admin API.
 */
export interface CallbackUrlPolicy {
  /** `undefined` when the URL is allowed; otherwise why not, naming `callbacks.allowedUrls`. */
  refusal(url: string): string | undefined;
}

export interface CallbackUrlPolicyOptions {
  callbacks: Pick<AggmockConfig['callbacks'], 'allowedUrls' | 'webhookUrl'>;
  /** aggmock's own port: never a callback target, whatever the list says (its admin API lives there). */
  ownPort?: () => number | undefined;
}

export function callbackUrlPolicy(options: CallbackUrlPolicyOptions): CallbackUrlPolicy {
  const { allowedUrls, webhookUrl } = options.callbacks;
  const explicit = allowedUrls.map((prefix) => new URL(prefix));
  const webhookOrigin = new URL(webhookUrl).origin;
  const listed = (url: URL) =>
    explicit.length > 0
      ? explicit.some((p) => url.origin === p.origin && url.pathname.startsWith(p.pathname))
      : isLoopbackHost(url.hostname) || url.origin === webhookOrigin;
  const setting =
    explicit.length > 0
      ? `callbacks.allowedUrls (${allowedUrls.join(', ')})`
      : `callbacks.allowedUrls (default: loopback hosts and ${webhookOrigin})`;
  return {
    refusal(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return `expected an absolute http(s) URL allowed by ${setting}`;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return `expected an http(s) URL, got ${url.protocol}`;
      if (url.username || url.password) return 'expected a URL without credentials';
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      if (isLoopbackHost(url.hostname) && port === options.ownPort?.()) {
        return `expected a URL that is not aggmock itself (port ${port}); allowed by ${setting}`;
      }
      return listed(url) ? undefined : `expected a URL allowed by ${setting}`;
    },
  };
}
