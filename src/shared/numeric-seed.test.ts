import { describe, expect, it } from 'vitest';
import { numericSeed } from './index.ts';

describe('numericSeed', () => {
  it('keeps a number as it is', () => {
    expect(numericSeed(42)).toBe(42);
    expect(numericSeed(0)).toBe(0);
  });

  it('hashes a word with FNV-1a to an unsigned 32-bit number', () => {
    // FNV-1a 32 test vectors: "" is the offset basis, "a" and "foobar" are the published values.
    expect(numericSeed('')).toBe(0x811c9dc5);
    expect(numericSeed('a')).toBe(0xe40c292c);
    expect(numericSeed('foobar')).toBe(0xbf9cf968);
  });

  it('tells apart two emoji that share a high surrogate (every UTF-16 unit counts)', () => {
    expect('🎲'.charCodeAt(0)).toBe('🎰'.charCodeAt(0));
    expect(numericSeed('🎲')).not.toBe(numericSeed('🎰'));
  });
});
