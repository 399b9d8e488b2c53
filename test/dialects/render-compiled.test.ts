import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema, credentialsOf, dialectOf, signOptionsOf } from '../../src/config/index.ts';
import {
  BONUS_KINDS,
  buildRequest,
  type CallFacts,
  type Credentials,
  DIALECT_NAMES,
  type Dialect,
  DialectRequestError,
  FACTS,
  type Fact,
  type Field,
  type Fields,
  type Operation,
  type Rendered,
  type Scalar,
  signRequest,
  type UnsignedRequest,
  unsignedRequest,
} from '../../src/dialects/index.ts';
import { factValue, fillTemplate } from '../../src/dialects/request.ts';

/*
 * The compiled renderer (src/dialects/request.ts: each field, template and operation turned once
 * into a function) against the plain one it replaced, kept here as it was: the definition read
 * field by field on every call. Both must give the same request, byte for byte, signed the same,
 * for every built-in dialect and operation; and fail alike when a credential is missing.
 */

function plainField(dialect: Dialect, facts: CallFacts, credentials: Credentials, field: Field): Rendered | undefined {
  if ('const' in field) return field.const;
  if ('credential' in field) return plainCredential(credentials, field.credential);
  if ('template' in field) return fillTemplate(field.template, (name) => plainPlaceholder(dialect, facts, credentials, name));
  if ('list' in field)
    return field.list
      .map((inner) => plainField(dialect, facts, credentials, inner))
      .filter((v): v is Rendered => v !== undefined);
  if ('object' in field) {
    const out = plainFields(dialect, facts, credentials, field.object);
    return field.omitWhenEmpty && Object.keys(out).length === 0 ? undefined : out;
  }
  if ('json' in field) {
    const inner = plainField(dialect, facts, credentials, field.json);
    return inner === undefined ? undefined : JSON.stringify(inner);
  }
  const list = typeof field.from === 'string' ? [field.from] : field.from;
  let value: Scalar | undefined;
  for (const fact of list) {
    value = factValue(dialect, facts, fact);
    if (value !== undefined) break;
  }
  if (value !== undefined && field.map) {
    const key = String(value);
    value = Object.hasOwn(field.map, key) ? field.map[key] : field.default;
  }
  if (value === undefined) return field.default;
  if (field.as === 'string') return String(value);
  if (field.as === 'number') return typeof value === 'number' ? value : Number(value);
  if (field.as === 'negate') {
    if (typeof value === 'number') return value === 0 ? 0 : -value;
    if (typeof value === 'string' && /^\d/.test(value) && !/^0(\.0+)?$/.test(value)) return `-${value}`;
  }
  return value;
}

function plainFields(dialect: Dialect, facts: CallFacts, credentials: Credentials, fields: Fields): Record<string, Rendered> {
  const out: Record<string, Rendered> = Object.create(null);
  for (const [name, field] of Object.entries(fields)) {
    const value = plainField(dialect, facts, credentials, field);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function plainCredential(credentials: Credentials, name: string): string {
  const value = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
  if (value === undefined || value === '') throw new DialectRequestError(`the credential "${name}" is not set`);
  return value;
}

const FACT_NAMES: readonly string[] = FACTS;
function plainPlaceholder(dialect: Dialect, facts: CallFacts, credentials: Credentials, name: string): string {
  if (name.startsWith('credential.')) return plainCredential(credentials, name.slice('credential.'.length));
  const value = FACT_NAMES.includes(name) ? factValue(dialect, facts, name as Fact) : undefined;
  return value === undefined ? '' : String(value);
}

function plainRequest(dialect: Dialect, facts: CallFacts, credentials: Credentials): UnsignedRequest {
  const op = dialect.operations[facts.operation];
  if (!op) throw new DialectRequestError(`no ${facts.operation} call`);
  const headers: Record<string, string> = {};
  for (const [name, field] of [...Object.entries(dialect.request.headers), ...Object.entries(op.headers)]) {
    const value = plainField(dialect, facts, credentials, field);
    if (value !== undefined && typeof value !== 'object') headers[name.toLowerCase()] = String(value);
  }
  const path = fillTemplate(op.path, (name) => encodeURIComponent(plainPlaceholder(dialect, facts, credentials, name)));
  return {
    method: op.method,
    path,
    encoding: op.encoding ?? dialect.request.encoding,
    headers,
    fields: plainFields(dialect, facts, credentials, op.fields),
    query: plainFields(dialect, facts, credentials, dialect.request.query),
  };
}

/** Everything a request shows, in order: JSON text keeps member order, so equal text is equal bytes. */
const text = (value: unknown) => JSON.stringify(value);

const id = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/),
  fc.constantFrom('tx 1/ä?&=#', 'a+b', '%41', '{x}', 'ünïcødé', '"quoted"'),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

function factsArb(operation: Operation): fc.Arbitrary<CallFacts> {
  return fc.record({
    operation: fc.constant(operation),
    playerId: id,
    currency: fc.constantFrom('EUR', 'USD', 'JPY', 'BTC', 'KWD'),
    transactionId: maybe(id),
    betTransactionId: maybe(id),
    amountMinor: maybe(fc.integer({ min: 0, max: 10_000_000 })),
    winMinor: maybe(fc.integer({ min: 0, max: 10_000_000 })),
    roundId: maybe(id),
    roundClosed: maybe(fc.boolean()),
    gameId: maybe(id),
    gameName: maybe(id),
    provider: maybe(id),
    bonus: maybe(fc.record({ kind: fc.constantFrom(...BONUS_KINDS), id })),
    sessionToken: maybe(id),
    requestId: maybe(id),
    nonce: maybe(fc.stringMatching(/^[a-f0-9]{32}$/)),
    createdAt: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
    sentAt: maybe(fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })),
  });
}

/** A few runs a case by default; the nightly run raises them (FC_RUNS). */
const RUNS = Number(process.env.FC_RUNS ?? 6);

/** The result of rendering, or the error it threw (class and message). */
function outcome(render: () => unknown): unknown {
  try {
    return render();
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

describe('the compiled renderer renders what the dialect definition says, byte for byte', () => {
  for (const name of DIALECT_NAMES) {
    const config = configSchema.parse({ callbacks: { profile: name } });
    const dialect = dialectOf(config.callbacks);
    const credentials = credentialsOf(config.callbacks);
    const options = { ...signOptionsOf(config.callbacks), timestamp: 1_800_000_000 };
    const operations = Object.keys(dialect.operations) as Operation[];

    it(`${name}: every operation, unsigned and signed, equal to the plain rendering`, () => {
      for (const operation of operations)
        fc.assert(
          fc.property(factsArb(operation), (facts) => {
            const plain = outcome(() => plainRequest(dialect, facts, credentials));
            const compiled = outcome(() => unsignedRequest(dialect, facts, credentials));
            expect(text(compiled)).toBe(text(plain));
            if (typeof plain === 'object' && plain !== null && !('threw' in plain)) {
              const signedPlain = signRequest(dialect, plain as UnsignedRequest, credentials, options);
              expect(text(buildRequest(dialect, facts, credentials, options))).toBe(text(signedPlain));
            }
          }),
          { numRuns: RUNS },
        );
    });

    it(`${name}: a missing credential fails the compiled rendering as it fails the plain one`, () => {
      const facts: CallFacts = {
        operation: operations[0] as Operation,
        playerId: 'p1',
        currency: 'EUR',
        transactionId: 'tx-1',
        amountMinor: 1050,
        createdAt: 1_800_000_000_000,
      };
      for (const missing of Object.keys(credentials)) {
        const without = Object.fromEntries(Object.entries(credentials).filter(([k]) => k !== missing));
        expect(outcome(() => unsignedRequest(dialect, facts, without))).toEqual(
          outcome(() => plainRequest(dialect, facts, without)),
        );
      }
    });
  }

  it('keeps a member named __proto__ as a member (a null-prototype object there), as the plain rendering does', () => {
    const base = dialectOf(configSchema.parse({ callbacks: { profile: 'default' } }).callbacks);
    const bet = base.operations.bet as NonNullable<Dialect['operations']['bet']>;
    // JSON.parse makes "__proto__" an own member, as a dialect file read from disk would.
    const fields = JSON.parse('{"__proto__": {"from": "playerId"}, "tx": {"from": "transactionId"}}') as Fields;
    const dialect: Dialect = { ...base, operations: { ...base.operations, bet: { ...bet, fields } } };
    const facts: CallFacts = {
      operation: 'bet',
      playerId: 'p1',
      currency: 'EUR',
      transactionId: 'tx-1',
      amountMinor: 5,
      createdAt: 1,
    };
    const compiled = unsignedRequest(dialect, facts, {});
    expect(Object.hasOwn(compiled.fields, '__proto__')).toBe(true);
    expect(JSON.stringify(compiled.fields)).toBe('{"__proto__":"p1","tx":"tx-1"}');
    expect(text(compiled)).toBe(text(plainRequest(dialect, facts, {})));
  });

  it('catches a renderer that differs (the comparison is not vacuous)', () => {
    const dialect = dialectOf(configSchema.parse({ callbacks: { profile: 'pragmatic' } }).callbacks);
    const facts: CallFacts = {
      operation: 'bet',
      playerId: 'p1',
      currency: 'EUR',
      transactionId: 'tx-1',
      amountMinor: 1050,
      createdAt: 1,
    };
    const credentials = { secretKey: 'k' };
    const plain = plainRequest(dialect, facts, credentials);
    const other = unsignedRequest(dialect, { ...facts, amountMinor: 1051 }, credentials);
    expect(text(other)).not.toBe(text(plain));
    expect(text(unsignedRequest(dialect, facts, credentials))).toBe(text(plain));
  });
});
