import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a test receiver saw it. */
export interface ReceivedRequest {
  /** Arrival order across the receiver, from 0. */
  seq: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer, or misbehave like a real wallet can. */
export type ReceiverAction =
  | { status: number; body?: string | object; headers?: Record<string, string>; delayMs?: number }
  | { destroy: true }
  | { hang: true };

export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP webhook on 127.0.0.1 and a free port, for tests and benchmarks: records every
 * request with its raw body and answers what `respond` says (default 200 `{"balance":100}`).
 */
export async function startTestReceiver(
  respond: (req: ReceivedRequest) => ReceiverAction | Promise<ReceiverAction> = () => ({ status: 200, body: { balance: 100 } }),
): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const received: ReceivedRequest = {
        seq: requests.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const action = await respond(received);
      if ('destroy' in action) {
        req.socket.destroy();
        return;
      }
      if ('hang' in action) {
        hanging.add(res);
        return;
      }
      const send = () => {
        const body = typeof action.body === 'string' ? action.body : JSON.stringify(action.body ?? { balance: 100 });
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(body);
      };
      if (action.delayMs) setTimeout(send, action.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback/webhook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
