import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, skip } from '../context.ts';
import { DEFAULT_NEEDS } from '../preflight.ts';
import { affordable, BET, type Check, playerAndBalance, playerWithABet, sameReply } from './shared.ts';

/** Retries are normal: the same transaction, sent again, moves money once. */
export const IDEMPOTENCY_CHECKS: readonly Check[] = [
  {
    id: 'idempotent-debit',
    rule: 'A DEBIT sent twice with the same transactionId gets the same reply (by default also after another transaction moved the balance) and moves money once.',
    hint:
      'Store every transaction under (playerId, type, transactionId) with its reply, in the same database transaction as the ' +
      'balance change; when the key exists, answer the stored reply (not the balance as it is now) and change nothing. ' +
      'aggmock retries on timeouts, so duplicates are normal.',
    source: 'contract (pact:duplicate-bet); Blue Ocean test list; Evolution Test_debitBetAlreadyExist; Red Tiger; Groove',
    async run(ctx) {
      const { p, before, amount } = await playerWithABet(ctx);
      const first = await ctx.debitGivenBack(`DEBIT ${ctx.money(amount)} (first time)`, p, amount);
      ctx.expectBalance(first, before - amount, 'the first DEBIT');
      const moved = await moveTheBalance(ctx, p);
      const label = `the same DEBIT again (same transactionId ${first.transactionId})`;
      const again = await ctx.debit(label, p, amount, first.transactionId);
      sameReply(ctx, first, again, 'the repeated DEBIT');
      await ctx.expectBalanceNow(p, before - amount + moved, 'after the same DEBIT twice, money must have moved once');
    },
  },
  {
    id: 'idempotent-credit',
    rule: 'A CREDIT sent twice with the same transactionId gets the same reply (by default also after another transaction moved the balance) and pays once.',
    hint:
      'Make CREDITs idempotent like DEBITs: key (playerId, type, transactionId); a repeat gets the stored reply (not the balance ' +
      'as it is now) and pays nothing.',
    source: 'Evolution Test_debitCreditBetAlreadySettled, Test_doublePromoPayouts; Red Tiger',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const first = await ctx.credit(`CREDIT ${ctx.money(BET)} (first time)`, p, BET);
      if (first.reply.accepted) ctx.undoCredit(p, BET);
      ctx.expectBalance(first, before + BET, 'the first CREDIT');
      const moved = await moveTheBalance(ctx, p);
      const label = `the same CREDIT again (same transactionId ${first.transactionId})`;
      const again = await ctx.credit(label, p, BET, first.transactionId);
      // Paid again (or, with no balance in the reply, maybe): taken back after the check.
      if (again.reply.accepted && (again.reply.balanceMinor ?? Number.POSITIVE_INFINITY) > before + BET + moved)
        ctx.undoCredit(p, BET);
      sameReply(ctx, first, again, 'the repeated CREDIT');
      await ctx.expectBalanceNow(p, before + BET + moved, 'after the same CREDIT twice, it must have been paid once');
    },
  },
  {
    id: 'duplicate-changed-amount',
    rule: 'A DEBIT repeating a transactionId with a different amount moves no more money: the first reply again, or a refusal.',
    hint:
      'Look the transaction up by (playerId, type, transactionId) before anything else; when it exists, answer its stored reply ' +
      '(or refuse the mismatch) and never charge the new amount.',
    source: 'Hub88 RS_ERROR_DUPLICATE_TRANSACTION; Groove "transaction parameter mismatch"; Caleta duplicate-id tests',
    async run(ctx) {
      const { p, before, amount } = await playerWithABet(ctx);
      const first = await ctx.debitGivenBack(`DEBIT ${ctx.money(amount)}`, p, amount);
      ctx.expectBalance(first, before - amount, 'the first DEBIT');
      const changed = amount + BET;
      const label = `the same transactionId again, now for ${ctx.money(changed)}`;
      const again = await ctx.debit(label, p, changed, first.transactionId);
      if (again.reply.verdict !== 'rejected')
        sameReply(ctx, first, again, `a repeat of ${first.transactionId} with another amount`);
      const now = await ctx.readBalance(p);
      if (now !== before - amount) {
        if (now < before - amount) ctx.giveBack(p, before - amount - now, 'the repeated DEBIT took it');
        fail(
          `after a DEBIT of ${ctx.money(amount)} and its repeat for ${ctx.money(changed)}: expected balance ${ctx.money(before - amount)}, got ${ctx.money(now)}`,
        );
      }
    },
  },
  {
    id: 'same-tx-two-players',
    rule: "The same transactionId for two different players is two independent transactions (or the second is refused), and never a replay of the other player's reply.",
    hint: "Key idempotency on (playerId, type, transactionId), not on transactionId alone; a rollback of one player's DEBIT must restore that player only.",
    source: 'contract (idempotency key); Blue Ocean "2 players" test; Caleta/Hub88 global ids (a refusal is accepted too)',
    needs: [...DEFAULT_NEEDS, 'second-player'],
    async run(ctx) {
      const [p1, p2] = ctx.players as [string, string | undefined];
      if (p2 === undefined) skip('needs two players: pass --players p1,p2');
      // Unequal balances and amounts, so a reply meant for the other player never looks right by chance.
      const before1 = await ctx.startBalance(p1, 10_000);
      const before2 = await ctx.startBalance(p2, 5_000);
      const a1 = affordable(ctx, before1, p1, 300);
      const a2 = affordable(ctx, before2, p2, a1 === 200 ? 100 : 200);
      if (a1 === a2 && before1 === before2)
        skip(`players ${p1} and ${p2} have equal balances too small to bet different amounts`);
      const tx = ctx.tx();
      ctx.expectAfterCleanup(async () => {
        await ctx.expectBalanceNow(p1, before1, `after the check rolled back its DEBITs, ${p1}`);
        await ctx.expectBalanceNow(p2, before2, `after the check rolled back its DEBITs, ${p2}`);
      });
      const d1 = await ctx.debitGivenBack(`DEBIT ${ctx.money(a1)} for ${p1} as ${tx}`, p1, a1, tx);
      ctx.expectBalance(d1, before1 - a1, `the DEBIT for ${p1}`);
      const d2 = await ctx.debit(`DEBIT ${ctx.money(a2)} for ${p2} with the same transactionId`, p2, a2, tx);
      // A wire whose ids are global and whose repeats get the balance as it is now (Pragmatic's reference) acknowledges it as a repeat.
      const acknowledged = d2.reply.accepted && ctx.wire.duplicates === 'current-balance' && d2.reply.balanceMinor === before2;
      if (d2.reply.accepted && !acknowledged) ctx.undoDebit(p2, tx, a2);
      if (d2.reply.verdict === 'rejected') {
        ctx.notes.push(`${p2}'s DEBIT with ${p1}'s transactionId was refused (${d2.reply.error}): ids are global in this wallet`);
        await ctx.expectBalanceNow(p2, before2, `a refused DEBIT must not touch ${p2}`);
      } else if (acknowledged) {
        ctx.notes.push(
          `${p2}'s DEBIT with ${p1}'s transactionId was acknowledged as a repeat, moving nothing: ids are global in this wallet`,
        );
        await ctx.expectBalanceNow(p2, before2, `a DEBIT acknowledged as a repeat must not touch ${p2}`);
      } else {
        ctx.expectBalance(d2, before2 - a2, `the DEBIT for ${p2} with ${p1}'s transactionId must be applied to ${p2}`);
      }
      await ctx.expectBalanceNow(p1, before1 - a1, `${p2}'s DEBIT must not touch ${p1}`);
      if (!d1.reply.accepted) fail(`the DEBIT for ${p1} was not accepted: ${describeOutcome(d1.exchange)}`);
    },
  },
];

/** What another transaction moves the balance by between a transaction and its repeat: a CREDIT of 0.01. */
const IN_BETWEEN = 1;

/**
 * On a wire whose repeats get the same reply (`reply.duplicates: "same-reply"`, the default),
 * moves the player's balance with another transaction (a CREDIT of 0.01, taken back after the
 * check) between a transaction and its repeat, so a repeat answered with the balance as it is now
 * instead of the stored first reply shows. Returns how far the balance moved. A "same-outcome"
 * wire (Betnex) is left alone: its SDK's own helper answers a repeat with the balance as it is now.
 */
async function moveTheBalance(ctx: CheckContext, p: string): Promise<number> {
  // Also where only aggmock's safer reading asks for the first reply again (Hub88): then a warning shows.
  if (ctx.wire.saferDuplicates !== 'same-reply') return 0;
  const label = `another CREDIT of ${ctx.money(IN_BETWEEN)} (moves the balance before the repeat)`;
  const other = await ctx.credit(label, p, IN_BETWEEN);
  if (!other.reply.accepted) fail(`a CREDIT of ${ctx.money(IN_BETWEEN)} was not accepted: ${describeOutcome(other.exchange)}`);
  ctx.undoCredit(p, IN_BETWEEN);
  return IN_BETWEEN;
}
