import { WRONG_SECRET } from '../../contracts/dialect.ts';
import { datesSignatures, rotatesSecrets } from '../../dialects/capabilities.ts';
import { type CheckContext, skip } from '../context.ts';
import type { SendOptions } from '../dialect-client.ts';
import type { VerifyWire as Wire } from '../wire.ts';
import { affordable, type Check, playerAndBalance } from './shared.ts';

const VERIFY_HINT =
  'Verify the signature before anything else (import { verifySignature } from "aggmock"); a request without a valid one is 401.';

/** Only the aggregator can move money: every callback is signed, fresh, and checked over its raw bytes. */
export const SIGNATURE_CHECKS: readonly Check[] = [
  {
    id: 'missing-signature',
    rule: 'A callback without signature headers is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: VERIFY_HINT,
    source: 'contract',
    appliesTo: signed,
    async run(ctx) {
      await signatureRefused(ctx, 'without any signature header', { sign: false });
    },
  },
  {
    id: 'wrong-secret',
    rule: 'A callback signed with a secret the wallet does not know is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: VERIFY_HINT,
    source: 'contract (pact:bad-signature)',
    appliesTo: signed,
    async run(ctx) {
      await signatureRefused(ctx, 'signed with a wrong secret', { secrets: [WRONG_SECRET] });
    },
  },
  {
    id: 'tampered-signature',
    rule: 'A callback whose body was changed after signing is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: 'Compute the HMAC over the RAW body bytes as received and compare in constant time with every signature in the header.',
    source: 'contract',
    appliesTo: signed,
    async run(ctx) {
      await signatureRefused(ctx, 'whose amount was changed after signing', 'tamper');
    },
  },
  {
    id: 'stale-timestamp',
    rule: 'A callback signed an hour ago is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money (replay protection).',
    hint: 'Refuse signature timestamps more than 300 s from your clock, in both directions, before comparing signatures.',
    source: 'contract (timestamps are checked two-sided, ±300 s)',
    appliesTo: signed,
    async run(ctx) {
      timestamped(ctx);
      await signatureRefused(ctx, 'signed one hour ago', { timestamp: Math.floor(Date.now() / 1000) - 3_600 });
    },
  },
  {
    id: 'future-timestamp',
    rule: 'A callback signed 10 minutes in the future is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: 'Check |now − t| ≤ 300 s, not only now − t ≤ 300 s: a captured request dated ahead could otherwise be replayed for as long as it is "in the future".',
    source: 'contract (timestamps are checked two-sided, ±300 s)',
    appliesTo: signed,
    async run(ctx) {
      timestamped(ctx);
      await signatureRefused(ctx, 'signed 10 minutes in the future', { timestamp: Math.floor(Date.now() / 1000) + 600 });
    },
  },
  {
    id: 'rotated-signatures',
    rule: 'During a secret rotation the header carries several signatures: accepted when any one is valid, in any position; refused when none is.',
    hint:
      'Split the header into all its signatures (t=…,v1=…,v1=…; "v1,<a> v1,<b>") and accept when any of them matches any of your ' +
      'active secrets; keep both secrets active while you rotate.',
    source: 'contract (rotation: sign with each active secret, accept any); Standard Webhooks',
    appliesTo: signed,
    async run(ctx) {
      if (!rotatesSecrets(ctx.wire.dialect))
        skip(`several signatures in one header are aggmock's header schemes' rotation; the ${ctx.wire.name} dialect carries one`);
      const p = ctx.player;
      const real = ctx.settings.callbacks.signing.secrets;
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, before, p, 1);
      let expected = before;
      for (const [order, secrets] of [
        ['an unknown secret first, the right one second', [WRONG_SECRET, ...real]],
        ['the right secret first, an unknown one second', [...real, WRONG_SECRET]],
      ] as const) {
        const step = await ctx.debitGivenBack(`DEBIT ${ctx.money(amount)} signed with ${order}`, p, amount, undefined, {
          secrets: [...secrets],
        });
        expected -= amount;
        ctx.expectBalance(step, expected, `a DEBIT signed with ${order}`);
      }
      const none = await ctx.debitGivenBack('DEBIT signed with two unknown secrets', p, amount, undefined, {
        secrets: [WRONG_SECRET, `${WRONG_SECRET}-2`],
      });
      ctx.expectRejection(none, 'INVALID_SIGNATURE', 'a DEBIT whose signatures are all made with unknown secrets', 401);
      await ctx.expectBalanceNow(p, expected, 'a DEBIT with no valid signature must move no money');
    },
  },
];

/** Signature checks exist only on wires that sign callbacks (not one that puts an API key in the body). */
export function signed(wire: Wire): boolean {
  return wire.signingScheme !== 'none';
}

function timestamped(ctx: CheckContext): void {
  if (datesSignatures(ctx.wire.dialect, ctx.wire.signingScheme)) return;
  if (ctx.wire.signingScheme === 'hmac-hex') skip('the hmac-hex scheme signs no timestamp, so there is nothing to date');
  skip(`the ${ctx.wire.name} dialect's signature carries no timestamp verify can date (aggmock's header schemes only)`);
}

/** Sends a DEBIT with a bad signature; it must be refused with 401 INVALID_SIGNATURE and move nothing. */
async function signatureRefused(ctx: CheckContext, how: string, variant: SendOptions | 'tamper'): Promise<void> {
  const { p, before } = await playerAndBalance(ctx);
  const amount = affordable(ctx, before, p, 1);
  const tx = ctx.tx();
  const spec = { kind: 'debit' as const, playerId: p, amountMinor: amount, transactionId: tx };
  const options: SendOptions = variant === 'tamper' ? { tamperAmount: true } : variant;
  const step = await ctx.send(`DEBIT ${how}`, spec, options);
  if (step.reply.accepted) {
    const moved = step.reply.balanceMinor === undefined ? amount : before - step.reply.balanceMinor;
    ctx.undoDebit(p, tx, moved > 0 ? moved : amount);
  }
  ctx.expectRejection(step, 'INVALID_SIGNATURE', `a DEBIT ${how}`, refusalStatus(ctx));
  await ctx.expectBalanceNow(p, before, `a DEBIT ${how} must move no money`);
}

/** The HTTP status a wallet refuses a signature with, when its dialect names one (aggmock's wire: 401; else any status will do). */
export function refusalStatus(ctx: CheckContext): number | undefined {
  return ctx.wire.dialect.reply.statuses.INVALID_SIGNATURE;
}
