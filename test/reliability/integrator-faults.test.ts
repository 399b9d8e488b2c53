import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { MAX_JOURNALED_BODY } from '../../src/callbacks/outbox.ts';
import type { Aggmock } from '../../src/runtime.ts';
import { startSmallAggmock } from '../api/helpers.ts';

/** How a misbehaving integrator webhook answers, by the last path segment of the callback URL. */
const FAULTS: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  reset: (req) => req.socket.destroy(),
  hang: () => {},
  html: (_req, res) =>
    res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>'),
  'invalid-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":'),
  huge: (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"balance":1,"pad":"${'x'.repeat(10 << 20)}"}`),
  redirect: (_req, res) => res.writeHead(302, { location: 'http://metadata.invalid/' }).end(),
  gone: (_req, res) => res.writeHead(410, { 'content-type': 'application/json' }).end('{"error":"GONE"}'),
  'too-many': (_req, res) => res.writeHead(429, { 'retry-after': '1' }).end(),
  'close-mid-reply': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"bal');
    setTimeout(() => req.socket.destroy(), 10);
  },
};

/** What docs/security.md promises for each: the final status, whether it was retried, and the journaled error. */
const EXPECTED: Record<string, { status: StoredEvent['status']; attempts: number; error: RegExp }> = {
  reset: { status: 'failed', attempts: 2, error: /ECONNRESET|socket hang up|reset/i },
  hang: { status: 'failed', attempts: 2, error: /timed? ?out|timeout/i },
  html: { status: 'failed', attempts: 2, error: /HTTP 502: will retry/ },
  // A 2xx nobody can read (cut JSON, or a reply over the journal limit) might or might not have
  // been applied: retried like a timeout (callbacks are idempotent), then failed.
  'invalid-json': { status: 'failed', attempts: 2, error: /HTTP 200 but the body is not a JSON object.*will retry/ },
  huge: { status: 'failed', attempts: 2, error: /HTTP 200 but the body is not a JSON object.*will retry/ },
  redirect: { status: 'rejected', attempts: 1, error: /HTTP 302 \(redirects are not followed/ },
  gone: { status: 'rejected', attempts: 1, error: /HTTP 410/ },
  'too-many': { status: 'failed', attempts: 2, error: /HTTP 429: will retry/ },
  'close-mid-reply': { status: 'failed', attempts: 2, error: /.+/ },
};

describe('integrator faults: each classified, journaled readably, retried as documented', () => {
  let server: http.Server;
  let base: string;
  let aggmock: Aggmock;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const fault = (req.url ?? '').split('/').at(-1) ?? '';
      hits.set(fault, (hits.get(fault) ?? 0) + 1);
      req.resume();
      req.on('end', () => FAULTS[fault]?.(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    aggmock = await startSmallAggmock({
      webhookUrl: `${base}/ok`,
      retrySchedule: [0, 50],
      jitter: 0,
      // Long enough for a 10 MiB reply on a loaded 2-core machine (at 500 ms, `huge` ended as a
      // timeout there); only `hang` waits it out, twice.
      timeout: 3000,
      rollbackFailedDebits: false,
    });
  });
  afterAll(async () => {
    await aggmock?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('settles every fault as the docs say, while the API keeps serving', async () => {
    const queued = Object.keys(FAULTS).map((fault, i) =>
      aggmock.engine.enqueue({ kind: 'credit', playerId: `p-${fault}`, amountMinor: 100 + i, url: `${base}/${fault}` }),
    );
    const health = await fetch(`${aggmock.url}/health`);
    expect(health.status).toBe(200);
    const settled = await Promise.all(queued.map((q) => q.settled));

    for (const [i, fault] of Object.keys(FAULTS).entries()) {
      const event = settled[i] as StoredEvent;
      const expected = EXPECTED[fault]!;
      const attempts = aggmock.engine.outbox.attempts(event.id);
      expect({ fault, status: event.status, attempts: attempts.length }).toEqual({
        fault,
        status: expected.status,
        attempts: expected.attempts,
      });
      // Journal truth: the receiver saw exactly the requests the journal lists. A reset after the
      // request was written is never re-sent behind the journal's back (the wallet may have applied it).
      expect(hits.get(fault), fault).toBe(expected.attempts);
      expect(event.error ?? '').toMatch(expected.error);
      for (const a of attempts) {
        if (a.outcome !== 'delivered') expect(a.error, fault).toMatch(/\w/);
        expect((a.responseBody ?? '').length).toBeLessThanOrEqual(MAX_JOURNALED_BODY);
      }
    }
  });
});
