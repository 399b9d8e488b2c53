import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { MAX_STORED_BODY, OUTBOX_SCHEMA_VERSION, Outbox } from '../../src/callbacks/outbox.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { parseReplyBody } from '../../src/callbacks/reply.ts';
import { configFor, engineFor, receiver, runCleanups, tempDbPath } from '../../src/callbacks/test-engine.ts';

/**
 * What a wallet's reply can do to the engine and its journal (security review H2 and M5): a reply
 * nested 5,000 levels deep used to stop every delivery for good, and every 64 KiB reply was stored
 * twice per attempt.
 */

afterEach(runCleanups);

/** `{"balance":100,"x":[[[…]]]}` nested `depth` arrays deep: about 2 bytes a level. */
const deepReply = (depth: number) => `{"balance":100,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Settles within `ms`, or says the engine is stuck (instead of hanging the test). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms: the engine is stuck`)), ms);
    }),
  ]);
}

describe('a wallet reply nested thousands of levels deep (H2)', () => {
  it('is kept as text, not parsed, beyond the JSON depth limit', () => {
    expect(parseReplyBody(deepReply(5_000))).toBe(deepReply(5_000));
    expect(parseReplyBody(deepReply(10))).toEqual({ balance: 100, x: [[[[[[[[[[]]]]]]]]]] });
  });

  it('fails its own event as an invalid reply while the engine keeps delivering to other players', async () => {
    const rx = await receiver((req) =>
      req.body.includes('"p-deep"') ? { status: 200, body: deepReply(5_000) } : { status: 200, body: { balance: 100 } },
    );
    const engine = engineFor(configFor(rx.url, { retrySchedule: [0], rollbackFailedDebits: false }));
    engine.start();
    const deep = engine.enqueue({ kind: 'credit', playerId: 'p-deep', amountMinor: 1 });
    const deepEvent = await within(deep.settled, 5_000, 'the event with the deep reply');
    expect(deepEvent.status).toBe('failed');
    expect(deepEvent.error).toContain('not a JSON object');
    const other = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 });
    expect((await within(other.settled, 5_000, 'a normal event after it')).status).toBe('delivered');
    // The admin API and the UI read through the outbox: they answer.
    expect(engine.outbox.list({ limit: 10 })).toHaveLength(2);
    expect(engine.outbox.attempts(deepEvent.id)[0]?.responseStatus).toBe(200);
  });

  it('leaves nothing behind that stops the engine again after a restart', async () => {
    const rx = await receiver((req) =>
      req.body.includes('"p-deep"') ? { status: 200, body: deepReply(30_000) } : { status: 200, body: { balance: 100 } },
    );
    const dbPath = tempDbPath();
    const config = configFor(rx.url, { retrySchedule: [0, 60_000], rollbackFailedDebits: false });
    const first = engineFor(config, { dbPath });
    first.start();
    // Pending after its first attempt: the restart sends it again and gets the same reply.
    const deep = first.enqueue({ kind: 'credit', playerId: 'p-deep', amountMinor: 1 });
    await within(
      new Promise<void>((resolve) => first.onAttempt(() => resolve())),
      5_000,
      'the first attempt with the deep reply',
    );
    await first.stop();
    const second = engineFor(config, { dbPath });
    second.start();
    const other = second.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 });
    expect((await within(other.settled, 5_000, 'a normal event after the restart')).status).toBe('delivered');
    expect(second.outbox.get(deep.event.id)?.reply?.body).toBe(deepReply(30_000).slice(0, MAX_STORED_BODY));
  });
});

describe('one row that cannot be stored', () => {
  it('is stored reduced, saying why, and the rest of the batch is committed', () => {
    const db = openDatabase(':memory:');
    const outbox = new Outbox(db);
    const good = outbox.insert(newEvent('tx_good'));
    const bad = outbox.insert(newEvent('tx_bad'));
    outbox.flush();
    // A header value JSON cannot write (a BigInt): its journal row cannot be made as it is.
    const unserialisable = { 'x-n': 1n } as unknown as Record<string, string>;
    outbox.journal({
      eventId: bad.id,
      n: 1,
      startedAt: 1,
      latencyMs: 0,
      requestHeaders: unserialisable,
      requestBody: bad.body,
      outcome: 'retry',
    });
    outbox.journal({
      eventId: good.id,
      n: 1,
      startedAt: 1,
      latencyMs: 0,
      requestHeaders: {},
      requestBody: good.body,
      outcome: 'delivered',
    });
    good.status = 'delivered';
    outbox.markDirty(good);
    expect(() => outbox.flush()).not.toThrow();
    expect(outbox.get(good.id)?.status).toBe('delivered');
    expect(outbox.attempts(good.id)).toHaveLength(1);
    expect(outbox.attempts(bad.id)[0]?.error).toContain("could not store this attempt's request headers");
    db.close();
  });
});

describe('stored reply bodies (M5)', () => {
  it('stores a reply once, cut at MAX_STORED_BODY, with the length and sha256 of the whole, and judges it whole', async () => {
    const fat = JSON.stringify({ balance: 100, pad: 'é'.repeat(30_000) });
    const rx = await receiver(() => ({ status: 200, body: fat }));
    const engine = engineFor(configFor(rx.url));
    engine.start();
    const { settled } = engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 });
    const event = await settled;
    expect(event.status).toBe('delivered');
    expect(event.reply?.body).toEqual(JSON.parse(fat));
    const [attempt] = engine.outbox.attempts(event.id);
    const whole = Buffer.from(fat);
    expect(attempt?.responseBytes).toBe(whole.length);
    expect(attempt?.responseSha256).toBe(createHash('sha256').update(whole).digest('hex'));
    expect(Buffer.byteLength(attempt?.responseBody ?? '')).toBeLessThanOrEqual(MAX_STORED_BODY);
    expect(whole.toString().startsWith(attempt?.responseBody ?? 'x')).toBe(true);
    const row = engine.outbox.db.prepare('SELECT reply_body, reply_attempt FROM callback_events WHERE id = ?').get(event.id);
    expect(row).toEqual({ reply_body: null, reply_attempt: 1 });
    expect(engine.outbox.get(event.id)?.reply).toEqual({ status: 200, body: attempt?.responseBody });
  });

  it('keeps 200 callbacks with 64 KiB replies under 200 × MAX_STORED_BODY of stored reply text', async () => {
    const fat = JSON.stringify({ balance: 100, pad: 'x'.repeat(65_000) });
    const rx = await receiver(() => ({ status: 200, body: fat }));
    const engine = engineFor(configFor(rx.url));
    engine.start();
    const settled = Array.from(
      { length: 200 },
      (_, i) => engine.enqueue({ kind: 'credit', playerId: `p${i % 10}`, amountMinor: 1 }).settled,
    );
    expect((await Promise.all(settled)).every((e) => e.status === 'delivered')).toBe(true);
    const { stored } = engine.outbox.db
      .prepare(`SELECT (SELECT coalesce(sum(length(reply_body)), 0) FROM callback_events)
        + (SELECT coalesce(sum(length(response_body)), 0) FROM callback_attempts) AS stored`)
      .get() as { stored: number };
    expect(stored).toBeLessThanOrEqual(200 * MAX_STORED_BODY);
  });

  it('opens an outbox written by the previous schema and reads its replies', async () => {
    const dbPath = tempDbPath();
    const old = openDatabase(dbPath);
    old.exec(SCHEMA_2);
    old
      .prepare(`INSERT INTO callback_events (id, kind, transaction_id, player_id, amount_minor, source, ordering_key, url, body,
      status, attempt_count, created_at, settled_at, reply_status, reply_body)
      VALUES (1, 'debit', 'tx_old', 'p1', 500, 'manual', 'p1', 'http://x.invalid/', '{}', 'delivered', 1, ?, ?, 200, '{"balance":95}')`)
      .run(Date.now(), Date.now());
    old
      .prepare(`INSERT INTO callback_attempts (event_id, n, started_at, latency_ms, request_headers, response_status, response_body, outcome)
      VALUES (1, 1, 1, 3, '{}', 200, '{"balance":95}', 'delivered')`)
      .run();
    old.close();

    const rx = await receiver();
    const engine = createCallbackEngine({ config: configFor(rx.url), db: openDatabase(dbPath), random: seededRandom(1) });
    engine.start();
    expect(engine.outbox.get(1)?.reply).toEqual({ status: 200, body: { balance: 95 } });
    expect(engine.outbox.attempts(1)[0]?.responseBody).toBe('{"balance":95}');
    const fresh = await engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).settled;
    expect(engine.outbox.get(fresh.id)?.reply).toEqual({ status: 200, body: { balance: 100 } });
    const version = engine.outbox.db.prepare("SELECT value FROM callback_meta WHERE key = 'schema_version'").get();
    expect(version).toEqual({ value: String(OUTBOX_SCHEMA_VERSION) });
    await engine.stop();
    engine.outbox.db.close();
  });
});

function newEvent(transactionId: string): Omit<StoredEvent, 'id'> {
  return {
    kind: 'debit',
    transactionId,
    playerId: transactionId,
    amountMinor: 1,
    source: 'manual',
    orderingKey: transactionId,
    url: 'http://x.invalid/',
    body: `{"tx":"${transactionId}"}`,
    status: 'pending',
    attemptCount: 1,
    createdAt: 1,
  };
}

/** The outbox tables as schema version 2 wrote them (aggmock 0.1.0). */
const SCHEMA_2 = `
  CREATE TABLE callback_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  INSERT INTO callback_meta (key, value) VALUES ('schema_version', '2');
  CREATE TABLE callback_events (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, transaction_id TEXT NOT NULL, reference_transaction_id TEXT,
    player_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, round_id TEXT, game_id TEXT, currency TEXT,
    source TEXT NOT NULL, grp TEXT, ordering_key TEXT NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
    status TEXT NOT NULL, attempt_count INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER,
    created_at INTEGER NOT NULL, settled_at INTEGER, reply_status INTEGER, reply_body TEXT, error TEXT,
    win_minor INTEGER
  );
  CREATE TABLE callback_attempts (
    event_id INTEGER NOT NULL, n INTEGER NOT NULL, started_at INTEGER NOT NULL, latency_ms REAL NOT NULL,
    request_headers TEXT NOT NULL, request_body TEXT, response_status INTEGER, response_body TEXT, error TEXT,
    outcome TEXT NOT NULL, PRIMARY KEY (event_id, n)
  ) WITHOUT ROWID;
`;
