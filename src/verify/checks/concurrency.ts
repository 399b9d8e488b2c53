import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step } from '../context.ts';
import { affordable, BET, type Check, expectAllAnswered, hasRollback, playerWithABet } from './shared.ts';

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
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => ctx.debit(`parallel DEBIT ${i + 1}/${n} of ${ctx.money(amount)}`, p, amount)),
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
      await ctx.expectBalanceNow(
        p,
        before - accepted.length * amount,
        `${accepted.length} accepted DEBITs of ${ctx.money(amount)} from ${ctx.money(before)} (lost or double updates?)`,
      );
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
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => ctx.credit(`parallel CREDIT ${i + 1}/${n} of ${ctx.money(BET)}`, p, BET)),
      );
      for (const s of steps) if (s.reply.accepted) ctx.undoCredit(p, BET);
      expectAllAnswered(steps, 'parallel CREDITs');
      const refused = steps.filter((s) => !s.reply.accepted);
      if (refused.length > 0)
        fail(
          `${refused.length} of ${n} parallel CREDITs were refused (expected all accepted), e.g. ${describeOutcome((refused[0] as Step).exchange)}`,
        );
      await ctx.expectBalanceNow(p, before + n * BET, `${n} CREDITs of ${ctx.money(BET)} paid in parallel (lost updates?)`);
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
      const debits = await debitsInTurn(ctx, p, n, amount);
      const backs = await Promise.all(
        debits.flatMap((d, i) =>
          [1, 2].map((copy) =>
            ctx.rollback(`parallel ROLLBACK ${i + 1}/${n} (copy ${copy})`, p, d.transactionId, amount, `${d.transactionId}-rb`),
          ),
        ),
      );
      expectAllAnswered(backs, 'parallel ROLLBACKs');
      const now = await ctx.readBalance(p);
      if (now < before) ctx.giveBack(p, before - now, 'DEBITs were not restored');
      if (now > before) ctx.takeBack(p, now - before);
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
      const earlier = await debitsInTurn(ctx, p, third, amount);
      let expected = before - third * amount;
      const work: Promise<{ step: Step; delta: number; undo?: () => void }>[] = [];
      for (let i = 0; i < third; i++) {
        work.push(
          ctx.debit(`parallel DEBIT ${i + 1}`, p, amount).then((step) => ({
            step,
            delta: -amount,
            undo: () => ctx.undoDebit(p, step.transactionId, amount),
          })),
        );
        work.push(
          ctx
            .credit(`parallel CREDIT ${i + 1}`, p, amount)
            .then((step) => ({ step, delta: amount, undo: () => ctx.undoCredit(p, amount) })),
        );
        const d = earlier[i] as Step & { transactionId: string };
        work.push(
          ctx
            .rollback(`parallel ROLLBACK of earlier DEBIT ${i + 1}`, p, d.transactionId, amount)
            .then((step) => ({ step, delta: amount })),
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
      expectAllAnswered(
        done.map((d) => d.step),
        'parallel callbacks',
      );
      await ctx.expectBalanceNow(p, expected, 'after DEBITs, CREDITs and ROLLBACKs in parallel (lost or double updates?)');
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
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => ctx.debit(`the same DEBIT ${tx}, copy ${i + 1}/${n}`, p, amount, tx)),
      );
      if (steps.some((s) => s.reply.accepted)) ctx.undoDebit(p, tx, amount);
      const retried = steps.filter((s) => s.reply.verdict === 'retry').length;
      if (retried > 0)
        ctx.notes.push(
          `${retried} of ${n} copies were answered with a status aggmock retries (fine, if a retry then gets the first reply)`,
        );
      const now = await ctx.readBalance(p);
      if (now < before - amount) ctx.giveBack(p, before - amount - now, 'extra copies of the DEBIT took it');
      if (now !== before - amount) {
        fail(
          `${n} copies of one DEBIT of ${ctx.money(amount)} sent at once: expected the balance to move once, from ${ctx.money(before)} to ${ctx.money(before - amount)}, got ${ctx.money(now)}`,
        );
      }
    },
  },
];

/** `n` accepted DEBITs of `amount`, one after another (the set-up of the rollback races). */
async function debitsInTurn(ctx: CheckContext, p: string, n: number, amount: number) {
  const debits = [];
  for (let i = 0; i < n; i++) {
    const d = await ctx.debit(`DEBIT ${i + 1}/${n} of ${ctx.money(amount)} (to be rolled back in parallel)`, p, amount);
    if (!d.reply.accepted) {
      for (const earlier of debits) ctx.undoDebit(p, earlier.transactionId, amount);
      fail(`the set-up DEBIT ${i + 1} of ${ctx.money(amount)} was not accepted: ${describeOutcome(d.exchange)}`);
    }
    debits.push(d);
  }
  return debits;
}
