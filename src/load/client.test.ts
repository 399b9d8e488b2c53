import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolSender, targetOf } from './client.ts';

/** One server for the file: /slow never answers in time, /reset drops the socket, the rest echo the request line. */
let server: http.Server;
let base = '';
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/w/slow')) return void setTimeout(() => res.end('late'), 500);
      if (req.url?.startsWith('/w/reset')) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ line: `${req.method} ${req.url}`, pad: 'x'.repeat(3000) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the load client', () => {
  it('puts a call under the base URL: its path after the base path, the base query before its own', () => {
    expect(targetOf('http://h', '', '', '')).toBe('http://h/');
    expect(targetOf('http://h', '/wallet', '', '')).toBe('http://h/wallet');
    expect(targetOf('http://h', '/wallet', '', '/bet?x=1')).toBe('http://h/wallet/bet?x=1');
    expect(targetOf('http://h', '/wallet', 'k=v', '/bet')).toBe('http://h/wallet/bet?k=v');
    expect(targetOf('http://h', '', 'k=v', '/bet?x=1&y=2')).toBe('http://h/bet?k=v&x=1&y=2');
  });

  it('sends the signed request as built and reads the whole reply; a GET carries no body', async () => {
    const sender = poolSender(`${base}/w?site=1`, { connections: 2 });
    try {
      const post = await sender.send(
        {
          method: 'POST',
          path: '/bet',
          headers: { 'content-type': 'application/json', 'X-Signature': 's1' },
          body: '{"a":1}',
          signed: '',
        },
        2000,
      );
      expect(post.ok && post.status).toBe(200);
      expect(post.ok && JSON.parse(post.text)).toMatchObject({ line: 'POST /w/bet?site=1' });
      expect(post.ok && post.text.length).toBeGreaterThan(3000);
      const get = await sender.send(
        { method: 'GET', path: '/balance?player=p1', headers: { 'x-sig': 'g' }, body: undefined },
        2000,
      );
      expect(get.ok && JSON.parse(get.text).line).toBe('GET /w/balance?site=1&player=p1');
      const [p, g] = seen.slice(-2);
      expect(p).toMatchObject({ body: '{"a":1}', headers: { 'x-signature': 's1', 'content-length': '7' } });
      expect(g?.headers['content-length']).toBeUndefined();
      expect(g?.headers['x-sig']).toBe('g');
    } finally {
      await sender.close();
    }
  });

  it('classes what went wrong: a timeout names --timeout, a dropped socket is a reset, a closed port refused', async () => {
    const sender = poolSender(`${base}/w`, { connections: 2 });
    try {
      const slow = await sender.send({ method: 'POST', path: '/slow', headers: {}, body: '{}', signed: '' }, 100);
      expect(slow).toMatchObject({ ok: false, error: 'timeout' });
      expect(!slow.ok && slow.message).toMatch(/100 ms \(aggmock load --timeout\)/);
      const reset = await sender.send({ method: 'POST', path: '/reset', headers: {}, body: '{}', signed: '' }, 2000);
      expect(reset).toMatchObject({ ok: false, error: 'reset' });
    } finally {
      await sender.close();
    }
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const nobody = poolSender(`http://127.0.0.1:${port}`);
    const refused = await nobody.send({ method: 'POST', path: '', headers: {}, body: '{}', signed: '' }, 2000);
    expect(refused).toMatchObject({ ok: false, error: 'refused' });
    await nobody.close();
  });
});
