import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JOURNALED_BODY } from './outbox.ts';
import { createTransport, InterruptedError, type Transport } from './transport.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A TCP server that answers each request with the exact bytes `reply` returns: for framing the http module would not produce. */
async function rawServer(
  reply: (request: string, index: number) => string | null | { text: string; close: true },
): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  let index = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const request = buffered.slice(0, end + 4 + length);
      buffered = buffered.slice(end + 4 + length);
      const answer = reply(request, index++);
      if (answer === null) socket.destroy();
      else if (typeof answer === 'string') socket.write(answer);
      else socket.end(answer.text);
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`, connections: () => connections };
}

function transport(options: { maxSockets?: number; timeoutMs?: number } = {}): Transport {
  const t = createTransport({ maxSockets: options.maxSockets ?? 4, timeoutMs: options.timeoutMs ?? 2_000 });
  cleanups.push(() => t.close());
  return t;
}

describe('the callback HTTP client', () => {
  it('sends one well-formed POST with the path, query, headers and body', async () => {
    let seen = '';
    const server = await rawServer((request) => {
      seen = request;
      return 'HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{"balance":100}';
    });
    const answer = await transport().post(server.url, { 'X-Signature': 'sig' }, '{"a":"é"}');
    expect(answer).toEqual({ status: 200, body: '{"balance":100}' });
    expect(Buffer.from(seen, 'latin1').toString('utf8')).toMatch(
      /^POST \/hook\?x=1 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nX-Signature: sig\r\nContent-Length: 10\r\n\r\n\{"a":"é"\}$/,
    );
  });

  it('reuses one connection for requests one after another', async () => {
    const server = await rawServer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    const t = transport();
    for (let i = 0; i < 5; i++) expect((await t.post(server.url, {}, 'x')).body).toBe('ok');
    expect(server.connections()).toBe(1);
  });

  it('reads chunked bodies, split across packets, and Retry-After', async () => {
    const server = await rawServer(
      () =>
        'HTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nRetry-After: 3\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
    );
    expect(await transport().post(server.url, {}, '')).toEqual({ status: 429, body: 'hello world', retryAfter: '3' });
  });

  it('skips a 100 Continue and reads a close-delimited HTTP/1.0 body', async () => {
    const server = await rawServer(() => ({
      text: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 500 Oops\r\n\r\npartial failure',
      close: true,
    }));
    expect(await transport().post(server.url, {}, '')).toEqual({ status: 500, body: 'partial failure' });
  });

  it('opens a new connection after an answer with Connection: close', async () => {
    const server = await rawServer((_req, i) => `HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n${i}`);
    const t = transport();
    expect(await t.post(server.url, {}, '')).toEqual({ status: 200, body: '0' });
    expect(await t.post(server.url, {}, '')).toEqual({ status: 200, body: '1' });
    expect(server.connections()).toBe(2);
  });

  it('answers a 204 without a body', async () => {
    const server = await rawServer(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    expect(await transport().post(server.url, {}, '')).toEqual({ status: 204, body: '' });
  });

  it('cuts a huge body at the journal limit but reads it all', async () => {
    const big = 'x'.repeat(MAX_JOURNALED_BODY * 5);
    const server = await rawServer(() => `HTTP/1.1 500 Big\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
    const t = transport();
    const answer = await t.post(server.url, {}, '');
    expect(answer.status).toBe(500);
    expect(answer.body).toHaveLength(MAX_JOURNALED_BODY);
    expect((await t.post(server.url, {}, '')).status).toBe(500); // the connection stayed in step
    expect(server.connections()).toBe(1);
  });

  it('sends again on a fresh connection when a kept-alive one was closed while idle', async () => {
    const server = http.createServer({ keepAliveTimeout: 50 }, (req, res) => {
      req.resume();
      req.on('end', () => res.end('{"balance":1}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const t = transport();
    expect((await t.post(url, {}, 'a')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 120)); // the server drops the idle connection
    expect((await t.post(url, {}, 'b')).status).toBe(200);
  });

  it('fails with ECONNRESET when the server drops the connection mid-request', async () => {
    const server = await rawServer(() => null);
    await expect(transport().post(server.url, {}, 'x')).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('fails with ETIMEDOUT when no answer comes in time', async () => {
    const server = await rawServer(() => '');
    await expect(transport({ timeoutMs: 80 }).post(server.url, {}, 'x')).rejects.toMatchObject({ code: 'ETIMEDOUT' });
  });

  it('queues requests beyond maxSockets and aborts everything on abortAll', async () => {
    const server = await rawServer(() => '');
    const t = transport({ maxSockets: 2 });
    const pending = Array.from({ length: 4 }, () => t.post(server.url, {}, 'x').catch((e: unknown) => e));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(server.connections()).toBe(2);
    t.abortAll('stopping');
    const results = await Promise.all(pending);
    expect(results.every((r) => r instanceof InterruptedError)).toBe(true);
  });

  it('refuses a header value with a line break instead of sending it', async () => {
    const server = await rawServer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    await expect(transport().post(server.url, { 'X-Evil': 'a\r\nInjected: 1' }, '')).rejects.toThrow(/line break/);
  });
});
