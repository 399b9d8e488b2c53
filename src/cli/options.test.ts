import { describe, expect, it } from 'vitest';
import { collectCredential } from './options.ts';

describe('--credential name=value', () => {
  it('collects repeated flags into one object', () => {
    expect(collectCredential('b=2=3', collectCredential('a=1'))).toEqual({ a: '1', b: '2=3' });
  });
  it('refuses a value without a name', () => {
    expect(() => collectCredential('=x')).toThrow(/expected name=value/);
    expect(() => collectCredential('secretKey')).toThrow(/expected name=value/);
  });
});
