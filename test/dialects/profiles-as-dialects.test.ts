import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeReply, readingOfWire } from '../../src/callbacks/reply.ts';
import { callbacksSchema, dialectOf, signOptionsOf } from '../../src/config/index.ts';
import { buildRequest, type CallFacts, readReply } from '../../src/dialects/index.ts';
import { dialectOfProfile } from '../../src/dialects/profile.ts';
import { profileDefinitionSchema, renderBody, signCallback, type WireFields, wireOf } from '../../src/profiles/index.ts';

/**
 * The built-in `default` and `betnex` dialects (src/dialects/builtin) and a converted profile file
 * put the same bytes on the wire as the profile renderer of old: the same body for every event and
 * the same signature headers, for the default wire in every configuration and for Betnex.
 */

const OPERATION = { debit: 'bet', credit: 'win', rollback: 'rollback' } as const;

const fieldsArb = fc.record({
  kind: fc.constantFrom('debit', 'credit', 'rollback') as fc.Arbitrary<'debit' | 'credit' | 'rollback'>,
  transactionId: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  referenceTransactionId: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), { nil: undefined }),
  playerId: fc.string({ minLength: 1, maxLength: 20 }),
  amountMinor: fc.integer({ min: 0, max: 10_000_000 }),
  winMinor: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
  roundId: fc.option(fc.stringMatching(/^r_[a-z0-9]{1,10}$/), { nil: undefined }),
  gameId: fc.option(fc.stringMatching(/^[0-9a-f]{32}$/), { nil: undefined }),
  gameName: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  provider: fc.option(fc.constantFrom('PGSOFT', 'SPRIBE'), { nil: undefined }),
  currency: fc.constantFrom('EUR', 'JPY', 'KWD', 'USD'),
  bonus: fc.option(
    fc.record({
      kind: fc.constantFrom('free-spins', 'jackpot', 'promotion') as fc.Arbitrary<'free-spins' | 'jackpot' | 'promotion'>,
      id: fc.stringMatching(/^b[0-9]{1,5}$/),
    }),
    { nil: undefined },
  ),
  createdAt: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
});

const settingsArb = fc.record({
  dialect: fc.constant('default'),
  rollbackStyle: fc.constantFrom('original', 'reference') as fc.Arbitrary<'original' | 'reference'>,
  amountFormat: fc.constantFrom('decimal', 'minor') as fc.Arbitrary<'decimal' | 'minor'>,
  types: fc.constantFrom(
    { debit: 'DEBIT', credit: 'CREDIT', rollback: 'ROLLBACK' },
    { debit: 'BET', credit: 'WIN', rollback: 'REFUND' },
  ),
  extraFields: fc.subarray(['roundId', 'gameId', 'currency', 'timestamp', 'bonus'] as const),
  signing: fc.record({
    scheme: fc.constantFrom('timestamped', 'hmac-hex', 'standard-webhooks') as fc.Arbitrary<
      'timestamped' | 'hmac-hex' | 'standard-webhooks'
    >,
    secrets: fc.constant(['aggmock-dev-secret', 'second-secret']),
  }),
});

function factsOf(f: WireFields & { kind: 'debit' | 'credit' | 'rollback' }): CallFacts {
  return {
    operation: OPERATION[f.kind],
    playerId: f.playerId,
    currency: f.currency ?? 'EUR',
    transactionId: f.transactionId,
    betTransactionId: f.referenceTransactionId,
    amountMinor: f.amountMinor,
    winMinor: f.winMinor,
    roundId: f.roundId,
    gameId: f.gameId,
    gameName: f.gameName,
    provider: f.provider,
    bonus: f.bonus,
    createdAt: f.createdAt as number,
  };
}

describe('a profile as a dialect', () => {
  it('writes the default wire byte for byte, in every configuration, with the same signature headers', () => {
    fc.assert(
      fc.property(settingsArb, fieldsArb, (raw, f) => {
        const settings = callbacksSchema.parse(raw);
        const wire = wireOf(settings);
        const dialect = dialectOf(settings);
        expect(dialect.calls.rollbackStyle).toBe(settings.rollbackStyle);
        const expected = renderBody(wire, f);
        const req = buildRequest(
          dialect,
          factsOf(f),
          { apiKey: settings.apiKey },
          {
            scheme: { scheme: settings.signing.scheme, secrets: settings.signing.secrets, headerNames: settings.signing.headers },
            timestamp: 1_790_000_000,
            id: 'msg_fixed',
          },
        );
        expect(req.body).toBe(expected);
        expect(req.path).toBe('');
        const headers = signCallback(wire, settings.signing, expected, { timestamp: 1_790_000_000, id: 'msg_fixed' });
        for (const [name, value] of Object.entries(headers)) expect(req.headers[name]).toBe(value);
      }),
      { numRuns: 100 },
    );
  });

  it('writes the Betnex wire byte for byte, API key in the body and no signature header', () => {
    fc.assert(
      fc.property(
        fieldsArb.filter((f) => f.kind !== 'rollback'),
        (f) => {
          const settings = callbacksSchema.parse({ dialect: 'betnex', apiKey: 'op-key-1' });
          const wire = wireOf(settings);
          const dialect = dialectOf(settings);
          const req = buildRequest(dialect, factsOf(f), { apiKey: 'op-key-1' });
          expect(req.body).toBe(renderBody(wire, f));
          expect(Object.keys(req.headers)).toEqual(['content-type']);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads replies as judgeReply does: the same verdict and balance', () => {
    const replies = [
      [200, '{"balance":10.5}'],
      [200, '{"balance":"10.50"}'],
      [200, '{"error":"INSUFFICIENT_FUNDS","balance":1}'],
      [200, '{"error":0,"balance":3}'],
      [402, '{"error":"INSUFFICIENT_FUNDS"}'],
      [500, 'oops'],
      [429, ''],
      [200, 'not json'],
      [301, ''],
    ] as const;
    const settings = callbacksSchema.parse({});
    const wire = wireOf(settings);
    const dialect = dialectOf(settings);
    for (const [status, text] of replies) {
      const mine = readReply(dialect, { operation: 'bet', currency: 'EUR' }, { status, text });
      const theirs = judgeReply({ status, text }, readingOfWire(wire, 'EUR'));
      expect({ status, text, verdict: mine.verdict }).toEqual({ status, text, verdict: theirs.verdict });
      if (theirs.balance.kind === 'ok') expect(mine.balance).toEqual(theirs.balance);
    }
  });

  it('converts a profile file once, when the configuration is validated: the same bytes, its rollback style read from the file', () => {
    const file = {
      name: 'acme',
      events: {
        debit: {
          type: 'BET',
          body: { kind: { from: 'type' }, id: { from: 'transactionId' }, user: { from: 'playerId' }, sum: { from: 'amount' } },
        },
        credit: {
          type: 'WIN',
          body: { kind: { from: 'type' }, id: { from: 'transactionId' }, user: { from: 'playerId' }, sum: { from: 'amount' } },
        },
        rollback: {
          type: 'UNDO',
          body: {
            kind: { from: 'type' },
            id: { from: 'transactionId' },
            of: { from: 'referenceTransactionId' },
            user: { from: 'playerId' },
            sum: { from: 'amount' },
          },
        },
      },
      amounts: { format: 'minor' },
    };
    for (const key of ['dialect', 'profile'] as const) {
      const settings = callbacksSchema.parse({ [key]: file });
      expect(typeof settings.dialect).toBe('object');
      expect(Object.hasOwn(settings, 'profile')).toBe(false);
      const dialect = dialectOf(settings);
      expect(dialect).toEqual(dialectOfProfile(profileDefinitionSchema.parse(file)));
      expect(dialect.calls).toEqual({ rollbackStyle: 'reference', winsNameBet: false, idHexDigits: 24 });
      fc.assert(
        fc.property(fieldsArb, (f) => {
          expect(buildRequest(dialect, factsOf(f), { apiKey: settings.apiKey }, signOptionsOf(settings)).body).toBe(
            renderBody(wireOf(settings), f),
          );
        }),
        { numRuns: 40 },
      );
    }
    // Without referenceTransactionId in its rollback body, a rollback carries the bet's id as its own.
    const { of: _of, ...original } = file.events.rollback.body;
    const plain = callbacksSchema.parse({
      dialect: { ...file, events: { ...file.events, rollback: { type: 'UNDO', body: original } } },
    });
    expect(dialectOf(plain).calls.rollbackStyle).toBe('original');
    expect(() => callbacksSchema.parse({ dialect: 'default', profile: 'betnex' })).toThrow(/old name of callbacks.dialect/);
  });
});
