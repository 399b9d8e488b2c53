import { afterAll, describe, expect, it } from 'vitest';
import {
  type CallbackEngine,
  createCallbackEngine,
  type EnqueueRequest,
  openDatabase,
  type StoredEvent,
} from '../../src/callbacks/index.ts';
import { configSchema } from '../../src/config/index.ts';

/**
 * The outbox's `facts` column leaves out the facts its own columns hold (the player, the currency,
 * the ids, the amounts, the round and the game) and puts them back on reading: an event read from
 * its row has the facts it was stored with, in the same order, for every kind of call and dialect;
 * a row written before (every fact in the JSON) reads the same; a fact that differs from its column
 * is kept in the JSON.
 */
const opened: { engine: CallbackEngine; close(): void }[] = [];
afterAll(async () => {
  for (const o of opened) {
    await o.engine.stop({ deadlineMs: 0 });
    o.close();
  }
});

/** An engine that is never started: enqueued events are only stored (committed at the end of the turn). */
function storingEngine(callbacks: Record<string, unknown>): CallbackEngine {
  const db = openDatabase(':memory:');
  const config = configSchema.parse({ seed: 'facts-column', callbacks: { webhookUrl: 'http://x.invalid/hook', ...callbacks } });
  const engine = createCallbackEngine({ config, db });
  opened.push({ engine, close: () => db.close() });
  return engine;
}

const factsRow = (engine: CallbackEngine, id: number) =>
  JSON.parse(
    (engine.outbox.db.prepare('SELECT facts FROM callback_events WHERE id = ?').get(id) as { facts: string }).facts,
  ) as Record<string, unknown>;

const COLUMN_FACTS = [
  'playerId',
  'currency',
  'transactionId',
  'betTransactionId',
  'amountMinor',
  'winMinor',
  'roundId',
  'gameId',
];

const CASES: { dialect: string; reqs: EnqueueRequest[] }[] = [
  {
    dialect: 'default',
    reqs: [
      { kind: 'debit', playerId: 'p1', amountMinor: 150 },
      { kind: 'credit', playerId: 'p1', amountMinor: 300, referenceTransactionId: 'tx_bet_1', roundId: 'r1', gameId: 'g1' },
      { kind: 'rollback', playerId: 'p2', amountMinor: 150, referenceTransactionId: 'tx_bet_2', currency: 'JPY' },
    ],
  },
  {
    dialect: 'softswiss',
    reqs: [
      {
        kind: 'debit',
        playerId: 'p3',
        amountMinor: 1000,
        roundId: 'r9',
        gameId: 'acme:fruits',
        gameName: 'Fruits',
        provider: 'acme',
        sessionToken: 'tok-p3',
        bonus: { kind: 'free-spins', id: 'fs-1' },
      },
      { kind: 'credit', playerId: 'p3', amountMinor: 0, roundId: 'r9', gameId: 'acme:fruits', roundClosed: true },
    ],
  },
  {
    dialect: 'hub88',
    reqs: [
      { kind: 'debit', playerId: 'p4', amountMinor: 250, roundId: 'r4', gameId: 'g4', sessionToken: 'tok-p4' },
      { kind: 'credit', playerId: 'p4', amountMinor: 0, operation: 'balance', sessionToken: 'tok-p4' },
    ],
  },
];

describe('the outbox facts column', () => {
  for (const { dialect, reqs } of CASES) {
    it(`keeps only what the columns do not hold and reads back the same facts in the same order (${dialect})`, async () => {
      const engine = storingEngine({ dialect });
      const enqueued = reqs.map((req) => engine.enqueue(req).event);
      await Promise.resolve(); // the turn's commit (a microtask)
      for (const stored of enqueued) {
        const facts = stored.facts as unknown as Record<string, unknown>;
        expect(facts.requestId).toMatch(/^[0-9a-f-]{36}$/);
        const row = factsRow(engine, stored.id);
        for (const key of COLUMN_FACTS) expect(row).not.toHaveProperty(key);
        // What the columns do not hold is all in the JSON.
        for (const key of Object.keys(facts)) if (!COLUMN_FACTS.includes(key)) expect(row[key]).toEqual(facts[key]);
        const read = engine.outbox.get(stored.id) as StoredEvent;
        expect(read.facts).toEqual(stored.facts);
        expect(Object.keys(read.facts ?? {})).toEqual(Object.keys(facts));
      }
    });
  }

  it('reads a row written with every fact in the JSON (before the column was compact) as it was', async () => {
    const engine = storingEngine({});
    const { event } = engine.enqueue({
      kind: 'credit',
      playerId: 'p1',
      amountMinor: 5,
      referenceTransactionId: 'tx_b',
      roundId: 'r',
    });
    await Promise.resolve();
    engine.outbox.db.prepare('UPDATE callback_events SET facts = ? WHERE id = ?').run(JSON.stringify(event.facts), event.id);
    const read = engine.outbox.get(event.id) as StoredEvent;
    expect(read.facts).toEqual(event.facts);
    expect(Object.keys(read.facts ?? {})).toEqual(Object.keys(event.facts ?? {}));
  });

  it('keeps a fact that differs from its column, and leaves out only the ones that equal it', async () => {
    const engine = storingEngine({});
    const differing = {
      kind: 'debit' as const,
      transactionId: 'tx_col',
      playerId: 'p1',
      amountMinor: 100,
      currency: 'EUR',
      source: 'manual',
      orderingKey: 'p1',
      url: 'http://x.invalid/hook',
      body: '{}',
      status: 'pending' as const,
      attemptCount: 0,
      createdAt: 1_000,
      facts: { operation: 'bet' as const, playerId: 'p1', currency: 'USD', transactionId: 'tx_fact', amountMinor: 100 },
    };
    const stored = engine.outbox.insert(differing);
    engine.outbox.flush();
    const row = factsRow(engine, stored.id);
    expect(row).toEqual({ operation: 'bet', currency: 'USD', transactionId: 'tx_fact' });
    expect((engine.outbox.get(stored.id) as StoredEvent).facts).toEqual(differing.facts);
  });
});
