import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../config/index.ts';
import { openDatabase } from './db.ts';
import { createCallbackEngine } from './engine.ts';
import { MAX_JOURNALED_BODY } from './outbox.ts';
import { createProxyTransport, proxySettings, transportFor } from './proxy.ts';
import { startTestReceiver, type TestReceiver } from './test-receiver.ts';
import { createTransport } from './transport.ts';

/**
 * A real forward proxy in its own process on 127.0.0.1: it tunnels CONNECT and forwards
 * absolute-form requests, and prints one line per request it handled, so a test sees whether
 * traffic went through it. It dials 127.0.0.1 whatever host it is asked for: loopback callbacks
 * never use a proxy, so the tests name the wallet `wallet.invalid` (a name that never resolves)
 * and only this proxy can reach it.
 */
const PROXY = `
const http = require('node:http'); const net = require('node:net');
const server = http.createServer((req, res) => {
  console.log('FORWARD ' + req.url);
  const target = new URL(req.url);
  const up = http.request({ host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  up.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(up);
});
server.on('connect', (req, client, head) => {
  console.log('CONNECT ' + req.url);
  const port = req.url.split(':').pop();
  const up = net.connect(Number(port), '127.0.0.1', () => { client.write('HTTP/1.1 200 Connection Established\\r\\n\\r\\n'); up.write(head); up.pipe(client); client.pipe(up); });
  up.on('error', () => client.destroy()); client.on('error', () => up.destroy());
});
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));`;

interface ProxyProcess {
  url: string;
  lines: () => string[];
  child: ChildProcessWithoutNullStreams;
}

async function startProxy(): Promise<ProxyProcess> {
  const child = spawn(process.execPath, ['-e', PROXY], { stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const port = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearInterval(poll);
        resolve(m[1] as string);
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        reject(new Error(`the proxy exited: ${out}`));
      }
    }, 20);
  });
  return { url: `http://127.0.0.1:${port}`, child, lines: () => out.split('\n').filter((l) => !l.startsWith('LISTENING') && l) };
}

describe('callbacks behind a proxy', () => {
  let proxy: ProxyProcess;
  let wallet: TestReceiver;
  const closers: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    proxy = await startProxy();
    wallet = await startTestReceiver();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    await wallet?.close();
    if (proxy?.child.pid) process.kill(proxy.child.pid, 'SIGTERM');
  });

  /** Sends one DEBIT through an engine whose transport is chosen from `env`, and waits until it settles. */
  async function deliverWith(env: NodeJS.ProcessEnv, host = '127.0.0.1') {
    const webhookUrl = `http://${host}:${new URL(wallet.url).port}/hook`;
    const config = validateConfig({ db: ':memory:', callbacks: { webhookUrl, retrySchedule: [0] } });
    const db = openDatabase(':memory:');
    const engine = createCallbackEngine({ config, db, transport: transportFor(env) });
    closers.push(async () => {
      await engine.stop();
      db.close();
    });
    engine.start();
    const before = proxy.lines().length;
    const settled = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100 }).settled;
    return { settled, proxied: proxy.lines().slice(before) };
  }

  it('go through HTTP_PROXY when it is set, and arrive signed and intact', async () => {
    const received = wallet.requests.length;
    const { settled, proxied } = await deliverWith({ HTTP_PROXY: proxy.url }, 'wallet.invalid');
    expect(settled.status).toBe('delivered');
    expect(proxied).toEqual([
      expect.stringMatching(new RegExp(`^(CONNECT|FORWARD) .*wallet\\.invalid:${new URL(wallet.url).port}`)),
    ]);
    const request = wallet.requests[received];
    expect(request?.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(request?.body).toBe(settled.body);
  });

  it('honour the lower-case https_proxy too', async () => {
    // An http:// webhook uses HTTP_PROXY; only https_proxy set leaves it direct, as curl does.
    const { settled, proxied } = await deliverWith({ https_proxy: proxy.url });
    expect(settled.status).toBe('delivered');
    expect(proxied).toEqual([]);
    expect(proxySettings({ https_proxy: proxy.url })).toEqual({ httpsProxy: proxy.url });
  });

  it('go direct for hosts in NO_PROXY', async () => {
    const { settled, proxied } = await deliverWith({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect(settled.status).toBe('delivered');
    expect(proxied).toEqual([]);
  });

  it('use the fast direct client when no proxy is set', async () => {
    expect(transportFor({})).toBe(createTransport);
    const { settled, proxied } = await deliverWith({});
    expect(settled.status).toBe('delivered');
    expect(proxied).toEqual([]);
  });

  it('report a proxy that is down as a connection failure to retry, naming it', async () => {
    const { settled } = await deliverWith({ HTTP_PROXY: 'http://127.0.0.1:9' }, 'wallet.invalid');
    expect(settled.status).toBe('failed');
    expect(settled.error).toMatch(/proxy|ECONNREFUSED/i);
  });

  it('read at most MAX_JOURNALED_BODY of a reply that never ends, and drop the rest', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const endless = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          endless.closeAllConnections();
          endless.close(() => resolve());
        }),
    );
    const transport = createProxyTransport({ maxSockets: 1, timeoutMs: 5_000 }, { httpProxy: proxy.url });
    closers.push(() => transport.close());
    const { port } = endless.address() as AddressInfo;
    const before = proxy.lines().length;
    const answer = await transport.post(`http://wallet.invalid:${port}/hook`, {}, '{}');
    expect(proxy.lines().slice(before)).toHaveLength(1);
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(MAX_JOURNALED_BODY);
  });
});
