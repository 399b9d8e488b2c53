import { describe, expect, it } from 'vitest';
import { BUILTIN_DIALECTS, builtinDialect } from './builtin/index.ts';
import {
  isAlreadyProcessed,
  isRefusal,
  isRetry,
  isRetryCode,
  RULE_NAMES,
  repeatAgrees,
  replyBalanceRule,
  rulesOf,
  saferDialect,
  tokenHandedOver,
  unknownRollbackAccepts,
  unknownRollbackAnswer,
  unknownRollbackRule,
} from './judge.ts';
import { readReply, writeReply } from './reply.ts';
import type { Dialect, OutcomeCode } from './schema.ts';

const EUR = { operation: 'bet' as const, currency: 'EUR' };

/** What a correct wallet writes under the dialect, as status and text. */
function written(dialect: Dialect, answer: Parameters<typeof writeReply>[2], operation: 'bet' | 'rollback' = 'bet') {
  const facts = { operation, currency: 'EUR', requestId: 'req-1', transactionId: 'tx-1', playerId: 'p1' };
  const reply = writeReply(dialect, facts, answer, (minor) => minor / 100);
  return { status: reply.status, text: JSON.stringify(reply.body) };
}
const accepted = (dialect: Dialect, minor: number) => written(dialect, { accepted: true, balanceMinor: minor });
const refused = (dialect: Dialect, refusal: OutcomeCode, minor?: number) =>
  written(dialect, { accepted: false, refusal, balanceMinor: minor });

describe('repeatAgrees: one rule for "the same reply again"', () => {
  it('current-balance (Pragmatic, Groove, Habanero, Slotegrator): the same outcome with the balance as it is now', () => {
    for (const name of ['pragmatic', 'groove', 'habanero', 'slotegrator'] as const) {
      const dialect = builtinDialect(name);
      // DEBIT b1 → 99, CREDIT 5 → 104, DEBIT b1 again → 104: what the dialect prescribes.
      expect(repeatAgrees(dialect, EUR, accepted(dialect, 9_900), accepted(dialect, 10_400)), name).toEqual({
        agrees: true,
        by: 'current-balance',
        balance: 'current',
      });
      expect(
        repeatAgrees(dialect, EUR, accepted(dialect, 9_900), refused(dialect, 'INSUFFICIENT_FUNDS', 9_900)).agrees,
        name,
      ).toBe(false);
    }
  });

  it("same-reply (Blue Ocean, default; Hub88 under aggmock's safer reading): the same status and JSON, apart from what it echoes", () => {
    const hub88 = saferDialect(builtinDialect('hub88')) as Dialect;
    expect(hub88.reply.duplicates).toBe('same-reply');
    const first = accepted(hub88, 9_900);
    const echoedAnew = { ...first, text: first.text.replace('req-1', 'req-2') };
    expect(echoedAnew.text).not.toBe(first.text);
    expect(repeatAgrees(hub88, EUR, first, echoedAnew)).toEqual({ agrees: true, by: 'same-reply', balance: 'replayed' });
    expect(repeatAgrees(hub88, EUR, first, accepted(hub88, 10_400)).agrees).toBe(false);
    expect(repeatAgrees(hub88, EUR, first, { ...first, status: 201 }).agrees).toBe(false);
  });

  it('same-outcome (Evolution, Caleta, Red Tiger, SoftSwiss): the same verdict, code and balance; the message may differ', () => {
    const evolution = builtinDialect('evolution');
    const first = accepted(evolution, 9_900);
    const body = JSON.parse(first.text);
    expect(repeatAgrees(evolution, EUR, first, { status: 200, text: JSON.stringify({ ...body, message: 'again' }) }).agrees).toBe(
      true,
    );
    expect(repeatAgrees(evolution, EUR, first, accepted(evolution, 10_400))).toEqual({
      agrees: false,
      by: 'same-outcome',
      balance: 'replayed',
    });
  });

  it('the vendor\'s "already processed" code acknowledges a repeat of an accepted call of its operation', () => {
    const evolution = builtinDialect('evolution');
    expect(isAlreadyProcessed(evolution, 'BET_ALREADY_SETTLED', 'win')).toBe(true);
    expect(isAlreadyProcessed(evolution, 'BET_ALREADY_EXIST', 'bet')).toBe(true);
    // Evolution's test tool: a repeated debit is BET_ALREADY_EXIST, a repeated credit or cancel BET_ALREADY_SETTLED.
    expect(isAlreadyProcessed(evolution, 'BET_ALREADY_EXIST', 'win')).toBe(false);
    expect(isAlreadyProcessed(evolution, 'BET_DOES_NOT_EXIST', 'rollback')).toBe(false);
    const first = accepted(evolution, 9_900);
    const win = { operation: 'win' as const, currency: 'EUR' };
    expect(repeatAgrees(evolution, win, first, refused(evolution, 'ALREADY_SETTLED'))).toEqual({
      agrees: true,
      by: 'acknowledged',
      balance: 'none',
    });
    expect(repeatAgrees(evolution, win, first, refused(evolution, 'ALREADY_SETTLED', 9_900)).agrees).toBe(true);
    expect(repeatAgrees(evolution, EUR, first, refused(evolution, 'DUPLICATE_TRANSACTION', 9_900)).agrees).toBe(true);
    // With a balance, it must be the one the rule asks for (the first one, on a same-outcome wire).
    expect(repeatAgrees(evolution, win, first, refused(evolution, 'ALREADY_SETTLED', 5_000)).agrees).toBe(false);
    // A refusal is no acknowledgement of a refusal, and another operation's code is none at all.
    expect(
      repeatAgrees(evolution, win, refused(evolution, 'INSUFFICIENT_FUNDS'), refused(evolution, 'ALREADY_SETTLED')).agrees,
    ).toBe(false);
    expect(repeatAgrees(evolution, win, first, refused(evolution, 'DUPLICATE_TRANSACTION')).agrees).toBe(false);
    // A dialect without acknowledgements per operation: its ALREADY_SETTLED codes, for every operation.
    const groove = builtinDialect('groove');
    expect(isAlreadyProcessed(groove, '110', 'bet')).toBe(true);
  });
});

describe('unknown rollbacks', () => {
  it('answers as the dialect says: Evolution refuses with its not-found code, Caleta allows both; silent vendors allow either', () => {
    const caleta = builtinDialect('caleta');
    const hub88 = builtinDialect('hub88');
    const evolution = builtinDialect('evolution');
    const read = (d: Dialect, r: { status: number; text: string }) => readReply(d, { operation: 'rollback', currency: 'EUR' }, r);
    // Caleta's OAS lists RS_ERROR_TRANSACTION_DOES_NOT_EXIST as a final rollback answer; RS_OK is only preferred.
    expect([unknownRollbackRule(caleta), unknownRollbackAnswer(caleta)]).toEqual(['either', 'acknowledge']);
    expect(unknownRollbackAccepts(caleta, read(caleta, accepted(caleta, 100)))).toBe(true);
    expect(unknownRollbackAccepts(caleta, read(caleta, refused(caleta, 'TRANSACTION_NOT_FOUND')))).toBe(true);
    const preferred = saferDialect(caleta) as Dialect;
    expect(unknownRollbackAccepts(preferred, read(caleta, refused(caleta, 'TRANSACTION_NOT_FOUND')))).toBe(false);
    expect(unknownRollbackAccepts(caleta, read(caleta, refused(caleta, 'INSUFFICIENT_FUNDS')))).toBe(false);
    // Evolution's Test_debitCancelBetDoesNotExist: BET_DOES_NOT_EXIST, and OK is no answer.
    expect(unknownRollbackAccepts(evolution, read(evolution, refused(evolution, 'TRANSACTION_NOT_FOUND')))).toBe(true);
    expect(unknownRollbackAccepts(evolution, read(evolution, accepted(evolution, 100)))).toBe(false);
    const notFound = read(hub88, refused(hub88, 'TRANSACTION_NOT_FOUND'));
    expect(unknownRollbackRule(hub88)).toBe('either');
    expect(unknownRollbackAccepts(hub88, notFound)).toBe(true);
    expect(unknownRollbackAccepts(hub88, read(hub88, refused(hub88, 'INSUFFICIENT_FUNDS')))).toBe(false);
    expect(unknownRollbackAccepts(hub88, { verdict: 'retry' })).toBe(false);
  });
});

describe('which replies carry a balance', () => {
  it('money calls and the balance call must; authenticate and end of round may; a reply documented without one need not', () => {
    const pragmatic = builtinDialect('pragmatic');
    expect(replyBalanceRule(pragmatic, 'bet')).toBe('required');
    expect(replyBalanceRule(pragmatic, 'balance')).toBe('required');
    expect(replyBalanceRule(pragmatic, 'authenticate')).toBe('optional');
    expect(replyBalanceRule(pragmatic, 'endRound')).toBe('optional');
    expect(replyBalanceRule(pragmatic, 'rollback')).toBe('none');
    expect(replyBalanceRule(builtinDialect('caleta'), 'authenticate')).toBe('none');
  });
});

describe('tokens, refusals and retries', () => {
  it('a token is handed over only by an accepted reply of an operation whose reply names one (Caleta)', () => {
    const caleta = builtinDialect('caleta');
    const auth = { operation: 'authenticate' as const, currency: 'EUR' };
    const ok = readReply(caleta, auth, { status: 200, text: '{"token":"new-token","status":"RS_OK"}' });
    expect(tokenHandedOver(ok)).toBe('new-token');
    const no = readReply(caleta, auth, { status: 200, text: '{"token":"x","status":"RS_ERROR_INVALID_TOKEN"}' });
    expect(tokenHandedOver(no)).toBeUndefined();
    expect(
      tokenHandedOver(readReply(caleta, EUR, { status: 200, text: '{"token":"x","status":"RS_OK","balance":1}' })),
    ).toBeUndefined();
  });

  it('a refusal is final; a retry status, a retry code in a 2xx (Pragmatic 100) or garbage is tried again', () => {
    const pragmatic = builtinDialect('pragmatic');
    const retryCode = readReply(pragmatic, EUR, { status: 200, text: '{"error":100,"description":"internal"}' });
    expect([isRetry(retryCode), isRetryCode(pragmatic, retryCode), isRefusal(retryCode)]).toEqual([true, true, false]);
    const status = readReply(pragmatic, EUR, { status: 503, text: '' });
    expect([isRetry(status), isRetryCode(pragmatic, status)]).toEqual([true, false]);
    expect(isRetry(readReply(pragmatic, EUR, { status: 200, text: '<html>' }))).toBe(true);
    const refusal = readReply(pragmatic, EUR, refused(pragmatic, 'INSUFFICIENT_FUNDS'));
    expect([isRefusal(refusal), isRetry(refusal)]).toEqual([true, false]);
    expect(isRefusal(readReply(pragmatic, EUR, accepted(pragmatic, 1)))).toBe(false);
  });
});

describe('rulesOf: each rule as data, with room for its source and strictness', () => {
  it.each(BUILTIN_DIALECTS)('%s lists every rule once, each saying what it accepts', (name) => {
    const rules = rulesOf(builtinDialect(name));
    expect(rules.map((r) => r.rule)).toEqual([...RULE_NAMES]);
    for (const rule of rules) expect(rule.accepts.length).toBeGreaterThan(10);
  });

  it('says where a rule comes from, and what aggmock asks beyond it', () => {
    const retry = rulesOf(builtinDialect('softswiss')).find((r) => r.rule === 'retry');
    expect(retry).toMatchObject({ grade: 'unknown', source: expect.stringMatching(/^unknown: aggmock accepts /) });
    const caleta = rulesOf(builtinDialect('caleta')).find((r) => r.rule === 'unknown-rollback');
    expect(caleta?.accepts).toBe('an acknowledgement with the balance unchanged, or the TRANSACTION_NOT_FOUND refusal');
    expect(caleta).toMatchObject({ grade: 'vendor', safer: expect.stringContaining('acknowledgement') });
    expect(rulesOf(builtinDialect('default')).every((r) => r.grade === 'stated')).toBe(true);
  });
});
