import { describe, expect, it } from 'vitest';
import { classifyAnswer } from '../../src/callbacks/dispatcher.ts';
import type { EventKind, StoredEvent } from '../../src/callbacks/events.ts';
import { replyJson } from '../../src/callbacks/reply.ts';
import { dialectOf } from '../../src/config/dialect.ts';
import { callbacksSchema } from '../../src/config/index.ts';
import {
  BUILTIN_DIALECTS,
  type Dialect,
  MONEY_OPERATIONS,
  type Operation,
  type OutcomeCode,
  readReply,
  unknownRollbackAnswer,
  writeAmount,
  writeReply,
} from '../../src/dialects/index.ts';
import { applySettlement, type DiscrepancyDraft, emptyLedgerState } from '../../src/ledger/reducer.ts';
import { expectUnknownRollbackAnswer, sameReply } from '../../src/verify/checks/shared.ts';
import type { Exchange } from '../../src/verify/client.ts';
import { CheckContext, type Step } from '../../src/verify/context.ts';
import { readUnder } from '../../src/verify/read.ts';

/*
 * One judge per rule, proven from outside: the same exchanges — a first call and its repeat, an
 * authenticate reply without a balance, a refusal, a retry code — go through the shadow ledger
 * (the engine's verdict, then the reducer) and through verify's judging (its reply reading and the
 * helpers its checks call), for every built-in dialect, and the two verdicts must be the same.
 * Each exchange is played by a correct wallet (both must pass it) and by wrong ones.
 */

const WIRES = ['default', 'betnex', ...BUILTIN_DIALECTS] as const;
type Wire = (typeof WIRES)[number];

const START = 10_000;
const BET = 100;
const WIN = 500;

interface Call {
  operation: Operation;
  kind: EventKind;
  transactionId: string;
  amountMinor: number;
  reply: { status: number; text: string };
}

/** One wallet's answers to one exchange, and the balance it really holds at the end. */
interface Played {
  calls: Call[];
  held: number;
}

function setup(wire: Wire) {
  const callbacks = callbacksSchema.parse({ profile: wire });
  const dialect = dialectOf(callbacks);
  const write = (minor: number) => writeAmount(dialect, 'EUR', minor);
  const say = (operation: Operation, answer: Parameters<typeof writeReply>[2]) => {
    const facts = { operation, currency: 'EUR', requestId: 'req-1', transactionId: 'tx', playerId: 'p1' };
    const r = writeReply(dialect, facts, answer, write);
    return { status: r.status, text: JSON.stringify(r.body) };
  };
  const ok = (operation: Operation, balanceMinor: number) => say(operation, { accepted: true, balanceMinor });
  const no = (operation: Operation, refusal: OutcomeCode, balanceMinor?: number) =>
    say(operation, { accepted: false, refusal, balanceMinor });
  const ctx = new CheckContext(
    {
      webhookUrl: 'http://x.invalid/',
      callbacks,
      players: ['p1'],
      timeoutMs: 1000,
      maxLatencyMs: 1000,
      concurrency: 1,
      runId: 't',
    },
    'judges-agree',
  );
  return { callbacks, dialect, ok, no, ctx };
}

type Setup = ReturnType<typeof setup>;
const call = (operation: Operation, transactionId: string, amountMinor: number, reply: Call['reply']): Call => ({
  operation,
  kind: operation === 'win' ? 'credit' : operation === 'rollback' ? 'rollback' : 'debit',
  transactionId,
  amountMinor,
  reply,
});

/** A bet, a win that moves the balance, and the bet again, answered `again` (the wallet holds `held`). */
function repeat(
  s: Setup,
  again: (first: Call['reply']) => Call['reply'] | undefined,
  held = START - BET + WIN,
): Played | undefined {
  const first = s.ok('bet', START - BET);
  const reply = again(first);
  if (!reply) return undefined;
  return {
    calls: [call('bet', 'b1', BET, first), call('win', 'w1', WIN, s.ok('win', START - BET + WIN)), call('bet', 'b1', BET, reply)],
    held,
  };
}

/** The exchanges, each with what a correct judge says of it. */
const EXCHANGES: { name: string; play: (s: Setup) => Played | undefined }[] = [
  {
    name: 'repeat answered by the rule (correct)',
    play: (s) =>
      repeat(s, (first) => (s.dialect.reply.duplicates === 'current-balance' ? s.ok('bet', START - BET + WIN) : first)),
  },
  { name: 'repeat answered with the first reply again', play: (s) => repeat(s, (first) => first) },
  { name: 'repeat answered with the balance as it is now', play: (s) => repeat(s, () => s.ok('bet', START - BET + WIN)) },
  {
    name: 'repeat acknowledged with the "already processed" code',
    play: (s) =>
      repeat(s, () => (s.dialect.reply.codes.ALREADY_SETTLED === undefined ? undefined : s.no('bet', 'ALREADY_SETTLED'))),
  },
  {
    name: 'repeat that took the money again',
    play: (s) => repeat(s, () => s.ok('bet', START - 2 * BET + WIN), START - 2 * BET + WIN),
  },
  {
    name: 'repeat refused as a duplicate',
    play: (s) =>
      repeat(s, () =>
        s.dialect.reply.codes.DUPLICATE_TRANSACTION === undefined ? undefined : s.no('bet', 'DUPLICATE_TRANSACTION'),
      ),
  },
];

/**
 * A bet, a rollback of a transaction the wallet never saw answered so, and a bet that shows the
 * balance after it (the wallet holds `held` at the end).
 */
function unknownRollback(s: Setup, reply: Call['reply'], held = START - BET): Played {
  const rollback: Call = { ...call('rollback', 'ghost', 1_000, reply), transactionId: 'ghost' };
  return {
    calls: [call('bet', 'b1', BET, s.ok('bet', START - BET)), rollback, call('bet', 'b2', BET, s.ok('bet', held - BET))],
    held,
  };
}

const UNKNOWN_ROLLBACK: Record<string, (s: Setup) => Played | undefined> = {
  'answered as the dialect says (correct)': (s) =>
    unknownRollback(
      s,
      unknownRollbackAnswer(s.dialect) === 'acknowledge'
        ? s.ok('rollback', START - BET)
        : s.no('rollback', 'TRANSACTION_NOT_FOUND', START - BET),
    ),
  acknowledged: (s) => unknownRollback(s, s.ok('rollback', START - BET)),
  'refused as not found': (s) => unknownRollback(s, s.no('rollback', 'TRANSACTION_NOT_FOUND', START - BET)),
  'refused for another reason': (s) =>
    s.dialect.reply.codes.INSUFFICIENT_FUNDS === undefined ||
    s.dialect.reply.codes.INSUFFICIENT_FUNDS === s.dialect.reply.codes.TRANSACTION_NOT_FOUND
      ? undefined
      : unknownRollback(s, s.no('rollback', 'INSUFFICIENT_FUNDS', START - BET)),
  'acknowledged, but paid the bet back': (s) => unknownRollback(s, s.ok('rollback', START - BET + 1_000), START - BET + 1_000),
};

/** verify's verdict on an unknown rollback, as rollback-unknown judges it: no money moved, the answer the rule allows, the balance after unchanged. */
function verifyUnknownRollbackVerdict(s: Setup, played: Played): 'pass' | 'fail' {
  const step = stepOf(s, played.calls[1] as Call);
  try {
    s.ctx.expectNoMoneyMoved(step, 'p1', START - BET, 'the ROLLBACK of an unknown transaction');
    expectUnknownRollbackAnswer(s.ctx, step, 'the ROLLBACK of an unknown transaction');
  } catch {
    return 'fail';
  }
  return played.held === START - BET ? 'pass' : 'fail';
}

/** The ledger's verdict: the engine settles each reply, the reducer judges the events. */
function ledgerVerdict(s: Setup, played: Played): string[] {
  let state = emptyLedgerState();
  const found: DiscrepancyDraft[] = [];
  const reading = (currency?: string, operation?: Operation) => ({
    dialect: s.dialect,
    currency: currency ?? 'EUR',
    operation,
    currencies: s.callbacks.currencies,
  });
  played.calls.forEach((c, i) => {
    const verdict = classifyAnswer({ status: c.reply.status, body: c.reply.text }, 0, reading('EUR', c.operation));
    const event: StoredEvent = {
      id: i + 1,
      kind: c.kind,
      transactionId: c.transactionId,
      playerId: 'p1',
      amountMinor: c.amountMinor,
      currency: 'EUR',
      source: 'test',
      orderingKey: 'p1',
      url: 'http://x.invalid/',
      body: '{}',
      facts: { operation: c.operation } as StoredEvent['facts'],
      status: verdict.outcome === 'retry' ? 'failed' : verdict.outcome,
      attemptCount: 1,
      createdAt: i * 10,
      settledAt: i * 10 + 1,
      ...('reply' in verdict && verdict.reply ? { reply: verdict.reply } : {}),
    };
    const result = applySettlement(state, event, { reading });
    state = result.state;
    found.push(...result.discrepancies);
  });
  return [...new Set(found.map((d) => d.kind))].sort();
}

/** A step as verify's checks hold it: the exchange and its reply read under the wire. */
function stepOf(s: Setup, c: Call): Step {
  const exchange: Exchange = {
    label: `${c.operation} ${c.transactionId}`,
    request: { method: 'POST', url: 'http://x.invalid/', headers: {}, body: '' },
    response: { status: c.reply.status, headers: {}, body: c.reply.text, json: replyJson(c.reply.text) },
    latencyMs: 1,
  };
  // verify's own reading: the dialect's reader, put in the checks' terms (src/verify/read.ts).
  const read = readReply(s.dialect, { operation: c.operation, currency: 'EUR' }, c.reply);
  return { exchange, reply: readUnder(s.ctx.wire, exchange, read) };
}

/** verify's verdict on a repeat, as idempotent-debit judges it: the first reply again by the rule, and money moved once. */
function verifyRepeatVerdict(s: Setup, played: Played): 'pass' | 'fail' {
  const [first, , again] = played.calls.map((c) => stepOf(s, c)) as [Step, Step, Step];
  try {
    sameReply(s.ctx, first, again, 'the repeated bet');
  } catch {
    return 'fail';
  }
  return played.held === START - BET + WIN ? 'pass' : 'fail';
}

describe('the shadow ledger and verify judge the same exchanges alike, in every built-in dialect', () => {
  for (const wire of WIRES) {
    describe(wire, () => {
      const s = setup(wire);
      for (const exchange of EXCHANGES) {
        const played = exchange.play(s);
        if (!played) continue;
        it(exchange.name, () => {
          const ledger = ledgerVerdict(s, played);
          const verify = verifyRepeatVerdict(s, played);
          expect(
            { ledger: ledger.length === 0 ? 'pass' : 'fail', verify },
            `ledger found ${ledger.join(', ') || 'nothing'}`,
          ).toEqual({
            ledger: verify,
            verify,
          });
          if (exchange.name.endsWith('(correct)')) expect(verify).toBe('pass');
          if (exchange.name === 'repeat that took the money again') expect(verify).toBe('fail');
          if (exchange.name === 'repeat answered with the balance as it is now')
            expect(verify).toBe(s.dialect.reply.duplicates === 'current-balance' ? 'pass' : 'fail');
        });
      }

      if (s.dialect.operations.rollback) {
        for (const [name, answer] of Object.entries(UNKNOWN_ROLLBACK)) {
          const played = answer(s);
          if (!played) continue;
          it(`a rollback of a transaction the wallet never saw, ${name}`, () => {
            const ledger = ledgerVerdict(s, played);
            const verify = verifyUnknownRollbackVerdict(s, played);
            expect(
              { ledger: ledger.length === 0 ? 'pass' : 'fail', verify },
              `ledger found ${ledger.join(', ') || 'nothing'}`,
            ).toEqual({
              ledger: verify,
              verify,
            });
            if (name === 'answered as the dialect says (correct)') expect(verify).toBe('pass');
            if (name === 'acknowledged, but paid the bet back') expect(verify).toBe('fail');
          });
        }
      }

      it('an authenticate reply without a balance passes both; a bet without one fails both', () => {
        const auth = s.dialect.operations.authenticate ? s.ok('authenticate', START) : undefined;
        if (auth) {
          const without = { ...auth, text: JSON.stringify(stripBalance(s.dialect, JSON.parse(auth.text))) };
          const played = { calls: [call('authenticate', 'a1', 0, without)], held: START };
          expect(ledgerVerdict(s, played)).toEqual([]);
          expect(verifyBalanceVerdict(s, played.calls[0] as Call)).toBe('pass');
        }
        const bet = s.ok('bet', START - BET);
        const without = { ...bet, text: JSON.stringify(stripBalance(s.dialect, JSON.parse(bet.text))) };
        const played = { calls: [call('bet', 'b1', BET, without)], held: START - BET };
        expect(ledgerVerdict(s, played)).toEqual(['missing-balance']);
        expect(verifyBalanceVerdict(s, played.calls[0] as Call)).toBe('fail');
      });

      it('a refusal and a retry code read alike: the engine settles (the ledger sees) what verify reads', () => {
        const replies: Call['reply'][] = [
          s.no('bet', 'INSUFFICIENT_FUNDS', START),
          s.ok('bet', START - BET),
          { status: 503, text: '{}' },
          { status: 200, text: '<html>' },
          // The bet's own retry codes where it has them (Caleta's bet retries none: it rolls back instead).
          ...(s.dialect.operations.bet?.reply?.retryCodes ?? s.dialect.reply.retryCodes).map((code) => ({
            status: 200,
            text: JSON.stringify(s.dialect.reply.code ? nest(s.dialect.reply.code, code) : {}),
          })),
        ];
        for (const reply of replies) {
          const engine = classifyAnswer({ status: reply.status, body: reply.text }, 0, {
            dialect: s.dialect,
            currency: 'EUR',
            operation: 'bet',
          }).outcome;
          const verify = stepOf(s, call('bet', 'b1', BET, reply)).reply.verdict;
          const asEngine = verify === 'accepted' ? 'delivered' : verify === 'rejected' ? 'rejected' : 'retry';
          expect(asEngine, reply.text).toBe(engine);
        }
        // A bet the vendor rolls back after an "unknown" answer (Caleta): verify reads the refusal; the engine
        // sends it no more and ends it failed, so its ROLLBACK follows (rolledBackAfter, one rule for both).
        for (const code of s.dialect.operations.bet?.reply?.rolledBackOn ?? []) {
          const text = JSON.stringify(nest(s.dialect.reply.code as string, code));
          const engine = classifyAnswer({ status: 200, body: text }, 0, {
            dialect: s.dialect,
            currency: 'EUR',
            operation: 'bet',
          });
          expect(engine).toMatchObject({ outcome: 'retry', final: true });
          expect(stepOf(s, call('bet', 'b1', BET, { status: 200, text })).reply.verdict).toBe('rejected');
        }
      });
    });
  }
});

/** verify's verdict on a reply's balance: a money call's acceptance must show one (expectBalance); other calls are not asked. */
function verifyBalanceVerdict(s: Setup, c: Call): 'pass' | 'fail' {
  if (MONEY_OPERATIONS[c.operation] === undefined) return 'pass';
  try {
    s.ctx.expectBalance(stepOf(s, c), START - BET, c.operation);
    return 'pass';
  } catch {
    return 'fail';
  }
}

function nest(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

/** The reply without its balance members (the dialect's balance paths, under the operation's root). */
function stripBalance(dialect: Dialect, body: Record<string, unknown>): Record<string, unknown> {
  const spec = dialect.reply.balance;
  const paths = typeof spec === 'string' ? [spec] : spec.sum;
  const copy = structuredClone(body);
  const roots = [copy, ...Object.values(copy).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object')];
  for (const root of roots) {
    for (const path of paths) {
      const keys = path.split('.');
      let node: Record<string, unknown> | undefined = root;
      for (const key of keys.slice(0, -1)) node = node?.[key] as Record<string, unknown> | undefined;
      if (node) delete node[keys.at(-1) as string];
    }
  }
  return copy;
}
