import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingOf } from '../../src/callbacks/call.ts';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { Attempt, StoredEvent } from '../../src/callbacks/events.ts';
import { configSchema } from '../../src/config/index.ts';
import { createShadowLedger } from '../../src/ledger/index.ts';
import { startEvolutionReceiver } from './receivers/evolution.ts';
import type { VendorReceiver } from './receivers/receiver-kit.ts';

/**
 * A retry answered "already processed". Evolution's wallet test tool accepts BET_ALREADY_EXIST (or OK)
 * for a repeated debit; a correct wallet in that style answers the engine's retry of a debit it had
 * applied (the first attempt timed out after the wallet's reply) with that code. The bet was taken
 * once, so the event is delivered and the round goes on; a duplicate *event* answered so is still a
 * refusal (it moved nothing), and a wallet that says "already processed" about a bet it never applied
 * is caught by the shadow ledger, not waved through.
 */
const TOKEN = 'tok-player01-0123456789abcdef0123456789';
const AUTH = 'evo-token-1';

function engineFor(url: string, faults: unknown[]) {
  const config = configSchema.parse({
    callbacks: {
      webhookUrl: url,
      dialect: 'evolution',
      credentials: { authToken: AUTH },
      sessionTokens: { player01: TOKEN },
      retrySchedule: [0, 20, 20],
      jitter: 0,
      faults,
    },
  });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db, reading: readingOf(config.callbacks) });
  const settled: StoredEvent[] = [];
  const attempts: Attempt[] = [];
  engine.onSettled((event) => settled.push(structuredClone(event)));
  engine.onAttempt((attempt) => attempts.push(structuredClone(attempt)));
  engine.start();
  return {
    engine,
    ledger,
    settled,
    attempts,
    async stop() {
      ledger.close();
      await engine.stop();
      db.close();
    },
  };
}

async function settle(settled: StoredEvent[], count: number): Promise<void> {
  for (let i = 0; i < 500 && settled.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  expect(settled.length).toBe(count);
}

const debit = (transactionId: string, amountMinor: number) =>
  ({ kind: 'debit', playerId: 'player01', amountMinor, roundId: `r-${transactionId}`, transactionId }) as const;

describe('a retry answered with the dialect’s "already processed" code', () => {
  let receiver: VendorReceiver;
  beforeAll(async () => {
    receiver = await startEvolutionReceiver({
      credentials: { authToken: AUTH },
      players: [{ playerId: 'player01', currency: 'EUR', balance: '1000.00', token: TOKEN }],
      style: 'B', // answers a repeat with BET_ALREADY_EXIST / BET_ALREADY_SETTLED
    });
  });
  afterAll(() => receiver.stop());

  it('is delivered when the first attempt was applied: the win follows and the books balance', async () => {
    // The wallet applies the first attempt; aggmock ignores its reply and sends the debit again.
    const run = engineFor(receiver.url, [{ match: { event: 'debit' }, fault: { kind: 'timeout' }, times: 1 }]);
    try {
      run.engine.enqueue(debit('ap-1', 500));
      await settle(run.settled, 1);
      const [bet] = run.settled;
      expect(bet?.status).toBe('delivered');
      expect(bet?.attemptCount).toBe(2);
      expect(bet?.reply?.body).toMatchObject({ status: 'BET_ALREADY_EXIST' });
      const last = run.attempts.filter((a) => a.eventId === bet?.id).at(-1);
      expect(last).toMatchObject({ n: 2, outcome: 'delivered' });
      expect(last?.error).toMatch(/earlier attempt was applied.*BET_ALREADY_EXIST/);
      run.engine.enqueue({
        kind: 'credit',
        playerId: 'player01',
        amountMinor: 200,
        roundId: 'r-ap-1',
        referenceTransactionId: 'ap-1',
      });
      await settle(run.settled, 2);
      expect(run.settled[1]?.status).toBe('delivered');
      expect(receiver.balanceOf('player01')).toBe('997.00');
      expect(run.ledger.discrepancies()).toEqual([]);
      expect(receiver.errors).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it('stays a refusal on a first attempt: a duplicate event moved nothing', async () => {
    const run = engineFor(receiver.url, []);
    try {
      run.engine.enqueue(debit('ap-2', 300));
      await settle(run.settled, 1);
      run.engine.enqueue(debit('ap-2', 300));
      await settle(run.settled, 2);
      expect(run.settled.map((e) => e.status)).toEqual(['delivered', 'rejected']);
      expect(run.settled[1]?.error).toMatch(/BET_ALREADY_EXIST/);
      expect(run.ledger.discrepancies()).toEqual([]);
    } finally {
      await run.stop();
    }
  });
});

describe('a wallet that says "already processed" about a bet it never applied', () => {
  let server: Server;
  let url: string;
  let balance = 1000;
  const seen = new Set<string>();
  beforeAll(async () => {
    // Evolution-shaped and wrong: the first attempt of tx "lie" fails with a 500 before anything is
    // applied, yet the retry is answered BET_ALREADY_EXIST with the untouched balance.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
          transaction?: { id?: string; amount?: number };
        };
        const id = body.transaction?.id ?? '';
        const reply = (status: string) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status, balance, bonus: 0, uuid: body.transaction?.id ?? 'x' }));
        };
        if (req.url?.startsWith('/debit') && id === 'lie') {
          if (!seen.has(id)) {
            seen.add(id);
            res.writeHead(500).end();
            return;
          }
          return reply('BET_ALREADY_EXIST');
        }
        if (req.url?.startsWith('/debit')) balance -= body.transaction?.amount ?? 0;
        reply('OK');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('is flagged by the shadow ledger: the balance did not fall', async () => {
    const run = engineFor(url, []);
    try {
      run.engine.enqueue(debit('honest', 1000));
      await settle(run.settled, 1);
      run.engine.enqueue(debit('lie', 500));
      await settle(run.settled, 2);
      expect(run.settled[1]?.status).toBe('delivered');
      expect(run.ledger.discrepancies()).toEqual([
        expect.objectContaining({ kind: 'balance-drift', expectedMinor: 98_500, actualMinor: 99_000 }),
      ]);
    } finally {
      await run.stop();
    }
  });
});
