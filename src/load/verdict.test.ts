import { describe, expect, it } from 'vitest';
import { builtinDialect, type CallFacts } from '../dialects/index.ts';
import type { CallRecord } from './record.ts';
import { judgeRun } from './verdict.ts';

/** Red Tiger-free, plain replies: softswiss answers {balance} in minor units on success. */
const dialect = builtinDialect('softswiss');
let id = 0;
function call(
  facts: Partial<CallFacts> & Pick<CallFacts, 'operation'>,
  sentAt: number,
  answeredAt: number,
  balance: number | undefined,
  status = 200,
): CallRecord {
  return {
    id: ++id,
    facts: { playerId: 'p1', currency: 'EUR', createdAt: 0, ...facts } as CallFacts,
    sentAt,
    answeredAt,
    status,
    text: JSON.stringify(status === 200 ? { balance } : { code: 100, message: 'Not enough funds', balance }),
    attempts: 1,
  };
}
const bet = (tx: string, amount: number) => ({ operation: 'bet' as const, transactionId: tx, amountMinor: amount });

describe('judgeRun', () => {
  it('passes overlapping bets whose balances some order explains, and reconciles the final balance read', () => {
    const v = judgeRun(dialect, [
      call({ operation: 'balance' }, 0, 1, 10_000),
      call(bet('a', 100), 2, 10, 9_750), // answered after b: b went first
      call(bet('b', 150), 3, 6, 9_850),
      call({ operation: 'balance' }, 11, 12, 9_750),
    ]);
    expect(v).toMatchObject({ ok: true, violations: [], reconciled: 1, unreconciled: [] });
  });

  it('catches a lost update: two overlapping bets both answered from the same starting balance', () => {
    const v = judgeRun(dialect, [
      call({ operation: 'balance' }, 0, 1, 10_000),
      call(bet('a', 100), 2, 10, 9_900),
      call(bet('b', 150), 3, 9, 9_850),
      call({ operation: 'balance' }, 11, 12, 9_850),
    ]);
    expect(v.ok).toBe(false);
    expect(v.violations[0]).toMatchObject({ playerId: 'p1', cause: 'drift' });
    expect(v.violations[0]?.message).toContain('no order of the calls explains the balance');
  });

  it('a repeat answering again the reply of a call that took two attempts replays it; any other balance is still judged', () => {
    const retried = (tx: string, amount: number, sentAt: number, answeredAt: number, balance: number) => ({
      ...call(bet(tx, amount), sentAt, answeredAt, balance),
      attempts: 2,
    });
    const run = (repeatBalance: number) =>
      judgeRun(dialect, [
        call({ operation: 'balance' }, 0, 1, 10_000),
        retried('a', 100, 2, 20, 9_900), // applied at its first attempt, its retry answered with that reply
        call(bet('b', 200), 10, 15, 9_700),
        call(bet('a', 100), 21, 22, repeatBalance), // the same transaction again, after b
        call({ operation: 'balance' }, 23, 24, 9_700),
      ]);
    expect(run(9_900).violations).toEqual([]); // the first reply replayed
    expect(run(9_700).violations).toEqual([]); // the balance of now
    expect(run(9_800).violations[0]).toMatchObject({ cause: 'drift' }); // neither
  });

  it('a duplicate answered with the first reply again says nothing about now; one that moved money again is a double charge', () => {
    const good = judgeRun(dialect, [
      call({ operation: 'balance' }, 0, 1, 10_000),
      call(bet('a', 100), 2, 3, 9_900),
      call(bet('b', 200), 4, 5, 9_700),
      call(bet('a', 100), 6, 7, 9_900),
      call({ operation: 'balance' }, 8, 9, 9_700),
    ]);
    expect(good.violations).toEqual([]);
    const bad = judgeRun(dialect, [
      call({ operation: 'balance' }, 0, 1, 10_000),
      call(bet('a', 100), 2, 3, 9_900),
      call(bet('a', 100), 4, 5, 9_800),
      call({ operation: 'balance' }, 6, 7, 9_800),
    ]);
    expect(bad.violations[0]?.cause).toBe('moved-on-duplicate');
  });

  it('a call with no answer may or may not have been applied: either final balance is explained', () => {
    for (const final of [10_000, 9_900]) {
      const unanswered: CallRecord = {
        id: ++id,
        facts: { playerId: 'p1', currency: 'EUR', createdAt: 0, ...bet('x', 100) },
        sentAt: 2,
        attempts: 4,
      };
      const v = judgeRun(dialect, [
        call({ operation: 'balance' }, 0, 1, 10_000),
        unanswered,
        call({ operation: 'balance' }, 20, 21, final),
      ]);
      expect(v.violations, String(final)).toEqual([]);
    }
  });

  it('a history that does not end with a balance read is not reconciled', () => {
    const v = judgeRun(dialect, [call({ operation: 'balance' }, 0, 1, 10_000), call(bet('a', 100), 2, 3, 9_900)]);
    expect(v.unreconciled).toEqual(['p1']);
  });
});
