import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { type CallbackEngine, createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { parseReplyBody } from '../../src/callbacks/reply.ts';
import { validateConfig } from '../../src/config/index.ts';
import { createShadowLedger, type ShadowLedger } from '../../src/ledger/index.ts';
import { applySettlement, emptyLedgerState } from '../../src/ledger/reducer.ts';
import { runVerify } from '../../src/verify/index.ts';

/**
 * Whatever a wallet answers — any nesting depth, any size, invalid UTF-8, a BOM, control
 * characters, prototype keys, huge numbers, duplicate keys, any status — the engine keeps
 * delivering to the other players, the ledger judges it without throwing, and verify writes its
 * three reports. AGGMOCK_FUZZ_RUNS raises the runs (`npm run test:nightly`); the default run
 * takes a few seconds.
 */
const SCALE = Number(process.env.AGGMOCK_FUZZ_RUNS ?? 2_000) / 2_000;
const runs = (base: number) => Math.max(1, Math.round(base * SCALE));

interface HostileReply {
  status: number;
  body: Buffer;
}

const nested = fc
  .tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `{"balance":1,"x":${open.repeat(depth)}0${(open === '[' ? ']' : '}').repeat(depth)}}`);

const replyText = fc.oneof(
  nested,
  fc.json({ maxDepth: 6 }),
  fc.integer({ min: 0, max: 120_000 }).map((n) => JSON.stringify({ balance: 100, pad: 'x'.repeat(n) })),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => JSON.stringify({ balance: 5, error: s, message: s })),
  fc.constantFrom(
    '{"__proto__":{"balance":1,"error":"POLLUTED"},"constructor":{"prototype":{"x":1}},"balance":5}',
    '{"balance":1,"balance":"x","balance":2}',
    '{"balance":1e308}',
    '{"balance":-1e400}',
    '{"balance":123456789012345678901234567890}',
    '{"balance":"12.345"}',
    '{"error":"\\u001b[32mPASS\\u0007","balance":1}',
    '{"balance":',
    '',
    'null',
    '<html><body>502</body></html>',
  ),
);

const hostileReply: fc.Arbitrary<HostileReply> = fc.record({
  status: fc.constantFrom(200, 200, 200, 201, 204, 302, 400, 404, 409, 429, 500, 503),
  body: fc
    .tuple(replyText, fc.constantFrom('plain', 'bom', 'invalid-utf8'), fc.uint8Array({ minLength: 0, maxLength: 16 }))
    .map(([text, encoding, noise]) => {
      const bytes = Buffer.from(text, 'utf8');
      if (encoding === 'bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      if (encoding === 'invalid-utf8')
        return Buffer.concat([bytes.subarray(0, bytes.length >> 1), Buffer.from([0xc3, 0x28, 0xff]), noise]);
      return bytes;
    }),
});

/** A wallet that answers the player "fuzz" with the current hostile reply and everyone else with `{"balance":100}`. */
async function fuzzWallet(): Promise<{ url: string; set(reply: HostileReply): void; close(): Promise<void> }> {
  let current: HostileReply = { status: 200, body: Buffer.from('{"balance":100}') };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fuzz = Buffer.concat(chunks).toString().includes('"fuzz"') || req.url === '/verify';
      const reply = fuzz ? current : { status: 200, body: Buffer.from('{"balance":100}') };
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        ...(reply.status === 302 ? { location: 'http://x.invalid/' } : {}),
      });
      res.end(reply.status === 204 ? undefined : reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (reply) => {
      current = reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms: the engine is stuck`)), ms);
    }),
  ]);
}

describe('fuzzed wallet replies', () => {
  let wallet: Awaited<ReturnType<typeof fuzzWallet>>;
  let engine: CallbackEngine;
  let ledger: ShadowLedger;
  let db: ReturnType<typeof openDatabase>;
  beforeAll(async () => {
    wallet = await fuzzWallet();
    const config = validateConfig({
      db: ':memory:',
      callbacks: { webhookUrl: `${wallet.url}/cb`, retrySchedule: [0], timeout: 3_000, rollbackFailedDebits: false },
    });
    db = openDatabase(':memory:');
    engine = createCallbackEngine({ config, db, random: seededRandom(7) });
    ledger = createShadowLedger({ engine, db });
    engine.start();
  });
  afterAll(async () => {
    await engine?.stop({ deadlineMs: 0 });
    ledger?.close();
    db?.close();
    await wallet?.close();
  });

  it('the engine settles the hostile one and keeps delivering to the other players, and the outbox and ledger stay readable', async () => {
    await fc.assert(
      fc.asyncProperty(hostileReply, async (reply) => {
        wallet.set(reply);
        const hostile = engine.enqueue({ kind: 'debit', playerId: 'fuzz', amountMinor: 100 });
        const other = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100 });
        const [h, o] = await within(Promise.all([hostile.settled, other.settled]), 8_000);
        expect(['delivered', 'rejected', 'failed']).toContain(h.status);
        expect(o.status).toBe('delivered');
        const stored = engine.outbox.get(h.id) as StoredEvent;
        expect(JSON.stringify(stored)).toBeTypeOf('string');
        for (const a of engine.outbox.attempts(h.id))
          expect(Buffer.byteLength(a.responseBody ?? '')).toBeLessThanOrEqual(4 * 1024);
        expect(() => ledger.discrepancies({ limit: 10 })).not.toThrow();
      }),
      { numRuns: runs(25), seed: 42 },
    );
    expect(({} as Record<string, unknown>).balance).toBeUndefined();
  });

  it('the ledger reducer judges any reply body without throwing', () => {
    fc.assert(
      fc.property(hostileReply, (reply) => {
        const body = parseReplyBody(reply.body.toString('utf8'));
        const event: StoredEvent = {
          id: 1,
          kind: 'debit',
          transactionId: 'tx_1',
          playerId: 'p1',
          amountMinor: 100,
          source: 'manual',
          orderingKey: 'p1',
          url: 'http://x.invalid/',
          body: '{}',
          status: reply.status < 300 ? 'delivered' : 'rejected',
          attemptCount: 1,
          createdAt: 1,
          settledAt: 2,
          reply: { status: reply.status, body },
        };
        const first = applySettlement(emptyLedgerState(), event);
        const again = applySettlement(first.state, { ...event, id: 2 });
        expect(JSON.stringify(again.discrepancies)).toBeTypeOf('string');
      }),
      { numRuns: runs(400), seed: 42 },
    );
  });

  it('verify always writes junit.xml, report.json and report.html', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-fuzz-verify-'));
    try {
      await fc.assert(
        fc.asyncProperty(hostileReply, async (reply) => {
          wallet.set(reply);
          const reportDir = join(dir, String(Math.random()).slice(2));
          const outcome = await runVerify({
            webhookUrl: `${wallet.url}/verify`,
            only: ['debit-applies', 'malformed-json'],
            reportDir,
            timeoutMs: 3_000,
          });
          expect([0, 1]).toContain(outcome.exitCode);
          for (const file of ['junit.xml', 'report.json', 'report.html'])
            expect(existsSync(join(reportDir, file)), file).toBe(true);
        }),
        { numRuns: runs(4), seed: 42 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
