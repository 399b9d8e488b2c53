import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { createWallet } from '../../src/wallet/index.ts';
import { testApp } from '../api/helpers.ts';

/**
 * A slowloris client opens a connection and sends its headers a byte at a time so the server
 * waits forever. Every server aggmock starts goes through `listen()`, which sets headersTimeout,
 * requestTimeout and keepAliveTimeout (short ones here, so the test need not wait 10 s).
 */
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

const SHORT = { headersMs: 300, requestMs: 300, keepAliveMs: 200, checkEveryMs: 50 };

/** Sends the headers one byte every 50 ms; resolves with how many bytes went out before the server closed. */
function dripHeaders(port: number): Promise<{ sent: number; total: number }> {
  const request = `POST /__admin/events HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: aaaaaaaaaa\r\n'.repeat(20)}\r\n`;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < request.length && !socket.destroyed) socket.write(request[sent++] as string);
    }, 50);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ sent, total: request.length });
    });
  });
}

describe('slow clients', () => {
  it.each([
    ['the aggmock API', () => testApp().app],
    ['the reference wallet', () => createWallet({ config: validateConfig({ db: ':memory:' }), dbPath: ':memory:' }).app],
  ])('%s closes a connection that sends its headers byte by byte', async (_what, app) => {
    const server = await listen(app(), { port: 0, host: '127.0.0.1', timeouts: SHORT });
    running.push(server);
    const { sent, total } = await dripHeaders(server.port);
    // Closed by the server long before the headers were complete (about 400 bytes at 20 a second).
    expect(sent).toBeLessThan(total / 2);
  });
});
