import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingOf } from '../../src/callbacks/call.ts';
import { openDatabase } from '../../src/callbacks/db.ts';
import { classifyAnswer } from '../../src/callbacks/dispatcher.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { Attempt, EnqueueRequest, StoredEvent } from '../../src/callbacks/events.ts';
import { configSchema } from '../../src/config/index.ts';
import { builtinDialect, type Operation, readReply, resentAfter } from '../../src/dialects/index.ts';
import { createShadowLedger } from '../../src/ledger/index.ts';

/**
 * Codes that end a call (`reply.finalCodes`). Groove re-sends a result on every code but success and a
 * rollback on all but 102 and 110 (groove-docs.pages.dev/transaction-api/result/ and /rollback/); Caleta a
 * win or a rollback on all but the OAS's "WIN ERROR" / "ROLLBACK ERROR" lists. The engine sends such a
 * call again; a refusal by a final code, or of a call with no such list (a bet), ends it. verify still
 * reads each of these answers as the refusal it is.
 */
function read(vendor: string, operation: Operation, body: unknown, status = 200) {
  const dialect = builtinDialect(vendor);
  const reply = readReply(dialect, { operation, currency: 'EUR' }, { status, text: JSON.stringify(body) });
  return { reply, resent: resentAfter(dialect, reply, operation) };
}

describe('which refusals the vendor sends again', () => {
  it('Groove: a rollback on every code but 102 and 110, a result on every code, a wager on none', () => {
    expect(read('groove', 'rollback', { code: 1, status: 'Technical error' })).toMatchObject({
      reply: { verdict: 'rejected' },
      resent: true,
    });
    expect(read('groove', 'rollback', { code: 102, status: 'Wager not found' }).resent).toBe(false);
    expect(read('groove', 'rollback', { code: 110, status: 'Operation not allowed' }).resent).toBe(false);
    expect(read('groove', 'win', { code: 110, status: 'Operation not allowed' }).resent).toBe(true);
    expect(read('groove', 'bet', { code: 1006, status: 'Out of money' }).resent).toBe(false);
    expect(read('groove', 'rollback', { code: 200, status: 'Success', balance: 10 }).resent).toBe(false);
  });

  it('Caleta: a win or rollback on all but the final statuses; a bet on none; an HTTP refusal is not read so', () => {
    expect(read('caleta', 'win', { status: 'RS_ERROR_UNKNOWN' }).resent).toBe(true);
    expect(read('caleta', 'win', { status: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST' }).resent).toBe(false);
    // A bad signature ends a rollback but not a win (the two lists differ by it).
    expect(read('caleta', 'win', { status: 'RS_ERROR_INVALID_SIGNATURE' }).resent).toBe(true);
    expect(read('caleta', 'rollback', { status: 'RS_ERROR_INVALID_SIGNATURE' }).resent).toBe(false);
    expect(read('caleta', 'rollback', { status: 'RS_ERROR_UNKNOWN' }).resent).toBe(true);
    expect(read('caleta', 'bet', { status: 'RS_ERROR_NOT_ENOUGH_MONEY' }).resent).toBe(false);
    expect(read('caleta', 'win', { status: 'RS_ERROR_UNKNOWN' }, 400).resent).toBe(false);
  });

  it('a wire without final codes re-sends no refusal (Hub88, Evolution, the default wire)', () => {
    expect(read('hub88', 'win', { status: 'RS_ERROR_UNKNOWN' }).resent).toBe(false);
    expect(read('evolution', 'win', { status: 'UNKNOWN_ERROR' }).resent).toBe(false);
    expect(read('default', 'rollback', { error: 'INTERNAL' }).resent).toBe(false);
  });

  it('the engine says why it retries a refusal, and ends on a final code', () => {
    const reading = { dialect: builtinDialect('groove'), currency: 'EUR', operation: 'rollback' as const };
    const again = classifyAnswer({ status: 200, body: JSON.stringify({ code: 1, status: 'Technical error' }) }, 0, reading);
    expect(again).toMatchObject({ outcome: 'retry' });
    expect('error' in again ? again.error : '').toContain(
      'the vendor sends this rollback again on every code but success, 102, 110',
    );
    const final = classifyAnswer({ status: 200, body: JSON.stringify({ code: 102, status: 'Wager not found' }) }, 0, reading);
    expect(final.outcome).toBe('rejected');
  });
});

describe('the engine against a Groove wallet that refuses a rollback, then answers', () => {
  let server: Server;
  let url: string;
  const answers: unknown[] = [];
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      seen.push(`${query.get('request')} ${query.get('transactionid')}`);
      const answer = answers.shift() ?? { code: 200, status: 'Success', balance: 100, real_balance: 100, bonus_balance: 0 };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/groove`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function play(queue: unknown[]): Promise<{ event: StoredEvent; attempts: Attempt[] }> {
    answers.splice(0, answers.length, ...queue);
    seen.length = 0;
    const rollback = {
      kind: 'rollback',
      playerId: 'player01',
      amountMinor: 500,
      roundId: 'r-1',
      referenceTransactionId: 'bet-1',
    } as const;
    const run = await engineRun('groove', url, { ...rollback, transactionId: `rb-${queue.length}` }, 1);
    expect(run.settled).toHaveLength(1);
    return { event: run.settled[0] as StoredEvent, attempts: run.attempts };
  }

  it('sends the rollback again after a technical error and is delivered when the wallet then applies it', async () => {
    const { event, attempts } = await play([{ code: 1, status: 'Technical error' }]);
    expect(event.status).toBe('delivered');
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    expect(seen).toEqual(['rollback bet-1', 'rollback bet-1']);
  });

  it('ends on 102 "Wager not found" after a technical error, without a third attempt', async () => {
    const { event, attempts } = await play([
      { code: 1, status: 'Technical error' },
      { code: 102, status: 'Wager not found' },
    ]);
    expect(event.status).toBe('rejected');
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'rejected']);
    expect(seen).toHaveLength(2);
  });
});

/**
 * Caleta's "BET ERROR": a bet answered RS_ERROR_UNKNOWN, RS_ERROR_TIMEOUT or with a reply that is not
 * JSON is ROLLED_BACK (the OAS's info.description): the engine sends it once, ends it `failed` (nobody
 * can tell whether the wallet took the money) and sends its ROLLBACK; the shadow ledger, told the bet's
 * outcome is unknown, takes the balance the rollback's reply gives.
 */
describe('the engine against a Caleta wallet that answers a bet "unknown"', () => {
  let server: Server;
  let url: string;
  let balance = 100_000_000; // ×100000: 1000.00
  let betAnswer: (body: Record<string, unknown>) => string = () => '';
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        seen.push(`${path} ${body.transaction_uuid ?? ''} ${body.reference_transaction_uuid ?? ''}`.trim());
        res.setHeader('content-type', 'application/json');
        const ok = () =>
          JSON.stringify({ status: 'RS_OK', balance, currency: 'EUR', user: body.user, request_uuid: body.request_uuid });
        if (path === '/wallet/bet') {
          balance -= Number(body.amount); // applied, whatever it answers
          res.end(betAnswer(body));
        } else if (path === '/wallet/rollback') {
          balance += 500_000; // the bet's 5.00 back
          res.end(ok());
        } else res.end(ok());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function bet(answer: (body: Record<string, unknown>) => string) {
    betAnswer = answer;
    seen.length = 0;
    const debit = { kind: 'debit', playerId: 'player01', amountMinor: 500, roundId: 'r-9' } as const;
    return engineRun('caleta', url, { ...debit, transactionId: `b-${Date.now()}` }, 2);
  }

  it('RS_ERROR_UNKNOWN: the bet is sent once, ends failed, and its rollback puts the money back', async () => {
    const before = balance;
    const run = await bet((body) =>
      JSON.stringify({ status: 'RS_ERROR_UNKNOWN', balance, currency: 'EUR', user: body.user, request_uuid: body.request_uuid }),
    );
    const [first, second] = run.settled;
    expect(first).toMatchObject({ kind: 'debit', status: 'failed', attemptCount: 1 });
    expect(first?.error).toContain('its ROLLBACK follows');
    expect(second).toMatchObject({
      kind: 'rollback',
      status: 'delivered',
      referenceTransactionId: first?.transactionId,
      source: 'rollback-of-failed-debit',
    });
    expect(seen.map((s) => s.split(' ')[0])).toEqual(['/wallet/bet', '/wallet/rollback']);
    expect(balance).toBe(before);
    expect(run.discrepancies).toEqual([]);
  });

  it('a reply that is not JSON is rolled back the same way; a known refusal is not', async () => {
    const run = await bet(() => '<html>502</html>');
    expect(run.settled.map((e) => `${e.kind} ${e.status}`)).toEqual(['debit failed', 'rollback delivered']);
    balance += 500_000; // this wallet took no money on the refusal below: give back what the test's bet takes
    const refused = await bet((body) =>
      JSON.stringify({
        status: 'RS_ERROR_NOT_ENOUGH_MONEY',
        balance,
        currency: 'EUR',
        user: body.user,
        request_uuid: body.request_uuid,
      }),
    );
    expect(refused.settled.map((e) => `${e.kind} ${e.status}`)).toEqual(['debit rejected']);
    expect(seen).toHaveLength(1);
  });
});

/**
 * One call through a real engine (and its shadow ledger) to `url` under the dialect, until `count`
 * events have settled: what settled, every attempt, and the ledger's findings.
 */
async function engineRun(dialect: string, url: string, request: EnqueueRequest, count: number) {
  const config = configSchema.parse({
    callbacks: {
      webhookUrl: url,
      dialect,
      sessionTokens: { player01: 'sess-0123456789' },
      retrySchedule: [0, 10, 10],
      jitter: 0,
    },
  });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db, reading: readingOf(config.callbacks) });
  const settled: StoredEvent[] = [];
  const attempts: Attempt[] = [];
  engine.onSettled((e) => settled.push(structuredClone(e)));
  engine.onAttempt((a) => attempts.push(structuredClone(a)));
  engine.start();
  try {
    engine.enqueue(request);
    for (let i = 0; i < 300 && settled.length < count; i++) await new Promise((r) => setTimeout(r, 10));
    return { settled, attempts, discrepancies: ledger.discrepancies() };
  } finally {
    ledger.close();
    await engine.stop();
    db.close();
  }
}
