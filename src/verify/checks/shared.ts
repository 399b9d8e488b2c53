import {
  type RepeatJudgement,
  repeatAgrees,
  roundIdOf,
  saferDialect,
  unknownRollbackAccepts,
  unknownRollbackRule,
} from '../../dialects/index.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, isFinal, type Step, skip } from '../context.ts';
import { factsOf } from '../dialect-client.ts';
import { saferReadingBroken } from '../failure.ts';
import { DEFAULT_NEEDS, type Prerequisite } from '../preflight.ts';
import type { VerifyWire } from '../wire.ts';

/** One stateful rule a Pact file cannot express, checked against a live webhook. */
export interface Check {
  id: string;
  /** The rule, one line. */
  rule: string;
  /** How to fix the webhook when the check fails. */
  hint: string;
  /** Where the rule comes from: the contract, and the aggregators' certification suites that test it. */
  source: string;
  /** Whether the rule exists on this wire at all (a check that does not apply is not listed). Default: always. */
  appliesTo?: (wire: VerifyWire) => boolean;
  /**
   * What it needs of the wallet to mean anything (see preflight.ts); when the preflight finds one
   * of them broken, the check is blocked instead of run. Default: it answers, accepts aggmock's
   * signature, and knows the main player in verify's currency.
   */
  needs?: readonly Prerequisite[];
  run(ctx: CheckContext): Promise<void>;
}

/** What a check needs of the wallet (its own list, or the default). */
export function needsOf(check: Pick<Check, 'needs'>): readonly Prerequisite[] {
  return check.needs ?? DEFAULT_NEEDS;
}

/** Checks about ROLLBACK exist only on wires that have one. */
export const hasRollback = (wire: VerifyWire): boolean => wire.hasRollback;

/** Amount of the ordinary test bets: 1.00, small enough for any test player. */
export const BET = 100;

/** A bet the player can afford: 1.00, or everything when the balance is lower (skips a player with nothing). */
export function affordable(ctx: CheckContext, balance: number, playerId: string, wanted = BET): number {
  if (balance <= 0)
    skip(`player ${playerId} has ${ctx.money(balance)}; give it some funds (or use --state-url) so a DEBIT can be accepted`);
  return Math.min(wanted, balance);
}

/**
 * How a check starts: the main player and its balance (at least `minimum` minor units where the
 * wallet's state can be set up).
 */
export async function playerAndBalance(ctx: CheckContext, minimum?: number): Promise<{ p: string; before: number }> {
  const p = ctx.player;
  return { p, before: await ctx.startBalance(p, minimum) };
}

/** How most checks start: the main player, its balance, and a bet of 1.00 it can afford. */
export async function playerWithABet(ctx: CheckContext): Promise<{ p: string; before: number; amount: number }> {
  const { p, before } = await playerAndBalance(ctx);
  return { p, before, amount: affordable(ctx, before, p) };
}

/**
 * A DEBIT of one bet more than the main player's balance, which must be refused with
 * INSUFFICIENT_FUNDS (checked here); money it took anyway is given back after the run.
 * `label` names the step in the report.
 */
export async function overdraftDebit(ctx: CheckContext, label: (amount: string, balance: string) => string) {
  const { p, before } = await playerAndBalance(ctx, 500);
  const amount = Math.max(before, 0) + BET;
  const step = await ctx.debitGivenBack(label(ctx.money(amount), ctx.money(before)), p, amount);
  ctx.expectRejection(step, 'INSUFFICIENT_FUNDS', `a DEBIT of ${ctx.money(amount)} on a balance of ${ctx.money(before)}`);
  return { p, before, amount, step };
}

/**
 * The repeat got the first reply again, as the dialect's one repeat rule (`repeatAgrees`, which
 * the shadow ledger asks too) reads "again": the same status and JSON, the same outcome, the
 * same outcome with the balance as it is now, or the vendor's "already processed" code. Where
 * aggmock's safer reading asks more (Hub88: the first reply's balance again), breaking only that
 * is a warning, or a failure under --strict.
 */
export function sameReply(ctx: CheckContext, first: Step, again: Step, what: string): void {
  const a = first.exchange.response;
  const b = again.exchange.response;
  if (!b) fail(`${what}: got ${describeOutcome(again.exchange)}`);
  if (!a || !repeatOf(ctx, first, again)?.agrees) {
    fail(
      `${what} must get the first reply again: expected ${a ? `HTTP ${a.status} ${a.body}` : 'the first reply'}, got HTTP ${b.status} ${b.body}`,
    );
  }
  const safer = saferDialect(ctx.wire.dialect);
  if (safer !== undefined && !repeatOf(ctx, first, again, safer)?.agrees)
    saferReadingBroken(
      ctx,
      `${what} was answered with the same outcome but not the first reply again (expected HTTP ${a.status} ${a.body}, got HTTP ${b.status} ${b.body})`,
    );
}

/** How a repeat's reply compares with the first, by the dialect's rule (or `dialect`'s); undefined when either got no answer. */
export function repeatOf(ctx: CheckContext, first: Step, again: Step, dialect = ctx.wire.dialect): RepeatJudgement | undefined {
  const a = first.exchange.response;
  const b = again.exchange.response;
  if (!a || !b) return undefined;
  const facts = factsOf(first.exchange);
  const context = {
    operation: facts?.operation ?? 'bet',
    currency: facts?.currency ?? ctx.wire.currency,
    currencies: ctx.settings.callbacks.currencies,
  };
  return repeatAgrees(dialect, context, { status: a.status, text: a.body }, { status: b.status, text: b.body });
}

/**
 * The answer to a rollback of a transaction the wallet never saw is one the dialect's one rule
 * (`unknownRollbackAccepts`, which the shadow ledger asks too) allows: an acknowledgement or the
 * not-found refusal, or the one of them the vendor says (Evolution refuses). Where aggmock's safer
 * reading prefers one of the two the vendor allows (Caleta: RS_OK), the other is a warning.
 * Whether it moved money is the caller's (expectNoMoneyMoved).
 */
export function expectUnknownRollbackAnswer(ctx: CheckContext, step: Step, what: string): void {
  const dialect = ctx.wire.dialect;
  const code = step.reply.code ?? step.reply.error;
  if (step.reply.verdict !== 'none' && unknownRollbackAccepts(dialect, { verdict: step.reply.verdict, code })) {
    const safer = saferDialect(dialect);
    if (safer !== undefined && !unknownRollbackAccepts(safer, { verdict: step.reply.verdict, code }))
      saferReadingBroken(
        ctx,
        `${what}: the vendor allows ${describeOutcome(step.exchange)}, but ${
          unknownRollbackRule(safer) === 'acknowledge' ? 'the success reply with the balance unchanged' : 'the not-found refusal'
        } is preferred`,
      );
    return;
  }
  if (unknownRollbackRule(dialect) === 'acknowledge')
    fail(
      `${what}: the ${ctx.wire.name} dialect acknowledges it (the success reply, balance unchanged); got ${describeOutcome(step.exchange)}`,
    );
  ctx.expectRejection(step, 'TRANSACTION_NOT_FOUND', what);
  fail(`${what}: expected the refusal for an unknown transaction, got ${describeOutcome(step.exchange)}`);
}

/** A bet carrying `sessionToken`, in the round its transaction id names (`roundIdOf`). */
export function betCarrying(ctx: CheckContext, label: string, p: string, token: string, amount: number, tx: string) {
  const bet = { playerId: p, sessionToken: token, transactionId: tx, amountMinor: amount, roundId: roundIdOf(tx) };
  return ctx.call(label, { operation: 'bet', ...bet });
}

/** Steps that got no proper answer (none, 5xx, garbage): the aggregator would have to retry them. */
export function unanswered(steps: readonly Step[]): Step[] {
  return steps.filter((s) => !isFinal(s.reply));
}

/** Fails when any of `steps` got no proper answer. */
export function expectAllAnswered(steps: readonly Step[], what: string): void {
  const broken = unanswered(steps);
  if (broken.length > 0) {
    fail(
      `${broken.length} of ${steps.length} ${what} got no proper answer, e.g. ${describeOutcome((broken[0] as Step).exchange)}`,
    );
  }
}

/**
 * After a check's bets, one CREDIT (or DEBIT) puts the player back at `start` from `now`, instead
 * of one reversal per bet: cheaper, and right also when a faulty wallet moved other amounts.
 */
export function putBack(ctx: CheckContext, p: string, now: number, start: number, why: string): void {
  if (now < start) ctx.giveBack(p, start - now, why);
  if (now > start) ctx.takeBack(p, now - start);
}

/**
 * After the check, whatever the wallet did, the player is put back at the balance it began with
 * (a CREDIT or a DEBIT of the difference): a round with a win has no one call that undoes it.
 */
export function putBackAfter(ctx: CheckContext, p: string, before: number): void {
  ctx.onCleanup(`put ${p} back at ${ctx.money(before)}`, async () => {
    const now = await ctx.readBalance(p);
    if (now === before) return;
    const label = `cleanup: ${now < before ? 'CREDIT' : 'DEBIT'} ${ctx.money(Math.abs(before - now))} (puts ${p} back)`;
    const step = now < before ? await ctx.credit(label, p, before - now) : await ctx.debit(label, p, now - before);
    if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
  });
}
