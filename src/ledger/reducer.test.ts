import { describe, expect, it } from 'vitest';
import type { EventKind, StoredEvent } from '../callbacks/events.ts';
import { DEFAULT_READING, judgeReply } from '../callbacks/reply.ts';
import { builtinDialect, type Operation, writeReply } from '../dialects/index.ts';
import { applyConcurrentGroup, applySettlement, type DiscrepancyDraft, emptyLedgerState, type LedgerState } from './reducer.ts';

let nextId = 1;
function settled(
  kind: EventKind,
  transactionId: string,
  amountMinor: number,
  reply: { status: number; body: unknown } | undefined,
  extra: Partial<StoredEvent> = {},
): StoredEvent {
  const id = nextId++;
  // The status the engine settles it with: the one judge's verdict.
  const status = !reply ? 'failed' : judgeReply(reply).verdict === 'accepted' ? 'delivered' : 'rejected';
  return {
    id,
    kind,
    transactionId,
    playerId: 'p1',
    amountMinor,
    source: 'test',
    orderingKey: 'p1',
    url: 'http://127.0.0.1/callback/webhook',
    body: '{}',
    status,
    attemptCount: 1,
    createdAt: 1_000 + id,
    settledAt: 2_000 + id,
    ...(reply ? { reply } : { error: 'connection refused' }),
    ...extra,
  };
}
const ok = (balance: number) => ({ status: 200, body: { balance } });
const reject = (error: string, balance?: number) => ({
  status: 400,
  body: { error, ...(balance === undefined ? {} : { balance }) },
});

/** Runs events through the reducer and collects every discrepancy. */
function run(events: StoredEvent[], state: LedgerState = emptyLedgerState()) {
  const found: DiscrepancyDraft[] = [];
  for (const event of events) {
    const result = applySettlement(state, event);
    state = result.state;
    found.push(...result.discrepancies);
  }
  return { state, found };
}

const MINOR_DIALECT = { ...DEFAULT_READING.dialect, amounts: { ...DEFAULT_READING.dialect.amounts, format: 'minor' as const } };
const MINOR = { reading: () => ({ ...DEFAULT_READING, dialect: MINOR_DIALECT }) };

describe('applySettlement', () => {
  it('takes the first reply as the baseline and accepts a bet that moves the balance down by its amount', () => {
    const { state, found } = run([settled('debit', 't1', 500, ok(995)), settled('debit', 't2', 250, ok(992.5))]);
    expect(found).toEqual([]);
    expect(state.players.p1?.balanceMinor).toBe(99_250);
  });

  it('accepts a win that moves the balance up by its amount, and computes in cents without float noise', () => {
    const { found, state } = run([settled('debit', 't1', 10, ok(0.2)), settled('credit', 't2', 10, ok(0.3))]);
    expect(found).toEqual([]);
    expect(state.players.p1?.balanceMinor).toBe(30);
  });

  it('flags balance drift when a bet takes the wrong amount, then follows the wallet so the error is reported once', () => {
    const { found } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('debit', 't2', 500, ok(989)),
      settled('debit', 't3', 100, ok(988)),
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'balance-drift', expectedMinor: 99_000, actualMinor: 98_900 });
    expect(found[0]?.message).toContain('990.00');
  });

  it('answers a duplicate DEBIT with the first reply and moves no money: no discrepancy', () => {
    const { found, state } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('credit', 't2', 100, ok(996)),
      settled('debit', 't1', 500, ok(995)),
    ]);
    expect(found).toEqual([]);
    expect(state.players.p1?.balanceMinor).toBe(99_600);
  });

  it('flags a double debit when a duplicate DEBIT takes the money again', () => {
    const { found } = run([settled('debit', 't1', 500, ok(995)), settled('debit', 't1', 500, ok(990))]);
    expect(found).toEqual([expect.objectContaining({ kind: 'double-debit', expectedMinor: 99_500, actualMinor: 99_000 })]);
  });

  it('flags a duplicate CREDIT that pays twice as a double credit', () => {
    const { found } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('credit', 't2', 700, ok(1002)),
      settled('credit', 't2', 700, ok(1009)),
    ]);
    expect(found.map((d) => d.kind)).toEqual(['double-credit']);
  });

  it('flags a duplicate whose reply differs even when no money moved', () => {
    const { found } = run([settled('debit', 't1', 500, ok(995)), settled('debit', 't1', 500, reject('INVALID_REQUEST', 995))]);
    expect(found.map((d) => d.kind)).toEqual(['duplicate-reply-differs']);
    expect(found[0]?.message).toContain('same reply');
  });

  it('accepts a rollback that gives the bet back', () => {
    const { found, state } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('rollback', 't1', 500, ok(1000), { referenceTransactionId: 't1' }),
    ]);
    expect(found).toEqual([]);
    expect(state.transactions[`debit\u0000p1\u0000t1`]?.rolledBack).toBe(true);
  });

  it('flags a rollback that was accepted but did not restore the bet', () => {
    const { found } = run([settled('debit', 't1', 500, ok(995)), settled('rollback', 't1', 500, ok(995))]);
    expect(found).toEqual([
      expect.objectContaining({ kind: 'rollback-not-restored', expectedMinor: 100_000, actualMinor: 99_500 }),
    ]);
  });

  it('flags a rejected rollback of an accepted bet as not restored', () => {
    const { found } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('rollback', 't1', 500, reject('TRANSACTION_NOT_FOUND', 995)),
    ]);
    expect(found.map((d) => d.kind)).toEqual(['rollback-not-restored']);
  });

  it('expects a rollback of an unknown transaction to move no money', () => {
    const good = run([
      settled('debit', 't1', 500, ok(995)),
      settled('rollback', 'ghost', 300, reject('TRANSACTION_NOT_FOUND', 995)),
    ]);
    expect(good.found).toEqual([]);
    const bad = run([settled('debit', 't1', 500, ok(995)), settled('rollback', 'ghost', 300, ok(998))]);
    expect(bad.found).toEqual([
      expect.objectContaining({ kind: 'rollback-moved-money', expectedMinor: 99_500, actualMinor: 99_800 }),
    ]);
  });

  it('expects a second rollback of the same bet (reference style, fresh id) to move no money', () => {
    const events = [
      settled('debit', 't1', 500, ok(995)),
      settled('rollback', 'r1', 500, ok(1000), { referenceTransactionId: 't1' }),
      settled('rollback', 'r2', 500, ok(1005), { referenceTransactionId: 't1' }),
    ];
    expect(run(events).found.map((d) => d.kind)).toEqual(['rollback-moved-money']);
  });

  it('expects a rollback of a rejected bet to move no money', () => {
    const events = [
      settled('debit', 't1', 100, ok(995)),
      settled('debit', 't2', 200_000, reject('INSUFFICIENT_FUNDS', 995)),
      settled('rollback', 't2', 200_000, ok(995), { referenceTransactionId: 't2' }),
    ];
    expect(run(events).found).toEqual([]);
  });

  it('flags a rejected bet that still moved money', () => {
    const { found } = run([settled('debit', 't1', 100, ok(999)), settled('debit', 't2', 500, reject('INSUFFICIENT_FUNDS', 994))]);
    expect(found.map((d) => d.kind)).toEqual(['rejected-moved-money']);
  });

  it('flags an accepted bet larger than the balance as an overdraft', () => {
    const { found } = run([settled('debit', 't1', 100, ok(10)), settled('debit', 't2', 5_000, ok(-40))]);
    expect(found.map((d) => d.kind)).toEqual(['overdraft']);
  });

  it('makes the balance uncertain after a failed event and re-baselines on the next reply, with a note', () => {
    const { found, state } = run([
      settled('debit', 't1', 500, ok(995)),
      settled('debit', 't2', 500, undefined),
      settled('credit', 't3', 100, ok(991)),
    ]);
    expect(found).toEqual([]);
    expect(state.players.p1).toMatchObject({ balanceMinor: 99_100, uncertain: false });
    expect(state.players.p1?.note).toContain('re-baselined');
  });

  it('re-baselines on the rollback of a bet whose delivery failed, since its fate is unknown', () => {
    const events = [
      settled('debit', 't1', 500, ok(995)),
      settled('debit', 't2', 500, undefined),
      settled('rollback', 't2', 500, ok(995), { referenceTransactionId: 't2' }),
      settled('debit', 't3', 100, ok(994)),
    ];
    expect(run(events).found).toEqual([]);
  });

  it('flags an accepted reply without a balance and one with an unusable balance', () => {
    const { found } = run([
      settled('debit', 't1', 100, ok(10)),
      settled('debit', 't2', 100, { status: 200, body: { ok: true } }),
    ]);
    expect(found.map((d) => d.kind)).toEqual(['missing-balance']);
    const invalid = run([settled('debit', 't1', 100, ok(10.123))]);
    expect(invalid.found.map((d) => d.kind)).toEqual(['invalid-balance']);
  });

  it('reads a 2xx reply with {error} as a rejection', () => {
    const { found } = run([
      settled('debit', 't1', 100, ok(10)),
      settled('debit', 't2', 5_000, { status: 200, body: { error: 'INSUFFICIENT_FUNDS', balance: 10 } }),
    ]);
    expect(found).toEqual([]);
  });

  it('reads balances in minor units when the wire format is minor', () => {
    let state = emptyLedgerState();
    ({ state } = applySettlement(state, settled('debit', 't1', 100, ok(900)), MINOR));
    const { discrepancies } = applySettlement(state, settled('debit', 't2', 100, ok(800)), MINOR);
    expect(discrepancies).toEqual([]);
  });

  it('never mutates the state it is given', () => {
    const state = emptyLedgerState();
    applySettlement(state, settled('debit', 't1', 100, ok(10)));
    expect(state).toEqual({ players: {}, transactions: {} });
  });
});

describe('applyConcurrentGroup', () => {
  const base = () => run([settled('debit', 'seed', 100, ok(100))]).state; // balance 100.00
  const burst = (replies: Array<{ status: number; body: unknown } | undefined>, amount = 1_000) =>
    replies.map((r, i) => settled('debit', `b${i}`, amount, r, { orderingKey: `p1~b${i}`, group: 'g1' }));

  it('accepts a burst whose final balance is start minus the accepted bets, whatever the reply order', () => {
    const events = burst([ok(80), ok(90), ok(70)]);
    const { state, discrepancies } = applyConcurrentGroup(base(), events);
    expect(discrepancies).toEqual([]);
    expect(state.players.p1?.balanceMinor).toBe(7_000);
  });

  it('flags a lost update: every bet accepted but only one taken, naming the reply no order explains', () => {
    // The second reply of 90.00 is the first no order explains: after the first bet, another leaves 80.00 (or 70.00).
    const { discrepancies } = applyConcurrentGroup(base(), burst([ok(90), ok(90), ok(90)]));
    expect(discrepancies).toEqual([
      expect.objectContaining({ kind: 'balance-drift', expectedMinor: 8_000, actualMinor: 9_000, eventIds: expect.any(Array) }),
    ]);
    expect(discrepancies[0]?.eventIds).toHaveLength(3);
    expect(discrepancies[0]?.message).toContain('an order could give 70.00 or 80.00');
  });

  it('flags more bets accepted than the balance covered', () => {
    const { discrepancies } = applyConcurrentGroup(base(), burst([ok(40), ok(-20), ok(10), ok(70)], 3_000));
    expect(discrepancies.map((d) => d.kind)).toContain('overdraft');
  });

  it('accepts a burst where the bets beyond the balance are rejected', () => {
    const events = burst([ok(40), reject('INSUFFICIENT_FUNDS', 40), ok(70), ok(10), reject('INSUFFICIENT_FUNDS', 10)], 3_000);
    expect(applyConcurrentGroup(base(), events).discrepancies).toEqual([]);
  });

  it('derives the start from the replies when no baseline is known', () => {
    const events = burst([ok(80), ok(90), ok(70)]);
    expect(applyConcurrentGroup(emptyLedgerState(), events).discrepancies).toEqual([]);
    expect(applyConcurrentGroup(emptyLedgerState(), burst([ok(90), ok(90)])).discrepancies.map((d) => d.kind)).toEqual([
      'balance-drift',
    ]);
  });

  it('makes the balance uncertain instead of judging when a member failed', () => {
    const { state, discrepancies } = applyConcurrentGroup(base(), burst([ok(90), undefined]));
    expect(discrepancies).toEqual([]);
    expect(state.players.p1?.uncertain).toBe(true);
  });
});

describe('a whole round (a DEBIT carrying its win)', () => {
  it('expects the balance to move by win − bet, and flags a wallet that took the bet but lost the win', () => {
    const fine = run([settled('debit', 't0', 100, ok(10)), settled('debit', 't1', 150, ok(12.5), { winMinor: 400 })]);
    expect(fine.found).toEqual([]);
    const lost = run([settled('debit', 't0', 100, ok(10)), settled('debit', 't1', 150, ok(8.5), { winMinor: 400 })]);
    expect(lost.found.map((d) => d.kind)).toEqual(['balance-drift']);
  });

  it('calls a repeated round that moved the balance again a double debit', () => {
    const { found } = run([
      settled('debit', 't0', 100, ok(10)),
      settled('debit', 't1', 150, ok(12.5), { winMinor: 400 }),
      settled('debit', 't1', 150, ok(15), { winMinor: 400 }),
    ]);
    expect(found.map((d) => d.kind)).toEqual(['double-debit']);
  });
});

describe("repeats, judged by the dialect's one rule (the shadow ledger and verify agree)", () => {
  const pragmatic = builtinDialect('pragmatic');
  const options = {
    reading: (currency?: string, operation?: Operation) => ({ dialect: pragmatic, currency: currency ?? 'EUR', operation }),
  };
  const answer = (balanceMinor: number) => {
    const reply = writeReply(pragmatic, { operation: 'bet', currency: 'EUR' }, { accepted: true, balanceMinor }, (m) => m / 100);
    return { status: reply.status, body: reply.body };
  };
  const event = (kind: EventKind, transactionId: string, amountMinor: number, balanceMinor: number) => ({
    ...settled(kind, transactionId, amountMinor, answer(balanceMinor)),
    status: 'delivered' as const,
  });
  const runUnder = (events: StoredEvent[]) => {
    let state = emptyLedgerState();
    const found: DiscrepancyDraft[] = [];
    for (const e of events) {
      const result = applySettlement(state, e, options);
      state = result.state;
      found.push(...result.discrepancies);
    }
    return found;
  };

  it('Pragmatic (current-balance): DEBIT b1 → 99, CREDIT 5 → 104, DEBIT b1 again → 104 is a correct wallet', () => {
    expect(
      runUnder([event('debit', 'b1', 100, 9_900), event('credit', 'w1', 500, 10_400), event('debit', 'b1', 100, 10_400)]),
    ).toEqual([]);
  });

  it('Pragmatic: the first reply again (99) is accepted too and says nothing about now; a repeat that paid again is flagged', () => {
    const replayed = runUnder([
      event('debit', 'b1', 100, 9_900),
      event('credit', 'w1', 500, 10_400),
      event('debit', 'b1', 100, 9_900),
      event('debit', 'b2', 100, 10_300),
    ]);
    expect(replayed).toEqual([]);
    const paid = runUnder([
      event('debit', 'b1', 100, 9_900),
      event('credit', 'w1', 500, 10_400),
      event('debit', 'b1', 100, 10_300),
    ]);
    expect(paid.map((d) => d.kind)).toEqual(['double-debit']);
  });

  it('the default wire (same-reply) still wants the first reply again', () => {
    const found = run([
      settled('debit', 'b1', 100, ok(99)),
      settled('credit', 'w1', 500, ok(104)),
      settled('debit', 'b1', 100, ok(104)),
    ]).found;
    expect(found.map((d) => d.kind)).toEqual(['duplicate-reply-differs']);
  });
});
