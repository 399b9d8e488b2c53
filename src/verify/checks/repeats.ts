import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step, skip } from '../context.ts';
import { WalletUnderTest } from '../wallet-under-test.ts';
import { BET, type Check, playerAndBalance, repeatOf } from './shared.ts';

/*
 * Repeats that today's idempotency checks do not reach: one sent after the balance fell below the
 * bet (a wallet that checks funds before it looks for the duplicate refuses a charged bet), and one
 * sent after a thousand other transactions (a dedupe memory that is a bounded cache forgets it).
 */

/** Transactions sent between a bet and its repeat in repeat-after-many: more than a bounded cache of hundreds keeps. */
export const OTHER_TRANSACTIONS = 1_000;

/** How many of those are in flight at once: enough to keep them cheap, few enough for any wallet. */
const FILLER_PARALLEL = 8;

export const REPEAT_CHECKS: readonly Check[] = [
  {
    id: 'repeat-after-balance-fell',
    rule: 'A repeat of an applied DEBIT, sent after the balance fell below its amount, gets the first answer (or "already processed"), never insufficient funds, and moves no money.',
    hint: 'Look the transaction id up before checking funds: a repeat of a bet you applied is answered from the stored result, whatever the balance is now.',
    source:
      'contract (idempotency before validation); Evolution BET_ALREADY_EXIST on a repeated debit; Hub88 RS_ERROR_DUPLICATE_TRANSACTION (a repeat is answered, not re-judged)',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      if (before < 2 * BET)
        skip(`player ${p} has ${ctx.money(before)}; it needs ${ctx.money(2 * BET)} to bet, then fall below that bet`);
      const first = await ctx.debitGivenBack(`DEBIT ${ctx.money(BET)}`, p, BET);
      ctx.expectBalance(first, before - BET, `a DEBIT of ${ctx.money(BET)}`);
      const rest = before - BET;
      const drain = await ctx.debit(`DEBIT ${ctx.money(rest)}, the rest of the balance (it falls to 0)`, p, rest);
      if (!drain.reply.accepted)
        skip(
          `the wallet refused a DEBIT of the rest of the balance (${ctx.money(rest)}), so the balance could not fall below the bet: ${describeOutcome(drain.exchange)}`,
        );
      ctx.undoDebit(p, drain.transactionId, rest);
      const label = `the first DEBIT again (same transactionId ${first.transactionId}), the balance now 0`;
      const again = await ctx.debit(label, p, BET, first.transactionId);
      ctx.undoWhatMoved(again, p, 0, 'the repeated DEBIT');
      if (ctx.wire.code('INSUFFICIENT_FUNDS') !== undefined && ctx.isRejection(again, 'INSUFFICIENT_FUNDS'))
        fail(
          `the repeat of an applied DEBIT: expected the first reply (or "already processed"), got a refusal for insufficient funds, so the aggregator would treat a charged bet as refused (funds checked before the duplicate, or the bet forgotten): ${describeOutcome(again.exchange)}`,
        );
      expectRepeatAnswered(ctx, first, again, 0, 'the repeat of an applied DEBIT after the balance fell below its amount');
      await ctx.expectBalanceNow(p, 0, 'the repeat of an applied DEBIT must move no money');
    },
  },
];

/** Deep: run only when asked for (--only deep); see index.ts. */
export const DEEP_CHECKS: readonly Check[] = [
  {
    id: 'repeat-after-many',
    rule: `A repeat of a DEBIT sent after ${OTHER_TRANSACTIONS.toLocaleString('en')} other transactions gets the first answer and moves no money (the dedupe memory does not forget).`,
    hint: 'Keep every transaction id you applied (a unique key in the database), not a bounded cache of recent ones: aggregators repeat calls hours later.',
    source:
      'contract (a transaction id is applied once, whenever it is repeated); Hub88 request_uuid dedupe; Evolution Test_doubleDebit',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx, BET + OTHER_TRANSACTIONS + 10_000);
      if (before < BET + OTHER_TRANSACTIONS)
        skip(
          `player ${p} has ${ctx.money(before)}; it needs ${ctx.money(BET + OTHER_TRANSACTIONS)} for a bet and ${OTHER_TRANSACTIONS} bets of ${ctx.money(1)}`,
        );
      const first = await ctx.debitGivenBack(`DEBIT ${ctx.money(BET)}`, p, BET);
      ctx.expectBalance(first, before - BET, `a DEBIT of ${ctx.money(BET)}`);
      const taken = await otherBets(ctx, p);
      ctx.giveBack(p, taken, `${OTHER_TRANSACTIONS} bets of ${ctx.money(1)}`);
      ctx.notes.push(`${OTHER_TRANSACTIONS} bets of ${ctx.money(1)} were sent between the DEBIT and its repeat (not listed)`);
      const label = `the first DEBIT again (same transactionId ${first.transactionId}) after ${OTHER_TRANSACTIONS} other bets`;
      const again = await ctx.debit(label, p, BET, first.transactionId);
      const now = before - BET - taken;
      ctx.undoWhatMoved(again, p, now, 'the repeated DEBIT');
      expectRepeatAnswered(ctx, first, again, now, `the repeat of a DEBIT after ${OTHER_TRANSACTIONS} other transactions`);
      await ctx.expectBalanceNow(p, now, `a DEBIT repeated after ${OTHER_TRANSACTIONS} other transactions must move no money`);
    },
  },
];

/**
 * OTHER_TRANSACTIONS bets of one minor unit each, FILLER_PARALLEL at a time, through a client of
 * their own (so the report lists the check's own calls, not a thousand fillers). Returns what they
 * took; fails when one was not accepted.
 */
async function otherBets(ctx: CheckContext, p: string): Promise<number> {
  const filler = new WalletUnderTest(ctx.settings, ctx.checkId);
  let taken = 0;
  let refused: Step | undefined;
  for (let sent = 0; sent < OTHER_TRANSACTIONS; sent += FILLER_PARALLEL) {
    const batch = Math.min(FILLER_PARALLEL, OTHER_TRANSACTIONS - sent);
    const steps = await Promise.all(Array.from({ length: batch }, (_, i) => filler.debit(`other bet ${sent + i + 1}`, p, 1)));
    for (const step of steps) {
      if (step.reply.accepted) taken += 1;
      else refused ??= step;
    }
    if (refused) break;
  }
  if (refused) {
    ctx.giveBack(p, taken, 'the other bets');
    fail(
      `${OTHER_TRANSACTIONS} bets of ${ctx.money(1)}, each with a new transaction id: expected every one accepted, got ${describeOutcome(refused.exchange)}`,
    );
  }
  return taken;
}

/**
 * A repeat of an applied bet answered as a repeat: the first reply again or the vendor's "already
 * processed" (the dialect's repeat rule, or its duplicate-transaction refusal), or the same acceptance with the balance as it is now,
 * which several vendors allow (Evolution's test tool: BET_ALREADY_EXIST or OK). Never a refusal,
 * and never a balance other than the first reply's or the current one.
 */
function expectRepeatAnswered(ctx: CheckContext, first: Step, again: Step, now: number, what: string): void {
  if (repeatOf(ctx, first, again)?.agrees || ctx.repeatAcknowledged(again)) return;
  // The vendor's "duplicate" refusal (Evolution's BET_ALREADY_EXIST) says "already processed" too.
  const code = again.reply.code ?? again.reply.error;
  const duplicate = ctx.wire.codesOf(['DUPLICATE_TRANSACTION']) ?? [];
  if (again.reply.verdict === 'rejected' && code !== undefined && duplicate.includes(code)) return;
  const balance = again.reply.balanceMinor;
  if (again.reply.accepted && (balance === undefined || balance === now || balance === first.reply.balanceMinor)) return;
  const was = first.exchange.response;
  fail(
    `${what}: expected it answered as a repeat (the first reply, "already processed", or the same acceptance with the balance now, ${ctx.money(now)}): ` +
      `the first reply was ${was ? `HTTP ${was.status} ${was.body}` : 'none'}, the repeat got ${describeOutcome(again.exchange)}`,
  );
}
