import { describe, expect, it } from 'vitest';
import { builtinDialect, callProblem, fieldProblems, operationOfBody } from '../../src/dialects/index.ts';

/*
 * Why a JSON call cannot be read, field by field (src/dialects/field-check.ts): the reference
 * wallet's refusals on every wire. Each check is shown catching a wrong body and passing right
 * ones written in several ways.
 */

const EUR = { currency: 'EUR' };
const fields = (problems: { field: string }[]) => problems.map((p) => p.field).sort();

describe('fieldProblems', () => {
  const def = builtinDialect('default');
  const betnex = builtinDialect('betnex');
  const hub88 = builtinDialect('hub88');

  it('passes right bodies of default, betnex and hub88, with and without optional members', () => {
    expect(fieldProblems(def, 'bet', { type: 'DEBIT', transactionId: 't', amount: 10.5, playerId: 'p1' }, EUR)).toEqual([]);
    expect(fieldProblems(def, 'win', { type: 'CREDIT', transactionId: 't', amount: 0, playerId: 'p1', extra: [1] }, EUR)).toEqual(
      [],
    );
    const round = {
      bet_amount: 1,
      win_amount: 2.5,
      member_account: 'p1',
      serial_number: 's',
      api_key: 'k',
      currency_code: 'EUR',
    };
    expect(fieldProblems(betnex, 'bet', { ...round, bet_amount: 100 }, EUR)).toEqual([]);
    expect(
      fieldProblems(betnex, 'bet', { ...round, data: { bonus_type: 'jackpot', bonus_id: 'j1' } }, { currency: 'EUR' }),
    ).toEqual([]);
    const bet = { user: 'p1', transaction_uuid: 't', amount: 1_050_000, currency: 'EUR', token: 'x' };
    expect(fieldProblems(hub88, 'bet', bet, EUR)).toEqual([]);
  });

  it('names every missing or wrong id, the amount in the wire’s format, and nothing else', () => {
    expect(fields(fieldProblems(def, 'bet', { type: 'DEBIT' }, EUR))).toEqual(['amount', 'playerId', 'transactionId']);
    const [amount] = fieldProblems(def, 'bet', { type: 'DEBIT', transactionId: 't', amount: 1.005, playerId: 'p1' }, EUR);
    expect(amount).toEqual({
      field: 'amount',
      message: 'expected a JSON number in major units, 0 or more, with at most 2 decimals, e.g. 10.5, got 1.005',
      received: 1.005,
    });
    expect(
      fields(fieldProblems(def, 'bet', { type: 'DEBIT', transactionId: 'x'.repeat(300), amount: 1, playerId: 7 }, EUR)),
    ).toEqual(['playerId', 'transactionId']);
    // Hub88 writes integers × 100000: 10.5 is not its amount, and 100500 (1.005 EUR) is no whole cent.
    expect(fields(fieldProblems(hub88, 'bet', { user: 'p1', transaction_uuid: 't', amount: 10.5 }, EUR))).toEqual(['amount']);
    expect(fields(fieldProblems(hub88, 'bet', { user: 'p1', transaction_uuid: 't', amount: 100_500 }, EUR))).toEqual(['amount']);
  });

  it('refuses negative amounts unless told to let them through', () => {
    const body = { type: 'DEBIT', transactionId: 't', amount: -1, playerId: 'p1' };
    expect(fields(fieldProblems(def, 'bet', body, EUR))).toEqual(['amount']);
    expect(fieldProblems(def, 'bet', body, { ...EUR, allowNegative: true })).toEqual([]);
  });

  it('reads amounts in the body’s currency, else the player’s, and refuses an unknown one', () => {
    const yen = { bet_amount: 1.5, win_amount: 0, member_account: 'jp', serial_number: 's', api_key: 'k' };
    expect(fields(fieldProblems(betnex, 'bet', yen, { ...EUR, currencyOf: () => 'JPY' }))).toEqual(['bet_amount']);
    expect(fieldProblems(betnex, 'bet', yen, EUR)).toEqual([]);
    expect(fields(fieldProblems(betnex, 'bet', { ...yen, currency_code: 'ZZZZ' }, EUR))).toEqual(['currency_code']);
    expect(fields(fieldProblems(betnex, 'bet', { ...yen, currency_code: 'USDT' }, EUR))).toEqual(['currency_code']);
    expect(fieldProblems(betnex, 'bet', { ...yen, currency_code: 'USDT' }, { ...EUR, currencies: { USDT: 6 } })).toEqual([]);
  });

  it('checks a bonus: a known kind with its id', () => {
    const base = { bet_amount: 0, win_amount: 1, member_account: 'p1', serial_number: 's', api_key: 'k' };
    expect(fields(fieldProblems(betnex, 'bet', { ...base, data: { bonus_type: 'cashback', bonus_id: 'b' } }, EUR))).toEqual([
      'data.bonus_type',
    ]);
    expect(fields(fieldProblems(betnex, 'bet', { ...base, data: { bonus_type: 'jackpot' } }, EUR))).toEqual(['data.bonus_id']);
    expect(fieldProblems(betnex, 'bet', { ...base, data: { bonus_type: null } }, EUR)).toEqual([]);
  });
});

describe('callProblem and operationOfBody', () => {
  const def = builtinDialect('default');
  const routes = ['bet', 'win', 'rollback'] as const;

  it('finds the call by the constant that tells the calls at one address apart', () => {
    expect(operationOfBody(def, routes, { type: 'CREDIT' })).toBe('win');
    expect(operationOfBody(def, routes, { type: 'ROLLBACK', transactionId: 't' })).toBe('rollback');
    expect(callProblem(def, routes, { type: 'CREDIT' })).toBeUndefined();
  });

  it('names that constant and its values when the body is none of them', () => {
    expect(operationOfBody(def, routes, { type: 'BONUS' })).toBeUndefined();
    expect(callProblem(def, routes, { type: 'BONUS' })).toEqual({
      field: 'type',
      message: 'expected one of "DEBIT", "CREDIT", "ROLLBACK"',
      received: 'BONUS',
    });
    expect(callProblem(def, routes, {})).toMatchObject({ field: 'type' });
    // Calls no constant tells apart (Betnex's bet and win share one body) have no such problem.
    expect(callProblem(builtinDialect('betnex'), ['bet', 'win'], {})).toBeUndefined();
  });
});
