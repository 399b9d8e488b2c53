import { describeOutcome, readReply } from './client.ts';
import { type CheckContext, fail, STATE_START_BALANCE_MINOR, skip } from './context.ts';

/** One stateful rule a Pact file cannot express, checked against a live webhook. */
export interface Check {
  id: string;
  /** The rule, one line. */
  rule: string;
  /** How to fix the webhook when the check fails. */
  hint: string;
  run(ctx: CheckContext): Promise<void>;
}

/** Amount of the ordinary test bets: 1.00, small enough for any test player. */
const BET = 100;

/** A bet the player can afford: 1.00, or everything when the balance is lower (skips a player with nothing). */
function affordable(ctx: CheckContext, balance: number, playerId: string, wanted = BET): number {
  if (balance <= 0)
    skip(`player ${playerId} has ${ctx.money(balance)}; give it some funds (or use --state-url) so a DEBIT can be accepted`);
  return Math.min(wanted, balance);
}

export const CHECKS: readonly Check[] = [
  {
    id: 'debit-applies',
    rule: 'A DEBIT the balance covers is accepted with 2xx {balance} = previous balance − amount.',
    hint: 'Subtract the amount in integer minor units and reply {"balance": <balance after the bet>} with a 2xx status.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, before, p);
      const step = await ctx.debit(`DEBIT ${ctx.money(amount)}`, p, amount);
      if (step.reply.accepted) ctx.undoDebit(p, step.transactionId, amount);
      ctx.expectBalance(step, before - amount, `DEBIT ${ctx.money(amount)} from ${ctx.money(before)}`);
    },
  },
  {
    id: 'credit-applies',
    rule: 'A CREDIT is accepted with 2xx {balance} = previous balance + amount.',
    hint: 'Add the amount in integer minor units and reply {"balance": <balance after the win>} with a 2xx status.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const step = await ctx.credit(`CREDIT ${ctx.money(BET)}`, p, BET);
      if (step.reply.accepted) ctx.undoCredit(p, BET);
      ctx.expectBalance(step, before + BET, `CREDIT ${ctx.money(BET)} to ${ctx.money(before)}`);
    },
  },
  {
    id: 'idempotent-debit',
    rule: 'A DEBIT sent twice with the same transactionId gets the same reply and moves money once.',
    hint:
      'Store every transaction under (playerId, type, transactionId) with its reply, in the same database transaction as the ' +
      'balance change; when the key exists, answer the stored reply and change nothing. aggmock retries on timeouts, so duplicates are normal.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, before, p);
      const first = await ctx.debit(`DEBIT ${ctx.money(amount)} (first time)`, p, amount);
      if (first.reply.accepted) ctx.undoDebit(p, first.transactionId, amount);
      ctx.expectBalance(first, before - amount, 'the first DEBIT');
      const again = await ctx.debit(
        `the same DEBIT again (same transactionId ${first.transactionId})`,
        p,
        amount,
        first.transactionId,
      );
      sameReply(first, again, 'the repeated DEBIT');
      await ctx.expectBalanceNow(p, before - amount, 'after the same DEBIT twice, money must have moved once');
    },
  },
  {
    id: 'idempotent-credit',
    rule: 'A CREDIT sent twice with the same transactionId gets the same reply and pays once.',
    hint: 'Make CREDITs idempotent like DEBITs: key (playerId, type, transactionId); a repeat gets the stored reply and pays nothing.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const first = await ctx.credit(`CREDIT ${ctx.money(BET)} (first time)`, p, BET);
      if (first.reply.accepted) ctx.undoCredit(p, BET);
      ctx.expectBalance(first, before + BET, 'the first CREDIT');
      const again = await ctx.credit(
        `the same CREDIT again (same transactionId ${first.transactionId})`,
        p,
        BET,
        first.transactionId,
      );
      if (again.reply.accepted && again.reply.balanceMinor !== before + BET) ctx.undoCredit(p, BET);
      sameReply(first, again, 'the repeated CREDIT');
      await ctx.expectBalanceNow(p, before + BET, 'after the same CREDIT twice, it must have been paid once');
    },
  },
  {
    id: 'rollback-restores',
    rule: 'A ROLLBACK of an accepted DEBIT gives its amount back: 2xx {balance} = balance before the DEBIT.',
    hint:
      'On ROLLBACK, find the DEBIT it reverses (its transactionId, or referenceTransactionId in "reference" style), add its amount ' +
      'back and mark it rolled back, atomically; reply with the new balance.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, before, p);
      const debit = await ctx.debit(`DEBIT ${ctx.money(amount)}`, p, amount);
      ctx.expectBalance(debit, before - amount, 'the DEBIT to be rolled back');
      const back = await ctx.rollback(`ROLLBACK of that DEBIT`, p, debit.transactionId, amount);
      if (!back.reply.accepted) ctx.undoDebit(p, debit.transactionId, amount);
      ctx.expectBalance(back, before, 'the ROLLBACK must restore the balance from before the DEBIT');
      await ctx.expectBalanceNow(p, before, 'after DEBIT + ROLLBACK');
    },
  },
  {
    id: 'duplicate-rollback',
    rule: 'A ROLLBACK sent twice restores the DEBIT once; the repeat is acknowledged and changes nothing.',
    hint: 'Mark the DEBIT rolled back when the first ROLLBACK restores it; a repeat (same ROLLBACK id) gets the stored reply and adds nothing.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      const amount = affordable(ctx, before, p);
      const debit = await ctx.debit(`DEBIT ${ctx.money(amount)}`, p, amount);
      ctx.expectBalance(debit, before - amount, 'the DEBIT to be rolled back');
      const first = await ctx.rollback('ROLLBACK (first time)', p, debit.transactionId, amount);
      if (!first.reply.accepted) ctx.undoDebit(p, debit.transactionId, amount);
      ctx.expectBalance(first, before, 'the first ROLLBACK');
      const again = await ctx.rollback('the same ROLLBACK again', p, debit.transactionId, amount, first.rollbackTx);
      ctx.expectBalance(again, before, 'the repeated ROLLBACK must be acknowledged with the unchanged balance');
      await ctx.expectBalanceNow(p, before, 'after one DEBIT and its ROLLBACK twice');
    },
  },
  {
    id: 'rollback-unknown',
    rule: 'A ROLLBACK of a transaction the wallet never saw is acknowledged with 2xx {balance}, unchanged.',
    hint:
      'Answer 2xx with the current balance when the DEBIT is unknown (aggmock sends such rollbacks when a DEBIT timed out), and ' +
      'remember the id so that DEBIT is refused if it arrives late. Do not answer 404: aggmock would keep the bet open.',
    async run(ctx) {
      const p = ctx.player;
      // The balance read itself relies on this rule, so this check observes it through DEBITs instead.
      const marker = await ctx.debit('DEBIT 0.01 (reads the balance)', p, 1);
      if (marker.reply.accepted) ctx.undoDebit(p, marker.transactionId, 1);
      if (!marker.reply.accepted || marker.reply.balanceMinor === undefined) {
        fail(`a DEBIT of 0.01 to read player ${p}'s balance got ${describeOutcome(marker.exchange)}`);
      }
      const balance = marker.reply.balanceMinor;
      const unknown = await ctx.rollback('ROLLBACK of a transaction the wallet never saw', p, ctx.tx(), 1_000);
      ctx.expectBalance(
        unknown,
        balance,
        'the ROLLBACK of an unknown transaction must be acknowledged with the unchanged balance',
      );
      const after = await ctx.debit('DEBIT 0.01 (reads the balance again)', p, 1);
      if (after.reply.accepted) ctx.undoDebit(p, after.transactionId, 1);
      ctx.expectBalance(after, balance - 1, 'after the unknown ROLLBACK the balance must not have moved, so this DEBIT');
    },
  },
  {
    id: 'insufficient-funds',
    rule: 'A DEBIT larger than the balance is refused with 4xx {error:"INSUFFICIENT_FUNDS"} and changes nothing.',
    hint: 'Check balance ≥ amount inside the same database transaction that subtracts it; refuse with 402 {"error":"INSUFFICIENT_FUNDS"}.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p, 500);
      const amount = Math.max(before, 0) + BET;
      const step = await ctx.debit(`DEBIT ${ctx.money(amount)} (balance ${ctx.money(before)})`, p, amount);
      if (step.reply.accepted) ctx.undoDebit(p, step.transactionId, amount);
      ctx.expectRejection(step, 'INSUFFICIENT_FUNDS', `a DEBIT of ${ctx.money(amount)} on a balance of ${ctx.money(before)}`);
      await ctx.expectBalanceNow(p, before, 'a refused DEBIT must not change the balance');
    },
  },
  {
    id: 'zero-amount',
    rule: 'A DEBIT or CREDIT of 0 is refused with 4xx {error:"INVALID_REQUEST"} and changes nothing.',
    hint: 'Validate amount > 0 (and at most 2 decimals) before touching money; refuse with 400 {"error":"INVALID_REQUEST"} naming the field.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      for (const kind of ['debit', 'credit'] as const) {
        const step = await ctx[kind](`${kind.toUpperCase()} 0.00`, p, 0);
        if (step.reply.accepted && kind === 'debit') ctx.undoDebit(p, step.transactionId, 0);
        ctx.expectRejection(step, 'INVALID_REQUEST', `a ${kind.toUpperCase()} of 0.00`);
      }
      await ctx.expectBalanceNow(p, before, 'zero amounts must not change the balance');
    },
  },
  {
    id: 'negative-amount',
    rule: 'A DEBIT or CREDIT with a negative amount is refused with 4xx {error:"INVALID_REQUEST"} and changes nothing.',
    hint: 'Refuse amount ≤ 0 with 400 {"error":"INVALID_REQUEST"}; a "DEBIT of -5" must never credit 5.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      for (const kind of ['debit', 'credit'] as const) {
        const step = await ctx[kind](`${kind.toUpperCase()} -${ctx.money(BET)}`, p, -BET);
        if (step.reply.accepted && step.reply.balanceMinor !== undefined) {
          const moved = step.reply.balanceMinor - before;
          if (moved > 0) ctx.undoCredit(p, moved);
          else if (moved < 0)
            ctx.onCleanup('give back a negative CREDIT', async () => void (await ctx.credit('cleanup: CREDIT', p, -moved)));
        }
        ctx.expectRejection(step, 'INVALID_REQUEST', `a ${kind.toUpperCase()} of -${ctx.money(BET)}`);
      }
      await ctx.expectBalanceNow(p, before, 'negative amounts must not change the balance');
    },
  },
  {
    id: 'same-tx-two-players',
    rule: 'The same transactionId for two different players is two independent transactions.',
    hint: 'Key idempotency on (playerId, type, transactionId), not on transactionId alone.',
    async run(ctx) {
      const [p1, p2] = ctx.players;
      if (p2 === undefined) skip('needs two players: pass --players p1,p2');
      const before1 = await ctx.startBalance(p1 as string);
      const before2 = await ctx.startBalance(p2);
      const amount = Math.min(affordable(ctx, before1, p1 as string), affordable(ctx, before2, p2));
      const tx = ctx.tx();
      const a = await ctx.debit(`DEBIT ${ctx.money(amount)} for ${p1} as ${tx}`, p1 as string, amount, tx);
      if (a.reply.accepted) ctx.undoDebit(p1 as string, tx, amount);
      ctx.expectBalance(a, before1 - amount, `the DEBIT for ${p1}`);
      const b = await ctx.debit(`DEBIT ${ctx.money(amount)} for ${p2} with the same transactionId`, p2, amount, tx);
      if (b.reply.accepted) ctx.undoDebit(p2, tx, amount);
      ctx.expectBalance(b, before2 - amount, `the DEBIT for ${p2} with ${p1}'s transactionId must be applied to ${p2}`);
      await ctx.expectBalanceNow(p1 as string, before1 - amount, `${p2}'s DEBIT must not touch ${p1}`);
    },
  },
  {
    id: 'concurrent-debits',
    rule: 'N DEBITs in parallel on one player accept no more than the balance covers, and the final balance is exact.',
    hint:
      'Apply each callback in one database transaction that locks the player row (SELECT … FOR UPDATE, or BEGIN IMMEDIATE in SQLite) ' +
      'from reading the balance to writing it; never read, await something, then write.',
    async run(ctx) {
      const p = ctx.player;
      const n = ctx.settings.concurrency;
      const half = Math.max(1, Math.floor(n / 2));
      const before = await ctx.startBalance(p, half * BET);
      const amount = ctx.hasState ? BET : Math.max(1, Math.floor(Math.max(before, 0) / half));
      const covered = Math.floor(Math.max(before, 0) / amount);
      const steps = await Promise.all(
        Array.from({ length: n }, (_, i) => ctx.debit(`parallel DEBIT ${i + 1}/${n} of ${ctx.money(amount)}`, p, amount)),
      );
      const accepted = steps.filter((s) => s.reply.accepted);
      for (const s of accepted) ctx.undoDebit(p, s.transactionId, amount);
      const broken = steps.filter((s) => !s.exchange.response || (s.reply.status ?? 0) >= 500);
      if (broken.length > 0) {
        fail(
          `${broken.length} of ${n} parallel DEBITs got no proper answer, e.g. ${describeOutcome((broken[0] as (typeof steps)[number]).exchange)}`,
        );
      }
      const wrong = steps.filter((s) => !s.reply.accepted && s.reply.error !== 'INSUFFICIENT_FUNDS');
      if (wrong.length > 0) {
        fail(
          `${wrong.length} parallel DEBIT(s) were refused for another reason than INSUFFICIENT_FUNDS, e.g. ${describeOutcome((wrong[0] as (typeof steps)[number]).exchange)}`,
        );
      }
      if (accepted.length > covered) {
        fail(
          `${accepted.length} of ${n} parallel DEBITs of ${ctx.money(amount)} were accepted, but a balance of ${ctx.money(before)} covers ` +
            `only ${covered}: the wallet overdraws under concurrency`,
        );
      }
      await ctx.expectBalanceNow(
        p,
        before - accepted.length * amount,
        `${accepted.length} accepted DEBITs of ${ctx.money(amount)} from ${ctx.money(before)} (lost or double updates?)`,
      );
    },
  },
  {
    id: 'malformed-json',
    rule: 'A signed body that is not valid JSON is refused with 4xx {error:"INVALID_REQUEST"}, never a 5xx.',
    hint: 'Wrap JSON.parse (after verifying the signature over the raw bytes) and answer 400 {"error":"INVALID_REQUEST"}; a 5xx makes aggmock retry the same broken body through its whole retry schedule.',
    async run(ctx) {
      const step = await ctx.client.post(
        'a signed body that is not JSON',
        `{"type":"${ctx.settings.callbacks.types.debit}","transactionId":`,
      );
      const reply = readReply(step, ctx.settings.callbacks);
      ctx.expectRejection({ exchange: step, reply }, 'INVALID_REQUEST', 'a body that is not JSON');
    },
  },
  {
    id: 'missing-signature',
    rule: 'A callback without signature headers is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: 'Verify the signature before anything else (import { verifySignature } from "aggmock"); a request without one is 401.',
    async run(ctx) {
      await signatureRefused(ctx, 'without any signature header', { sign: false });
    },
  },
  {
    id: 'tampered-signature',
    rule: 'A callback whose body was changed after signing is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money.',
    hint: 'Compute the HMAC over the RAW body bytes as received and compare in constant time with every signature in the header.',
    async run(ctx) {
      await signatureRefused(ctx, 'whose amount was changed after signing', { tamper: true });
    },
  },
  {
    id: 'stale-timestamp',
    rule: 'A callback signed an hour ago is refused with 401 {error:"INVALID_SIGNATURE"} and moves no money (replay protection).',
    hint: 'Refuse signature timestamps more than 300 s from your clock, in both directions, before comparing signatures.',
    async run(ctx) {
      if (ctx.settings.callbacks.signing.scheme === 'hmac-hex')
        skip('the hmac-hex scheme signs no timestamp, so there is nothing to be stale');
      await signatureRefused(ctx, 'signed one hour ago', { timestamp: Math.floor(Date.now() / 1000) - 3_600 });
    },
  },
  {
    id: 'reply-latency',
    rule: 'Replies come fast: p95 under the latency budget (default 2 s) and every one under --timeout.',
    hint: 'Do no slow work before replying (no external calls in the request path); aggmock treats a late reply as a failure and retries.',
    async run(ctx) {
      const p = ctx.player;
      const samples: number[] = [];
      for (let i = 0; i < 10; i++) {
        const debit = await ctx.debit(`timed DEBIT 0.01 (${i + 1}/10)`, p, 1);
        samples.push(debit.exchange.latencyMs);
        if (!debit.exchange.response) fail(`a DEBIT got no answer: ${debit.exchange.error}`);
        if (debit.reply.accepted) {
          const back = await ctx.rollback(`timed ROLLBACK (${i + 1}/10)`, p, debit.transactionId, 1);
          samples.push(back.exchange.latencyMs);
          if (!back.exchange.response) fail(`a ROLLBACK got no answer: ${back.exchange.error}`);
        }
      }
      samples.sort((a, b) => a - b);
      const p95 = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)] as number;
      const budget = Math.min(ctx.settings.maxLatencyMs, ctx.settings.timeoutMs);
      ctx.notes.push(`p95 ${p95.toFixed(1)} ms, max ${(samples.at(-1) as number).toFixed(1)} ms over ${samples.length} replies`);
      if (p95 > budget) fail(`p95 reply time is ${p95.toFixed(0)} ms, over the budget of ${budget} ms`);
    },
  },
  {
    id: 'cent-precision',
    rule: 'Amounts are exact to the cent: 0.10 + 0.20 moves exactly 0.30, and balances come back with at most 2 decimals.',
    hint: 'Keep money in integer minor units (or a decimal type), never binary floats; format replies with at most 2 decimals.',
    async run(ctx) {
      const p = ctx.player;
      const before = await ctx.startBalance(p);
      if (before < 30) skip(`player ${p} has ${ctx.money(before)}, less than the 0.30 this check bets`);
      const a = await ctx.debit('DEBIT 0.10', p, 10);
      if (a.reply.accepted) ctx.undoDebit(p, a.transactionId, 10);
      ctx.expectBalance(a, before - 10, 'DEBIT 0.10');
      const b = await ctx.debit('DEBIT 0.20', p, 20);
      if (b.reply.accepted) ctx.undoDebit(p, b.transactionId, 20);
      ctx.expectBalance(b, before - 30, 'then DEBIT 0.20: the balance must have moved by exactly 0.30');
      const c = await ctx.credit('CREDIT 10.01', p, 1_001);
      if (c.reply.accepted) ctx.undoCredit(p, 1_001);
      ctx.expectBalance(c, before - 30 + 1_001, 'then CREDIT 10.01');
    },
  },
];

export const CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

function sameReply(
  first: { exchange: import('./client.ts').Exchange },
  again: { exchange: import('./client.ts').Exchange },
  what: string,
): void {
  const a = first.exchange.response;
  const b = again.exchange.response;
  if (!b) fail(`${what}: got ${describeOutcome(again.exchange)}`);
  if (!a || a.status !== b.status || JSON.stringify(a.json ?? a.body) !== JSON.stringify(b.json ?? b.body)) {
    fail(
      `${what} must get the first reply again: expected ${a ? `HTTP ${a.status} ${a.body}` : 'the first reply'}, got HTTP ${b.status} ${b.body}`,
    );
  }
}

/** Sends a DEBIT with a bad signature; it must be refused with 401 INVALID_SIGNATURE and move nothing. */
async function signatureRefused(
  ctx: CheckContext,
  how: string,
  variant: { sign?: false; timestamp?: number; tamper?: true },
): Promise<void> {
  const p = ctx.player;
  const before = await ctx.startBalance(p);
  const amount = affordable(ctx, before, p, 1);
  const tx = ctx.tx();
  const spec = { kind: 'debit' as const, playerId: p, amountMinor: amount, transactionId: tx };
  const options = variant.tamper
    ? { sentBody: ctx.client.body({ ...spec, amountMinor: amount + 1 }) }
    : {
        ...(variant.sign === false ? { sign: false } : {}),
        ...(variant.timestamp === undefined ? {} : { timestamp: variant.timestamp }),
      };
  const step = await ctx.send(`DEBIT ${how}`, spec, options);
  if (step.reply.accepted) {
    const moved = step.reply.balanceMinor === undefined ? amount : before - step.reply.balanceMinor;
    ctx.undoDebit(p, tx, moved > 0 ? moved : amount);
  }
  ctx.expectRejection(step, 'INVALID_SIGNATURE', `a DEBIT ${how}`, 401);
  await ctx.expectBalanceNow(p, before, `a DEBIT ${how} must move no money`);
}

export function findCheck(id: string): Check | undefined {
  return CHECKS.find((c) => c.id === id);
}

export { STATE_START_BALANCE_MINOR };
