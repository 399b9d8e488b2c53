import { describe, expect, it } from 'vitest';
import { cached } from './index.ts';

describe('cached', () => {
  it('makes a value once per key and hands back the same one after', () => {
    const cache = new Map<string, { code: string }>();
    let made = 0;
    const make = (code: string) => {
      made++;
      return { code };
    };
    const first = cached(cache, 'EUR', make);
    expect(cached(cache, 'EUR', make)).toBe(first);
    expect(cached(cache, 'JPY', make)).toEqual({ code: 'JPY' });
    expect(made).toBe(2);
  });

  it('keeps at most maxEntries keys of a Map, still answering every key', () => {
    const cache = new Map<string, string>();
    for (let i = 0; i < 1_000; i++) expect(cached(cache, `k${i}`, (k) => k.toUpperCase(), 10)).toBe(`K${i}`);
    expect(cache.size).toBe(10);
    // A key beyond the bound is made afresh each time, never kept.
    const full = new Map([['x', {}]]);
    const a = cached(full, 'y', () => ({}), 1);
    expect(cached(full, 'y', () => ({}), 1)).not.toBe(a);
    expect(full.has('y')).toBe(false);
  });

  it('keys a WeakMap by object', () => {
    const cache = new WeakMap<object, number>();
    const key = {};
    let made = 0;
    expect(cached(cache, key, () => ++made)).toBe(1);
    expect(cached(cache, key, () => ++made)).toBe(1);
  });
});
