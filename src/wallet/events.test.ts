import { describe, expect, it } from 'vitest';
import { type CallbackWireOptions, callbackBodySchema, parseCallbackBody } from './events.ts';

const DEFAULTS: CallbackWireOptions = {
  types: { debit: 'DEBIT', credit: 'CREDIT', rollback: 'ROLLBACK' },
  amountFormat: 'decimal',
};
const parse = (body: unknown, options = DEFAULTS) =>
  parseCallbackBody(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), callbackBodySchema(options));

describe('parseCallbackBody', () => {
  it('reads a DEBIT into minor units', () => {
    expect(parse({ type: 'DEBIT', transactionId: 'tx-1', amount: 10.5, playerId: 'p1' })).toEqual({
      ok: true,
      event: { kind: 'DEBIT', playerId: 'p1', transactionId: 'tx-1', amountMinor: 1_050 },
    });
  });

  it('ignores extra fields such as roundId, gameId, currency and timestamp', () => {
    const parsed = parse({
      type: 'CREDIT',
      transactionId: 'tx-1',
      amount: 1,
      playerId: 'p1',
      roundId: 'r',
      gameId: 'g',
      currency: 'EUR',
      timestamp: 1,
    });
    expect(parsed).toEqual({ ok: true, event: { kind: 'CREDIT', playerId: 'p1', transactionId: 'tx-1', amountMinor: 100 } });
  });

  it('takes the reversed DEBIT of a ROLLBACK from its own transactionId by default', () => {
    const parsed = parse({ type: 'ROLLBACK', transactionId: 'tx-1', amount: 1, playerId: 'p1' });
    expect(parsed.ok && parsed.event.debitTransactionId).toBe('tx-1');
  });

  it('takes the reversed DEBIT from referenceTransactionId when present', () => {
    const parsed = parse({ type: 'ROLLBACK', transactionId: 'rb-1', referenceTransactionId: 'tx-1', amount: 1, playerId: 'p1' });
    expect(parsed.ok && parsed.event).toMatchObject({ transactionId: 'rb-1', debitTransactionId: 'tx-1' });
  });

  it('maps configured type strings (BET/WIN/REFUND) to kinds and refuses the defaults then', () => {
    const custom = { ...DEFAULTS, types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } };
    expect(parse({ type: 'WIN', transactionId: 't', amount: 1, playerId: 'p1' }, custom)).toMatchObject({
      ok: true,
      event: { kind: 'CREDIT' },
    });
    const refused = parse({ type: 'CREDIT', transactionId: 't', amount: 1, playerId: 'p1' }, custom);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toMatch(/^type: .*"BET".*"WIN".*"REFUND"/);
  });

  it.each([
    ['a third decimal', 10.001, /amount: expected a JSON number in major units, 0 or more, with at most 2 decimals.*got 10\.001/],
    ['a negative amount', -5, /amount: .*got -5/],
    ['a string amount', '10.00', /amount: expected a JSON number/],
  ])('refuses %s and names the amount field', (_, amount, message) => {
    const parsed = parse({ type: 'DEBIT', transactionId: 'tx-1', amount, playerId: 'p1' });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(message);
    expect(!parsed.ok && parsed.errors[0]?.field).toBe('amount');
  });

  it('reads integer minor units when amountFormat is "minor", and refuses fractions then', () => {
    const minor: CallbackWireOptions = { ...DEFAULTS, amountFormat: 'minor' };
    expect(parse({ type: 'DEBIT', transactionId: 't', amount: 1050, playerId: 'p1' }, minor)).toMatchObject({
      ok: true,
      event: { amountMinor: 1_050 },
    });
    const refused = parse({ type: 'DEBIT', transactionId: 't', amount: 10.5, playerId: 'p1' }, minor);
    expect(!refused.ok && refused.message).toMatch(/amount: expected a whole number of minor units, 0 or more/);
  });

  it('reads an amount of 0 (a free spin, a losing round closed)', () => {
    expect(parse({ type: 'CREDIT', transactionId: 't', amount: 0, playerId: 'p1' })).toMatchObject({
      ok: true,
      event: { amountMinor: 0 },
    });
  });

  it('names every missing field', () => {
    const parsed = parse({ type: 'DEBIT' });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.errors.map((e) => e.field).sort()).toEqual(['amount', 'playerId', 'transactionId']);
  });

  it('refuses an empty transactionId and a numeric playerId, naming them', () => {
    const parsed = parse({ type: 'DEBIT', transactionId: '', amount: 1, playerId: 7 });
    expect(!parsed.ok && parsed.errors.map((e) => e.field).sort()).toEqual(['playerId', 'transactionId']);
  });

  it('explains a body that is not JSON', () => {
    const parsed = parse('{"type": "DEBIT",');
    expect(!parsed.ok && parsed.message).toMatch(/^\(body\): expected a JSON object, but the body is not valid JSON/);
  });

  it('refuses a JSON array or null as the body', () => {
    expect(parse([1, 2]).ok).toBe(false);
    expect(parse(null).ok).toBe(false);
  });
});
