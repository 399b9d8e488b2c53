import { hasStaticCredential, staticCredentialFields } from '../../dialects/capabilities.ts';
import type { CallbackSpec } from '../client.ts';
import { type CheckContext, fail } from '../context.ts';
import type { VerifyWire as Wire } from '../wire.ts';
import { BET, type Check, playerWithABet, sameReply } from './shared.ts';

/** A jackpot big enough to notice, small enough for any wallet: 12,345.67 in a two-decimal currency. */
const JACKPOT = 1_234_567;

/** Rules that exist only on wires that carry them: an API key in the body, a currency, a bonus reference. */
export const WIRE_CHECKS: readonly Check[] = [
  {
    id: 'wrong-api-key',
    rule: 'A callback whose api key (in the body) is not the operator’s is refused and moves no money.',
    hint: 'Compare the body’s API key with yours (in constant time) before anything else, and refuse a mismatch.',
    source: 'Betnex SDK verifyCallback (api_key must equal the operator key)',
    appliesTo: (wire) => hasStaticCredential(wire.dialect),
    async run(ctx) {
      await apiKeyRefused(ctx, 'with a wrong api key', (body, field) => {
        body[field] = `wrong-${String(body[field])}`;
      });
    },
  },
  {
    id: 'missing-api-key',
    rule: 'A callback without its api key is refused and moves no money.',
    hint: 'Treat a missing API key like a wrong one: refuse before reading amounts or players.',
    source: 'Betnex SDK verifyCallback (api_key is required)',
    appliesTo: (wire) => hasStaticCredential(wire.dialect),
    async run(ctx) {
      await apiKeyRefused(ctx, 'without its api key', (body, field) => {
        delete body[field];
      });
    },
  },
  {
    id: 'wrong-currency',
    rule: 'A DEBIT in a currency other than the player’s is refused and moves no money.',
    hint: 'Compare the callback’s currency with the player’s account currency and refuse a mismatch; never convert or charge it.',
    source: 'Hub88 RS_ERROR_WRONG_CURRENCY; Evolution INVALID_PARAMETER (currency); Betnex currency_code',
    appliesTo: (wire) => wire.carries('currency'),
    async run(ctx) {
      const { p, before, amount } = await playerWithABet(ctx);
      const other = ctx.wire.currency === 'EUR' ? 'USD' : 'EUR';
      const step = await ctx.send(`DEBIT ${ctx.money(amount)} in ${other} (the player holds ${ctx.wire.currency})`, {
        kind: 'debit',
        playerId: p,
        amountMinor: amount,
        transactionId: ctx.tx(),
        currency: other,
      });
      ctx.undoWhatMoved(step, p, before, `a DEBIT in ${other}`);
      ctx.expectAnyRejection(step, `a DEBIT in ${other} for a ${ctx.wire.currency} player`);
      await ctx.expectBalanceNow(p, before, `a DEBIT in the wrong currency must move no money`);
    },
  },
  {
    id: 'whole-round',
    rule: 'A round sent as one callback (a bet and its win together) moves the balance by win − bet, once, also when sent twice.',
    hint: 'Apply -bet_amount + win_amount in one database transaction, keyed on the callback’s id; never read a callback as only a bet or only a win.',
    source: 'Betnex SDK (balance = balance − bet_amount + win_amount); Betnex callback per game round',
    appliesTo: (wire) => wire.roundBody,
    async run(ctx) {
      const { p, before, amount } = await playerWithABet(ctx);
      const win = amount * 2 + 50;
      const round = { ...spec(ctx, 'debit', p, amount), winMinor: win };
      const first = await ctx.send(`a round: bet ${ctx.money(amount)}, win ${ctx.money(win)} in one callback`, round);
      ctx.undoWhatMoved(first, p, before, 'the round');
      ctx.expectBalance(first, before - amount + win, 'a round of a bet and its win');
      const again = await ctx.send(`the same round again (same transactionId ${round.transactionId})`, round);
      ctx.undoWhatMoved(again, p, first.reply.balanceMinor ?? before, 'the repeated round');
      sameReply(ctx, first, again, 'the repeated round');
      await ctx.expectBalanceNow(p, before - amount + win, 'a round sent twice must move the balance once');
    },
  },
  {
    id: 'free-spin',
    rule: 'A free spin takes no money (its DEBIT of 0 is accepted without moving money, or refused) and its winnings are paid once.',
    hint: 'A bet of 0 in a free-spin round moves nothing; credit the round’s win like any CREDIT, idempotent on its transaction id.',
    source: 'Evolution free rounds; Hub88 freebets (amount 0); Betnex bonus rounds (bet_amount 0)',
    appliesTo: carriesBonus,
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const bonus = { kind: 'free-spins' as const, id: `${ctx.tx()}-fs` };
      const spin = await ctx.send('free spin: DEBIT of 0', { ...spec(ctx, 'debit', p, 0), bonus });
      ctx.expectNoMoneyMoved(spin, p, before, 'the free spin’s DEBIT of 0');
      await creditedOnce(ctx, p, before, { ...spec(ctx, 'credit', p, BET), bonus }, 'the free-spin winnings');
    },
  },
  {
    id: 'bonus-credited-once',
    rule: 'A jackpot win and a promotional credit (no bet before them) are each paid exactly once, also when sent twice.',
    hint: 'Credit bonus wins with the same idempotency as any CREDIT; a promotional credit needs no open round or earlier bet.',
    source: 'Evolution Test_doublePromoPayouts; Red Tiger jackpot payouts; Hub88 promo wins',
    appliesTo: carriesBonus,
    async run(ctx) {
      const p = ctx.player;
      let balance = await ctx.startBalance(p);
      for (const [kind, amount] of [
        ['jackpot', JACKPOT],
        ['promotion', BET],
      ] as const) {
        const bonus = { kind, id: `${ctx.tx()}-${kind}` };
        await creditedOnce(ctx, p, balance, { ...spec(ctx, 'credit', p, amount), bonus }, `the ${kind} CREDIT`);
        balance += amount;
      }
    },
  },
];

function carriesBonus(wire: Wire): boolean {
  return wire.carries('bonusId');
}

function spec(ctx: CheckContext, kind: 'debit' | 'credit', playerId: string, amountMinor: number): CallbackSpec {
  return { kind, playerId, amountMinor, transactionId: ctx.tx() };
}

/** Sends a CREDIT twice: the first pays it, the repeat gets the same reply and pays nothing. Taken back afterwards. */
async function creditedOnce(ctx: CheckContext, p: string, before: number, credit: CallbackSpec, what: string): Promise<void> {
  const amount = credit.amountMinor;
  const first = await ctx.send(`${what}: CREDIT ${ctx.money(amount)}`, credit);
  if (first.reply.accepted) ctx.takeBack(p, amount);
  ctx.expectBalance(first, before + amount, what);
  const again = await ctx.send(`${what} again (same transactionId ${credit.transactionId})`, credit);
  if (again.reply.accepted && again.reply.balanceMinor !== before + amount) ctx.takeBack(p, amount);
  sameReply(ctx, first, again, `${what}, repeated`);
  await ctx.expectBalanceNow(p, before + amount, `${what} sent twice must be paid once`);
}

/** Sends a DEBIT whose body's API key field was changed by `tamper`; it must be refused and move nothing. */
async function apiKeyRefused(
  ctx: CheckContext,
  how: string,
  tamper: (body: Record<string, unknown>, field: string) => void,
): Promise<void> {
  const { p, before, amount } = await playerWithABet(ctx);
  const field = staticCredentialFields(ctx.wire.dialect, 'bet')[0];
  if (field === undefined) fail(`the ${ctx.wire.name} dialect carries no credential in a top-level bet field`);
  const step = await ctx.send(`DEBIT ${ctx.money(amount)} ${how}`, spec(ctx, 'debit', p, amount), {
    edit: (fields) => tamper(fields, field),
  });
  ctx.undoWhatMoved(step, p, before, `a DEBIT ${how}`);
  ctx.expectRejection(step, 'INVALID_SIGNATURE', `a DEBIT ${how}`);
  await ctx.expectBalanceNow(p, before, `a DEBIT ${how} must move no money`);
}
