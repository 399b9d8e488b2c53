import { afterEach, describe, expect, it } from 'vitest';
import { readingOf, urlUnder } from '../../src/callbacks/call.ts';
import { FakeClock } from '../../src/callbacks/clock.ts';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { StoredEvent } from '../../src/callbacks/index.ts';
import { OUTBOX_SCHEMA_VERSION } from '../../src/callbacks/outbox.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { judgeReply } from '../../src/callbacks/reply.ts';
import { configFor, drive, engineFor, onCleanup, receiver, runCleanups, tempDbPath } from '../../src/callbacks/test-engine.ts';
import { betWinReplayRollback, PLAYER, started, VENDORS } from './vendor-table.ts';

/**
 * The callback engine speaks vendor dialects: each event becomes a call, built and signed by the
 * dialect, sent to `<base URL><path>`, its reply read by the dialect — judged by wallets written
 * from the vendors' documentation (test/dialects/receivers).
 */

afterEach(runCleanups);

/** A fake clock at the real time: Slotegrator's wallet refuses an X-Timestamp far from its own clock. */
const nowClock = () => new FakeClock(Date.now());

describe.each(VENDORS)('the engine speaking $name', ({ name, receiver, credentials }) => {
  it('delivers a bet, its win, a duplicate and a rollback, accepted with no receiver-side error and the balances the engine expects', async () => {
    const rx = await started(receiver());
    const engine = engineFor(configFor(rx.url, { profile: name, credentials }), { clock: nowClock() });
    engine.start();
    const events = await betWinReplayRollback(engine, { playerId: PLAYER.playerId, sessionToken: PLAYER.token });
    const [bet] = events as [StoredEvent];
    expect(rx.errors).toEqual([]);
    for (const event of events) expect({ id: event.id, status: event.status }).toEqual({ id: event.id, status: 'delivered' });
    expect(rx.balanceOf(PLAYER.playerId)).toBe('1014.50');
    // Each call went to its own path under the base URL, and the journal shows the request as sent.
    const attempts = engine.outbox.attempts(bet.id);
    expect(new URL(urlUnder(rx.url, attempts[0]?.requestPath ?? '')).pathname).toBe(rx.log[0]?.path);
    expect(attempts[0]?.requestBody).toBe(bet.body);
  });

  it('refuses a bet beyond the balance as the wallet means it: rejected, not retried, no money moved', async () => {
    const rx = await started(receiver());
    const engine = engineFor(configFor(rx.url, { profile: name, credentials }), { clock: nowClock() });
    engine.start();
    const refused = await engine.enqueue({
      kind: 'debit',
      playerId: PLAYER.playerId,
      sessionToken: PLAYER.token,
      transactionId: 'tx0009',
      roundId: '1009',
      amountMinor: 50_000_000,
    }).settled;
    expect(refused.status).toBe('rejected');
    expect(refused.attemptCount).toBe(1);
    expect(rx.balanceOf(PLAYER.playerId)).toBe('1000.00');
    expect(rx.errors).toEqual([]);
  });
});

describe('a call across retries', () => {
  it('keeps its requestId and body bytes on every attempt, and keeps the call through a reload', async () => {
    let answered = 0;
    const rx = await receiver((req) => {
      answered++;
      if (answered === 1) return { status: 503, body: 'busy' };
      const uuid = JSON.parse(req.body).request_uuid;
      return {
        status: 200,
        body: { status: 'RS_OK', balance: 99_000_000, request_uuid: uuid, user: 'player01', currency: 'EUR' },
      };
    });
    const dbPath = tempDbPath();
    const clock = new FakeClock();
    const engine = engineFor(configFor(`${rx.url}/wallet`, { profile: 'hub88' }), { clock, dbPath });
    engine.start();
    const { settled } = engine.enqueue({ kind: 'debit', playerId: 'player01', sessionToken: PLAYER.token, amountMinor: 100 });
    const event = await drive(engine, clock, settled);
    expect(event.status).toBe('delivered');
    const base = new URL(rx.url).pathname;
    expect(rx.requests.map((r) => r.path)).toEqual([`${base}/wallet/transaction/bet`, `${base}/wallet/transaction/bet`]);
    expect(rx.requests[1]?.body).toBe(rx.requests[0]?.body);
    const requestId = JSON.parse(rx.requests[0]?.body ?? '{}').request_uuid;
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rx.requests[0]?.headers['x-hub88-signature']).toBeTypeOf('string');
    await engine.stop();
    const reopened = engineFor(configFor(`${rx.url}/wallet`, { profile: 'hub88' }), { dbPath });
    const stored = reopened.outbox.get(event.id);
    expect(stored?.facts).toMatchObject({ operation: 'bet', requestId, sessionToken: PLAYER.token });
    expect(stored?.request).toMatchObject({ method: 'POST', path: '/transaction/bet' });
    expect(reopened.outbox.attempts(event.id).map((a) => a.requestPath)).toEqual(['/transaction/bet', '/transaction/bet']);
  });

  it('sends each Slotegrator attempt with its own X-Timestamp and X-Nonce, the ids and the body unchanged, so a late retry is not stale', async () => {
    let answered = 0;
    const rx = await receiver((req) => {
      answered++;
      if (answered === 1) return { status: 503, body: 'busy' };
      return { status: 200, body: { balance: 990.5, transaction_id: new URLSearchParams(req.body).get('transaction_id') } };
    });
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url, { profile: 'slotegrator' }), { clock });
    engine.start();
    const { settled } = engine.enqueue({
      kind: 'debit',
      playerId: 'player01',
      sessionToken: PLAYER.token,
      transactionId: 'tx0001',
      amountMinor: 100,
    });
    const event = await drive(engine, clock, settled);
    expect(event.status).toBe('delivered');
    const attempts = engine.outbox.attempts(event.id);
    expect(attempts).toHaveLength(2);
    const [first, second] = rx.requests;
    // Each attempt is stamped when it is sent, not when the bet was made.
    const header = (h: Record<string, string>, name: string) => Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
    expect(attempts.map((a) => Number(header(a.requestHeaders, 'x-timestamp')))).toEqual(
      attempts.map((a) => Math.floor(a.startedAt / 1000)),
    );
    expect([first, second].map((r) => Number(r?.headers['x-timestamp']))).toEqual(
      attempts.map((a) => Math.floor(a.startedAt / 1000)),
    );
    expect(Number(second?.headers['x-timestamp'])).toBeGreaterThan(Number(first?.headers['x-timestamp']));
    expect(second?.headers['x-nonce']).not.toBe(first?.headers['x-nonce']);
    expect(second?.headers['x-sign']).not.toBe(first?.headers['x-sign']);
    // The call itself is the same: its transaction id, its session and every field of its body.
    expect(second?.body).toBe(first?.body);
    expect(new URLSearchParams(second?.body).get('transaction_id')).toBe('tx0001');
  });

  it("gives a Slotegrator call sent after its event was stored a nonce and X-Timestamp of its own, not the stored request's", async () => {
    let answered = 0;
    const rx = await receiver((req) =>
      ++answered === 1
        ? { status: 503, body: 'busy' }
        : { status: 200, body: { balance: 990.5, transaction_id: new URLSearchParams(req.body).get('transaction_id') } },
    );
    const clock = new FakeClock();
    const engine = engineFor(configFor(rx.url, { profile: 'slotegrator' }), { clock });
    engine.start();
    // One player: the second bet waits in line while the first is retried a second later.
    const call = (transactionId: string) =>
      engine.enqueue({ kind: 'debit', playerId: 'player01', sessionToken: PLAYER.token, transactionId, amountMinor: 100 });
    call('tx0002');
    const { event: stored, settled } = call('tx0003');
    expect((await drive(engine, clock, settled)).status).toBe('delivered');
    const sent = rx.requests[2];
    expect(sent?.body).toBe(stored.body);
    expect(Number(sent?.headers['x-timestamp'])).toBe(Number(stored.request?.headers['x-timestamp']) + 1);
    expect(sent?.headers['x-nonce']).toMatch(/^[0-9a-f]{32}$/);
    expect(sent?.headers['x-nonce']).not.toBe(stored.request?.headers['x-nonce']);
  });

  it('retries a Pragmatic reply whose code asks for it (error 100 in a 200) and reads cash + bonus as the balance', async () => {
    let answered = 0;
    const rx = await receiver(() => {
      answered++;
      return answered === 1
        ? { status: 200, body: { error: 100, description: 'internal error, retry' } }
        : { status: 200, body: { error: 0, description: 'Success', transactionId: 1, cash: 990.5, bonus: 9.5, currency: 'EUR' } };
    });
    const clock = new FakeClock();
    const config = configFor(rx.url, { profile: 'pragmatic' });
    const engine = engineFor(config, { clock });
    engine.start();
    const { settled } = engine.enqueue({ kind: 'debit', playerId: 'player01', amountMinor: 100, roundId: '1' });
    const event = await drive(engine, clock, settled);
    expect(event.status).toBe('delivered');
    expect(event.attemptCount).toBe(2);
    const base = new URL(rx.url).pathname;
    expect(rx.requests.map((r) => r.path)).toEqual([`${base}/bet.html`, `${base}/bet.html`]);
    expect(rx.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const judged = judgeReply({ status: 200, body: event.reply?.body }, readingOf(config.callbacks)('EUR', 'bet'));
    expect(judged.balance).toEqual({ kind: 'ok', minor: 100_000 });
  });
});

describe('the outbox schema', () => {
  it('opens an outbox written by schema 3 and delivers its pending event with the same body bytes', async () => {
    const dbPath = tempDbPath();
    const old = openDatabase(dbPath);
    old.exec(SCHEMA_3);
    const body = '{"type":"DEBIT","transactionId":"tx_old","amount":5,"playerId":"p1"}';
    old
      .prepare(`INSERT INTO callback_events (id, kind, transaction_id, player_id, amount_minor, source, ordering_key, url, body,
      status, attempt_count, created_at) VALUES (1, 'debit', 'tx_old', 'p1', 500, 'manual', 'p1', ?, ?, 'pending', 0, ?)`)
      .run('http://placeholder.invalid/', body, Date.now());
    old.close();
    const received: string[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        received.push(text);
        res.setHeader('content-type', 'application/json');
        res.end('{"balance":95}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address() as { port: number };
    const url = `http://127.0.0.1:${address.port}/`;
    const db = openDatabase(dbPath);
    db.prepare('UPDATE callback_events SET url = ?').run(url);
    const engine = createCallbackEngine({ config: configFor(url), db, random: seededRandom(1) });
    onCleanup(async () => {
      await engine.stop();
      db.close();
    });
    const settled = new Promise((resolve) => engine.onSettled(resolve));
    engine.start();
    await settled;
    expect(received).toEqual([body]);
    expect(engine.outbox.get(1)?.status).toBe('delivered');
    const version = db.prepare("SELECT value FROM callback_meta WHERE key = 'schema_version'").get();
    expect(version).toEqual({ value: String(OUTBOX_SCHEMA_VERSION) });
  });
});

/** The outbox tables as schema version 3 wrote them. */
const SCHEMA_3 = `
  CREATE TABLE callback_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  INSERT INTO callback_meta (key, value) VALUES ('schema_version', '3');
  CREATE TABLE callback_events (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, transaction_id TEXT NOT NULL, reference_transaction_id TEXT,
    player_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, round_id TEXT, game_id TEXT, currency TEXT,
    source TEXT NOT NULL, grp TEXT, ordering_key TEXT NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
    status TEXT NOT NULL, attempt_count INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER,
    created_at INTEGER NOT NULL, settled_at INTEGER, reply_status INTEGER, reply_body TEXT, error TEXT,
    win_minor INTEGER, reply_attempt INTEGER
  );
  CREATE TABLE callback_attempts (
    event_id INTEGER NOT NULL, n INTEGER NOT NULL, started_at INTEGER NOT NULL, latency_ms REAL NOT NULL,
    request_headers TEXT NOT NULL, request_body TEXT, response_status INTEGER, response_body TEXT, error TEXT,
    outcome TEXT NOT NULL, response_bytes INTEGER, response_sha256 TEXT, PRIMARY KEY (event_id, n)
  ) WITHOUT ROWID;
`;

describe('credentials in the deliveries journal', () => {
  it("keeps Blue Ocean's caller password out of the journal and the stored call, while the wallet receives it", async () => {
    const credentials = { callerId: 'casino-77', callerPassword: 'S3cr3t p@ss&word=1', salt: 'NaCl-2026-salt' };
    const rx = await receiver(() => ({ status: 200, body: { status: '200', balance: '989.50' } }));
    const clock = new FakeClock();
    const dbPath = tempDbPath();
    const engine = engineFor(configFor(rx.url, { profile: 'blueocean', credentials }), { clock, dbPath });
    engine.start();
    const { settled } = engine.enqueue({
      kind: 'debit',
      playerId: 'player01',
      sessionToken: PLAYER.token,
      transactionId: 'tx0001',
      amountMinor: 1050,
    });
    const event = await drive(engine, clock, settled);
    expect(event.status).toBe('delivered');
    // The wire is unchanged: the wallet gets the password it checks.
    expect(new URL(`http://x${rx.requests[0]?.path}`).searchParams.get('callerPassword')).toBe(credentials.callerPassword);
    await engine.stop();
    // What is kept (and what the inspector, the admin API and `aggmock send` show) never holds it.
    const reopened = engineFor(configFor(rx.url, { profile: 'blueocean', credentials }), { dbPath });
    const stored = reopened.outbox.get(event.id);
    const [attempt] = reopened.outbox.attempts(event.id);
    for (const kept of [stored?.request?.path, attempt?.requestPath, JSON.stringify(attempt), JSON.stringify(stored)])
      expect(kept).not.toContain('S3cr3t');
    expect(new URLSearchParams(attempt?.requestPath?.split('?')[1]).get('callerPassword')).toBe('[masked]');
    expect(new URLSearchParams(attempt?.requestPath?.split('?')[1]).get('callerId')).toBe('casino-77');
  });
});
