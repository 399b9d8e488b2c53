import { repliesAgree } from '../../callbacks/reply.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, isFinal, type Step, skip } from '../context.ts';
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
export async function overdraftDebit(
  ctx: CheckContext,
  label: (amount: string, balance: string) => string,
): Promise<{ p: string; before: number; amount: number; step: Awaited<ReturnType<CheckContext['debit']>> }> {
  const { p, before } = await playerAndBalance(ctx, 500);
  const amount = Math.max(before, 0) + BET;
  const step = await ctx.debit(label(ctx.money(amount), ctx.money(before)), p, amount);
  if (step.reply.accepted) ctx.undoDebit(p, step.transactionId, amount);
  ctx.expectRejection(step, 'INSUFFICIENT_FUNDS', `a DEBIT of ${ctx.money(amount)} on a balance of ${ctx.money(before)}`);
  return { p, before, amount, step };
}

/**
 * The repeat got the first reply again, by the wire's rule (`reply.duplicates`): "same-reply", the
 * same status and JSON (what a reply echoes of its own request aside), as the shadow ledger judges
 * it; otherwise the same outcome (see {@link outcomesAgree}).
 */
export function sameReply(ctx: CheckContext, first: Step, again: Step, what: string): void {
  const a = first.exchange.response;
  const b = again.exchange.response;
  if (!b) fail(`${what}: got ${describeOutcome(again.exchange)}`);
  const same =
    a !== undefined &&
    (ctx.wire.duplicates === 'same-reply'
      ? repliesAgree(
          { status: a.status, text: a.body },
          { status: b.status, text: b.body },
          { dialect: ctx.wire.dialect, currency: ctx.wire.currency },
        )
      : outcomesAgree(ctx, first, again));
  if (!a || !same) {
    fail(
      `${what} must get the first reply again: expected ${a ? `HTTP ${a.status} ${a.body}` : 'the first reply'}, got HTTP ${b.status} ${b.body}`,
    );
  }
}

/**
 * A repeat agrees with the first reply when it has the same verdict and code and, unless the wire
 * answers repeats with the balance as it is now, the same balance (an "already processed" code
 * counts as the acknowledgement it is).
 */
function outcomesAgree(ctx: CheckContext, first: Step, again: Step): boolean {
  const a = first.reply;
  const b = again.reply;
  const acknowledged = ctx.repeatAcknowledged(again) && a.verdict === 'accepted';
  if (!acknowledged && (a.verdict !== b.verdict || a.error !== b.error)) return false;
  if (acknowledged && b.balanceMinor === undefined) return true;
  return ctx.wire.duplicates === 'current-balance' || a.balanceMinor === b.balanceMinor;
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
