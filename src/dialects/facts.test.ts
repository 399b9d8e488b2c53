import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_DIALECTS,
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Credentials,
  type Dialect,
  dialectSchema,
  MONEY_OPERATIONS,
  type Operation,
  readFacts,
  recogniseCall,
  type SignedRequest,
} from './index.ts';

/** The development credentials a dialect declares: what `aggmock wallet --profile <name>` starts with. */
function devCredentials(dialect: Dialect): Credentials {
  return Object.fromEntries(
    Object.entries(dialect.credentials).flatMap(([name, c]) => (c.default === undefined ? [] : [[name, c.default]])),
  );
}

const asReceived = (req: SignedRequest) => ({ method: req.method, path: req.path, headers: req.headers, body: req.body ?? '' });

const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,15}$/);

/** The facts of one call of `operation`, as the engine would make them. */
function factsOf(operation: Operation) {
  const money = MONEY_OPERATIONS[operation];
  return fc.record({
    operation: fc.constant(operation),
    playerId: id,
    currency: fc.constantFrom('EUR', 'USD', 'JPY'),
    transactionId: id,
    betTransactionId: money === 'credit' || money === 'reverse' ? id : fc.constant(undefined),
    amountMinor: money ? fc.integer({ min: 0, max: 50_000_000 }) : fc.constant(undefined),
    winMinor: operation === 'betWin' ? fc.integer({ min: 1, max: 50_000_000 }) : fc.constant(undefined),
    roundId: fc.option(id, { nil: undefined }),
    roundClosed: fc.option(fc.boolean(), { nil: undefined }),
    gameId: fc.option(id, { nil: undefined }),
    bonus: fc.option(fc.record({ kind: fc.constantFrom('free-spins', 'jackpot', 'promotion'), id }), { nil: undefined }),
    sessionToken: id,
    requestId: id,
    createdAt: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
  }) as fc.Arbitrary<CallFacts>;
}

const IDENTITY = [
  'playerId',
  'currency',
  'transactionId',
  'betTransactionId',
  'amountMinor',
  'winMinor',
  'sessionToken',
  'requestId',
] as const;

describe('readFacts: the inverse of a dialect\u2019s fields', () => {
  for (const name of BUILTIN_DIALECTS) {
    const dialect = builtinDialect(name);
    const credentials = devCredentials(dialect);
    for (const operation of Object.keys(dialect.operations) as Operation[]) {
      it(`${name} ${operation}: reads back every fact the request carries, and rendering them again gives the same request`, () => {
        fc.assert(
          fc.property(factsOf(operation), (facts) => {
            const sent = buildRequest(dialect, facts, credentials);
            const reading = recogniseCall(dialect, asReceived(sent), { currencyOf: () => facts.currency });
            if (!reading.ok) throw new Error(`${reading.message}\n${JSON.stringify(sent)}`);
            expect(reading.operation).toBe(operation);
            for (const fact of IDENTITY) {
              const value = reading.facts[fact];
              if (value !== undefined) expect({ fact, value }).toEqual({ fact, value: facts[fact] });
            }
            // A wire without a currency or a time is read with the player's currency and rendered at the original time.
            const again = buildRequest(
              dialect,
              { createdAt: facts.createdAt, currency: facts.currency, ...reading.facts } as CallFacts,
              credentials,
            );
            expect(again).toEqual(sent);
          }),
          { numRuns: 60 },
        );
      });
    }
  }

  it('reads the player, the ids and the amount in minor units of a Hub88 bet (× 100000 on the wire)', () => {
    const hub88 = builtinDialect('hub88');
    const sent = buildRequest(
      hub88,
      {
        operation: 'bet',
        playerId: 'p1',
        currency: 'EUR',
        transactionId: 'tx-1',
        amountMinor: 356,
        roundId: 'r-9',
        sessionToken: 'tok',
        requestId: 'req-1',
        createdAt: 0,
      },
      devCredentials(hub88),
    );
    expect(JSON.parse(sent.body ?? '')).toMatchObject({ amount: 356_000 });
    expect(recogniseCall(hub88, asReceived(sent))).toMatchObject({
      ok: true,
      operation: 'bet',
      facts: {
        playerId: 'p1',
        transactionId: 'tx-1',
        amountMinor: 356,
        currency: 'EUR',
        roundId: 'r-9',
        sessionToken: 'tok',
        requestId: 'req-1',
      },
    });
  });

  it('tells a SoftSwiss bet, win and balance apart on the one /play path by their actions', () => {
    const softswiss = builtinDialect('softswiss');
    const base = { playerId: 'p1', currency: 'EUR', createdAt: 0 };
    const credentials = devCredentials(softswiss);
    const kinds = (['balance', 'bet', 'win', 'betWin'] as const).map((operation) => {
      const facts = {
        ...base,
        operation,
        transactionId: 'a1',
        amountMinor: 100,
        ...(operation === 'betWin' ? { winMinor: 50 } : {}),
      };
      const reading = recogniseCall(softswiss, asReceived(buildRequest(softswiss, facts, credentials)));
      return reading.ok ? reading.operation : reading.message;
    });
    expect(kinds).toEqual(['balance', 'bet', 'win', 'betWin']);
  });

  it('tells Blue Ocean calls apart on one URL by their action, and reads the caller credentials from the query', () => {
    const blueocean = builtinDialect('blueocean');
    const sent = buildRequest(
      blueocean,
      {
        operation: 'win',
        playerId: 'p1',
        currency: 'EUR',
        transactionId: 't2',
        amountMinor: 250,
        sessionToken: 's',
        createdAt: 0,
      },
      { callerId: 'me', callerPassword: 'pw', salt: 'salt' },
    );
    expect(recogniseCall(blueocean, asReceived(sent))).toMatchObject({
      ok: true,
      operation: 'win',
      facts: { amountMinor: 250 },
      credentials: { callerId: 'me', callerPassword: 'pw' },
    });
  });

  it('reads the API key of a Red Tiger Authorization header and the secret in a 100HP body as credentials', () => {
    const facts = {
      operation: 'bet' as const,
      playerId: 'p1',
      currency: 'EUR',
      transactionId: 't',
      amountMinor: 1,
      createdAt: 0,
    };
    const redtiger = builtinDialect('redtiger');
    const hp = builtinDialect('100hp');
    expect(
      recogniseCall(redtiger, asReceived(buildRequest(redtiger, { ...facts, sessionToken: 's' }, { apiKey: 'k1' }))),
    ).toMatchObject({
      credentials: { apiKey: 'k1' },
    });
    expect(
      recogniseCall(hp, asReceived(buildRequest(hp, { ...facts, sessionToken: 's' }, { secret: 'x' })), {
        currencyOf: () => 'EUR',
      }),
    ).toMatchObject({
      credentials: { secret: 'x' },
    });
  });

  it('names the route it expected for a path no call has', () => {
    const reading = recogniseCall(builtinDialect('hub88'), {
      method: 'POST',
      path: '/transaction/bets',
      headers: {},
      body: '{}',
    });
    expect(reading).toMatchObject({ ok: false, reason: 'no-route' });
    expect(!reading.ok && reading.message).toContain('POST /transaction/bet');
  });

  it('refuses an amount the wire cannot carry exactly, naming the field and the wire\u2019s format', () => {
    const hub88 = builtinDialect('hub88');
    const body = JSON.stringify({ user: 'p1', transaction_uuid: 't', currency: 'EUR', amount: 100_500, request_uuid: 'r' });
    const reading = readFacts(hub88, 'bet', { method: 'POST', path: '/transaction/bet', headers: {}, body });
    expect(reading).toMatchObject({ ok: false });
    expect(!reading.ok && reading.message).toMatch(/amount: 100500 is not an amount of EUR/);
  });

  it('refuses a body that is not JSON on a JSON wire, and two fields that disagree on one fact', () => {
    const hub88 = builtinDialect('hub88');
    expect(readFacts(hub88, 'bet', { method: 'POST', path: '/transaction/bet', headers: {}, body: 'user=p1' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('not JSON'),
    });
    const body = JSON.stringify({ user: 'p1', transaction_uuid: 't1', supplier_transaction_id: 't2', request_uuid: 'r' });
    expect(readFacts(hub88, 'bet', { method: 'POST', path: '/transaction/bet', headers: {}, body })).toMatchObject({
      ok: false,
      message: expect.stringContaining('supplier_transaction_id'),
    });
  });
});

describe('a field that carries JSON text (Evoplay details)', () => {
  const dialect = dialectSchema.parse({
    name: 'json-text',
    signing: { algorithm: 'none' },
    operations: {
      bet: {
        path: '',
        fields: {
          name: { const: 'bet' },
          id: { from: 'transactionId' },
          amount: { from: 'amount' },
          currency: { from: 'currency' },
          details: { json: { object: { game: { object: { game_id: { from: 'gameId', default: '1001' } } } } } },
        },
      },
      win: { path: '', fields: { name: { const: 'win' }, id: { from: 'transactionId' } } },
    },
  });
  const bet: CallFacts = {
    operation: 'bet',
    playerId: 'p1',
    currency: 'EUR',
    transactionId: 'tx-1',
    amountMinor: 100,
    gameId: 'slot "7"',
    createdAt: 0,
  };

  it('is written as the JSON text of its inner field, escaped, and read back to the facts inside it', () => {
    const req = buildRequest(dialect, bet, {});
    expect(JSON.parse(req.body as string).details).toBe('{"game":{"game_id":"slot \\"7\\""}}');
    const reading = readFacts(dialect, 'bet', asReceived(req));
    expect(reading).toMatchObject({ ok: true, facts: { transactionId: 'tx-1', gameId: 'slot "7"' } });
  });

  it('refuses a value that is not JSON text, naming the field', () => {
    const req = buildRequest(dialect, bet, {});
    const body = JSON.stringify({ ...JSON.parse(req.body as string), details: '{"game":' });
    expect(readFacts(dialect, 'bet', { ...asReceived(req), body })).toEqual({
      ok: false,
      message: expect.stringContaining('details: expected JSON text, got "{\\"game\\":"'),
    });
  });
});
