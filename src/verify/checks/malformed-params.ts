import { amountField, encodingOf } from '../../dialects/capabilities.ts';
import type { Dialect, UnsignedRequest } from '../../dialects/index.ts';
import { describeOutcome } from '../client.ts';
import { fail } from '../context.ts';
import type { VerifyWire } from '../wire.ts';
import { movesNothing } from './bodies.ts';
import { affordable, type Check, playerAndBalance } from './shared.ts';

/*
 * A form body or query string that is there but cannot be read (issue 32): malformed-json's
 * counterpart on the wires that send no JSON, where a cut body is truncated-request's. The amount
 * is not a number; the request is signed over what is sent, so the signature is never the reason.
 */

/** What the amount is replaced with: no number in any notation (not "1,5", not "1e2"). */
export const MALFORMED_AMOUNT = '12.5.0x';

export const MALFORMED_PARAM_CHECKS: readonly Check[] = [
  {
    id: 'malformed-params',
    rule: 'A DEBIT whose form or query amount is not a number, signed over what is sent, is refused (never a 5xx) and moves no money.',
    hint: 'Parse every parameter with a parser that reports instead of throwing, and answer a value that is not a number with the invalid-request refusal, before applying anything.',
    source:
      'contract (a request that cannot be read is refused as invalid); Pragmatic error 7 (bad parameters); GrooveTech 400 (parameter mismatch); Blue Ocean status "500" BAD_REQUEST',
    appliesTo: sendsParams,
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p, 1);
      const dialect = ctx.wire.dialect;
      const label = `DEBIT whose amount is ${JSON.stringify(MALFORMED_AMOUNT)} (signed over what is sent)`;
      const spec = { kind: 'debit' as const, playerId: p, amountMinor: amount, transactionId: ctx.tx() };
      const step = await ctx.send(label, spec, { forgery: { request: (req) => malformAmount(dialect, req) } });
      ctx.undoWhatMoved(step, p, before, 'a DEBIT with a malformed amount');
      if (!movesNothing(step, before))
        fail(
          `a DEBIT whose amount is ${JSON.stringify(MALFORMED_AMOUNT)}: expected a refusal (a 4xx, or the wire's refusal or error code) that moves no money; got ${describeOutcome(step.exchange)}`,
        );
      await ctx.expectBalanceNow(p, before, 'a DEBIT with a malformed amount must move no money');
    },
  },
];

export const MALFORMED_PARAM_NOT_APPLICABLE: Record<string, string> = {
  'malformed-params': 'sends JSON bodies (malformed-json tries a body that is not JSON there)',
};

function sendsParams(wire: VerifyWire): boolean {
  return encodingOf(wire.dialect, 'bet') !== 'json' && amountField(wire.dialect, 'bet') !== undefined;
}

/** The bet's amount parameter written as something that is no number. */
export function malformAmount(dialect: Dialect, req: UnsignedRequest): void {
  const at = amountField(dialect, 'bet');
  if (at !== undefined && at in req.fields) req.fields[at] = MALFORMED_AMOUNT;
}
