import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import { bypassesProxy } from '../../src/callbacks/proxy.ts';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { validateConfig } from '../../src/config/index.ts';

/**
 * L-3 of the 2026-11-27 review: with HTTP_PROXY set, a callback to a loopback wallet went to the
 * proxy (credentials included) and never reached the local wallet. Loopback destinations now go
 * direct whatever NO_PROXY says. The "proxy" here records every hit and answers 502 to loopback
 * targets (the proxy host's own loopback is not this machine's); it forwards `wallet.invalid` (a
 * name that never resolves) to the local wallet, so the proxied path is still proven to work.
 */
interface Hit {
  kind: 'CONNECT' | 'FORWARD';
  target: string;
  rawHeaders: string[];
  /** What went through a CONNECT tunnel towards the wallet. */
  tunnelled?: string;
}

describe('L-3: loopback callbacks never go through HTTP_PROXY', () => {
  let wallet: TestReceiver;
  let proxy: http.Server;
  let proxyUrl: string;
  const hits: Hit[] = [];
  const closers: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    wallet = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    proxy = http.createServer((req, res) => {
      hits.push({ kind: 'FORWARD', target: req.url ?? '', rawHeaders: req.rawHeaders });
      const target = new URL(req.url ?? '/', 'http://x.invalid');
      if (target.hostname !== 'wallet.invalid') {
        res.writeHead(502).end();
        return;
      }
      const up = http.request(
        { host: '127.0.0.1', port: target.port, path: target.pathname, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    });
    proxy.on('connect', (req, client, head) => {
      const hit: Hit = { kind: 'CONNECT', target: req.url ?? '', rawHeaders: [], tunnelled: '' };
      hits.push(hit);
      const [host, port] = (req.url ?? '').split(':');
      if (host !== 'wallet.invalid') {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        return;
      }
      const up = net.connect(Number(port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        up.write(head);
        client.on('data', (chunk: Buffer) => {
          hit.tunnelled += chunk.toString('latin1');
        });
        up.pipe(client);
        client.pipe(up);
      });
      up.on('error', () => client.destroy());
      client.on('error', () => up.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    await wallet?.close();
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  });

  /** One DEBIT from an engine built while the proxy variables are set, as `aggmock start` builds it. */
  async function deliver(host: string, env: Record<string, string>) {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const webhookUrl = `http://${host}:${new URL(wallet.url).port}/hook`;
    const config = validateConfig({ db: ':memory:', callbacks: { webhookUrl, retrySchedule: [0] } });
    const db = openDatabase(':memory:');
    const engine = createCallbackEngine({ config, db });
    closers.push(async () => {
      await engine.stop();
      db.close();
    });
    engine.start();
    const hitsBefore = hits.length;
    const received = wallet.requests.length;
    const settled = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100 }).settled;
    return { settled, proxied: hits.slice(hitsBefore), arrived: wallet.requests.slice(received) };
  }

  it.each([
    ['127.0.0.1 with HTTP_PROXY', '127.0.0.1', { HTTP_PROXY: 'proxy' }],
    ['localhost with the lower-case http_proxy', 'localhost', { http_proxy: 'proxy' }],
    [
      '127.0.0.1 with both proxies and an unrelated NO_PROXY',
      '127.0.0.1',
      { HTTP_PROXY: 'proxy', HTTPS_PROXY: 'proxy', NO_PROXY: 'example.test' },
    ],
  ])('delivers to a loopback wallet directly: %s', async (_what, host, env) => {
    const withProxy = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'proxy' ? proxyUrl : v]));
    const { settled, proxied, arrived } = await deliver(host, withProxy);
    expect(proxied).toEqual([]);
    expect(settled.status).toBe('delivered');
    expect(arrived).toHaveLength(1);
    expect(arrived[0]?.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('still sends a non-loopback wallet through the proxy, with one Content-Type', async () => {
    const { settled, proxied, arrived } = await deliver('wallet.invalid', { HTTP_PROXY: proxyUrl });
    expect(settled.error ?? '').toBe('');
    expect(settled.status).toBe('delivered');
    expect(proxied).toHaveLength(1);
    expect(proxied[0]?.target).toContain('wallet.invalid');
    // undici tunnels with CONNECT (then the request is in `tunnelled`) or forwards it (rawHeaders).
    const hit = proxied[0];
    const names =
      hit?.kind === 'CONNECT'
        ? (hit.tunnelled ?? '')
            .split('\r\n\r\n')[0]
            ?.split('\r\n')
            .slice(1)
            .map((line) => line.split(':')[0]?.toLowerCase())
        : (hit?.rawHeaders ?? []).filter((_v, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).toContain('x-signature');
    expect(names?.filter((n) => n === 'content-type')).toHaveLength(1);
    expect(arrived).toHaveLength(1);
  });

  it.each([
    ['http://127.0.0.1:1/x', true],
    ['http://127.9.8.7/x', true],
    ['http://localhost:8080/x', true],
    ['http://[::1]:8080/x', true],
    ['http://LOCALHOST./x', true],
    ['http://wallet.invalid/x', false],
    ['https://10.0.0.1/x', false],
    ['http://128.0.0.1/x', false],
    ['not a url', false],
  ])('decides %s bypasses the proxy: %s', (url, bypass) => {
    expect(bypassesProxy(url)).toBe(bypass);
  });
});
