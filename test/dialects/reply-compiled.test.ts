import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  balancePaths,
  builtinDialect,
  type CallFacts,
  codecOf,
  DIALECT_NAMES,
  type Dialect,
  OPERATIONS,
  type Operation,
  OUTCOME_CODES,
  type OutcomeCode,
  type ReadReply,
  readAmount,
  readReply,
  type Scalar,
  writeAmount,
  writeReply,
} from '../../src/dialects/index.ts';
import type { DialectBalance, DialectVerdict, ReadOptions, ReplyText } from '../../src/dialects/reply.ts';
import { jsonDepth } from '../../src/http/body.ts';
import { MAX_JSON_DEPTH } from '../../src/http/limits.ts';
import { type AmountCodec, amountCodec } from '../../src/money/index.ts';
import { parseJsonOr, setAt, valueAt } from '../../src/shared/index.ts';

/*
 * The compiled reply reader (src/dialects/reply.ts: each operation's rules worked out once per
 * dialect) against the reader it replaced, kept here as it was: the dialect's rules read path by
 * path on every reply, the raw balance literal found by JSON-parsing each key, its exactness by a
 * pattern made per reply. Both must read every reply alike — verdict, code, outcome, message,
 * balance, exactness, echoes, token, and the members present in one order — for every built-in
 * dialect and operation, over the replies a correct wallet writes and replies that are wrong in
 * every way the rules look at. verify, the ledger, the engine and the load generator all read
 * replies with it.
 */

// ---- the reader as it was -------------------------------------------------------------------

const at = (object: unknown, path: string) => valueAt(object, path.split('.'));
const codeText = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
const listOf = (value: Scalar | Scalar[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

function plainStatusIn(status: number, classes: readonly string[]): boolean {
  return classes.some((c) => {
    if (c.endsWith('xx')) return status >= Number(c[0]) * 100 && status <= Number(c[0]) * 100 + 99;
    const [from, to] = c.split('-').map(Number) as [number, number | undefined];
    return status >= from && status <= (to ?? from);
  });
}

function plainOutcomeOf(dialect: Dialect, code: string | undefined): OutcomeCode | undefined {
  if (code === undefined) return undefined;
  return OUTCOME_CODES.find((name) => listOf(dialect.reply.codes[name]).includes(code));
}

function plainParseObject(text: string): Record<string, unknown> | undefined {
  let i = 0;
  while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  if (text[i] !== '{' || jsonDepth(text) > MAX_JSON_DEPTH) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function plainWithin(object: Record<string, unknown> | undefined, root: string | undefined) {
  if (!object || root === undefined) return object;
  const inner = at(object, root);
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
}

function signalsError(value: unknown): boolean {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  return value === true;
}

/** The raw text of a top-level member's value, every key read by JSON.parse (as it was). */
function plainRawTopLevelValue(text: string, key: string): string | undefined {
  const space = (from: number) => {
    let i = from;
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
    return i;
  };
  const endOfString = (from: number) => {
    if (text[from] !== '"') return -1;
    for (let i = from + 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    return -1;
  };
  const endOfValue = (from: number): number => {
    const c = text[from];
    if (c === '"') return endOfString(from);
    if (c === '{' || c === '[') {
      let depth = 0;
      for (let i = from; i < text.length; i++) {
        const ch = text[i];
        if (ch === '"') {
          i = endOfString(i) - 1;
          if (i < 0) return -1;
        } else if (ch === '{' || ch === '[') depth++;
        else if (ch === '}' || ch === ']') {
          depth--;
          if (depth === 0) return i + 1;
        }
      }
      return -1;
    }
    let i = from;
    while (i < text.length && !',}] \t\n\r'.includes(text[i] as string)) i++;
    return i > from ? i : -1;
  };
  let i = space(0);
  if (text[i] !== '{') return undefined;
  i = space(i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = endOfString(i);
    if (keyEnd < 0) return undefined;
    const name = parseJsonOr(text.slice(i, keyEnd), undefined);
    i = space(keyEnd);
    if (text[i] !== ':') return undefined;
    const start = space(i + 1);
    const end = endOfValue(start);
    if (end < 0) return undefined;
    if (name === key) return text.slice(start, end);
    i = space(end);
    if (text[i] === ',') i = space(i + 1);
  }
  return undefined;
}

/** Exactness with its pattern made on every call (as it was). */
function plainExact(literal: string | undefined, codec: AmountCodec): boolean {
  if (literal === undefined) return false;
  const { format, as, exponent } = amountCodec(codec);
  const quoted = literal.startsWith('"');
  if (quoted && as !== 'string') return false;
  const text = quoted ? literal.slice(1, -1) : literal;
  const decimals = format === 'minor' || exponent === 0 ? '' : `(\\.\\d{1,${exponent}})?`;
  return new RegExp(`^-?(0|[1-9]\\d*)${decimals}$`).test(text);
}

function plainReadReply(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  reply: ReplyText,
  options: ReadOptions = {},
): ReadReply {
  const own = dialect.operations[facts.operation as Operation]?.reply;
  const object = plainWithin(plainParseObject(reply.text), own?.root);
  const uncoded = own?.code === false && !(object && dialect.reply.code && at(object, dialect.reply.code) !== undefined);
  const rules = uncoded ? { ...dialect.reply, code: undefined, ok: undefined, success: undefined } : dialect.reply;
  const rawCode = rules.code && object ? at(object, rules.code) : undefined;
  const code =
    rules.ok === undefined && !signalsError(rawCode) && plainOutcomeOf(dialect, codeText(rawCode)) === undefined
      ? undefined
      : codeText(rawCode);
  let message: string | undefined;
  for (const path of object ? rules.message : []) {
    const value = at(object, path);
    if (typeof value === 'string' && value !== '') {
      message = value;
      break;
    }
  }
  let verdict: DialectVerdict;
  if (plainStatusIn(reply.status, rules.status.retry)) verdict = 'retry';
  else if (!plainStatusIn(reply.status, rules.status.answer)) verdict = 'rejected';
  else if (!object) verdict = 'invalid';
  else if (code !== undefined && (own?.retryCodes ?? rules.retryCodes).some((c) => String(c) === code)) verdict = 'retry';
  else {
    const flag = rules.success ? at(object, rules.success.path) === rules.success.equals : true;
    const ok = rules.ok === undefined ? !signalsError(rawCode) : code !== undefined && listOf(rules.ok).includes(code);
    verdict =
      rules.ok !== undefined && code === undefined && rules.success === undefined
        ? 'invalid'
        : ok && flag
          ? 'accepted'
          : 'rejected';
  }
  const paths =
    verdict === 'rejected' && rules.balanceOnRejection === false
      ? undefined
      : balancePaths(dialect, facts.operation as Operation);
  const currencies = options.currencies ?? facts.currencies;
  let balance: DialectBalance = { kind: 'none' };
  if (object && paths) {
    let total: number | undefined;
    for (const path of paths) {
      const raw = at(object, path);
      if (raw === undefined || raw === null) continue;
      const minor = readAmount(dialect, facts.currency, raw, currencies);
      if (minor === undefined) {
        balance = { kind: 'invalid', raw };
        total = undefined;
        break;
      }
      total = (total ?? 0) + minor;
    }
    if (total !== undefined) balance = { kind: 'ok', minor: total };
  }
  const exact =
    balance.kind === 'ok' && paths?.length === 1 && own?.root === undefined && !(paths[0] as string).includes('.')
      ? plainExact(plainRawTopLevelValue(reply.text, paths[0] as string), {
          ...codecOf(dialect, facts.currency, currencies),
          as: 'string',
        })
      : undefined;
  const echoMismatches: string[] = [];
  if (object && verdict === 'accepted') {
    for (const fact in rules.echo) {
      const path = rules.echo[fact as keyof typeof rules.echo] as string;
      const sent = facts[fact as keyof CallFacts];
      const echoed = at(object, path as string);
      if (sent !== undefined && echoed !== undefined && String(echoed) !== String(sent))
        echoMismatches.push(`${path}: sent ${String(sent)}, echoed ${String(echoed)}`);
    }
  }
  const outcome = verdict === 'rejected' ? plainOutcomeOf(dialect, code) : undefined;
  const token = own?.token && object && verdict === 'accepted' ? at(object, own.token) : undefined;
  return {
    ...(typeof token === 'string' && token !== '' ? { token } : {}),
    verdict,
    status: reply.status,
    ...(code === undefined ? {} : { code }),
    ...(outcome === undefined ? {} : { outcome }),
    ...(message === undefined ? {} : { message }),
    balance,
    ...(exact === undefined ? {} : { balanceExact: exact }),
    echoMismatches,
  };
}

// ---- replies of every kind --------------------------------------------------------------------

const DIALECTS = DIALECT_NAMES.map((name) => builtinDialect(name));
const STATUSES = [200, 201, 204, 299, 301, 400, 401, 403, 404, 408, 409, 412, 422, 429, 500, 502, 503, 599, 600, 650, 799];
const CURRENCIES = ['EUR', 'JPY', 'KWD', 'BTC', 'USDT', 'eur'];

/** Every path a dialect's reply rules read, with the values that matter there. */
function pathsOf(dialect: Dialect): string[] {
  const r = dialect.reply;
  const out = new Set<string>([...r.message, ...Object.values(r.echo)]);
  if (r.code) out.add(r.code);
  if (r.success) out.add(r.success.path);
  for (const op of OPERATIONS) {
    for (const p of balancePaths(dialect, op) ?? []) out.add(p);
    const own = dialect.operations[op]?.reply;
    if (own?.token) out.add(own.token);
  }
  return [...out];
}

/** The codes a dialect names anywhere, as written and as text. */
function codesOf(dialect: Dialect): Scalar[] {
  const r = dialect.reply;
  const out: Scalar[] = [...r.retryCodes, ...[r.ok ?? []].flat()];
  for (const name of OUTCOME_CODES) out.push(...[r.codes[name] ?? []].flat());
  for (const op of OPERATIONS) out.push(...(dialect.operations[op]?.reply?.retryCodes ?? []));
  if (r.success) out.push(r.success.equals, r.success.otherwise ?? false);
  return [...out, ...out.map(String)];
}

const junk = fc.constantFrom<unknown>(
  0,
  '',
  false,
  true,
  null,
  7,
  '7',
  'OK',
  'x',
  [],
  {},
  { a: 1 },
  109.71000000000001,
  1.005,
  -0,
  1e21,
  '995.291',
  '10.50',
  ' 5',
  '1e3',
  'tok-9',
);
const amount = fc.oneof(
  fc.integer({ min: -5_000_000, max: 5_000_000 }).map((minor) => minor / 100),
  fc.integer({ min: 0, max: 50_000_000 }),
  fc.integer({ min: 0, max: 5_000_000 }).map((minor) => (minor / 100).toFixed(2)),
  fc.integer({ min: 0, max: 5_000_000 }).map((minor) => (minor / 100).toFixed(3)),
);

/** Replies a wallet could write: the paths the rules read set to the dialect's codes, amounts or junk, wrapped or not. */
function replyArb(dialect: Dialect) {
  const paths = pathsOf(dialect);
  const codes = codesOf(dialect);
  const roots = [...new Set(OPERATIONS.map((op) => dialect.operations[op]?.reply?.root).filter((r): r is string => !!r))];
  const value = fc.oneof(fc.constantFrom<unknown>(...(codes.length ? codes : [0])), amount, junk);
  const body = fc
    .tuple(
      fc.subarray(paths),
      fc.array(value, { minLength: paths.length, maxLength: paths.length }),
      fc.option(fc.constantFrom(...(roots.length ? roots : ['wrapped'])), { nil: undefined }),
    )
    .map(([chosen, values, root]) => {
      const inner: Record<string, unknown> = {};
      chosen.forEach((path, i) => {
        setAt(inner, path, values[i]);
      });
      if (root === undefined) return inner;
      const outer: Record<string, unknown> = {};
      setAt(outer, root, inner);
      return outer;
    });
  const text = fc.oneof(
    { weight: 6, arbitrary: body.map((b) => JSON.stringify(b)) },
    { weight: 2, arbitrary: body.map((b) => ` \n${JSON.stringify(b, null, 1)}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'OK', 'null', '[]', '[{"balance":1}]', '{', '{"balance":1', '"x"', '5') },
    // Nested deeper than the limit, long and short.
    {
      weight: 1,
      arbitrary: fc.constantFrom(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`, `{"balance":${'['.repeat(33)}1${']'.repeat(33)}}`),
    },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    // The raw literal of a top-level balance as a wallet may write it.
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('1', '1.5', '1.50', '1.505', '109.71000000000001', '-0', '01', '1e2', '"2.50"', '"2.5"', '2.0', '100000')
        .chain((lit) =>
          fc.constantFrom(
            `{"x\\u0062":1,"balance":${lit},"cash":${lit},"bonus":0}`,
            // The key written with an escape is the same key.
            `{"bal\\u0061nce":${lit},"c\\u0061sh":${lit}}`,
            `{ "balance" : ${lit} , "cash":${lit} }`,
          ),
        ),
    },
  );
  return text;
}

function factsArb(dialect: Dialect) {
  const ops = Object.keys(dialect.operations) as Operation[];
  return fc.record({
    operation: fc.constantFrom<Operation>(...ops, ...OPERATIONS.filter((op) => !ops.includes(op)).slice(0, 1)),
    currency: fc.constantFrom(...CURRENCIES),
    requestId: fc.option(fc.constantFrom('req-1', '7', 'tok-9'), { nil: undefined }),
    transactionId: fc.option(fc.constantFrom('tx-1', '7', 'x'), { nil: undefined }),
    playerId: fc.option(fc.constantFrom('p1', 'x'), { nil: undefined }),
    currencies: fc.option(fc.constantFrom<Record<string, number>>({ BTC: 8, USDT: 6 }, {}), { nil: undefined }),
  });
}

/** Both readers' answers, members in order (toStrictEqual also tells a member set to undefined from one left out). */
function expectSame(dialect: Dialect, facts: Parameters<typeof readReply>[1], reply: ReplyText, options?: ReadOptions) {
  const compiled = readReply(dialect, facts, reply, options);
  const plain = plainReadReply(dialect, facts, reply, options);
  expect(compiled).toStrictEqual(plain);
  expect(Object.keys(compiled)).toEqual(Object.keys(plain));
}

describe('the compiled reply reader reads as the plain one did', () => {
  it.each(DIALECTS.map((d) => [d.name, d] as const))('%s: generated replies, valid and malformed', (_name, dialect) => {
    fc.assert(
      fc.property(
        factsArb(dialect),
        replyArb(dialect),
        fc.constantFrom(...STATUSES),
        fc.boolean(),
        (facts, text, status, viaOptions) => {
          const { currencies, ...rest } = facts;
          if (viaOptions) expectSame(dialect, rest, { status, text }, { currencies });
          else expectSame(dialect, facts, { status, text });
        },
      ),
      { numRuns: 120, seed: 35 },
    );
  });

  it.each(DIALECTS.map((d) => [d.name, d] as const))('%s: what a correct wallet writes, every outcome', (_name, dialect) => {
    for (const operation of Object.keys(dialect.operations) as Operation[]) {
      for (const currency of ['EUR', 'JPY', 'BTC']) {
        const facts = { operation, currency, requestId: 'req-1', transactionId: 'tx-1', playerId: 'p1', currencies: { BTC: 8 } };
        const write = (minor: number) => writeAmount(dialect, currency, minor, facts.currencies);
        const answers = [
          { accepted: true as const, balanceMinor: 12_300_000 },
          ...OUTCOME_CODES.map((refusal) => ({ accepted: false as const, refusal, balanceMinor: 50_000_000 })),
        ];
        for (const answer of answers) {
          const written = writeReply(dialect, facts, answer, write);
          expectSame(dialect, facts, { status: written.status, text: JSON.stringify(written.body) });
        }
      }
    }
  });

  it('reads a dialect afresh when its reply rules are replaced', () => {
    const base = builtinDialect('hub88');
    const facts = { operation: 'bet' as const, currency: 'EUR' };
    const reply = { status: 200, text: '{"status":"RS_OK","balance":100000}' };
    expect(readReply(base, facts, reply).verdict).toBe('accepted');
    const renamed: Dialect = { ...base, reply: { ...base.reply, ok: 'DONE' } };
    expect(readReply(renamed, facts, reply).verdict).toBe('rejected');
    const same = base.operations;
    const mutable = { ...base, operations: { ...same } } as Dialect;
    readReply(mutable, facts, reply);
    mutable.reply = renamed.reply;
    expect(readReply(mutable, facts, reply)).toStrictEqual(plainReadReply(mutable, facts, reply));
    expect(readReply(base, facts, reply).verdict).toBe('accepted');
  });
});
