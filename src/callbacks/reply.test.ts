import { describe, expect, it } from 'vitest';
import { builtinDialect, rawTopLevelValue } from '../dialects/index.ts';
import { DEFAULT_READING, describeError, judgeReply } from './reply.ts';

/**
 * The one reply judge: every odd reply a real wallet has been seen to send, and what it means.
 * The dispatcher, the shadow ledger and `aggmock verify` all read replies through it.
 */
const MINOR = {
  ...DEFAULT_READING,
  dialect: { ...DEFAULT_READING.dialect, amounts: { ...DEFAULT_READING.dialect.amounts, format: 'minor' as const } },
};

describe('judgeReply', () => {
  const cases: [string, number, string, string, Record<string, unknown>][] = [
    ['a plain balance', 200, '{"balance":10.5}', 'accepted', { balance: { kind: 'ok', minor: 1050 } }],
    ['error 0 means success', 200, '{"balance":10,"error":0}', 'accepted', { balance: { kind: 'ok', minor: 1000 } }],
    ['error null means success', 200, '{"balance":10,"error":null}', 'accepted', {}],
    ['error false means success', 200, '{"balance":10,"error":false}', 'accepted', {}],
    ['an empty error string means success', 200, '{"balance":10,"error":""}', 'accepted', {}],
    ['201 with a balance', 201, '{"balance":1}', 'accepted', {}],
    ['extra fields are fine', 200, '{"balance":1,"currency":"EUR","transactionId":"t"}', 'accepted', {}],
    [
      'a 2xx business rejection',
      200,
      '{"error":"INSUFFICIENT_FUNDS","balance":5}',
      'rejected',
      { error: 'INSUFFICIENT_FUNDS', balance: { kind: 'ok', minor: 500 } },
    ],
    [
      'a numeric error code',
      200,
      '{"error":1001,"description":"Bet limit"}',
      'rejected',
      { error: '1001', message: 'Bet limit' },
    ],
    ['error true', 200, '{"error":true,"msg":"no"}', 'rejected', { error: 'true', message: 'no' }],
    [
      'a 402 with a balance',
      402,
      '{"error":"INSUFFICIENT_FUNDS","balance":1.5}',
      'rejected',
      { balance: { kind: 'ok', minor: 150 } },
    ],
    [
      'a 404 rollback-unknown',
      404,
      '{"error":"TRANSACTION_NOT_FOUND","balance":99}',
      'rejected',
      { error: 'TRANSACTION_NOT_FOUND' },
    ],
    ['a 4xx without a body', 400, '', 'rejected', { balance: { kind: 'none' } }],
    ['a 4xx with HTML', 404, '<html>no</html>', 'rejected', {}],
    ['a redirect', 302, '', 'rejected', {}],
    ['a 500 is retried whatever it says', 500, '{"balance":10}', 'retry', {}],
    ['a 503 with HTML', 503, '<html>down</html>', 'retry', {}],
    ['408 is retried', 408, '', 'retry', {}],
    ['429 is retried', 429, '{"error":"RATE_LIMITED"}', 'retry', { error: 'RATE_LIMITED' }],
    ['a 2xx with HTML is garbage', 200, '<html>ok</html>', 'invalid', {}],
    ['a 2xx with no body is garbage', 200, '', 'invalid', {}],
    ['a 2xx with a JSON array is garbage', 200, '[{"balance":1}]', 'invalid', {}],
    ['a 2xx with a JSON string is garbage', 200, '"ok"', 'invalid', {}],
    ['a 2xx with truncated JSON is garbage', 200, '{"balance":1', 'invalid', {}],
    [
      'a balance as a decimal string is read exactly',
      200,
      '{"balance":"995.29"}',
      'accepted',
      { balance: { kind: 'ok', minor: 99_529 }, balanceExact: true },
    ],
    [
      'a decimal-string balance with a decimal too many is a wrong balance, not a rounding',
      200,
      '{"balance":"995.291"}',
      'accepted',
      { balance: { kind: 'invalid', raw: '995.291' } },
    ],
    [
      'a balance string in exponent notation is no amount',
      200,
      '{"balance":"1e3"}',
      'accepted',
      { balance: { kind: 'invalid', raw: '1e3' } },
    ],
    [
      'a balance string with spaces is no amount',
      200,
      '{"balance":" 995.29"}',
      'accepted',
      { balance: { kind: 'invalid', raw: ' 995.29' } },
    ],
    [
      'a rejection carrying a decimal-string balance',
      200,
      '{"error":"INSUFFICIENT_FUNDS","balance":"0.50"}',
      'rejected',
      { balance: { kind: 'ok', minor: 50 } },
    ],
    [
      'a balance with a third decimal is unreadable',
      200,
      '{"balance":10.005}',
      'accepted',
      { balance: { kind: 'invalid', raw: 10.005 } },
    ],
    ['a null balance is no balance', 200, '{"balance":null}', 'accepted', { balance: { kind: 'none' } }],
  ];
  for (const [what, status, text, verdict, more] of cases) {
    it(`${what}: HTTP ${status} ${text || '(empty)'} → ${verdict}`, () => {
      const judged = judgeReply({ status, text }, DEFAULT_READING);
      expect(judged.verdict).toBe(verdict);
      expect(judged).toMatchObject(more);
    });
  }

  it('judges a stored (parsed) body the same as its text', () => {
    for (const [, status, text] of cases) {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      expect(judgeReply({ status, body }).verdict).toBe(judgeReply({ status, text }).verdict);
    }
  });

  it('reads balances in minor units when the wire says so', () => {
    expect(judgeReply({ status: 200, text: '{"balance":1050}' }, MINOR).balance).toEqual({ kind: 'ok', minor: 1050 });
    expect(judgeReply({ status: 200, text: '{"balance":10.5}' }, MINOR).balance).toEqual({ kind: 'invalid', raw: 10.5 });
  });

  it('tells float noise from an exact amount by the text the wallet wrote', () => {
    expect(judgeReply({ status: 200, text: '{"balance":109.71}' }).balanceExact).toBe(true);
    expect(judgeReply({ status: 200, text: '{"balance":109.7}' }).balanceExact).toBe(true);
    expect(judgeReply({ status: 200, text: '{"balance":109}' }).balanceExact).toBe(true);
    // Parses to a double that rounds to 109.71, but the wallet computed it in floats.
    expect(judgeReply({ status: 200, text: '{"balance":109.71000000000001}' }).balanceExact).toBe(false);
    expect(judgeReply({ status: 200, text: '{"balance":1.1e2}' }).balanceExact).toBe(false);
    expect(judgeReply({ status: 200, text: '{"balance":1050}' }, MINOR).balanceExact).toBe(true);
    expect(judgeReply({ status: 200, text: '{"balance":1050.0}' }, MINOR).balanceExact).toBe(false);
  });

  it('judges a decimal-string balance on its text, like the same digits written as a number', () => {
    for (const text of ['109.71', '109.7', '109', '109.71000000000001', '-5.5']) {
      const asNumber = judgeReply({ status: 200, text: `{"balance":${text}}` });
      const asString = judgeReply({ status: 200, text: `{"balance":"${text}"}` });
      expect(asString.balance).toEqual(asNumber.balance);
      expect(asString.balanceExact).toBe(asNumber.balanceExact);
    }
    expect(judgeReply({ status: 200, text: '{"balance":"1050"}' }, MINOR).balance).toEqual({ kind: 'ok', minor: 1050 });
    expect(judgeReply({ status: 200, text: '{"balance":"10.5"}' }, MINOR).balance).toEqual({ kind: 'invalid', raw: '10.5' });
  });
});

describe('rawTopLevelValue', () => {
  it('finds a member after strings, nested objects and arrays, with any spacing', () => {
    const text = ' { "a" : "x\\"}," , "b":{"balance":1,"c":[1,{"d":"]"}]} ,"balance" : 12.30 , "z":null }';
    expect(rawTopLevelValue(text, 'balance')).toBe('12.30');
    expect(rawTopLevelValue(text, 'z')).toBe('null');
    expect(rawTopLevelValue(text, 'missing')).toBeUndefined();
  });

  it('answers undefined for text that is not an object', () => {
    expect(rawTopLevelValue('[1]', 'balance')).toBeUndefined();
    expect(rawTopLevelValue('{"balance"', 'balance')).toBeUndefined();
    expect(rawTopLevelValue('', 'balance')).toBeUndefined();
  });
});

describe('judgeReply under a vendor dialect', () => {
  it('names every refusal a shared code may mean, and the one a distinct code means', () => {
    const groove = { dialect: builtinDialect('groove'), currency: 'EUR', operation: 'rollback' as const };
    expect(judgeReply({ status: 200, text: '{"code":110,"status":"Operation not allowed"}' }, groove).error).toBe('110');
    expect(describeError(judgeReply({ status: 200, text: '{"code":110,"status":"Operation not allowed"}' }, groove))).toBe(
      '110 (PLAYER_NOT_FOUND or ALREADY_SETTLED)',
    );
    expect(describeError(judgeReply({ status: 200, text: '{"code":1006,"status":"Out of money"}' }, groove))).toBe(
      '1006 (INSUFFICIENT_FUNDS)',
    );
  });
});
