/**
 * Fault rules on the callbacks aggmock sends, against the reference wallet over real HTTP on
 * loopback: the races a wallet must survive that a healthy aggregator rarely produces on demand.
 * A DEBIT that times out at aggmock's side after the wallet applied it is rolled back, and the
 * ROLLBACK races the late reply; a duplicate goes out while the first is still in flight. A correct
 * wallet ends at the right balance with a clean shadow ledger; a wallet that charges an in-flight
 * duplicate again is reported by the ledger.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { duplicateSource, type StoredEvent } from '../../src/callbacks/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet, type WalletFault } from '../../src/wallet/index.ts';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function loop(options: { fault?: WalletFault; callbacks?: Record<string, unknown> } = {}) {
  const base = validateConfig({ port: 0, db: ':memory:' });
  const wallet: RunningWallet = await startWallet({
    config: base,
    dbPath: ':memory:',
    port: 0,
    ...(options.fault ? { fault: options.fault } : {}),
  });
  stops.push(() => wallet.close());
  const aggmock: Aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      callbacks: { webhookUrl: wallet.webhookUrl, retrySchedule: [0, 50], jitter: 0, ...options.callbacks },
    }),
  );
  stops.push(() => aggmock.close());
  return { aggmock, wallet };
}

/** Until nothing is pending, delivering or on the wire (a rollback or a duplicate is enqueued as others settle). */
async function idle(aggmock: Aggmock): Promise<void> {
  for (let waited = 0; waited < 15_000; waited += 20) {
    const counts = aggmock.engine.outbox.counts();
    if (counts.pending === 0 && counts.delivering === 0 && aggmock.engine.inFlight() === 0) {
      await new Promise((r) => setTimeout(r, 60));
      const again = aggmock.engine.outbox.counts();
      if (again.pending === 0 && again.delivering === 0 && aggmock.engine.inFlight() === 0) return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the callbacks did not settle within 15 s');
}

const PLAYERS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'];

function eventsOf(aggmock: Aggmock, playerId: string): StoredEvent[] {
  return aggmock.engine.outbox.list({ playerId }).reverse();
}

describe('a DEBIT that times out at aggmock after the wallet applied it', () => {
  it('gives up once the wallet has answered, fails the DEBIT naming the rule, and its ROLLBACK brings the reference wallet back to its opening balance', async () => {
    const { aggmock, wallet } = await loop();
    const rule = aggmock.callbackFaults.add({
      match: { event: 'debit', player: 'p1' },
      fault: { kind: 'timeout', giveUp: true },
      times: 1,
    });
    const opening = wallet.store.balanceOf('p1') as number;
    const debit = await aggmock.engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 250 }).settled;
    expect(debit.status).toBe('failed');
    expect(debit.error).toContain(`aggmock callback fault rule ${rule.id}`);
    const [attempt] = aggmock.engine.outbox.attempts(debit.id);
    // The wallet did answer (and applied it): the journal keeps its reply beside the rule that ignored it.
    expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: 200 });
    expect(attempt?.error).toMatch(/treated as too late and ignored/);
    await idle(aggmock);
    const rollback = eventsOf(aggmock, 'p1').find((e) => e.source === 'rollback-of-failed-debit');
    expect(rollback).toMatchObject({ status: 'delivered', referenceTransactionId: debit.transactionId });
    expect(wallet.store.balanceOf('p1')).toBe(opening);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    expect(aggmock.callbackFaults.list()[0]).toMatchObject({ id: rule.id, fired: 1, spent: true });
  });

  it('with afterMs 0 gives up while each DEBIT is still in flight: the ROLLBACK races it, and a correct wallet still ends every player at the opening balance', async () => {
    const { aggmock, wallet } = await loop();
    aggmock.callbackFaults.add({ match: { event: 'debit' }, fault: { kind: 'timeout', afterMs: 0, giveUp: true } });
    const opening = new Map(PLAYERS.map((p) => [p, wallet.store.balanceOf(p) as number]));
    const debits = PLAYERS.map((playerId) => aggmock.engine.enqueue({ kind: 'debit', playerId, amountMinor: 300 }));
    for (const { settled } of debits) {
      const debit = await settled;
      expect(debit.status).toBe('failed');
      expect(debit.error).toMatch(/timed out after 0 ms .* with the request still open/);
    }
    await idle(aggmock);
    for (const playerId of PLAYERS) {
      expect(eventsOf(aggmock, playerId).map((e) => [e.kind, e.status])).toEqual([
        ['debit', 'failed'],
        ['rollback', 'delivered'],
      ]);
      expect(wallet.store.balanceOf(playerId), playerId).toBe(opening.get(playerId));
    }
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });

  it("adds the wallet's reply that came after an afterMs give-up to that attempt's journal row, and the DEBIT stays failed", async () => {
    const { aggmock } = await loop();
    const rule = aggmock.callbackFaults.add({
      match: { event: 'debit' },
      fault: { kind: 'timeout', afterMs: 0, giveUp: true },
      times: 1,
    });
    const debit = await aggmock.engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 120 }).settled;
    expect(debit.status).toBe('failed');
    let attempt = aggmock.engine.outbox.attempts(debit.id)[0];
    // Given up with the request still open: nothing came back yet.
    expect(attempt?.error).toMatch(new RegExp(`timed out after 0 ms \\(aggmock callback fault rule ${rule.id}\\)`));
    for (let waited = 0; waited < 5000 && !attempt?.error?.includes('late reply'); waited += 20) {
      await new Promise((r) => setTimeout(r, 20));
      attempt = aggmock.engine.outbox.attempts(debit.id)[0];
    }
    expect(attempt).toMatchObject({ n: 1, outcome: 'failed', responseStatus: 200 });
    expect(attempt?.error).toMatch(/with the request still open.*; late reply after timeout: 200 after \d+ ms \(ignored\)$/);
    expect(JSON.parse(attempt?.responseBody ?? 'null')).toMatchObject({ balance: expect.any(Number) });
    await idle(aggmock);
    // The late reply changes nothing else: the DEBIT stays failed and its ROLLBACK went out.
    expect(aggmock.engine.outbox.get(debit.id)).toMatchObject({ status: 'failed' });
    expect(eventsOf(aggmock, 'p1').map((e) => [e.kind, e.status])).toEqual([
      ['debit', 'failed'],
      ['rollback', 'delivered'],
    ]);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    // Shown where the admin API and the UI's inspector read it.
    const detail = (await (await fetch(`${aggmock.url}/__admin/deliveries/${debit.id}`)).json()) as {
      attempts: { error?: string; responseStatus?: number }[];
    };
    expect(detail.attempts[0]).toMatchObject({
      responseStatus: 200,
      error: expect.stringContaining('late reply after timeout: 200'),
    });
  });

  it('without giveUp retries the same DEBIT on the schedule: the correct wallet answers the retry with the first reply and charges once', async () => {
    const { aggmock, wallet } = await loop();
    aggmock.callbackFaults.add({ match: { event: 'debit' }, fault: { kind: 'timeout' }, times: 1 });
    const opening = wallet.store.balanceOf('p1') as number;
    const debit = await aggmock.engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 400 }).settled;
    expect(debit.status).toBe('delivered');
    expect(aggmock.engine.outbox.attempts(debit.id).map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    await idle(aggmock);
    expect(wallet.store.balanceOf('p1')).toBe(opening - 400);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });
});

describe('a duplicate sent while the first is in flight', () => {
  it('is an outbox event of its own naming the rule, journaled like any other; the reference wallet charges once and the ledger stays clean', async () => {
    const { aggmock, wallet } = await loop();
    const rule = aggmock.callbackFaults.add({ match: { event: 'debit' }, fault: { kind: 'duplicate' } });
    const opening = new Map(PLAYERS.map((p) => [p, wallet.store.balanceOf(p) as number]));
    const debits = PLAYERS.map((playerId) => aggmock.engine.enqueue({ kind: 'debit', playerId, amountMinor: 150 }).event);
    await idle(aggmock);
    for (const debit of debits) {
      const events = eventsOf(aggmock, debit.playerId);
      expect(events.map((e) => e.source)).toEqual(['manual', duplicateSource(rule.id, debit.id)]);
      expect(events.every((e) => e.status === 'delivered' && e.transactionId === debit.transactionId)).toBe(true);
      // The same bytes, each request the wallet saw in the journal.
      expect(events[1]?.body).toBe(events[0]?.body);
      expect(events.map((e) => aggmock.engine.outbox.attempts(e.id).length)).toEqual([1, 1]);
      expect(wallet.store.balanceOf(debit.playerId), debit.playerId).toBe((opening.get(debit.playerId) as number) - 150);
    }
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    // A duplicate is never duplicated again: one copy per DEBIT.
    expect(aggmock.callbackFaults.list()[0]).toMatchObject({ matched: PLAYERS.length, fired: PLAYERS.length });
  });

  it('reports a wallet that checks for the duplicate, awaits, then applies: the in-flight duplicate is charged again and the ledger says double debit', async () => {
    const { aggmock, wallet } = await loop({ fault: 'duplicate-race' });
    aggmock.callbackFaults.add({ match: { event: 'debit' }, fault: { kind: 'duplicate' } });
    const opening = wallet.store.balanceOf('p1') as number;
    aggmock.engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 150 });
    await idle(aggmock);
    expect(wallet.store.balanceOf('p1')).toBe(opening - 300);
    const found = aggmock.ledger.discrepancies({ playerId: 'p1' });
    expect(found.map((d) => d.kind)).toContain('double-debit');
  });
});

describe('callback fault rules as an integrator sets them', () => {
  it('come from config callbacks.faults and from POST /__admin/callback-faults, and a bad rule is a 400 naming the field', async () => {
    const { aggmock } = await loop({
      callbacks: { faults: [{ id: 'late-debit', match: { event: 'debit' }, fault: { kind: 'timeout', afterMs: '250ms' } }] },
    });
    const added = await fetch(`${aggmock.url}/__admin/callback-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { event: ['credit'] }, fault: { kind: 'duplicate', afterMs: 20 }, nth: 2 }),
    });
    expect(added.status).toBe(201);
    const listed = (await (await fetch(`${aggmock.url}/__admin/callback-faults`)).json()) as {
      faults: { id: string; source: string; fault: { kind: string; afterMs?: number } }[];
    };
    expect(listed.faults.map((f) => [f.source, f.fault.kind, f.fault.afterMs])).toEqual([
      ['config', 'timeout', 250],
      ['admin', 'duplicate', 20],
    ]);
    const bad = await fetch(`${aggmock.url}/__admin/callback-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { event: 'bet' }, fault: { kind: 'timeout' } }),
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/match\.event/);
    expect((await fetch(`${aggmock.url}/__admin/callback-faults/late-debit`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${aggmock.url}/__admin/callback-faults/late-debit`, { method: 'DELETE' })).status).toBe(404);
    expect(aggmock.callbackFaults.list().map((f) => f.source)).toEqual(['admin']);
  });
});
