import { amountField, encodingOf, signs, signsBodyBytes } from '../../dialects/capabilities.ts';
import type { Dialect, UnsignedRequest } from '../../dialects/index.ts';
import { describeOutcome } from '../client.ts';
import { fail, type Step } from '../context.ts';
import type { VerifyWire } from '../wire.ts';
import { affordable, type Check, playerAndBalance } from './shared.ts';

/*
 * Bodies as they really arrive: cut short, or written another way than the wallet would write
 * them. Both are signed over the bytes (or fields) that are sent, so the signature is never the
 * reason for the answer.
 */

export const BODY_CHECKS: readonly Check[] = [
  {
    id: 'truncated-request',
    rule: 'A DEBIT cut off before its amount (the rest of its fields lost), signed over what is sent, is refused (never a 5xx) or answered without moving money.',
    hint: 'Validate that every required field is there (amount, ids, player) before applying anything; answer a missing one with the invalid-request refusal, never a default of 0 and never a 5xx.',
    source:
      'contract (a request that cannot be read is refused as invalid); Hub88 RS_ERROR_WRONG_SYNTAX; Pragmatic error 7 (bad parameters); 100HP 400 validation',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p, 1);
      const dialect = ctx.wire.dialect;
      const label = `DEBIT ${ctx.money(amount)} cut off before its amount (signed over what is sent)`;
      const spec = { kind: 'debit' as const, playerId: p, amountMinor: amount, transactionId: ctx.tx() };
      const step = await ctx.send(label, spec, { forgery: { request: (req) => cutBeforeAmount(dialect, req) } });
      ctx.undoWhatMoved(step, p, before, 'a cut-off DEBIT');
      if (!movesNothing(step, before))
        fail(
          `a DEBIT cut off before its amount: expected a refusal (a 4xx, or the wire's refusal or error code), or an answer that moves no money; got ${describeOutcome(step.exchange)}`,
        );
      await ctx.expectBalanceNow(p, before, 'a cut-off DEBIT must move no money');
    },
  },
  {
    id: 'reserialised-json',
    rule: 'A DEBIT whose JSON is written another way (other key order, spacing, 1.0 for 1, \\u escapes), signed over those raw bytes, is accepted and applied once.',
    hint: 'Verify the signature over the body bytes exactly as received, before parsing; never over JSON.stringify(JSON.parse(body)), which differs from what was signed.',
    source:
      'contract (the signature covers the raw body); Hub88 X-Hub88-Signature and Caleta X-Auth-Signature over the body; SoftSwiss X-REQUEST-SIGN over the raw body',
    appliesTo: signsJsonBytes,
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p);
      const label = `DEBIT ${ctx.money(amount)}, its JSON written another way (signed over those bytes)`;
      const step = await ctx.debitGivenBack(label, p, amount, undefined, { body: rewritten });
      if (step.reply.verdict === 'rejected')
        fail(
          `a validly signed DEBIT whose JSON is written another way (key order, spacing, 1.0, \\u escapes): expected it accepted, got a refusal (is the signature checked over a re-serialisation instead of the raw bytes?): ${describeOutcome(step.exchange)}`,
        );
      ctx.expectBalance(step, before - amount, 'a DEBIT whose JSON is written another way');
    },
  },
];

export const BODY_NOT_APPLICABLE: Record<string, string> = {
  'reserialised-json': 'signs no JSON body bytes (nothing to re-serialise under a signature)',
};

/**
 * The answer to a request that cannot be a bet moved nothing and is one the wire knows: a refusal,
 * the vendor's own error code in an answer (Blue Ocean's "500" in an HTTP 200: its docs' only
 * error reply), or an acceptance at the unchanged balance (SoftSwiss answers a play without
 * actions with the balance). Never an HTTP 5xx, no answer or garbage.
 */
export function movesNothing(step: Step, before: number): boolean {
  const { reply, exchange } = step;
  if (reply.verdict === 'rejected') return true;
  const status = exchange.response?.status ?? 599;
  if (reply.verdict === 'retry') return status < 500 && reply.code !== undefined;
  return reply.verdict === 'accepted' && (reply.balanceMinor === undefined || reply.balanceMinor === before);
}

function signsJsonBytes(wire: VerifyWire): boolean {
  return signs(wire.dialect) && signsBodyBytes(wire.dialect) && encodingOf(wire.dialect, 'bet') === 'json';
}

/**
 * The request cut off where its amount begins: the amount field and every field after it lost, as
 * when a body or query string is cut short. The fields that carry a credential are kept, so the
 * credential is not the reason either.
 */
export function cutBeforeAmount(dialect: Dialect, req: UnsignedRequest): void {
  const keys = Object.keys(req.fields);
  const at = amountField(dialect, 'bet');
  let from = at === undefined ? -1 : keys.indexOf(at);
  if (from < 0) from = Math.ceil(keys.length / 2);
  const op = dialect.operations.bet;
  const keep = (key: string) => {
    const field = op?.fields[key];
    return field !== undefined && 'credential' in field;
  };
  for (const key of keys.slice(from)) if (!keep(key)) delete req.fields[key];
}

/**
 * The same JSON written another way: keys in reverse order, a space after every colon and comma and
 * a newline before each key, every whole number written with ".0", and the first character of
 * every string as a \u escape. It parses to the same value.
 */
export function rewritten(json: string): string {
  return write(JSON.parse(json) as unknown);
}

function write(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.map(write).join(', ')} ]`;
  if (value !== null && typeof value === 'object')
    return `{\n${Object.entries(value)
      .reverse()
      .map(([k, v]) => `  ${escaped(k)}: ${write(v)}`)
      .join(',\n')}\n}`;
  if (typeof value === 'string') return escaped(value);
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1e15) return `${value}.0`;
  return JSON.stringify(value);
}

function escaped(text: string): string {
  if (text === '') return '""';
  const first = text.codePointAt(0) as number;
  if (first > 0xffff) return JSON.stringify(text);
  return `"\\u${first.toString(16).padStart(4, '0')}${JSON.stringify(text.slice(1)).slice(1)}`;
}
