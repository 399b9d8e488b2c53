import { type Operation, roundIdOf } from '../../dialects/index.ts';
import { staleTokenRule } from '../../dialects/judge.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step, skip } from '../context.ts';
import type { VerifyWire } from '../wire.ts';
import { affordable, betCarrying, type Check, playerAndBalance, putBackAfter } from './shared.ts';

/*
 * A session token the wallet replaced (issue 32 item 3): once an authenticate reply hands a new
 * token over, what the vendor says of the old one — a bet with it refused (Evolution's
 * Test_checkUsingNewSID, Caleta's RS_ERROR_TOKEN_EXPIRED), a win or rollback with it still paid
 * (Caleta: "this rule applies only for /wallet/bet"). Each runs only where the dialect's
 * `session.staleToken` rule names the call (its source is the dialect's rule `stale-token`), and
 * only against a wallet that does hand a new token over: one that keeps its tokens has no old one.
 */

const refuses = (op: Operation) => (wire: VerifyWire) => staleTokenRule(wire.dialect).refusedOn.includes(op);
const accepts = (wire: VerifyWire) => staleTokenRule(wire.dialect).acceptedOn.some((op) => op === 'win' || op === 'rollback');

export const STALE_TOKEN_CHECKS: readonly Check[] = [
  {
    id: 'old-token-bet',
    rule: 'After an authenticate reply hands a new session token over, a bet carrying the old token is refused and moves no money.',
    hint:
      'When authenticate answers a new token, retire the one it was called with for bets (Evolution: INVALID_SID; Caleta: ' +
      'RS_ERROR_TOKEN_EXPIRED), so a stolen or stale launch token cannot place bets.',
    source: "the dialect's rule stale-token (Evolution Test_checkUsingNewSID; Caleta OAS RS_ERROR_TOKEN_EXPIRED)",
    appliesTo: refuses('bet'),
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p, 1);
      const { old } = await rotated(ctx, p);
      const tx = ctx.tx();
      const label = `bet ${ctx.money(amount)} carrying ${p}'s old session token (the one authenticate replaced)`;
      const step = await betCarrying(ctx, label, p, old, amount, tx);
      if (step.reply.accepted) {
        ctx.undoDebit(p, tx, amount);
        fail(
          `a bet with the token ${old}, which the wallet replaced on authenticate: expected a refusal (the vendor retires the old ` +
            `token for bets), got ${describeOutcome(step.exchange)}`,
        );
      }
      if (step.reply.verdict !== 'rejected')
        fail(`a bet with the replaced token ${old}: expected a refusal, got ${describeOutcome(step.exchange)}`);
      await ctx.expectBalanceNow(p, before, 'a refused bet with the replaced token must move no money');
    },
  },
  {
    id: 'old-token-settles',
    rule: 'After an authenticate reply hands a new session token over, a win or rollback of a bet carrying the old token is still accepted.',
    hint:
      'Do not check the session token of a win or rollback (or accept one your wallet replaced): the round was played, ' +
      'and its money is owed after the session moved on.',
    source: "the dialect's rule stale-token (Caleta OAS: RS_ERROR_TOKEN_EXPIRED applies only for /wallet/bet)",
    appliesTo: accepts,
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p, 1);
      putBackAfter(ctx, p, before);
      const { old, fresh } = await rotated(ctx, p);
      const ops = staleTokenRule(ctx.wire.dialect).acceptedOn;
      for (const operation of (['win', 'rollback'] as const).filter((op) => ops.includes(op))) {
        const bet = await betWith(ctx, p, fresh, amount);
        const call = operation === 'win' ? `win ${ctx.money(amount)}` : 'rollback';
        const step = await ctx.call(`${call} of that bet carrying the old session token`, {
          operation,
          playerId: p,
          sessionToken: old,
          transactionId: ctx.tx(),
          betTransactionId: bet,
          amountMinor: amount,
          roundId: roundIdOf(bet),
          ...(operation === 'win' ? { roundClosed: true } : {}),
        });
        expectPaid(ctx, step, `a ${operation}`, before);
      }
      await ctx.expectBalanceNow(p, before, 'after each bet was paid back (won or rolled back) with the replaced token');
    },
  },
];

export const STALE_TOKEN_NOT_APPLICABLE: Record<string, string> = {
  'old-token-bet':
    'says nothing of a bet carrying a token its authenticate replaced (no stale-token rule, or no authenticate that hands one over)',
  'old-token-settles':
    'says nothing of a win or rollback carrying a token its authenticate replaced (no stale-token rule accepting them)',
};

/**
 * Authenticates the player with its token so the wallet hands a new one over (adopted for the rest
 * of the run). A wallet that hands the same token back keeps its tokens: nothing to try.
 */
async function rotated(ctx: CheckContext, p: string): Promise<{ old: string; fresh: string }> {
  const old = await ctx.tokenOf(p);
  const call = { operation: 'authenticate' as const, playerId: p, sessionToken: old };
  const auth = await ctx.call(`authenticate ${p} with its session token (the wallet may hand a new one over)`, call);
  if (!auth.reply.accepted)
    fail(`authenticate of ${p} with its current session token: expected an acceptance, got ${describeOutcome(auth.exchange)}`);
  const fresh = await ctx.tokenOf(p);
  if (fresh === old)
    skip(
      `this ${ctx.wire.name} wallet handed no new session token over on authenticate (it keeps its tokens), so there is no replaced token to try`,
    );
  return { old, fresh };
}

/** A bet with the current token, which must be accepted (the setup of the check). */
async function betWith(ctx: CheckContext, p: string, token: string, amount: number): Promise<string> {
  const tx = ctx.tx();
  const step = await betCarrying(ctx, `bet ${ctx.money(amount)} with the new session token`, p, token, amount, tx);
  if (!step.reply.accepted)
    fail(`a bet with the session token the wallet handed over: expected an acceptance, got ${describeOutcome(step.exchange)}`);
  return tx;
}

function expectPaid(ctx: CheckContext, step: Step, what: string, before: number): void {
  if (!step.reply.accepted)
    fail(
      `${what} of a bet carrying the session token the wallet replaced: expected an acceptance (the vendor checks the token ` +
        `on bets only), got ${describeOutcome(step.exchange)}`,
    );
  ctx.expectBalance(step, before, `${what} with the replaced token pays the bet back`);
}
