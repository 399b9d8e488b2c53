import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES } from '../../src/http/index.ts';
import { runVerify } from '../../src/verify/index.ts';

/**
 * `aggmock verify` against webhooks that answer with hostile replies (security review H2, M2, M3):
 * whatever comes back, verify writes its three reports, reads no more than MAX_REPLY_BYTES of a
 * reply, and never follows a redirect.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Server {
  url: string;
  /** Requests by path, in arrival order. */
  seen: string[];
}

/** An HTTP server on 127.0.0.1 that answers every request with `handle`. */
async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Server> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function reportDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-verify-hostile-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const REPORTS = ['junit.xml', 'report.json', 'report.html'];

describe('verify against a webhook whose reply nests 5,000 levels deep (H2)', () => {
  it('writes all three reports and fails the checks, with the reply kept as text', async () => {
    const deep = `{"balance":100,"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const wallet = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(deep));
    const dir = reportDir();
    const outcome = await runVerify({
      webhookUrl: `${wallet.url}/cb`,
      only: ['debit-applies', 'malformed-json'],
      reportDir: dir,
      timeoutMs: 3_000,
    });
    expect(outcome.exitCode).toBe(1);
    for (const file of REPORTS) expect(existsSync(join(dir, file)), file).toBe(true);
    const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    const exchange = json.results[0].exchanges[0];
    expect(exchange.response.body).toBe(deep);
    expect(exchange.response.json).toBeUndefined();
  });
});

describe('verify against a webhook whose reply never ends (M2)', () => {
  it('reads the first 64 KiB, drops the connection, says the reply was cut and writes the reports', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let closed = 0;
    const wallet = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => closed++);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const dir = reportDir();
    const outcome = await runVerify({
      webhookUrl: `${wallet.url}/cb`,
      only: ['malformed-json'],
      reportDir: dir,
      timeoutMs: 5_000,
    });
    for (const file of REPORTS) expect(existsSync(join(dir, file)), file).toBe(true);
    const [result] = outcome.report?.results ?? [];
    const response = result?.exchanges[0]?.response;
    expect(response?.status).toBe(200);
    expect(response?.truncated).toBe(true);
    expect(Buffer.byteLength(response?.body ?? '')).toBe(MAX_REPLY_BYTES);
    expect(result?.exchanges[0]?.error).toBeUndefined();
    expect(closed).toBeGreaterThan(0);
  });
});

describe('verify against a webhook that answers every POST with a redirect (M3)', () => {
  it('passes no contract interaction, says once that aggmock never follows redirects, and sends nothing to the redirect target', async () => {
    const target = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":100}'));
    const wallet = await serve((_req, res) => res.writeHead(307, { location: `${target.url}/redirected-target` }).end());
    const outcome = await runVerify({
      webhookUrl: `${wallet.url}/callback/webhook`,
      stateUrl: `${wallet.url}/__state`,
      only: ['pact'],
      reportDir: false,
      timeoutMs: 3_000,
    });
    const pact = outcome.report?.results ?? [];
    expect(pact.length).toBeGreaterThanOrEqual(4);
    expect(pact.filter((r) => r.status === 'pass').map((r) => r.id)).toEqual([]);
    // The state URL redirects too: that is the first cause, said once, and the interactions it blocks say so.
    const said = [outcome.report?.firstCause?.fix ?? '', ...pact.map((r) => r.reason ?? '')].join('\n');
    expect(said).toContain('never follows redirects');
    expect(target.seen).toEqual([]);
  });

  it('refuses a state URL that redirects, naming the redirect', async () => {
    const target = await serve((_req, res) => res.writeHead(200).end('{}'));
    const wallet = await serve((req, res) =>
      req.url === '/__state'
        ? res.writeHead(307, { location: `${target.url}/state-elsewhere` }).end()
        : res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":100}'),
    );
    const outcome = await runVerify({
      webhookUrl: `${wallet.url}/cb`,
      stateUrl: `${wallet.url}/__state`,
      only: ['debit-applies'],
      reportDir: false,
      timeoutMs: 3_000,
    });
    // The state URL's refusal is the run's first cause, said once; the check it blocks points at it.
    expect(outcome.report?.firstCause?.kind).toBe('state-url');
    expect(outcome.report?.firstCause?.fix).toContain('never follows redirects');
    expect(outcome.report?.results[0]?.status).toBe('blocked');
    expect(target.seen).toEqual([]);
  });
});
