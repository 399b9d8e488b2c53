import { afterAll, describe, expect, it } from 'vitest';
import {
  builtinDialect,
  type CallFacts,
  type Dialect,
  type OutcomeCode,
  readReply,
  resentAfter,
  rolledBackAfter,
  writeReply,
} from '../../src/dialects/index.ts';
import { PLAYER, VENDORS } from '../dialects/vendor-table.ts';
import { type K6Send, k6Scripts } from './k6-module.ts';

/**
 * What the k6 export's round does after a bet's answer must be what `aggmock load` does with the
 * same answer (src/load/rounds.ts): accepted → the win follows; a refusal → the round ends; an
 * outcome the generator cannot know → the bet is rolled back. The script sends each call once, so an
 * answer the generator would send again (a retry status or code) leaves the outcome unknown too.
 * The expectation is computed with aggmock's own reader and rules (readReply, rolledBackAfter,
 * resentAfter), never restated here.
 */

const scripts = k6Scripts();
const scriptFor = scripts.scriptFor;
afterAll(() => scripts.remove());

/** An object with `value` at a dotted path. */
function withAt(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

/** Answers to a bet every dialect can be given: its own codes at its own code path, and the odd ones. */
function answersFor(dialect: Dialect): { status: number; body: string }[] {
  const path = dialect.reply.code;
  const codes = [
    ...[dialect.reply.ok ?? []].flat(),
    ...(dialect.operations.bet?.reply?.rolledBackOn ?? []),
    ...(dialect.operations.bet?.reply?.retryCodes ?? dialect.reply.retryCodes),
    'SOMETHING_ELSE',
    500,
  ];
  const wrap = (o: Record<string, unknown>) => {
    const root = dialect.operations.bet?.reply?.root;
    return JSON.stringify(root ? withAt(root, o) : o);
  };
  // A correct wallet's own replies (the reference wallet writes them): accepted, and each refusal.
  const facts = { operation: 'bet', currency: 'EUR' } as CallFacts;
  const written = [
    writeReply(dialect, facts, { accepted: true, balanceMinor: 1000 }, (m) => m / 100),
    ...Object.keys(dialect.reply.codes).map((refusal) =>
      writeReply(dialect, facts, { accepted: false, refusal: refusal as OutcomeCode, balanceMinor: 1000 }, (m) => m / 100),
    ),
  ].map((r) => ({ status: r.status, body: JSON.stringify(r.body) }));
  return [
    ...written,
    ...(path ? codes.map((c) => ({ status: 200, body: wrap({ ...withAt(path, c), balance: 10 }) })) : []),
    { status: 200, body: '<html>gateway</html>' },
    { status: 200, body: wrap({ balance: 10 }) },
    { status: 500, body: 'oops' },
    { status: 503, body: wrap(path ? withAt(path, [dialect.reply.ok ?? 0].flat()[0]) : {}) },
    { status: 429, body: '' },
    { status: 404, body: 'not found' },
    { status: 400, body: wrap(path ? withAt(path, 'BAD') : {}) },
  ];
}

/** What aggmock load does after this answer to a bet: the next call of a bet-win round, or none. */
function generatorNext(dialect: Dialect, answer: { status: number; body: string }): 'win' | 'rollback' | 'none' {
  const facts = { operation: 'bet', currency: 'EUR' } as CallFacts;
  const r = readReply(dialect, facts, { status: answer.status, text: answer.body });
  const sentAgain = r.verdict === 'retry' || resentAfter(dialect, r, 'bet');
  if (sentAgain || r.verdict === 'invalid' || rolledBackAfter(dialect, r, 'bet')) return 'rollback';
  return r.verdict === 'accepted' ? 'win' : 'none';
}

/** The dialects the k6 export carries (aggmock's own header schemes it refuses). */
const K6_VENDORS = VENDORS.map((v) => v.name).filter((name) => builtinDialect(name).signing.algorithm !== 'scheme');

describe('the k6 export ends a round after a bet as aggmock load does', () => {
  it.each(K6_VENDORS)('%s: win, rollback or nothing after each answer, as the generator', async (name) => {
    const dialect = builtinDialect(name);
    const vendor = VENDORS.find((v) => v.name === name);
    const dev = Object.fromEntries(
      Object.entries(dialect.credentials).flatMap(([k, c]) => (c.default === undefined ? [] : [[k, c.default]])),
    );
    const script = await scriptFor(dialect, { ...dev, ...vendor?.credentials });
    const seen: string[] = [];
    for (const answer of answersFor(dialect)) {
      const sent: string[] = [];
      // k6 tags each request with its operation (the script passes them to http.request).
      const send: K6Send = async (_method, _url, _body, params) => {
        sent.push(params.tags.operation);
        return sent.length === 1 ? answer : { status: 200, body: '{}' };
      };
      await script.round({ run: 'r1', roundBase: 1000, tokens: {} }, 'bet-win', PLAYER.playerId, send);
      const next = sent[1] ?? 'none';
      expect(next, `${name}: the bet answered ${answer.status} ${answer.body}`).toBe(generatorNext(dialect, answer));
      seen.push(next);
    }
    // Every dialect's table reaches each ending at least once, or the comparison proves little.
    expect(new Set(seen), name).toEqual(new Set(['win', 'rollback', 'none']));
  });

  it("Caleta's RS_ERROR_UNKNOWN and RS_ERROR_TIMEOUT are rolled back; RS_ERROR_NOT_ENOUGH_MONEY is final", async () => {
    const caleta = builtinDialect('caleta');
    const script = await scriptFor(caleta, {});
    const callsAfter = async (code: string) => {
      const sent: string[] = [];
      await script.round({ run: 'r2', roundBase: 2000, tokens: {} }, 'bet-lose', PLAYER.playerId, async (_m, url, body) => {
        sent.push(`${new URL(url).pathname} ${JSON.parse(body ?? '{}').reference_transaction_uuid ?? ''}`.trim());
        return { status: 200, body: JSON.stringify({ status: sent.length === 1 ? code : 'RS_OK', balance: 100 }) };
      });
      return sent;
    };
    for (const code of ['RS_ERROR_UNKNOWN', 'RS_ERROR_TIMEOUT']) {
      const [bet, rollback] = await callsAfter(code);
      expect(bet).toBe('/wallet/bet');
      expect(rollback).toMatch(/^\/wallet\/rollback ld-r2-\d+$/);
    }
    expect(await callsAfter('RS_ERROR_NOT_ENOUGH_MONEY')).toEqual(['/wallet/bet']);
  });
});
