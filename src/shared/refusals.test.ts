import { describe, expect, it } from 'vitest';
import { httpUrl, positiveInt } from './index.ts';

class Refused extends Error {}

describe('positiveInt', () => {
  it('passes a whole number from 1 to the bound, or with no bound any positive safe integer', () => {
    expect(positiveInt(1, 'size', Refused, 10_000)).toBe(1);
    expect(positiveInt(10_000, 'size', Refused, 10_000)).toBe(10_000);
    expect(positiveInt(Number.MAX_SAFE_INTEGER, '--timeout', Refused)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    [0, 10_000, 'size: expected a whole number from 1 to 10000, got 0.'],
    [10_001, 10_000, 'size: expected a whole number from 1 to 10000, got 10001.'],
    [1.5, undefined, 'size: expected a positive whole number, got 1.5.'],
    [-3, undefined, 'size: expected a positive whole number, got -3.'],
    [Number.NaN, undefined, 'size: expected a positive whole number, got NaN.'],
    [2 ** 53, undefined, 'size: expected a positive whole number, got 9007199254740992.'],
  ])('refuses %s (bound %s) with the caller’s error naming the field', (value, max, message) => {
    expect(() => positiveInt(value, 'size', Refused, max)).toThrow(new Refused(message));
    expect(() => positiveInt(value, 'size', Refused, max)).toThrow(Refused);
  });
});

describe('httpUrl', () => {
  it('passes http and https URLs', () => {
    expect(httpUrl('http://127.0.0.1:4001/callback/webhook', 'webhookUrl', 'http://x.test', Refused).href).toBe(
      'http://127.0.0.1:4001/callback/webhook',
    );
    expect(httpUrl('https://wallet.test', '--state-url', 'http://x.test', Refused).host).toBe('wallet.test');
  });

  it('refuses text that is no URL, and URLs of other schemes, naming the field', () => {
    expect(() => httpUrl('nope', '<walletUrl>', 'http://127.0.0.1:4001', Refused)).toThrow(
      new Refused('<walletUrl>: expected an http(s) URL such as http://127.0.0.1:4001, got "nope".'),
    );
    expect(() => httpUrl('ftp://wallet.test/', 'webhookUrl', 'http://x.test', Refused)).toThrow(
      new Refused('webhookUrl: expected an http or https URL, got "ftp://wallet.test/".'),
    );
  });
});
