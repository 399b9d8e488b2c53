import { documents } from '../../dialects/capabilities.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step, skip } from '../context.ts';
import { DEFAULT_NEEDS } from '../preflight.ts';
import { affordable, BET, type Check, overdraftDebit, putBack, sameReply } from './shared.ts';

/**
 * Aggregators retry late: after the player's balance moved, after the round's win, between other
 * players' callbacks. A retry gets the first outcome whenever it comes.
 */
export const RETRY_CHECKS: readonly Check[] = [
  {
    id: 'refused-debit-retried',
    rule:
      'A DEBIT refused for lack of funds, sent again with the same transactionId after the balance has risen, gets the same ' +
      'refusal (INSUFFICIENT_FUNDS) and moves no money.',
    hint:
      'Record refused DEBITs too, under (playerId, type, transactionId) with their reply, and answer a repeat with that ' +
      'stored refusal; never re-evaluate a repeated transactionId against the balance as it is now.',
    source:
      'contract (a duplicate transactionId gets the first reply and moves no money); Blue Ocean test list ("same transid: ' +
      'return same response as first time"); Hub88 (requests with the same request_uuid get the same response)',
    async run(ctx) {
      if (!documents(ctx.wire.dialect, 'refused-repeat'))
        skip(
          `vendors document idempotency for the transactions a wallet processed; the ${ctx.wire.name} dialect documents no rule for the repeat of a refused bet`,
        );
      const { p, before, amount, step } = await overdraftDebit(ctx, (amount, balance) => `DEBIT ${amount} (balance ${balance})`);
      const raise = amount - Math.max(before, 0) + BET;
      const credit = await ctx.credit(`CREDIT ${ctx.money(raise)} (now the balance covers the DEBIT)`, p, raise);
      if (credit.reply.accepted) ctx.undoCredit(p, raise);
      ctx.expectBalance(credit, before + raise, `a CREDIT of ${ctx.money(raise)}`);
      const label = `the refused DEBIT again (same transactionId ${step.transactionId})`;
      const again = await ctx.debitGivenBack(label, p, amount, step.transactionId);
      ctx.expectRejection(
        again,
        'INSUFFICIENT_FUNDS',
        `the repeat of a DEBIT refused for lack of funds, sent after the balance rose to ${ctx.money(before + raise)}`,
      );
      await ctx.expectBalanceNow(p, before + raise, 'a repeat of a refused DEBIT must move no money');
    },
  },
  {
    id: 'idempotent-later-retry',
    // It plays every player at once, so an unknown second player blocks it as it does same-tx-two-players.
    needs: [...DEFAULT_NEEDS, 'second-player'],
    rule:
      'A DEBIT or CREDIT repeated late, after other DEBITs of the same player, after the CREDIT of its round and while other ' +
      'players play, gets its first reply again (on a "same-outcome" wire: its first outcome) and moves no money.',
    hint:
      'Keep every transaction (not only the player’s last one, not only in a short-lived cache) under (playerId, type, ' +
      'transactionId) with its reply, and look a repeat up there whatever came in between.',
    source:
      'contract (a duplicate transactionId gets the first reply); Jackpot Studio Operator Integration Tester "Idempotency"; ' +
      'Caleta (win and rollback retried "as many times necessary"); Blue Ocean test list',
    async run(ctx) {
      // Every player at once, each with its own sequence: the repeats interleave with the other players' callbacks.
      // allSettled: the cleanups must not start while another player's sequence is still sending.
      const outcomes = await Promise.allSettled(ctx.players.map((p) => lateRepeats(ctx, p)));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
    },
  },
];

/**
 * DEBIT A, DEBIT B, CREDIT W (the round's win), then A, W and B again: each repeat gets its
 * first reply, and the balance moved by A, B and W once.
 */
async function lateRepeats(ctx: CheckContext, p: string): Promise<void> {
  const before = await ctx.startBalance(p);
  const a = affordable(ctx, Math.floor(before / 2), p, BET);
  const b = Math.max(1, Math.floor(a / 2));
  const win = BET * 2;
  const firsts: { step: Step & { transactionId: string }; kind: 'debit' | 'credit'; amount: number }[] = [];
  let expected = before;
  for (const [kind, amount] of [
    ['debit', a],
    ['debit', b],
    ['credit', win],
  ] as const) {
    const step = await ctx[kind](`${p}: ${kind.toUpperCase()} ${ctx.money(amount)}`, p, amount);
    expected += kind === 'debit' ? -amount : amount;
    firsts.push({ step, kind, amount });
    const why = `${p}'s ${kind.toUpperCase()} of ${ctx.money(amount)}`;
    if (step.reply.balanceMinor !== expected) putBack(ctx, p, step.reply.balanceMinor ?? (await ctx.readBalance(p)), before, why);
    ctx.expectBalance(step, expected, why);
  }
  const repeats: { first: Step & { transactionId: string }; again: Step; kind: string }[] = [];
  for (const i of [0, 2, 1]) {
    const { step, kind, amount } = firsts[i] as (typeof firsts)[number];
    const again = await ctx[kind](
      `${p}: the ${kind.toUpperCase()} ${step.transactionId} again, after later transactions`,
      p,
      amount,
      step.transactionId,
    );
    repeats.push({ first: step, again, kind: kind.toUpperCase() });
  }
  const now = await ctx.readBalance(p);
  // One CREDIT (or DEBIT) after the check undoes the three transactions and whatever a repeat moved.
  putBack(ctx, p, now, before, 'the check’s transactions moved it');
  // A "same-outcome" wire (Betnex) answers a repeat with the balance as it is now: there the verdict must match, not the balance.
  const sameBalance = ctx.wire.duplicates === 'same-reply';
  for (const { first, again, kind } of repeats) {
    const what = `${p}'s ${kind} ${first.transactionId}, repeated after later transactions`;
    if (sameBalance) sameReply(ctx, first, again, what);
    else if (ctx.repeatVerdict(again) !== first.reply.verdict)
      fail(`${what}: expected the first outcome (${first.reply.verdict}) again, got ${describeOutcome(again.exchange)}`);
  }
  if (now !== expected)
    fail(
      `${p}: after three transactions and a late repeat of each, money must have moved once: expected balance ${ctx.money(expected)}, got ${ctx.money(now)}`,
    );
}
