import { isLoopbackHost, readBoundedText } from '../http/index.ts';
import type { HttpAnswer } from './dispatcher.ts';
import { MAX_JOURNALED_BODY } from './outbox.ts';
import {
  ConnectionError,
  createTransport,
  InterruptedError,
  TimeoutError,
  type Transport,
  type TransportOptions,
} from './transport.ts';

/*
 * Callbacks behind a corporate proxy. When HTTPS_PROXY / HTTP_PROXY (or their lower-case forms)
 * are set, callbacks go through undici's EnvHttpProxyAgent, which also honours NO_PROXY; when
 * none is set, the fast keep-alive client of transport.ts stays in charge (no proxy code loads).
 * A loopback destination (127.0.0.0/8, ::1, localhost) always goes direct, whatever NO_PROXY
 * says, as Go's net/http does: through a proxy it would reach the proxy host's own loopback, not
 * this machine's wallet, and carry the callback's credentials to the proxy in the clear.
 */

/** Builds the transport the engine sends callbacks with; inject one to embed aggmock or test it. */
export type TransportFactory = (options: TransportOptions) => Transport;

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

const pick = (env: NodeJS.ProcessEnv, name: string) => env[name] || env[name.toLowerCase()] || undefined;

/** The proxy variables that are set, or undefined when callbacks go direct. */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings | undefined {
  const httpsProxy = pick(env, 'HTTPS_PROXY');
  const httpProxy = pick(env, 'HTTP_PROXY');
  if (!httpProxy && !httpsProxy) return undefined;
  const noProxy = pick(env, 'NO_PROXY');
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), ...(noProxy ? { noProxy } : {}) };
}

/** The proxy transport when the environment names a proxy, else the fast direct one. */
export function transportFor(env: NodeJS.ProcessEnv = process.env): TransportFactory {
  const proxy = proxySettings(env);
  return proxy ? (options) => createProxyTransport(options, proxy) : createTransport;
}

/** Whether a callback to `url` must skip the proxy: its host is this machine's loopback. */
export function bypassesProxy(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Headers with `content-type` set once, whatever case the caller spelt it in. */
function withContentType(headers: Record<string, string>): Record<string, string> {
  const named = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  return named ? headers : { ...headers, 'content-type': 'application/json' };
}

/**
 * Callbacks through undici's EnvHttpProxyAgent, with the errors the engine knows how to judge;
 * loopback destinations go through the direct transport instead ({@link bypassesProxy}).
 */
export function createProxyTransport(options: TransportOptions, proxy: ProxySettings): Transport {
  let direct: Transport | undefined;
  const directTransport = () => {
    direct ??= createTransport(options);
    return direct;
  };
  // undici loads on the first callback, so a start without a proxy never pays for it.
  const undici = import('undici');
  const agent = undici.then(
    ({ EnvHttpProxyAgent }) => new EnvHttpProxyAgent({ ...proxy, connections: options.maxSockets, keepAliveTimeout: 4_000 }),
  );
  const inFlight = new Set<AbortController>();

  return {
    async post(url, headers, body, method = 'POST', timeoutMs = options.timeoutMs): Promise<HttpAnswer> {
      if (bypassesProxy(url)) return directTransport().post(url, headers, body, method, timeoutMs);
      const [{ request }, dispatcher] = await Promise.all([undici, agent]);
      const abort = new AbortController();
      inFlight.add(abort);
      const timer = setTimeout(
        () =>
          abort.abort(new TimeoutError(`no answer within ${timeoutMs} ms (${options.timeoutSetting ?? 'callbacks.timeout'})`)),
        timeoutMs,
      );
      try {
        const res = await request(url, {
          method,
          headers: method === 'GET' ? headers : withContentType(headers),
          ...(method === 'GET' ? {} : { body }),
          dispatcher,
          signal: abort.signal,
        });
        // Bounded like the direct transport: a 100 MB reply is not buffered, only its start is judged.
        const { text } = await readBoundedText(res.body, MAX_JOURNALED_BODY);
        const retryAfter = res.headers['retry-after'];
        return {
          status: res.statusCode,
          body: text,
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
        };
      } catch (error) {
        throw describe(error, abort.signal);
      } finally {
        clearTimeout(timer);
        inFlight.delete(abort);
      }
    },
    abortAll(reason) {
      for (const abort of inFlight) abort.abort(new InterruptedError(reason));
      direct?.abortAll(reason);
    },
    close() {
      direct?.close();
      void agent.then((a) => a.close());
    },
  };
}

/** The abort reason (timeout, interruption) or a ConnectionError naming the proxy's failure. */
function describe(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted && signal.reason instanceof Error) return signal.reason;
  const err = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code ?? 'ECONNRESET';
  return new ConnectionError(`through the proxy: ${err.cause?.message ?? err.message ?? String(error)}`, code);
}
