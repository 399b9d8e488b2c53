import http from 'node:http';
import https from 'node:https';
import type { HttpAnswer } from './dispatcher.ts';
import { MAX_JOURNALED_BODY } from './outbox.ts';

/**
 * POSTs callbacks over keep-alive connections (node:http with a keep-alive Agent: measured
 * faster than global fetch for this small-request load, see bench/callbacks.ts).
 */
export interface Transport {
  post(url: string, headers: Record<string, string>, body: string): Promise<HttpAnswer>;
  /** Destroys every request in flight (each rejects with an "aborted" error). */
  abortAll(reason: string): void;
  /** Closes idle keep-alive sockets. */
  close(): void;
}

/** The engine stopped while the request was on the wire. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
}

interface Target {
  lib: typeof http | typeof https;
  agent: http.Agent;
  hostname: string;
  port: number | undefined;
  path: string;
}

export function createTransport(options: { maxSockets: number; timeoutMs: number }): Transport {
  const agentOptions: http.AgentOptions = { keepAlive: true, maxSockets: options.maxSockets, keepAliveMsecs: 1_000 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const targets = new Map<string, Target>();
  const inFlight = new Set<http.ClientRequest>();

  const targetOf = (url: string): Target => {
    let target = targets.get(url);
    if (!target) {
      const u = new URL(url);
      const secure = u.protocol === 'https:';
      target = {
        lib: secure ? https : http,
        agent: secure ? httpsAgent : httpAgent,
        hostname: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port ? Number(u.port) : undefined,
        path: `${u.pathname}${u.search}`,
      };
      targets.set(url, target);
    }
    return target;
  };

  const send = (target: Target, headers: Record<string, string>, body: string, retriedStaleSocket: boolean) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const req = target.lib.request({
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.agent,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      });
      inFlight.add(req);
      const timer = setTimeout(() => {
        req.destroy(new TimeoutError(`no answer within ${options.timeoutMs} ms (callbacks.timeout)`));
      }, options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        inFlight.delete(req);
      };
      req.on('response', (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          if (text.length < MAX_JOURNALED_BODY) text += chunk;
        });
        res.on('end', () => {
          done();
          const answer: HttpAnswer = { status: res.statusCode ?? 0, body: text.length > MAX_JOURNALED_BODY ? text.slice(0, MAX_JOURNALED_BODY) : text };
          const retryAfter = res.headers['retry-after'];
          if (retryAfter !== undefined) answer.retryAfter = retryAfter;
          resolve(answer);
        });
        res.on('error', (error) => {
          done();
          reject(error);
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        done();
        // A keep-alive socket the server closed while idle: the request never reached it, so
        // sending it again on a fresh socket is not a second attempt (Node's documented pattern).
        if (!retriedStaleSocket && req.reusedSocket && error.code === 'ECONNRESET') {
          send(target, headers, body, true).then(resolve, reject);
          return;
        }
        reject(error);
      });
      req.end(body);
    });

  return {
    post: (url, headers, body) => send(targetOf(url), headers, body, false),
    abortAll(reason) {
      for (const req of inFlight) req.destroy(new InterruptedError(reason));
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
