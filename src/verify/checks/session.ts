import { type CallFacts, roundIdOf } from '../../dialects/index.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step } from '../context.ts';
import type { VerifyWire } from '../wire.ts';
import { betCarrying, type Check, playerWithABet, putBackAfter } from './shared.ts';

/*
 * The calls of a session some wires have: endRound, which closes a round and moves no money, and
 * rollbackWin, which takes a win back. Each exists only where the dialect has the call; the
 * others list them as not applicable, with the reason.
 */

const hasEndRound = (wire: VerifyWire): boolean => wire.has('endRound');
const hasRollbackWin = (wire: VerifyWire): boolean => wire.has('rollbackWin');

export const SESSION_CHECKS: readonly Check[] = [
  {
    id: 'end-round-repeated',
    rule: 'An endRound sent twice for the same round is answered the same both times and moves no money.',
    hint:
      'endRound only closes the round: answer it with success and the unchanged balance, and answer a repeat (the aggregator ' +
      'sends it again when it did not hear back) the same way, never with an error and never with a payout.',
    source: 'Pragmatic Play Seamless Wallet API, endRound (a repeated endRound of a closed round is a success)',
    appliesTo: hasEndRound,
    async run(ctx) {
      const { p, before, bet, round } = await wonRound(ctx, 1);
      const end = { operation: 'endRound' as const, playerId: p, sessionToken: await ctx.tokenOf(p), roundId: round };
      const first = await ctx.call(`endRound of round ${round}`, end);
      const again = await ctx.call(`the same endRound again (round ${round})`, end);
      for (const [step, what] of [
        [first, 'the endRound'],
        [again, 'the repeated endRound'],
      ] as const) {
        if (!step.reply.accepted)
          fail(
            `${what} of round ${round} (bet ${bet}): expected a success that moves no money, got ${describeOutcome(step.exchange)}`,
          );
        if (step.reply.balanceMinor !== undefined && step.reply.balanceMinor !== before)
          fail(
            `${what} of round ${round} moved money: expected the balance to stay ${ctx.money(before)}, the reply says ${ctx.money(step.reply.balanceMinor)} (${describeOutcome(step.exchange)})`,
          );
      }
      await ctx.expectBalanceNow(p, before, 'after a round that paid its bet back and its endRound twice');
    },
  },
  {
    id: 'rollback-win-restores',
    rule: 'A rollback of an accepted win (rollbackWin) takes exactly the win back: the balance is what it was before the win.',
    hint:
      'On rollbackWin, find the win it names, take its amount back and mark it rolled back, atomically; reply with the new ' +
      'balance. The bet of the round stays taken.',
    source: 'GrooveTech reversewin ("rollback on result"); Slotegrator rollback of a win (rollback_transactions[] action win)',
    appliesTo: hasRollbackWin,
    async run(ctx) {
      const round = await wonRound(ctx, 2);
      const back = await rollBackWin(ctx, round, 'rollbackWin of that win');
      ctx.expectBalance(back, round.afterBet, 'the rollback of the win must take exactly the win back');
      await expectRestored(ctx, round, 'after a bet, its win and the rollback of the win');
    },
  },
  {
    id: 'duplicate-rollback-win',
    rule: 'A rollbackWin sent twice takes the win back once; the repeat is acknowledged and changes nothing.',
    hint:
      'Store the rollbackWin under its own id and mark the win rolled back; a repeat (same id) gets the stored reply and takes ' +
      'nothing more.',
    source: 'GrooveTech reversewin (idempotent by transaction id); Slotegrator rollback (a repeated rollback changes nothing)',
    appliesTo: hasRollbackWin,
    async run(ctx) {
      const round = await wonRound(ctx, 2);
      const first = await rollBackWin(ctx, round, 'rollbackWin of that win (first time)');
      ctx.expectBalance(first, round.afterBet, 'the first rollback of the win');
      const again = await rollBackWin(ctx, round, 'the same rollbackWin again', first.facts.transactionId);
      if (!ctx.repeatAcknowledged(again)) {
        if (!again.reply.accepted)
          fail(
            `the repeated rollbackWin: expected it acknowledged with the unchanged balance, got ${describeOutcome(again.exchange)}`,
          );
        if (again.reply.balanceMinor !== undefined && again.reply.balanceMinor !== round.afterBet)
          fail(
            `the repeated rollbackWin took the win back again: expected the balance to stay ${ctx.money(round.afterBet)}, the reply says ${ctx.money(again.reply.balanceMinor)} (${describeOutcome(again.exchange)})`,
          );
      }
      await expectRestored(ctx, round, 'after a bet, its win and the rollback of the win twice');
    },
  },
];

interface WonRound {
  p: string;
  before: number;
  /** The balance after the bet (and after the win is taken back). */
  afterBet: number;
  bet: string;
  win: string;
  winMinor: number;
  round: string;
  sessionToken: string;
}

/**
 * A bet of the main player and its win of `times` the bet, both accepted, in one round that the win
 * closes: `times` 1 pays the bet back (the balance ends where it began), 2 leaves a win to take back.
 */
async function wonRound(ctx: CheckContext, times: number): Promise<WonRound> {
  const { p, before, amount } = await playerWithABet(ctx);
  putBackAfter(ctx, p, before);
  const sessionToken = await ctx.tokenOf(p);
  const bet = ctx.tx();
  const round = roundIdOf(bet);
  const placed = await betCarrying(ctx, `bet ${ctx.money(amount)} (opens round ${round})`, p, sessionToken, amount, bet);
  ctx.expectBalance(placed, before - amount, 'the bet of the round');
  const win = ctx.tx();
  const winMinor = amount * times;
  const paid = await ctx.call(
    times === 1 ? `win ${ctx.money(winMinor)} (the round pays its bet back)` : `win ${ctx.money(winMinor)} of round ${round}`,
    {
      operation: 'win',
      playerId: p,
      sessionToken,
      transactionId: win,
      betTransactionId: bet,
      amountMinor: winMinor,
      roundId: round,
      roundClosed: true,
    },
  );
  ctx.expectBalance(paid, before - amount + winMinor, 'the win of the round');
  return { p, before, afterBet: before - amount, bet, win, winMinor, round, sessionToken };
}

/** The rollbackWin of the round's win; pass the same `transactionId` to repeat it. */
async function rollBackWin(
  ctx: CheckContext,
  round: WonRound,
  label: string,
  transactionId = ctx.tx(),
): Promise<Step & { facts: Pick<CallFacts, 'transactionId'> }> {
  const step = await ctx.call(label, {
    operation: 'rollbackWin',
    playerId: round.p,
    sessionToken: round.sessionToken,
    transactionId,
    betTransactionId: round.win,
    amountMinor: round.winMinor,
    roundId: round.round,
  });
  return { ...step, facts: { transactionId } };
}

/** The balance read back is the one after the bet: the win was taken back exactly once. */
async function expectRestored(ctx: CheckContext, round: WonRound, why: string): Promise<void> {
  await ctx.expectBalanceNow(round.p, round.afterBet, why);
}
