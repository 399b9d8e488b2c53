import { documents } from '../../dialects/capabilities.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, skip } from '../context.ts';
import {
  type Check,
  expectAllAnswered,
  expectUnknownRollbackAnswer,
  hasRollback,
  overdraftDebit,
  playerWithABet,
  putBack,
} from './shared.ts';

/** A ROLLBACK gives back exactly what its DEBIT took, once, and never money that was not taken. */
export const ROLLBACK_CHECKS: readonly Check[] = [
  {
    id: 'rollback-restores',
    rule: 'A ROLLBACK of an accepted DEBIT gives its amount back: 2xx {balance} = balance before the DEBIT.',
    hint:
      'On ROLLBACK, find the DEBIT it reverses (its transactionId, or referenceTransactionId in "reference" style), add its amount ' +
      'back and mark it rolled back, atomically; reply with the new balance.',
    source: 'contract (pact:rollback-restores); Blue Ocean rollback callback',
    appliesTo: hasRollback,
    async run(ctx) {
      const set = await acceptedDebit(ctx);
      await rollBack(ctx, set, 'ROLLBACK of that DEBIT', 'the ROLLBACK must restore the balance from before the DEBIT');
      await ctx.expectBalanceNow(set.p, set.before, 'after DEBIT + ROLLBACK');
    },
  },
  {
    id: 'duplicate-rollback',
    rule: 'A ROLLBACK sent twice restores the DEBIT once; the repeat is acknowledged and changes nothing.',
    hint: 'Mark the DEBIT rolled back when the first ROLLBACK restores it; a repeat (same ROLLBACK id) gets the stored reply and adds nothing.',
    source: 'Red Tiger refund twice; Evolution Test_debitCancelBetAlreadySettled; Scorpio ERR_TRANSACTION_ROLLED_BACK',
    appliesTo: hasRollback,
    async run(ctx) {
      const { p, before, amount, debit } = await acceptedDebit(ctx);
      const first = await rollBack(ctx, { p, before, amount, debit }, 'ROLLBACK (first time)', 'the first ROLLBACK');
      const again = await ctx.rollback('the same ROLLBACK again', p, debit.transactionId, amount, first.rollbackTx);
      if (!ctx.repeatAcknowledged(again) || again.reply.balanceMinor !== undefined)
        ctx.expectBalance(
          ctx.repeatAcknowledged(again) ? { ...again, reply: { ...again.reply, verdict: 'accepted', accepted: true } } : again,
          before,
          'the repeated ROLLBACK must be acknowledged with the unchanged balance',
        );
      await ctx.expectBalanceNow(p, before, 'after one DEBIT and its ROLLBACK twice');
    },
  },
  {
    id: 'rollback-unknown',
    rule: 'A ROLLBACK of a transaction the wallet never saw moves no money: 2xx {balance} unchanged, or {error:"TRANSACTION_NOT_FOUND"} (4xx or 2xx); under a vendor dialect that says which, that one.',
    hint:
      'When the DEBIT is unknown (aggmock sends such rollbacks when a DEBIT timed out), move no money and answer either 2xx with ' +
      'the current balance or {"error":"TRANSACTION_NOT_FOUND"}; both are final. Never a 5xx: that makes aggmock retry it for an hour.',
    source:
      'contract; Blue Ocean (404 transaction missing); Red Tiger TransactionNotFound; Evolution BET_DOES_NOT_EXIST; GR8 Tech',
    appliesTo: hasRollback,
    async run(ctx) {
      const p = ctx.player;
      // Balances are read around it through DEBITs of 0.01, so this rule is not also the balance reader.
      const marker = await ctx.debitGivenBack(`DEBIT ${ctx.money(1)} (reads the balance)`, p, 1);
      if (!marker.reply.accepted || marker.reply.balanceMinor === undefined) {
        fail(`a DEBIT of ${ctx.money(1)} to read player ${p}'s balance got ${describeOutcome(marker.exchange)}`);
      }
      const balance = marker.reply.balanceMinor;
      const unknown = await ctx.rollback('ROLLBACK of a transaction the wallet never saw', p, ctx.tx(), 1_000);
      ctx.expectNoMoneyMoved(unknown, p, balance, 'the ROLLBACK of an unknown transaction');
      expectUnknownRollbackAnswer(ctx, unknown, 'the ROLLBACK of an unknown transaction');
      const after = await ctx.debitGivenBack(`DEBIT ${ctx.money(1)} (reads the balance again)`, p, 1);
      ctx.expectBalance(after, balance - 1, 'after the unknown ROLLBACK the balance must not have moved, so this DEBIT');
    },
  },
  {
    id: 'late-debit-after-rollback',
    rule: 'A DEBIT that arrives after its own ROLLBACK (it timed out, was rolled back, then arrived) takes no money.',
    hint:
      'When a ROLLBACK names a DEBIT you have not seen, remember its id (a tombstone); when that DEBIT arrives, refuse it ' +
      '(e.g. 409 or {"error":"TRANSACTION_NOT_FOUND"}) or acknowledge it without charging.',
    source: 'contract; Tom Horn (rollback after a 10 s timeout); frozebet (rollback before the bet is processed)',
    appliesTo: hasRollback,
    async run(ctx) {
      if (!documents(ctx.wire.dialect, 'late-bet'))
        skip(
          `the ${ctx.wire.name} dialect documents no rule for a bet that arrives after its rollback (a wallet may charge it as a new bet)`,
        );
      const { p, before, amount } = await playerWithABet(ctx);
      const tx = ctx.tx();
      const back = await ctx.rollback(`ROLLBACK of DEBIT ${tx}, which has not arrived yet`, p, tx, amount);
      // How that ROLLBACK itself is answered, and whether it moves money, is rule rollback-unknown's; this one judges the
      // late DEBIT from wherever the ROLLBACK left the player (and gives back what it moved).
      const start = back.reply.accepted && back.reply.balanceMinor !== undefined ? back.reply.balanceMinor : before;
      ctx.undoWhatMoved(back, p, before, 'the ROLLBACK of an unseen DEBIT');
      const late = await ctx.debit(`the late DEBIT ${tx} of ${ctx.money(amount)}`, p, amount, tx);
      ctx.expectNoMoneyMoved(late, p, start, 'the DEBIT arriving after its ROLLBACK');
      await ctx.expectBalanceNow(p, start, 'a DEBIT that was rolled back before it arrived must not take money');
    },
  },
  {
    id: 'debit-retry-after-rollback',
    rule: 'A DEBIT sent again after its ROLLBACK (a retry that was still on its way) takes no money: its first reply again, a refusal, or an acknowledgement that charges nothing.',
    hint:
      "Keep the DEBIT's record when a ROLLBACK gives its money back (mark it rolled back, never delete it), so a late copy of " +
      'that DEBIT is found as a duplicate and answered with its stored reply (or refused) without charging again.',
    source: 'contract (a repeated transactionId moves no money, also once its ROLLBACK came)',
    appliesTo: hasRollback,
    async run(ctx) {
      const { p, before, amount, debit } = await acceptedDebit(ctx);
      await rollBack(ctx, { p, before, amount, debit }, 'ROLLBACK of it', 'the ROLLBACK');
      const label = `the same DEBIT again, after its ROLLBACK (same transactionId ${debit.transactionId})`;
      const again = await ctx.debit(label, p, amount, debit.transactionId);
      expectAllAnswered([again], 'the DEBIT sent again after its ROLLBACK');
      const now = await ctx.readBalance(p);
      putBack(ctx, p, now, before, 'the DEBIT sent again after its ROLLBACK took it');
      if (now !== before) {
        fail(
          `the DEBIT of ${ctx.money(amount)} sent again after its ROLLBACK was charged again: expected the balance to stay at ` +
            `${ctx.money(before)}, got ${ctx.money(now)} (${describeOutcome(again.exchange)})`,
        );
      }
    },
  },
  {
    id: 'second-rollback-new-id',
    rule: 'A second ROLLBACK of the same DEBIT under a new rollback id restores nothing more ("reference" rollback style).',
    hint:
      "Mark the DEBIT itself rolled back and check that mark, not only the ROLLBACK's own id: two rollbacks of one bet " +
      '(a retry with a fresh id, a manual refund) must give the money back once.',
    source: 'Scorpio ERR_TRANSACTION_ROLLED_BACK; game-services INVALID_TRANSACTION; Evolution Test_debitCancelBetAlreadySettled',
    // In "original" style a ROLLBACK's id is its DEBIT's, so a second one is a duplicate (duplicate-rollback).
    appliesTo: (wire) => wire.hasRollback && wire.rollbackStyle === 'reference',
    async run(ctx) {
      const { p, before, amount, debit } = await acceptedDebit(ctx);
      await rollBack(ctx, { p, before, amount, debit }, 'ROLLBACK of it', 'the first ROLLBACK');
      const second = await ctx.rollback('another ROLLBACK of the same DEBIT, with a new id', p, debit.transactionId, amount);
      ctx.expectNoMoneyMoved(second, p, before, 'a second ROLLBACK of an already rolled-back DEBIT');
      await ctx.expectBalanceNow(p, before, 'after one DEBIT and two ROLLBACKs of it');
    },
  },
  {
    id: 'rollback-refused-debit',
    rule: 'A ROLLBACK of a DEBIT that was refused (insufficient funds) pays nothing: the money was never taken.',
    hint: 'Restore only DEBITs you accepted; a ROLLBACK of a refused DEBIT is acknowledged with the unchanged balance.',
    source: 'Groove ("do not refund the player in the case of a failed wager"); GR8 Tech decline.parent.failed; CancelBet',
    appliesTo: hasRollback,
    async run(ctx) {
      const { p, before, amount, step: debit } = await overdraftDebit(ctx, (amount) => `DEBIT ${amount} (more than the balance)`);
      const back = await ctx.rollback('ROLLBACK of the refused DEBIT', p, debit.transactionId, amount);
      ctx.expectNoMoneyMoved(back, p, before, 'a ROLLBACK of a refused DEBIT');
      await ctx.expectBalanceNow(p, before, 'a ROLLBACK of a DEBIT that took nothing must give nothing');
    },
  },
  {
    id: 'rollback-amount-mismatch',
    rule: 'A ROLLBACK that carries another amount than its DEBIT (more, or less) restores exactly what the DEBIT took, or is refused.',
    hint: "Restore the amount stored with the DEBIT, never the amount in the ROLLBACK, not even capped at the DEBIT's (or refuse the mismatch with INVALID_REQUEST).",
    source: 'Blue Ocean ("do not rely on the amount in rollback"); Red Tiger TEST_REFUND_INVALID_AMOUNT_IGNORED; EvenBet',
    appliesTo: hasRollback,
    async run(ctx) {
      // More than the DEBIT took catches a wallet that trusts the ROLLBACK's amount; less catches
      // one that trusts it only up to the DEBIT's amount (Math.min), which a larger claim cannot show.
      await mismatchedRollback(ctx, (amount) => amount * 3);
      await mismatchedRollback(ctx, (amount) => Math.floor(amount / 2));
    },
  },
];

/** A DEBIT and a ROLLBACK of it claiming `claim(amount)`: it must restore exactly the DEBIT's amount, or be refused. */
async function mismatchedRollback(ctx: CheckContext, claim: (amount: number) => number): Promise<void> {
  const { p, before, amount, debit } = await acceptedDebit(ctx);
  const claimed = claim(amount);
  if (claimed <= 0 || claimed === amount) {
    // A bet of 0.01 (a nearly empty player) has no smaller amount to claim.
    ctx.undoDebit(p, debit.transactionId, amount);
    return;
  }
  const back = await ctx.rollback(`ROLLBACK of it claiming ${ctx.money(claimed)}`, p, debit.transactionId, claimed);
  const now = await ctx.readBalance(p);
  putBack(ctx, p, now, before, 'the DEBIT was not restored');
  if (back.reply.verdict !== 'accepted') {
    ctx.expectAnyRejection(back, `a ROLLBACK claiming ${ctx.money(claimed)} for a DEBIT of ${ctx.money(amount)}`);
    if (now !== before - amount)
      fail(`a refused ROLLBACK must move no money: expected balance ${ctx.money(before - amount)}, got ${ctx.money(now)}`);
    return;
  }
  ctx.expectBalance(back, before, `a ROLLBACK claiming ${ctx.money(claimed)} for a DEBIT of ${ctx.money(amount)}`);
  if (now !== before)
    fail(
      `after DEBIT ${ctx.money(amount)} and its ROLLBACK claiming ${ctx.money(claimed)}: expected balance ${ctx.money(before)}, got ${ctx.money(now)}`,
    );
}

/** The set-up of most rollback checks: the main player's balance, and an accepted DEBIT of 1.00 (or what it has). */
async function acceptedDebit(ctx: CheckContext) {
  const { p, before, amount } = await playerWithABet(ctx);
  const debit = await ctx.debit(`DEBIT ${ctx.money(amount)}`, p, amount);
  ctx.expectBalance(debit, before - amount, 'the DEBIT to be rolled back');
  return { p, before, amount, debit };
}

/** A ROLLBACK of that DEBIT, which must restore the balance from before it (the DEBIT is undone later if it did not). */
async function rollBack(ctx: CheckContext, set: Awaited<ReturnType<typeof acceptedDebit>>, label: string, what: string) {
  const step = await ctx.rollback(label, set.p, set.debit.transactionId, set.amount);
  if (!step.reply.accepted) ctx.undoDebit(set.p, set.debit.transactionId, set.amount);
  ctx.expectBalance(step, set.before, what);
  return step;
}
