import { amountField, documents } from '../../dialects/capabilities.ts';
import { formatMinor } from '../../money/index.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, skip } from '../context.ts';
import { affordable, BET, type Check, playerAndBalance } from './shared.ts';

/** An amount has the currency's decimals and no more: a finer one is refused or applied exactly, never rounded. */
export const PRECISION_CHECKS: readonly Check[] = [
  {
    id: 'excess-decimals',
    rule:
      'Amounts have at most the currency’s decimals (2 for EUR, none for JPY): a DEBIT or CREDIT with one more (1.005 EUR, ' +
      '5.5 JPY) is refused (INVALID_REQUEST) or applied exactly, never rounded.',
    hint:
      'Refuse an amount with more decimals than the currency has with 400 {"error":"INVALID_REQUEST"} (check that ' +
      'amount × 10^decimals is a whole number, in decimal arithmetic), instead of Math.round(amount * 100): rounding charges ' +
      'or pays an amount the aggregator never sent.',
    source:
      'contract (amounts have the currency’s decimals); Jackpot Studio Operator Integration Tester "Edge Cases" (decimal precision)',
    async run(ctx) {
      if (!documents(ctx.wire.dialect, 'exact-amounts'))
        skip(`the ${ctx.wire.name} dialect documents no answer to an amount finer than the currency (its wallets may round it)`);
      const scale = ctx.wire.dialect.amounts.exponent;
      if (scale !== undefined && scale !== ctx.wire.codec().exponent)
        skip(
          `the ${ctx.wire.name} dialect writes amounts at a scale of its own (${scale} decimals), not in the currency's decimals`,
        );
      if (amountField(ctx.wire.dialect, 'bet') === undefined || amountField(ctx.wire.dialect, 'win') === undefined)
        skip(`the ${ctx.wire.name} dialect writes its amounts inside nested fields, where verify cannot write a finer one`);
      const { p, before } = await playerAndBalance(ctx);
      const whole = affordable(ctx, before, p, BET * 2) / 2;
      for (const kind of ['debit', 'credit'] as const) await finerAmount(ctx, p, before, kind, Math.max(0, Math.floor(whole)));
      await ctx.expectBalanceNow(
        p,
        before,
        'amounts with more decimals than the currency has must be refused or applied exactly',
      );
    },
  },
];

/**
 * Sends a DEBIT (CREDIT) of `minor` and a half minor unit. A refusal is fine; an acceptance must
 * move the balance by exactly that amount, and is then undone at once with the opposite event of
 * the same amount (a balance with an extra decimal would make every later balance read fail).
 */
async function finerAmount(ctx: CheckContext, p: string, before: number, kind: 'debit' | 'credit', minor: number): Promise<void> {
  const { format, as, exponent } = ctx.wire.codec();
  // In tenths of a minor unit: 1.005 EUR is 1005, 5.5 JPY is 55.
  const tenths = minor * 10 + 5;
  const written = formatMinor(tenths, format === 'minor' ? 1 : exponent + 1);
  const value = as === 'string' ? written : Number(written);
  const label = `${kind.toUpperCase()} of ${written} (one decimal more than ${ctx.wire.currency} has)`;
  const step = await sendWithAmount(ctx, kind, p, value, label);
  if (step.reply.verdict === 'rejected') return;
  if (!step.reply.accepted)
    fail(
      `a ${kind.toUpperCase()} of ${written}: expected a refusal or an exact acceptance, got ${describeOutcome(step.exchange)}`,
    );
  const expected = before * 10 + (kind === 'debit' ? -tenths : tenths);
  const got = tenthsOf(step.reply.rawBalance, format === 'minor' ? 1 : exponent + 1);
  const opposite = kind === 'debit' ? 'credit' : 'debit';
  const undo = await sendWithAmount(ctx, opposite, p, value, `undo: ${opposite.toUpperCase()} of ${written}`);
  if (!undo.reply.accepted) {
    if (step.reply.balanceMinor !== undefined) ctx.undoWhatMoved(step, p, before, `a ${kind.toUpperCase()} of ${written}`);
    ctx.notes.push(`the ${opposite.toUpperCase()} of ${written} that undoes it got ${describeOutcome(undo.exchange)}`);
  }
  if (got !== expected) {
    fail(
      `a ${kind.toUpperCase()} of ${written} on a balance of ${ctx.money(before)}: expected a refusal, or the balance moved by exactly ${written} ` +
        `(to ${formatMinor(expected, format === 'minor' ? 1 : exponent + 1)}), got ${describeOutcome(step.exchange)}: the wallet rounds amounts`,
    );
  }
  ctx.notes.push(`a ${kind.toUpperCase()} of ${written} was applied exactly`);
}

/** A balance as written (number or decimal string) in tenths of a minor unit; undefined when it is not one. */
function tenthsOf(raw: unknown, decimals: number): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n)) return undefined;
  return Math.round(n * 10 ** decimals);
}

/** A callback of `kind` whose amount field carries `value` as written (signed over the body as sent). */
async function sendWithAmount(ctx: CheckContext, kind: 'debit' | 'credit', p: string, value: number | string, label: string) {
  const field = amountField(ctx.wire.dialect, kind === 'debit' ? 'bet' : 'win');
  if (field === undefined) fail(`the ${ctx.wire.name} dialect has no top-level amount field in a ${kind.toUpperCase()}`);
  const spec = { kind, playerId: p, amountMinor: 1, transactionId: ctx.tx() };
  return ctx.send(label, spec, { edit: (fields) => Object.assign(fields, { [field]: value }) });
}
