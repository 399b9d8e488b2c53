import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventKind } from '../callbacks/events.ts';
import { answeredBefore, checkHistory, type HistoryOp, type HistoryOutcome, type HistoryStart } from './history.ts';

let nextId = 1;
function op(
  kind: EventKind,
  tx: string,
  amountMinor: number,
  outcome: HistoryOutcome,
  balanceMinor: number | undefined,
  sentAt: number,
  answeredAt: number,
  reverses?: string,
): HistoryOp {
  const id = nextId++;
  return {
    id,
    kind,
    key: `${kind}:${tx}`,
    ...(kind === 'rollback' ? { reverses: `debit:${reverses ?? tx}` } : {}),
    amountMinor,
    outcome,
    ...(balanceMinor === undefined ? {} : { balanceMinor }),
    sentAt,
    answeredAt: outcome === 'unknown' ? Number.POSITIVE_INFINITY : answeredAt,
    label: `${kind.toUpperCase()} ${tx} (#${id})`,
  };
}

describe('checkHistory: is every reply explained by some order of the accepted events?', () => {
  it('clears sequential bets and wins whose replies follow the balance', () => {
    const ops = [op('debit', 'a', 10, 'accepted', 90, 0, 1), op('credit', 'b', 5, 'accepted', 95, 2, 3)];
    expect(checkHistory(ops, { balanceMinor: 100 })).toMatchObject({ linearizable: true, complete: true });
  });

  it('clears overlapping events applied in an order other than the one they were sent or answered in', () => {
    // B was sent after A but the wallet applied it first; both overlap in time.
    const ops = [op('debit', 'a', 10, 'accepted', 70, 0, 5), op('debit', 'b', 20, 'accepted', 80, 1, 4)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict.linearizable).toBe(true);
    if (verdict.linearizable) expect(verdict.finals.map((f) => f.balance)).toEqual([70]);
  });

  it('refuses an order that contradicts real time: an event answered before another was sent comes first', () => {
    // A answered (at 1) before B was sent (at 2): B cannot have been applied before A.
    const ops = [op('debit', 'a', 10, 'accepted', 70, 0, 1), op('debit', 'b', 20, 'accepted', 80, 2, 3)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict.linearizable).toBe(false);
    if (verdict.linearizable === false) {
      expect(verdict.explanation.op.label).toContain('DEBIT a');
      expect(verdict.explanation.possible).toEqual([90]);
    }
  });

  it('names the reply no order explains, the balances an order could give and the events that overlap it', () => {
    const ops = [
      op('debit', 'a', 10, 'accepted', 90, 0, 10),
      op('debit', 'b', 10, 'accepted', 80, 0, 10),
      op('debit', 'c', 10, 'accepted', 85, 0, 10),
    ];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict.linearizable).toBe(false);
    if (verdict.linearizable === false) {
      expect(verdict.explanation).toMatchObject({ op: { label: expect.stringContaining('DEBIT c') }, cause: 'drift' });
      expect(verdict.explanation.possible).toEqual([70]);
      expect(verdict.explanation.involved).toHaveLength(3);
    }
  });

  it('lets an event without a reply have been applied or not, at any time after it was sent', () => {
    const lost = op('debit', 'a', 10, 'unknown', undefined, 0, 0);
    expect(checkHistory([lost, op('credit', 'b', 5, 'accepted', 95, 1, 2)], { balanceMinor: 100 }).linearizable).toBe(true);
    expect(checkHistory([lost, op('credit', 'b', 5, 'accepted', 105, 1, 2)], { balanceMinor: 100 }).linearizable).toBe(true);
    expect(checkHistory([lost, op('credit', 'b', 5, 'accepted', 96, 1, 2)], { balanceMinor: 100 }).linearizable).toBe(false);
  });

  it('calls a repeated DEBIT that took the money again a move on a duplicate', () => {
    const ops = [op('debit', 'a', 10, 'accepted', 90, 0, 1), op('debit', 'a', 10, 'accepted', 80, 2, 3)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict.linearizable === false && verdict.explanation).toMatchObject({ cause: 'moved-on-duplicate', expected: 90 });
  });

  it('calls an accepted bet the balance did not cover in any order an overdraft', () => {
    const ops = [op('debit', 'a', 60, 'accepted', 40, 0, 5), op('debit', 'b', 60, 'accepted', -20, 0, 5)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict.linearizable === false && verdict.explanation).toMatchObject({ cause: 'overdraft', expected: 40 });
  });

  it('gives a DEBIT back once: a ROLLBACK that kept the money, or a second one that paid again', () => {
    const debit = op('debit', 'a', 10, 'accepted', 90, 0, 1);
    const kept = checkHistory([debit, op('rollback', 'a', 10, 'accepted', 90, 2, 3)], { balanceMinor: 100 });
    expect(kept.linearizable === false && kept.explanation.cause).toBe('rollback-not-restored');
    const twice = checkHistory(
      [debit, op('rollback', 'r1', 10, 'accepted', 100, 2, 3, 'a'), op('rollback', 'r2', 10, 'accepted', 110, 4, 5, 'a')],
      { balanceMinor: 100 },
    );
    expect(twice.linearizable === false && twice.explanation.cause).toBe('rollback-moved-money');
  });

  it('takes the first balance as the start when none is known', () => {
    const ops = [op('debit', 'a', 10, 'accepted', 40, 0, 5), op('debit', 'b', 10, 'accepted', 30, 0, 5)];
    expect(checkHistory(ops).linearizable).toBe(true);
    expect(checkHistory([ops[0] as HistoryOp, op('debit', 'c', 10, 'accepted', 40, 6, 7)]).linearizable).toBe(false);
  });

  it('reads transactions settled before the history: a ROLLBACK of an earlier DEBIT gives its amount back', () => {
    const past = (key: string) => (key === 'debit:old' ? { status: 'applied' as const, amountMinor: 25 } : undefined);
    expect(checkHistory([op('rollback', 'old', 25, 'accepted', 125, 0, 1)], { balanceMinor: 100, past }).linearizable).toBe(true);
  });

  it('gives up (neither clears nor blames) when the search would exceed its budget', () => {
    // 10 overlapping wins without balances, then a read no sum of them gives: proving that takes every subset.
    const wins = Array.from({ length: 10 }, (_, i) => op('credit', `c${i}`, 2 ** i, 'accepted', undefined, 0, 10));
    const ops = [...wins, op('credit', 'read', 0, 'accepted', 2 ** 11, 11, 12)];
    expect(checkHistory(ops, { balanceMinor: 0 }, { budget: 50 }).linearizable).toBeUndefined();
    expect(checkHistory(ops, { balanceMinor: 0 }).linearizable).toBe(false);
  });
});

// ---- the brute-force oracle: every real-time-respecting order, the model written out plainly ----

interface OracleState {
  balance: number | undefined;
  status: Map<string, 'applied' | 'rolled-back' | 'tombstone' | 'maybe'>;
  amounts: Map<string, number>;
}

/** Every state `o` can leave `s` in (all constraints on for `constrained`), by the documented model. */
function oracleStep(s: OracleState, o: HistoryOp, constrained: boolean): OracleState[] {
  const results: OracleState[] = [];
  const copy = (): OracleState => ({ balance: s.balance, status: new Map(s.status), amounts: new Map(s.amounts) });
  const add = (st: OracleState, d: number) => {
    st.balance = st.balance === undefined ? undefined : st.balance + d;
  };
  const applyFresh = (): OracleState[] => {
    const st = copy();
    if (o.kind === 'credit') {
      add(st, o.amountMinor);
      st.status.set(o.key, 'applied');
      st.amounts.set(o.key, o.amountMinor);
      return [st];
    }
    if (o.kind === 'debit') {
      if (constrained && s.balance !== undefined && o.amountMinor > s.balance) return [];
      add(st, -o.amountMinor + (o.winMinor ?? 0));
      const wasTomb = s.status.get(o.key) === 'tombstone';
      st.status.set(o.key, 'applied');
      st.amounts.set(o.key, o.amountMinor);
      if (!wasTomb) return [st];
      const ack = copy();
      ack.status.set(o.key, 'rolled-back');
      ack.amounts.set(o.key, 0);
      return [st, ack];
    }
    const dk = o.reverses as string;
    const ds = s.status.get(dk);
    st.status.set(o.key, 'applied');
    st.amounts.set(o.key, 0);
    if (ds === 'applied' || ds === 'maybe') {
      const amount = s.amounts.get(dk) ?? 0;
      const back = { ...st, status: new Map(st.status), amounts: new Map(st.amounts) };
      back.status.set(dk, 'rolled-back');
      add(back, amount);
      if (ds === 'applied') return [back];
      const none = { ...back, balance: s.balance, status: new Map(back.status), amounts: new Map(back.amounts) };
      return [back, none];
    }
    if (ds === undefined) {
      st.status.set(dk, 'tombstone');
      st.amounts.set(dk, 0);
    }
    return [st];
  };
  const applied = (): OracleState[] => {
    const own = s.status.get(o.key);
    if (own === 'applied' || own === 'rolled-back') return [copy()];
    return applyFresh();
  };
  if (o.outcome === 'rejected') results.push(copy());
  else if (o.outcome === 'accepted') results.push(...applied());
  else results.push(copy(), ...applied());
  if (!constrained || o.balanceMinor === undefined) return results;
  return results.flatMap((r) => {
    if (r.balance === undefined) return [{ ...r, balance: o.balanceMinor }];
    return r.balance === o.balanceMinor ? [r] : [];
  });
}

/** All (final balance) outcomes of every real-time order; `constrained(i)` switches op i's constraint; `watch` collects its post balances. */
function oracle(ops: readonly HistoryOp[], start: number | undefined, constrained: (i: number) => boolean, watch?: number) {
  const finals = new Set<string>();
  const watched = new Set<number>();
  const rec = (left: number[], s: OracleState, seen?: number) => {
    if (left.length === 0) {
      finals.add(String(s.balance));
      // Only complete orders count: the watched op's balance on this one.
      if (seen !== undefined) watched.add(seen);
      return;
    }
    for (const i of left) {
      const o = ops[i] as HistoryOp;
      const blocked = left.some((j) => j !== i && (ops[j] as HistoryOp).answeredAt < o.sentAt);
      if (blocked) continue;
      for (const next of oracleStep(s, o, constrained(i))) {
        const post = i === watch && s.balance !== undefined ? next.balance : seen;
        rec(
          left.filter((j) => j !== i),
          next,
          post,
        );
      }
    }
  };
  rec(
    ops.map((_, i) => i),
    { balance: start, status: new Map(), amounts: new Map() },
  );
  return { finals, watched };
}

/** A random small history: a correct wallet's run at random overlapping times, sometimes with one reply corrupted. */
const historyArb = fc
  .record({
    start: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 4 }),
    steps: fc.array(
      fc.record({
        kind: fc.constantFrom<EventKind>('debit', 'debit', 'credit', 'rollback'),
        tx: fc.constantFrom('a', 'b', 'c'),
        amount: fc.integer({ min: 0, max: 25 }),
        refuse: fc.boolean(),
        unknown: fc.integer({ min: 0, max: 9 }),
        noBalance: fc.integer({ min: 0, max: 9 }),
        early: fc.integer({ min: 0, max: 3 }),
        late: fc.integer({ min: 0, max: 3 }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    corrupt: fc.option(fc.record({ at: fc.nat(), by: fc.integer({ min: -20, max: 20 }) }), { freq: 2 }),
  })
  .map(({ start, steps, corrupt }) => {
    let state: OracleState = { balance: start ?? 30, status: new Map(), amounts: new Map() };
    const ops = steps.map((st, t) => {
      const outcome: HistoryOutcome =
        st.unknown === 0 ? 'unknown' : st.refuse && st.kind !== 'rollback' ? 'rejected' : 'accepted';
      const draft = op(st.kind, st.tx, st.amount, outcome, undefined, 4 * t - st.early, 4 * t + st.late);
      // What a correct wallet does at time 4t: refuse what it cannot cover.
      const options = oracleStep(state, { ...draft, outcome: outcome === 'unknown' ? 'accepted' : outcome }, true);
      const refused = options.length === 0;
      const final: HistoryOp = refused ? { ...draft, outcome: outcome === 'unknown' ? 'unknown' : 'rejected' } : draft;
      state = refused || outcome === 'unknown' ? state : (options[0] as OracleState);
      if (final.outcome !== 'unknown' && st.noBalance > 1) return { ...final, balanceMinor: state.balance as number };
      return final;
    });
    if (corrupt) {
      const withBalance = ops.filter((o) => o.balanceMinor !== undefined);
      const victim = withBalance[corrupt.at % Math.max(1, withBalance.length)];
      if (victim && corrupt.by !== 0) victim.balanceMinor = (victim.balanceMinor as number) + corrupt.by;
    }
    return { start: start ?? undefined, ops };
  });

describe('checkHistory agrees with a brute-force oracle on random small histories', () => {
  it('clears exactly the histories some real-time order explains, with the same final balances', () => {
    fc.assert(
      fc.property(historyArb, ({ start, ops }) => {
        const verdict = checkHistory(ops, start === undefined ? {} : ({ balanceMinor: start } satisfies HistoryStart));
        const truth = oracle(ops, start, () => true);
        expect(verdict.linearizable).toBe(truth.finals.size > 0);
        if (verdict.linearizable) expect(new Set(verdict.finals.map((f) => String(f.balance)))).toEqual(truth.finals);
      }),
      { numRuns: 400, seed: 21 },
    );
  });

  it('blames a reply that constrains something, and lists exactly the balances the other replies allow it', () => {
    let counterexamples = 0;
    fc.assert(
      fc.property(historyArb, ({ start, ops }) => {
        const verdict = checkHistory(ops, start === undefined ? {} : { balanceMinor: start });
        if (verdict.linearizable !== false) return;
        counterexamples++;
        const blamed = ops.indexOf(verdict.explanation.op);
        const o = ops[blamed] as HistoryOp;
        expect(o.balanceMinor !== undefined || (o.kind === 'debit' && o.outcome === 'accepted')).toBe(true);
        const basis =
          verdict.explanation.basis === 'others' ? (i: number) => i !== blamed : (i: number) => answeredBefore(ops, i, blamed);
        const possible = [...oracle(ops, start, basis, blamed).watched].sort((a, b) => a - b);
        if (verdict.explanation.basis === 'earlier') expect(oracle(ops, start, (i) => i !== blamed, blamed).watched.size).toBe(0);
        expect(verdict.explanation.possible).toEqual(possible.slice(0, 12));
      }),
      { numRuns: 400, seed: 7 },
    );
    expect(counterexamples).toBeGreaterThan(20);
  });
});

describe('checkHistory: a rollback of a win (a dialect’s rollbackWin)', () => {
  const winBack = (
    tx: string,
    win: string,
    balanceMinor: number | undefined,
    sentAt: number,
    outcome: HistoryOutcome = 'accepted',
  ) => ({
    ...op('rollback', tx, 0, outcome, balanceMinor, sentAt, sentAt + 1),
    reverses: `credit:${win}`,
    reversesCredit: true,
  });

  it('clears a rollback that takes the win back exactly once', () => {
    const ops = [
      op('debit', 'bet', 10, 'accepted', 90, 0, 1),
      op('credit', 'win', 30, 'accepted', 120, 2, 3),
      winBack('rb', 'win', 90, 4),
      winBack('rb', 'win', 90, 6),
    ];
    expect(checkHistory(ops, { balanceMinor: 100 })).toMatchObject({ linearizable: true });
  });

  it('blames a rollback of a win that kept the win paid as rollback-not-restored', () => {
    const ops = [op('credit', 'win', 30, 'accepted', 130, 0, 1), winBack('rb', 'win', 130, 2)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict).toMatchObject({ linearizable: false, explanation: { cause: 'rollback-not-restored', expected: 100 } });
  });

  it('blames a repeated rollback of a win that took it back twice as moved-on-duplicate', () => {
    const ops = [op('credit', 'win', 30, 'accepted', 130, 0, 1), winBack('rb', 'win', 100, 2), winBack('rb', 'win', 70, 4)];
    const verdict = checkHistory(ops, { balanceMinor: 100 });
    expect(verdict).toMatchObject({ linearizable: false, explanation: { cause: 'moved-on-duplicate', expected: 100 } });
  });

  it('blames a rollback of a win the wallet never paid that still took money as rollback-moved-money', () => {
    const verdict = checkHistory([winBack('rb', 'never', 70, 0)], { balanceMinor: 100 });
    expect(verdict).toMatchObject({ linearizable: false, explanation: { cause: 'rollback-moved-money' } });
  });
});
