import { documents, encodingOf, signsBodyBytes } from '../../dialects/capabilities.ts';
import { describeOutcome } from '../client.ts';
import { fail, skip } from '../context.ts';
import { BET, type Check } from './shared.ts';

/** The wallet answers every callback, promptly, with a reply aggmock can act on. */
export const PROTOCOL_CHECKS: readonly Check[] = [
  {
    id: 'unknown-player',
    rule: 'A DEBIT, CREDIT or ROLLBACK for a player the wallet does not know is refused with {error:"PLAYER_NOT_FOUND"}, and no player is created.',
    hint: 'Look the player up first and refuse with 404 {"error":"PLAYER_NOT_FOUND"}; never create a player (or a balance) from a callback.',
    source: "aggmock's documented wire (docs/callbacks.md); Hub88 RS_ERROR_UNKNOWN_USER",
    // Its players are made up: it means something even when the configured ones are unknown.
    needs: ['answers', 'signature'],
    async run(ctx) {
      const ghost = ctx.ghostPlayer();
      const credit = await ctx.credit(`CREDIT ${ctx.money(BET)} for ${ghost}, a player the wallet never knew`, ghost, BET);
      ctx.expectRejection(credit, 'PLAYER_NOT_FOUND', `a CREDIT for the unknown player ${ghost}`);
      const debit = await ctx.debit(`DEBIT ${ctx.money(BET)} for ${ghost}`, ghost, BET);
      ctx.expectRejection(
        debit,
        'PLAYER_NOT_FOUND',
        `a DEBIT for the unknown player ${ghost} (after a CREDIT to it was refused)`,
      );
      if (!ctx.wire.hasRollback) return;
      const back = await ctx.rollback(`ROLLBACK for ${ghost}`, ghost, ctx.tx(), BET);
      if (back.reply.verdict === 'accepted' && back.reply.balanceMinor !== undefined && back.reply.balanceMinor !== 0) {
        fail(`a ROLLBACK for the unknown player ${ghost} was answered with a balance: ${describeOutcome(back.exchange)}`);
      }
      if (back.reply.verdict !== 'accepted') {
        ctx.expectRejection(back, ['PLAYER_NOT_FOUND', 'TRANSACTION_NOT_FOUND'], `a ROLLBACK for the unknown player ${ghost}`);
      }
    },
  },
  {
    id: 'malformed-json',
    rule: 'A signed body that is not valid JSON is refused with {error:"INVALID_REQUEST"} (4xx or 2xx), never a 5xx.',
    hint: 'Wrap JSON.parse (after verifying the signature over the raw bytes) and answer 400 {"error":"INVALID_REQUEST"}; a 5xx makes aggmock retry the same broken body through its whole retry schedule.',
    source: 'contract',
    // The body is cut before the wallet could look the player up.
    needs: ['answers', 'signature'],
    async run(ctx) {
      const encoding = encodingOf(ctx.wire.dialect, 'bet');
      if (encoding !== 'json')
        skip(`the ${ctx.wire.name} dialect sends ${encoding === 'form' ? 'form bodies' : 'query strings'}, not JSON`);
      if (!signsBodyBytes(ctx.wire.dialect))
        skip(`the ${ctx.wire.name} dialect signs its fields, not the body bytes: a cut body cannot be signed`);
      // A real DEBIT body cut off in the middle of its second field, signed over the cut bytes.
      const step = await ctx.debit('a signed body that is not JSON', ctx.player, BET, ctx.tx(), {
        body: (whole) => whole.slice(0, whole.indexOf(',', whole.indexOf(',') + 1) + 1),
      });
      // A wire that documents no reply to an unreadable body (a vendor's) may refuse it in any way, but must refuse it.
      if (documents(ctx.wire.dialect, 'unreadable-request'))
        ctx.expectRejection(step, 'INVALID_REQUEST', 'a body that is not JSON');
      else if (step.reply.verdict !== 'rejected')
        fail(`a body that is not JSON: expected a refusal (a 4xx, or the wire's refusal), got ${describeOutcome(step.exchange)}`);
    },
  },
  {
    id: 'reply-latency',
    rule: 'Replies come fast: p95 under the latency budget (default 2 s) and every one under --timeout.',
    hint: 'Do no slow work before replying (no external calls in the request path); aggmock treats a late reply as a failure and retries.',
    source: 'contract (timeout 10 s); Tom Horn (rollback after a 10 s timeout)',
    async run(ctx) {
      const p = ctx.player;
      const samples: number[] = [];
      for (let i = 0; i < 10; i++) {
        const debit = await ctx.debit(`timed DEBIT ${ctx.money(1)} (${i + 1}/10)`, p, 1);
        samples.push(debit.exchange.latencyMs);
        if (!debit.exchange.response) fail(`a DEBIT got no answer: ${debit.exchange.error}`);
        if (debit.reply.accepted) {
          const back = await ctx.reverse(`timed reversal (${i + 1}/10)`, p, debit.transactionId, 1);
          samples.push(back.exchange.latencyMs);
          if (!back.exchange.response) fail(`a reversal got no answer: ${back.exchange.error}`);
        }
      }
      samples.sort((a, b) => a - b);
      const p95 = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)] as number;
      const budget = Math.min(ctx.settings.maxLatencyMs, ctx.settings.timeoutMs);
      ctx.notes.push(`p95 ${p95.toFixed(1)} ms, max ${(samples.at(-1) as number).toFixed(1)} ms over ${samples.length} replies`);
      if (p95 > budget) fail(`p95 reply time is ${p95.toFixed(0)} ms, over the budget of ${budget} ms`);
    },
  },
];
