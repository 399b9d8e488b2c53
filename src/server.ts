import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface RunningServer {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens with `app.fetch` on host:port (port 0 picks a free one) and resolves once bound. */
export function listen(
  app: { fetch: Parameters<typeof serve>[0]['fetch'] },
  options: { port: number; host: string },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info: AddressInfo) => {
      server.off('error', reject);
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            // Idle keep-alive sockets would hold close() open; end them first.
            (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
            server.close(() => done());
            setTimeout(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(), 2_000).unref();
          }),
      });
    });
    server.once('error', reject);
  });
}
