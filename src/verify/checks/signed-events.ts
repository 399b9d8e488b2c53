import { WRONG_SECRET } from '../../contracts/dialect.ts';
import { datesSignatures } from '../../dialects/capabilities.ts';
import type { CallbackSpec } from '../client.ts';
import type { CheckContext, Step } from '../context.ts';
import type { SendOptions } from '../dialect-client.ts';
import { affordable, BET, type Check, playerAndBalance } from './shared.ts';
import { refusalStatus, signed } from './signature.ts';

const VERIFY_EVERY_EVENT_HINT =
  'Verify the signature in one place that every callback passes through (a middleware on the webhook route), before the ' +
  'body is parsed or the event type is read; a request without a valid one is 401 {"error":"INVALID_SIGNATURE"}.';

/** The signature protects every event that moves money, not only the bet; a captured signature is worthless on another body. */
export const SIGNED_EVENT_CHECKS: readonly Check[] = [
  {
    id: 'signed-every-event',
    rule:
      'Every signed event, not only DEBIT: a CREDIT or ROLLBACK that is unsigned, signed with a wrong secret, changed after ' +
      'signing or signed an hour ago is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: VERIFY_EVERY_EVENT_HINT,
    source:
      'contract (every callback is signed); Jackpot Studio Operator Integration Tester "HMAC Security" (signature validation, tampered body, replay protection)',
    appliesTo: signed,
    async run(ctx) {
      await refusedForEveryEvent(ctx, forgeries(ctx));
    },
  },
  {
    id: 'replayed-signature',
    rule:
      'The signature headers of an earlier, accepted request, sent again with another body (a DEBIT, CREDIT or ROLLBACK), are ' +
      'refused with 401 {error:"INVALID_SIGNATURE"} and move no money.',
    hint:
      'Compute the HMAC over the raw bytes of THIS request and compare it with the header every time; never accept a header ' +
      'because it verified before (a cache of good signatures), and never sign or check only some fields of the body.',
    source:
      'contract (the signature covers the raw body); Jackpot Studio Operator Integration Tester "HMAC Security" (replay attack protection)',
    appliesTo: signed,
    async run(ctx) {
      await refusedForEveryEvent(ctx, [{ how: 'carrying the signature headers of an earlier DEBIT', options: replayed }]);
    },
  },
];

/** One way of sending a callback without a valid signature: its send options, given a valid request sent before it. */
interface Forgery {
  how: string;
  options: (spec: CallbackSpec, earlier: Step) => SendOptions;
}

/** A replay: the headers, signatures and all, of an earlier request the wallet accepted. */
const replayed: Forgery['options'] = (_spec, earlier) => ({ replayOf: earlier });

function forgeries(ctx: CheckContext): Forgery[] {
  const all: Forgery[] = [
    { how: 'without any signature header', options: () => ({ sign: false }) },
    { how: 'signed with a wrong secret', options: () => ({ secrets: [WRONG_SECRET] }) },
    { how: 'whose amount was changed after signing', options: () => ({ tamperAmount: true }) },
  ];
  // Only a signature that carries a time can be stale (not hmac-hex, not a vendor's recipe).
  if (datesSignatures(ctx.wire.dialect, ctx.wire.signingScheme))
    all.push({ how: 'signed one hour ago', options: () => ({ timestamp: Math.floor(Date.now() / 1000) - 3_600 }) });
  return all;
}

/**
 * Sends each forgery as a CREDIT, as a ROLLBACK of an accepted DEBIT (on wires with one) and, for
 * a replay, as a DEBIT: each must be refused with 401 INVALID_SIGNATURE, and the balance must end
 * where the valid requests put it. Whatever a forgery moved is undone after the check.
 */
async function refusedForEveryEvent(ctx: CheckContext, ways: readonly Forgery[]): Promise<void> {
  const { p, before } = await playerAndBalance(ctx);
  const amount = affordable(ctx, before, p, BET);
  // A valid DEBIT first: its headers are what a replay reuses, and it gives a ROLLBACK something to restore.
  const debit = await ctx.debitGivenBack(`DEBIT ${ctx.money(amount)} (valid; its headers are reused later)`, p, amount);
  ctx.expectBalance(debit, before - amount, 'a valid DEBIT');
  const expected = before - amount;
  const forged: { step: Step; what: string }[] = [];
  for (const way of ways) {
    const specs: CallbackSpec[] = [{ kind: 'credit', playerId: p, amountMinor: BET, transactionId: ctx.tx() }];
    if (ctx.wire.hasRollback)
      specs.push({
        kind: 'rollback',
        playerId: p,
        amountMinor: amount,
        transactionId: ctx.tx(),
        referenceTransactionId: debit.transactionId,
      });
    if (way.options === replayed) specs.push({ kind: 'debit', playerId: p, amountMinor: 1, transactionId: ctx.tx() });
    for (const spec of specs) {
      const what = `a ${spec.kind.toUpperCase()} ${way.how}`;
      const step = await ctx.send(what, spec, way.options(spec, debit));
      forged.push({ step, what });
      // Whatever a forgery moved is undone afterwards (an accepted forged ROLLBACK needs nothing: the valid DEBIT's own undo then restores nothing more).
      if (step.reply.accepted && spec.kind === 'credit') ctx.takeBack(p, spec.amountMinor);
      if (step.reply.accepted && spec.kind === 'debit') ctx.undoDebit(p, spec.transactionId, spec.amountMinor);
    }
  }
  const status = refusalStatus(ctx);
  for (const { step, what } of forged) ctx.expectRejection(step, 'INVALID_SIGNATURE', what, status);
  await ctx.expectBalanceNow(p, expected, 'callbacks without a valid signature must move no money');
}
