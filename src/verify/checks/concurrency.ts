import { performance } from 'node:perf_hooks';
import { checkHistory, describeExplanation, type HistoryOp } from '../../ledger/index.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, isFinal, type Step } from '../context.ts';
import { affordable, BET, type Check, expectAllAnswered, hasRollback, playerWithABet, putBack } from './shared.ts';

const RULE_HINT =
  'Apply each callback in one database transaction that locks the player row (SELECT … FOR UPDATE, or BEGIN IMMEDIATE in SQLite) ' +
  'from reading the balance to writing it; never read, await something, then write.';

/** Callbacks for one player arrive in parallel (retries, several game servers): no update may be lost. */
export const CONCURRENCY_CHECKS: readonly Check[] = [
  {
    id: 'concurrent-debits',
    rule: 'N DEBITs in parallel on one player accept no more than the balance covers, and the final balance is exact.',
    hint: RULE_HINT,
    source: 'contract; Blue Ocean concurrent tests; Evolution parallel rounds',
    async run(ctx) {
      const p = ctx.player;
      const n = ctx.settings.concurrency;
      const half = Math.max(1, Math.floor(n / 2));
      const before = await ctx.startBalance(p, half * BET);
      const amount = ctx.hasState ? BET : Math.max(1, Math.floor(Math.max(before, 0) / half));
      const covered = Math.floor(Math.max(before, 0) / amount);
      const history = new SentHistory(ctx, p);
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => history.debit(`parallel DEBIT ${i + 1}/${n} of ${ctx.money(amount)}`, amount)),
      );
      const accepted = steps.filter((s) => s.reply.accepted);
      for (const s of accepted) ctx.undoDebit(p, s.transactionId, amount);
      expectAllAnswered(steps, 'parallel DEBITs');
      const wrong = steps.filter((s) => !s.reply.accepted && !ctx.isRejection(s, 'INSUFFICIENT_FUNDS'));
      if (wrong.length > 0) {
        fail(
          `${wrong.length} parallel DEBIT(s) were refused for another reason than INSUFFICIENT_FUNDS, e.g. ${describeOutcome((wrong[0] as Step).exchange)}`,
        );
      }
      if (accepted.length > covered) {
        fail(
          `${accepted.length} of ${n} parallel DEBITs of ${ctx.money(amount)} were accepted, but a balance of ${ctx.money(before)} covers ` +
            `only ${covered}: the wallet overdraws under concurrency`,
        );
      }
      await history.expectExplained(before, `${n} parallel DEBITs of ${ctx.money(amount)} from ${ctx.money(before)}`);
    },
  },
  {
    id: 'concurrent-credits',
    rule: 'N CREDITs in parallel on one player are all paid: the final balance is exact.',
    hint: RULE_HINT,
    source: 'Blue Ocean "concurrent test with wins"',
    async run(ctx) {
      const p = ctx.player;
      const n = ctx.settings.concurrency;
      const before = await ctx.startBalance(p);
      const history = new SentHistory(ctx, p);
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => history.credit(`parallel CREDIT ${i + 1}/${n} of ${ctx.money(BET)}`, BET)),
      );
      for (const s of steps) if (s.reply.accepted) ctx.undoCredit(p, BET);
      expectAllAnswered(steps, 'parallel CREDITs');
      const refused = steps.filter((s) => !s.reply.accepted);
      if (refused.length > 0)
        fail(
          `${refused.length} of ${n} parallel CREDITs were refused (expected all accepted), e.g. ${describeOutcome((refused[0] as Step).exchange)}`,
        );
      await history.expectExplained(before, `${n} CREDITs of ${ctx.money(BET)} paid in parallel`);
    },
  },
  {
    id: 'concurrent-rollbacks',
    rule: 'ROLLBACKs of N DEBITs, each sent twice, all in parallel, restore every DEBIT exactly once.',
    hint: `${RULE_HINT} A repeated ROLLBACK racing its first copy must still restore the money once.`,
    source: 'contract (retries of rollbacks); Red Tiger refund twice',
    appliesTo: hasRollback,
    async run(ctx) {
      const p = ctx.player;
      const n = Math.max(2, Math.floor(ctx.settings.concurrency / 2));
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, Math.floor(before / n), p);
      const history = new SentHistory(ctx, p);
      const debits = await debitsInTurn(ctx, history, n, amount);
      const backs = await Promise.all(
        debits.flatMap((d, i) =>
          [1, 2].map((copy) =>
            history.rollback(`parallel ROLLBACK ${i + 1}/${n} (copy ${copy})`, d.transactionId, amount, `${d.transactionId}-rb`),
          ),
        ),
      );
      expectAllAnswered(backs, 'parallel ROLLBACKs');
      const now = await history.expectExplained(
        before,
        `${n} DEBITs of ${ctx.money(amount)} and their ROLLBACKs (each twice, in parallel)`,
        { cleanup: (read) => putBack(ctx, p, read, before, 'DEBITs were not restored') },
      );
      if (now !== before) {
        fail(
          `${n} DEBITs of ${ctx.money(amount)} and their ROLLBACKs (each twice, in parallel): expected the balance back at ${ctx.money(before)}, got ${ctx.money(now)}`,
        );
      }
    },
  },
  {
    id: 'concurrent-mixed',
    rule: 'DEBITs, CREDITs and ROLLBACKs for one player in parallel all apply exactly: the final balance is the sum of what was accepted.',
    hint: RULE_HINT,
    source: 'Evolution onePlayerPlaysTwoGameRoundsOnOneTableInParallel; Blue Ocean concurrent tests',
    appliesTo: hasRollback,
    async run(ctx) {
      const p = ctx.player;
      const n = Math.max(3, ctx.settings.concurrency);
      const before = await ctx.startBalance(p);
      const third = Math.ceil(n / 3);
      const amount = affordable(ctx, Math.floor(before / (2 * third)), p);
      const history = new SentHistory(ctx, p);
      const earlier = await debitsInTurn(ctx, history, third, amount);
      let expected = before - third * amount;
      const work: Promise<{ step: Step; delta: number; undo?: () => void }>[] = [];
      for (let i = 0; i < third; i++) {
        const debit = history.debit(`parallel DEBIT ${i + 1}`, amount);
        const credit = history.credit(`parallel CREDIT ${i + 1}`, amount);
        const d = earlier[i] as Step & { transactionId: string };
        const back = history.rollback(`parallel ROLLBACK of earlier DEBIT ${i + 1}`, d.transactionId, amount);
        work.push(
          debit.then((step) => ({ step, delta: -amount, undo: () => ctx.undoDebit(p, step.transactionId, amount) })),
          credit.then((step) => ({ step, delta: amount, undo: () => ctx.undoCredit(p, amount) })),
          back.then((step) => ({ step, delta: amount })),
        );
      }
      const done = await Promise.all(work);
      for (const { step, delta, undo } of done) {
        if (!step.reply.accepted) continue;
        expected += delta;
        undo?.();
      }
      for (const [i, d] of earlier.entries())
        if (!done[i * 3 + 2]?.step.reply.accepted) ctx.undoDebit(p, d.transactionId, amount);
      const all = done.map((d) => d.step);
      expectAllAnswered(all, 'parallel callbacks');
      await history.expectExplained(before, 'DEBITs, CREDITs and ROLLBACKs in parallel', { expectedNow: expected });
    },
  },
  {
    id: 'concurrent-duplicates',
    rule: 'The same DEBIT sent N times at once (a retry racing the original) moves money once.',
    hint:
      'Make the idempotency record and the balance change one atomic step: a unique key on (playerId, type, transactionId) ' +
      'inside the transaction, so a second copy waits and then finds the first.',
    source: 'contract (retries); Blue Ocean concurrent duplicate test',
    async run(ctx) {
      const { p, before, amount } = await playerWithABet(ctx);
      const tx = ctx.tx();
      const n = Math.max(2, Math.min(ctx.settings.concurrency, 10));
      const history = new SentHistory(ctx, p);
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => history.debit(`the same DEBIT ${tx}, copy ${i + 1}/${n}`, amount, tx)),
      );
      if (steps.some((s) => s.reply.accepted)) ctx.undoDebit(p, tx, amount);
      const retried = steps.filter((s) => s.reply.verdict === 'retry').length;
      if (retried > 0)
        ctx.notes.push(
          `${retried} of ${n} copies were answered with a status aggmock retries (fine, if a retry then gets the first reply)`,
        );
      const now = await history.expectExplained(before, `${n} copies of one DEBIT of ${ctx.money(amount)} sent at once`, {
        cleanup: (read) => {
          if (read < before - amount) ctx.giveBack(p, before - amount - read, 'extra copies of the DEBIT took it');
        },
      });
      if (now !== before - amount) {
        fail(
          `${n} copies of one DEBIT of ${ctx.money(amount)} sent at once: expected the balance to move once, from ${ctx.money(before)} to ${ctx.money(before - amount)}, got ${ctx.money(now)}`,
        );
      }
    },
  },
];

/** `n` accepted DEBITs of `amount`, one after another (the set-up of the rollback races). */
async function debitsInTurn(ctx: CheckContext, history: SentHistory, n: number, amount: number) {
  const debits = [];
  for (let i = 0; i < n; i++) {
    const d = await history.debit(`DEBIT ${i + 1}/${n} of ${ctx.money(amount)} (to be rolled back in parallel)`, amount);
    if (!d.reply.accepted) {
      for (const earlier of debits) ctx.undoDebit(history.playerId, earlier.transactionId, amount);
      fail(`the set-up DEBIT ${i + 1} of ${ctx.money(amount)} was not accepted: ${describeOutcome(d.exchange)}`);
    }
    debits.push(d);
  }
  return debits;
}

/**
 * What a check sent to one player and when, for the one history checker the shadow ledger uses
 * too: every reply's balance, and the balance read back at the end, must be explained by some
 * order of the accepted callbacks that respects real time (one answered before another was sent
 * comes first). A final balance that adds up is not enough: a reply built from a stale read, or
 * another player's balance, shows up here.
 */
class SentHistory {
  private readonly ops: HistoryOp[] = [];

  constructor(
    private readonly ctx: CheckContext,
    readonly playerId: string,
  ) {}

  debit(label: string, amountMinor: number, transactionId = this.ctx.tx()) {
    return this.timed({ kind: 'debit', key: `debit:${transactionId}`, amountMinor, label }, () =>
      this.ctx.debit(label, this.playerId, amountMinor, transactionId),
    );
  }

  credit(label: string, amountMinor: number) {
    const transactionId = this.ctx.tx();
    return this.timed({ kind: 'credit', key: `credit:${transactionId}`, amountMinor, label }, () =>
      this.ctx.credit(label, this.playerId, amountMinor, transactionId),
    );
  }

  rollback(label: string, debitTx: string, amountMinor: number, rollbackTx = this.ctx.tx()) {
    // In 'original' style a ROLLBACK's own id is its DEBIT's: two ROLLBACKs of one DEBIT are the same transaction.
    const own = this.ctx.wire.rollbackStyle === 'original' ? debitTx : rollbackTx;
    return this.timed({ kind: 'rollback', key: `rollback:${own}`, reverses: `debit:${debitTx}`, amountMinor, label }, () =>
      this.ctx.rollback(label, this.playerId, debitTx, amountMinor, rollbackTx),
    );
  }

  /**
   * Reads the balance back and fails unless every reply and that balance are explained by some
   * real-time order of what was accepted (`expectedNow`, when given, must be the balance read).
   * `cleanup` gets the balance read before anything fails (to give back what a wrong wallet took).
   * Returns the balance read.
   */
  async expectExplained(
    before: number,
    what: string,
    { cleanup, expectedNow }: { cleanup?: (now: number) => void; expectedNow?: number } = {},
  ): Promise<number> {
    const sentAt = performance.now();
    const now = await this.ctx.readBalance(this.playerId);
    cleanup?.(now);
    const read: HistoryOp = {
      id: this.ops.length + 1,
      kind: 'read',
      key: 'balance-read',
      amountMinor: 0,
      outcome: 'accepted',
      balanceMinor: now,
      sentAt,
      answeredAt: performance.now(),
      label: 'the balance read back afterwards',
    };
    const verdict = checkHistory([...this.ops, read], { balanceMinor: before });
    if (verdict.linearizable === false) {
      const { explanation } = verdict;
      const told = describeExplanation(explanation, { windowSize: this.ops.length + 1, money: (m) => this.ctx.money(m) });
      fail(
        `${what}, starting from ${this.ctx.money(before)}: ${told}. Expected every reply's balance and the balance read back to follow ` +
          'from some order of the accepted callbacks: lost or double updates, or replies built from a stale read of the balance?',
      );
    }
    if (verdict.linearizable === undefined) this.ctx.notes.push(`${what}: too many overlapping callbacks to search every order`);
    if (expectedNow !== undefined && now !== expectedNow) {
      fail(
        `${what}: expected player ${this.playerId}'s balance to be ${this.ctx.money(expectedNow)}, got ${this.ctx.money(now)} (off by ${this.ctx.money(now - expectedNow)})`,
      );
    }
    return now;
  }

  private async timed<T extends Step>(
    op: Pick<HistoryOp, 'kind' | 'key' | 'amountMinor' | 'label'> & { reverses?: string },
    send: () => Promise<T>,
  ): Promise<T> {
    const sentAt = performance.now();
    const step = await send();
    const answered = isFinal(step.reply);
    this.ops.push({
      ...op,
      id: this.ops.length + 1,
      outcome: !answered ? 'unknown' : step.reply.accepted ? 'accepted' : 'rejected',
      ...(answered && step.reply.balanceMinor !== undefined ? { balanceMinor: step.reply.balanceMinor } : {}),
      sentAt,
      answeredAt: answered ? performance.now() : Number.POSITIVE_INFINITY,
    });
    return step;
  }
}
