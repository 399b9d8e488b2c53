import { describe, expect, it } from 'vitest';
import { judgeReply, readingOfWire } from '../../src/callbacks/reply.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { parseBody, renderBody, type WireFields, wireOf, writeReplyBody } from '../../src/profiles/index.ts';

const wireFor = (callbacks: AggmockConfigInput['callbacks'] = {}) => wireOf(validateConfig({ callbacks }).callbacks);
const DEFAULT = wireFor({ extraFields: ['roundId', 'gameId', 'currency', 'bonus'], rollbackStyle: 'reference' });
const BETNEX = wireFor({ profile: 'betnex', apiKey: 'k1', currencies: { USDT: 6 } });

/** What renderBody writes, read back by parseBody. */
const roundTrip = (wire: typeof DEFAULT, fields: WireFields) => parseBody(wire, JSON.parse(renderBody(wire, fields)));

describe('parseBody: the inverse of renderBody', () => {
  const base = { transactionId: 'tx-1', playerId: 'p1', roundId: 'r-1', gameId: 'g-1', currency: 'EUR' };

  it.each([
    ['debit', 1050],
    ['credit', 0],
    ['rollback', 1050],
  ] as const)('reads back a default-profile %s with every extra field', (kind, amountMinor) => {
    const fields: WireFields = {
      ...base,
      kind,
      amountMinor,
      ...(kind === 'rollback' ? { referenceTransactionId: 'tx-0' } : { bonus: { kind: 'jackpot', id: 'jp-1' } }),
    };
    const { gameName: _g, provider: _p, ...expected } = { ...fields, gameName: undefined, provider: undefined };
    expect(roundTrip(DEFAULT, fields)).toEqual({ ok: true, event: expected });
  });

  it('reads a betnex body: the kind follows from bet and win, the api_key, the game name, the provider and the bonus come back', () => {
    const debit = roundTrip(BETNEX, { ...base, kind: 'debit', amountMinor: 250, bonus: { kind: 'free-spins', id: 'fs-1' } });
    expect(debit).toEqual({
      ok: true,
      event: {
        kind: 'debit',
        transactionId: 'tx-1',
        playerId: 'p1',
        amountMinor: 250,
        currency: 'EUR',
        roundId: 'r-1',
        gameId: 'g-1',
        // The game name and provider fields have defaults in the betnex profile, written when the event names none.
        gameName: 'aggmock test game',
        provider: 'AGGMOCK',
        apiKey: 'k1',
        bonus: { kind: 'free-spins', id: 'fs-1' },
      },
    });
    const named = roundTrip(BETNEX, { ...base, kind: 'debit', amountMinor: 250, gameName: 'Sweet Bonanza', provider: 'PGSOFT' });
    expect(named).toMatchObject({ ok: true, event: { gameName: 'Sweet Bonanza', provider: 'PGSOFT' } });
    // Descriptive fields never refuse a body: a long name is taken, another type is left out.
    const body = JSON.parse(renderBody(BETNEX, { ...base, kind: 'debit', amountMinor: 250 }));
    const long = parseBody(BETNEX, { ...body, game_name: 'x'.repeat(1_000) });
    expect(long).toMatchObject({ ok: true, event: { gameName: 'x'.repeat(1_000) } });
    const odd = parseBody(BETNEX, { ...body, game_name: 42, game_provider: null });
    expect(odd.ok).toBe(true);
    expect(odd.ok && [odd.event.gameName, odd.event.provider]).toEqual([undefined, undefined]);
    expect(roundTrip(BETNEX, { ...base, kind: 'credit', amountMinor: 900 })).toMatchObject({
      event: { kind: 'credit', amountMinor: 900 },
    });
    // A free spin with nothing won: bet 0, win 0 is a zero-amount CREDIT.
    expect(roundTrip(BETNEX, { ...base, kind: 'debit', amountMinor: 0 })).toMatchObject({
      event: { kind: 'credit', amountMinor: 0 },
    });
  });

  it('reads a betnex body with both a bet and a win as one whole round', () => {
    const body = { ...JSON.parse(renderBody(BETNEX, { ...base, kind: 'debit', amountMinor: 100 })), win_amount: 3.5 };
    expect(parseBody(BETNEX, body)).toMatchObject({ ok: true, event: { kind: 'round', amountMinor: 100, winMinor: 350 } });
  });

  it('reads amounts in the currency’s decimals: the body’s, else the player’s', () => {
    const usdt = roundTrip(BETNEX, { ...base, kind: 'debit', amountMinor: 1_234_567, currency: 'USDT' });
    expect(usdt).toMatchObject({ ok: true, event: { amountMinor: 1_234_567, currency: 'USDT' } });
    const noCurrency = { type: 'DEBIT', transactionId: 't', amount: 150, playerId: 'jp' };
    expect(parseBody(DEFAULT, noCurrency, { currencyOf: () => 'JPY' })).toMatchObject({ event: { amountMinor: 150 } });
    const fraction = parseBody(DEFAULT, { ...noCurrency, amount: 1.5 }, { currencyOf: () => 'JPY' });
    expect(fraction).toEqual({
      ok: false,
      errors: [{ field: 'amount', message: expect.stringMatching(/with no decimals.*got 1\.5$/), received: 1.5 }],
    });
  });

  it('names every wrong field with what was expected', () => {
    const wrong = parseBody(BETNEX, {
      bet_amount: 1.001,
      win_amount: 0,
      member_account: '',
      serial_number: 'tx',
      currency_code: 'NOPE1',
      data: { bonus_type: 'lottery', bonus_id: 'b' },
    });
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.errors.map((e) => e.field).sort()).toEqual(['currency_code', 'data.bonus_type', 'member_account']);
    const badAmount = parseBody(BETNEX, { bet_amount: 1.001, win_amount: 0, member_account: 'p1', serial_number: 'tx' });
    expect(!badAmount.ok && badAmount.errors).toEqual([
      { field: 'bet_amount', message: expect.stringMatching(/at most 2 decimals.*got 1\.001/), received: 1.001 },
    ]);
    expect(parseBody(DEFAULT, { type: 'BET', transactionId: 't', amount: 1, playerId: 'p' })).toEqual({
      ok: false,
      errors: [{ field: 'type', message: 'expected one of "DEBIT", "CREDIT", "ROLLBACK"', received: 'BET' }],
    });
    expect(parseBody(DEFAULT, [1])).toMatchObject({ ok: false, errors: [{ field: '(body)' }] });
  });

  it('refuses negative amounts unless asked to let them through', () => {
    const body = { type: 'DEBIT', transactionId: 't', amount: -5, playerId: 'p1' };
    expect(parseBody(DEFAULT, body).ok).toBe(false);
    expect(parseBody(DEFAULT, body, { allowNegative: true })).toMatchObject({ ok: true, event: { amountMinor: -500 } });
  });
});

describe('writeReplyBody: what judgeReply reads back', () => {
  const cases = [
    ['default', DEFAULT],
    ['betnex', BETNEX],
  ] as const;

  it.each(cases)('%s: an acceptance carries the balance in the currency’s decimals', (_, wire) => {
    for (const [currency, minor] of [
      ['EUR', 1050],
      ['JPY', 1050],
      ['USDT', 1_000_001],
    ] as const) {
      const text = JSON.stringify(writeReplyBody(wire.reading(currency), { accepted: true, balanceMinor: minor }));
      expect(judgeReply({ status: 200, text }, readingOfWire(wire, currency))).toMatchObject({
        verdict: 'accepted',
        balance: { kind: 'ok', minor },
      });
    }
  });

  it.each(cases)(
    '%s: a rejection is a rejection, with the balance only when the profile’s rejections carry one',
    (name, wire) => {
      const body = writeReplyBody(wire.reading('EUR'), {
        accepted: false,
        code: 'INSUFFICIENT_FUNDS',
        message: 'not enough',
        balanceMinor: 500,
      });
      const judged = judgeReply({ status: 200, text: JSON.stringify(body) }, readingOfWire(wire, 'EUR'));
      expect(judged.verdict).toBe('rejected');
      expect(judged.message).toBe('not enough');
      if (name === 'default') {
        expect(body).toEqual({ error: 'INSUFFICIENT_FUNDS', message: 'not enough', balance: 5 });
        expect(judged.balance).toEqual({ kind: 'ok', minor: 500 });
      } else {
        expect(body).toEqual({ success: false, msg: 'not enough', handle: false, money: 0 });
        expect(judged.balance).toEqual({ kind: 'none' });
      }
    },
  );

  it('writes nested paths and a non-boolean success flag a judge can read', () => {
    const wire = wireFor({
      profile: {
        name: 'nested',
        events: BETNEX.definition.events,
        reply: { balance: 'data.balance', success: { path: 'status', equals: 'OK' }, error: 'code' },
        signing: { scheme: 'none' },
      },
    });
    const accepted = writeReplyBody(wire.reading(), { accepted: true, balanceMinor: 120 });
    expect(accepted).toEqual({ status: 'OK', data: { balance: 1.2 } });
    const rejected = writeReplyBody(wire.reading(), { accepted: false, code: 'PLAYER_NOT_FOUND', message: 'who?' });
    expect(rejected).toEqual({ status: 'error', message: 'who?' });
    expect(judgeReply({ status: 200, body: accepted }, readingOfWire(wire)).verdict).toBe('accepted');
    expect(judgeReply({ status: 200, body: rejected }, readingOfWire(wire)).verdict).toBe('rejected');
  });
});
