import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DialectReading, judgeReply, type ReplyInput, replyText } from '../../src/callbacks/reply.ts';
import { callbacksSchema } from '../../src/config/index.ts';
import { repeatAgrees } from '../../src/dialects/judge.ts';
import { dialectOfProfile } from '../../src/dialects/profile.ts';
import { readReply } from '../../src/dialects/reply.ts';
import { rawTopLevelValue } from '../../src/dialects/reply-text.ts';
import { jsonDepth } from '../../src/http/body.ts';
import { MAX_JSON_DEPTH } from '../../src/http/limits.ts';
import { type AmountCodec, currencyExponent, decodeAmount, isExactAmountLiteral } from '../../src/money/index.ts';
import { type ProfileInput, profileDefinitionSchema, type ReplyRules } from '../../src/profiles/index.ts';
import { jsonEqual, parseJsonOr, valueAt } from '../../src/shared/index.ts';
import { BETNEX_PROFILE, defaultProfile } from '../profiles/builtin-profiles.ts';

/*
 * The gate of issue 31, kept as the permanent test of the one reply reader on the profile
 * dialects: the profile rules as the profile reader (`judgeReply`'s deleted profile half) applied
 * them are restated here, independently, as `profileRules`, and readReply under dialectOfProfile
 * must read every generated reply as they do (verdict, code, message, balance, balanceExact,
 * balanceOnRejection, success flags, message paths, repeats), over `default`, `betnex` and
 * profile files. Explicit cases below pin the odd replies one by one.
 */

/** The profile reader's rules, restated: what judgeReply answered for a profile before profiles became dialects. */
function profileRules(input: ReplyInput, rules: ReplyRules, codec: AmountCodec) {
  const { status } = input;
  const text = input.text;
  // The profile reader parsed what can start JSON (not after spaces), no deeper than MAX_JSON_DEPTH.
  const body =
    input.body !== undefined || text === undefined
      ? input.body
      : /^[{["0-9-]/.test(text) && jsonDepth(text) <= MAX_JSON_DEPTH
        ? parseJsonOr(text, text)
        : text;
  const object =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const at = (path: string) => (object ? valueAt(object, path.split('.')) : undefined);
  const rawError = at(rules.error);
  const error =
    typeof rawError === 'string'
      ? rawError || undefined
      : typeof rawError === 'number'
        ? rawError !== 0
          ? String(rawError)
          : undefined
        : rawError === true
          ? 'true'
          : undefined;
  const unsuccessful = object !== undefined && rules.success !== undefined && at(rules.success.path) !== rules.success.equals;
  const message = rules.message.map(at).find((v): v is string => typeof v === 'string' && v.length > 0);
  const verdict =
    status === 408 || status === 429 || status >= 500
      ? 'retry'
      : status >= 200 && status < 300
        ? object === undefined
          ? 'invalid'
          : error === undefined && !unsuccessful
            ? 'accepted'
            : 'rejected'
        : 'rejected';
  const readable = { ...codec, as: 'string' as const };
  const raw = verdict === 'rejected' && !rules.balanceOnRejection ? undefined : at(rules.balance);
  const minor = raw === undefined || raw === null ? undefined : decodeAmount(raw, readable);
  const balance =
    raw === undefined || raw === null ? { kind: 'none' } : minor === undefined ? { kind: 'invalid', raw } : { kind: 'ok', minor };
  const exact =
    balance.kind === 'ok' && text !== undefined && !rules.balance.includes('.')
      ? isExactAmountLiteral(rawTopLevelValue(text, rules.balance), readable)
      : undefined;
  return {
    verdict,
    status,
    ...(error === undefined ? {} : { error }),
    ...(message === undefined ? {} : { message }),
    balance,
    ...(exact === undefined ? {} : { balanceExact: exact }),
  };
}

/** The profile rule for a repeat: equal status and JSON, or for same-outcome the same verdict, error and balance. */
function profileRepeat(a: ReplyInput, b: ReplyInput, rules: ReplyRules, codec: AmountCodec): boolean {
  if (rules.duplicates === 'same-outcome') {
    const x = profileRules(a, rules, codec);
    const y = profileRules(b, rules, codec);
    const key = (j: ReturnType<typeof profileRules>) =>
      j.balance.kind === 'ok' ? (j.balance as { minor: number }).minor : j.balance.kind;
    return x.verdict === y.verdict && (x.verdict === 'accepted' || x.error === y.error) && key(x) === key(y);
  }
  const bodyOf = (r: ReplyInput) => (r.body !== undefined || r.text === undefined ? r.body : parseJsonOr(r.text, r.text));
  return a.status === b.status && jsonEqual(bodyOf(a), bodyOf(b));
}

/** A profile file unlike both built-ins: nested balance, a string success flag, numeric codes, no balance on a refusal, string amounts. */
const FILE_PROFILE: ProfileInput = {
  ...BETNEX_PROFILE,
  name: 'nested-file',
  amounts: { format: 'decimal', as: 'string' },
  reply: {
    balance: 'data.balance',
    success: { path: 'status', equals: 'OK' },
    error: 'err.code',
    message: ['detail', 'msg'],
    duplicates: 'same-outcome',
    balanceOnRejection: false,
    codes: { INSUFFICIENT_FUNDS: '1001', PLAYER_NOT_FOUND: '1002', INVALID_SIGNATURE: '1001' },
  },
};

const TOP_LEVEL_FILE: ProfileInput = {
  ...FILE_PROFILE,
  name: 'flat-file',
  reply: { ...FILE_PROFILE.reply, balance: 'bal', error: 'code' },
};

/** Each wire's settings (its dialect: a built-in or a converted file) and the profile its rules are restated from. */
const WIRES = {
  default: callbacksSchema.parse({ currencies: { BTC: 8 } }),
  'default-minor': callbacksSchema.parse({ amountFormat: 'minor', currencies: { BTC: 8 } }),
  betnex: callbacksSchema.parse({ profile: 'betnex', currencies: { BTC: 8 } }),
  file: callbacksSchema.parse({ profile: FILE_PROFILE, currencies: { BTC: 8 } }),
  'top-level-file': callbacksSchema.parse({ profile: TOP_LEVEL_FILE, currencies: { BTC: 8 } }),
};
const PROFILES: Record<keyof typeof WIRES, ProfileInput> = {
  default: defaultProfile(WIRES.default),
  'default-minor': defaultProfile(WIRES['default-minor']),
  betnex: BETNEX_PROFILE,
  file: FILE_PROFILE,
  'top-level-file': TOP_LEVEL_FILE,
};
type WireName = keyof typeof WIRES;

const balanceValue = fc.oneof(
  fc.integer({ min: -50_000, max: 5_000_000 }).map((minor) => minor / 100),
  fc.integer({ min: 0, max: 5_000_000 }),
  fc.integer({ min: 0, max: 5_000_000 }).map((minor) => (minor / 100).toFixed(2)),
  fc.constantFrom(109.71000000000001, 0.1 + 0.2, 1.234, 1.5, '995.291', '1e3', ' 5', '+5', 'abc', null, true, 1e21, -0),
);
const codeValue = fc.constantFrom(0, '', false, null, 'INSUFFICIENT_FUNDS', 'PLAYER_NOT_FOUND', 1001, '1001', '1002', true, 7);
const successValue = fc.constantFrom(true, false, 'OK', 'ERR', 1, 'true');
const text = fc.constantFrom('no', 'Duplicate callback ignored', '', 'insufficient funds');

/** A reply body as a wallet might write one for any of the wires: the members each reads, present or not. */
const bodyArb = fc.record(
  {
    balance: balanceValue,
    money: balanceValue,
    bal: balanceValue,
    data: fc.record({ balance: balanceValue }, { requiredKeys: [] }),
    error: codeValue,
    code: codeValue,
    err: fc.record({ code: codeValue }, { requiredKeys: [] }),
    success: successValue,
    status: successValue,
    message: text,
    msg: text,
    description: text,
    detail: text,
  },
  { requiredKeys: [] },
);

/** Ways to write it: JSON (compact or spaced), something else, or a body handed over parsed. */
const replyArb: fc.Arbitrary<ReplyInput> = fc
  .record({
    status: fc.constantFrom(200, 200, 200, 201, 204, 301, 400, 401, 402, 404, 408, 409, 429, 500, 502, 503),
    form: fc.oneof(
      bodyArb.map((body) => ({ text: JSON.stringify(body) })),
      bodyArb.map((body) => ({ text: JSON.stringify(body, null, 1) })),
      bodyArb.map((body) => ({ body })),
      fc
        .constantFrom(
          '',
          'oops',
          '<html>502</html>',
          'null',
          '[]',
          '[{"balance":1}]',
          '"x"',
          '5',
          'true',
          '{"balance":',
          '{}',
          '{"balance":1} ',
          `${'['.repeat(40)}${']'.repeat(40)}`,
          `{"a":${'['.repeat(300)}${']'.repeat(300)},"balance":1}`,
        )
        .map((t) => ({
          text: t,
        })),
    ),
  })
  .map(({ status, form }) => ({ status, ...form }));

const currencyArb = fc.constantFrom('EUR', 'JPY', 'KWD', 'BTC');

function readings(name: WireName, currency: string) {
  const settings = WIRES[name];
  const profile = profileDefinitionSchema.parse(PROFILES[name]);
  const codec: AmountCodec = {
    format: profile.amounts.format,
    as: profile.amounts.as,
    exponent: currencyExponent(currency, settings.currencies) ?? 2,
  };
  // The profile as the profile reader saw it, converted (default and betnex too: their built-in dialects are tested byte for byte elsewhere).
  const dialect: DialectReading = { dialect: dialectOfProfile(profile), currency, currencies: settings.currencies };
  return { rules: profile.reply, codec, dialect };
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

const wireArb = fc.constantFrom(...(Object.keys(WIRES) as WireName[]));

describe('the one reply reader on the profile dialects (default, betnex, profile files)', () => {
  it('reads as the profile rules: verdict, error code, message, balance, balanceExact', () => {
    fc.assert(
      fc.property(wireArb, currencyArb, replyArb, (name, currency, reply) => {
        const { rules, codec, dialect } = readings(name, currency);
        const { outcomes: _names, ...mine } = judgeReply(reply, dialect);
        // -0 and 0 are one balance (a parsed body may hold -0; its text says 0).
        expect(plain(mine)).toEqual(plain(profileRules(reply, rules, codec)));
      }),
      { numRuns: 1200 },
    );
  });

  it('readReply itself gives the same verdict, message and balance', () => {
    fc.assert(
      fc.property(wireArb, currencyArb, replyArb, (name, currency, reply) => {
        const { rules, codec, dialect } = readings(name, currency);
        const theirs = profileRules(reply, rules, codec);
        const mine = readReply(
          dialect.dialect,
          { operation: 'bet', currency },
          { status: reply.status, text: replyText(reply) },
          dialect,
        );
        expect(plain({ verdict: mine.verdict, message: mine.message, balance: mine.balance })).toEqual(
          plain({ verdict: theirs.verdict, message: theirs.message, balance: theirs.balance }),
        );
      }),
      { numRuns: 800 },
    );
  });

  it('judges a repeat as the profile rule: same-reply (default) and same-outcome (betnex, files)', () => {
    fc.assert(
      fc.property(wireArb, currencyArb, replyArb, replyArb, fc.boolean(), (name, currency, a, b, copy) => {
        const { rules, codec, dialect } = readings(name, currency);
        const again = copy ? { ...a } : b;
        const mine = repeatAgrees(
          dialect.dialect,
          { operation: 'bet', currency, currencies: dialect.currencies },
          { status: a.status, text: replyText(a) },
          { status: again.status, text: replyText(again) },
        );
        expect(mine.agrees).toBe(profileRepeat(a, again, rules, codec));
      }),
      { numRuns: 800 },
    );
  });
});

describe('the profile dialects, case by case', () => {
  const judge = (name: WireName, status: number, text: string, currency = 'EUR') =>
    judgeReply({ status, text }, readings(name, currency).dialect);

  it('default: error 0/null/false/"" is no error; a code, true or a number is one', () => {
    expect(judge('default', 200, '{"balance":10,"error":0}')).toEqual({
      verdict: 'accepted',
      status: 200,
      balance: { kind: 'ok', minor: 1000 },
      balanceExact: true,
    });
    for (const none of ['null', 'false', '""'])
      expect(judge('default', 200, `{"balance":1,"error":${none}}`).verdict).toBe('accepted');
    expect(judge('default', 200, '{"error":"INSUFFICIENT_FUNDS","balance":5}')).toMatchObject({
      verdict: 'rejected',
      error: 'INSUFFICIENT_FUNDS',
      balance: { kind: 'ok', minor: 500 },
    });
    expect(judge('default', 200, '{"error":1001,"description":"Bet limit"}')).toMatchObject({
      error: '1001',
      message: 'Bet limit',
    });
    expect(judge('default', 200, '{"error":true,"msg":"no"}')).toMatchObject({
      verdict: 'rejected',
      error: 'true',
      message: 'no',
    });
  });

  it('default: the status decides first (408, 429, 5xx retry; 3xx/4xx refuse); a 2xx without a JSON object is invalid', () => {
    expect(judge('default', 503, '{"balance":1}').verdict).toBe('retry');
    expect(judge('default', 500, '{"error":"X"}')).toMatchObject({ verdict: 'retry', error: 'X' });
    expect(judge('default', 500, '{"error":0}').error).toBeUndefined();
    expect(judge('default', 429, '').verdict).toBe('retry');
    expect(judge('default', 301, '').verdict).toBe('rejected');
    expect(judge('default', 404, '{"balance":3}')).toMatchObject({ verdict: 'rejected', balance: { kind: 'ok', minor: 300 } });
    for (const text of ['', 'oops', '[]', 'null', '"x"', '5', '{"balance":'])
      expect(judge('default', 200, text).verdict).toBe('invalid');
    // Nested deeper than the JSON depth limit: not read (every later walk of it could overflow).
    expect(judge('default', 200, `{"a":${'['.repeat(40)}${']'.repeat(40)},"balance":1}`).verdict).toBe('invalid');
  });

  it('default: precision is judged on the text (109.71000000000001 is read, not exact), in the currency', () => {
    expect(judge('default', 200, '{"balance":109.71000000000001}')).toMatchObject({
      balance: { kind: 'ok', minor: 10971 },
      balanceExact: false,
    });
    expect(judge('default', 200, '{"balance":"109.71"}').balanceExact).toBe(true);
    expect(judge('default', 200, '{"balance":1.1e2}').balanceExact).toBe(false);
    expect(judge('default', 200, '{"balance":"995.291"}').balance.kind).toBe('invalid');
    expect(judge('default', 200, '{"balance":1.234}', 'KWD')).toMatchObject({
      balance: { kind: 'ok', minor: 1234 },
      balanceExact: true,
    });
    expect(judge('default', 200, '{"balance":1.5}', 'JPY').balance.kind).toBe('invalid');
    expect(judge('default', 200, '{"balance":1.23456789}', 'BTC')).toMatchObject({
      balance: { kind: 'ok', minor: 123456789 },
      balanceExact: true,
    });
    expect(judge('default-minor', 200, '{"balance":1050.0}')).toMatchObject({
      balance: { kind: 'ok', minor: 1050 },
      balanceExact: false,
    });
    // A parsed body has no text to judge precision on.
    expect(judgeReply({ status: 200, body: { balance: 1 } }, readings('default', 'EUR').dialect).balanceExact).toBeUndefined();
  });

  it("betnex: the success flag decides, the message is msg, and a refusal's money: 0 is no balance", () => {
    expect(judge('betnex', 200, '{"success":true,"msg":"Success","handle":true,"money":11.5}')).toEqual({
      verdict: 'accepted',
      status: 200,
      message: 'Success',
      balance: { kind: 'ok', minor: 1150 },
      balanceExact: true,
    });
    expect(judge('betnex', 200, '{"success":false,"msg":"Insufficient balance","money":0}')).toEqual({
      verdict: 'rejected',
      status: 200,
      message: 'Insufficient balance',
      balance: { kind: 'none' },
    });
    expect(judge('betnex', 200, '{"msg":"no flag"}').verdict).toBe('rejected');
    expect(judge('betnex', 200, '{"success":"true","money":1}').verdict).toBe('rejected');
    expect(judge('betnex', 503, '{"success":true,"money":1}').verdict).toBe('retry');
  });

  it('a profile file: nested balance and code, a string success value, string amounts, its own message paths', () => {
    expect(judge('file', 200, '{"status":"OK","data":{"balance":"5.00"},"detail":"fine"}')).toEqual({
      verdict: 'accepted',
      status: 200,
      message: 'fine',
      balance: { kind: 'ok', minor: 500 },
    });
    expect(judge('file', 200, '{"status":"ERR","err":{"code":"1002"},"data":{"balance":5}}')).toEqual({
      verdict: 'rejected',
      status: 200,
      error: '1002',
      outcomes: ['PLAYER_NOT_FOUND'],
      balance: { kind: 'none' },
    });
    // A code two refusals share is the wallet's code; aggmock's names for it come apart (describeError shows both).
    expect(judge('file', 200, '{"status":"ERR","err":{"code":1001}}')).toMatchObject({
      error: '1001',
      outcomes: ['INVALID_SIGNATURE', 'INSUFFICIENT_FUNDS'],
    });
    expect(judge('top-level-file', 200, '{"status":"OK","bal":"5.001"}').balance.kind).toBe('invalid');
  });

  it('reads JSON after leading whitespace as JSON (the one deliberate change: the profile reader called it invalid)', () => {
    expect(
      profileRules({ status: 200, text: ' {"balance":1}' }, readings('default', 'EUR').rules, readings('default', 'EUR').codec)
        .verdict,
    ).toBe('invalid');
    expect(judge('default', 200, ' {"balance":1}')).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 100 } });
  });
});
