import { describe, expect, it } from 'vitest';
import { TransactionIdSequence } from '../../src/callbacks/ids.ts';
import { openDatabase } from '../../src/storage/index.ts';

/**
 * The ids the engine makes up stay within the longest id the dialect's wallets accept
 * (`calls.idMaxLength`; Red Tiger's 32): fewer hex digits where the cap needs it, and an id that
 * still does not fit (a long configured namespace) is fitted by its hash, the same every time.
 */
describe('engine ids within calls.idMaxLength', () => {
  it('drop hex digits to fit a cap, and keep 24 without one', () => {
    const capped = new TransactionIdSequence(openDatabase(':memory:'), 7, { namespace: 'abcdef', hexDigits: 24, maxLength: 20 });
    const ids = [capped.next(), capped.next()];
    expect(ids.every((id) => /^tx_abcdef_[0-9a-f]{10}$/.test(id))).toBe(true);
    const free = new TransactionIdSequence(openDatabase(':memory:'), 7, { namespace: 'abcdef', hexDigits: 24 });
    expect(free.next()).toMatch(/^tx_abcdef_[0-9a-f]{24}$/);
  });

  it('fit a long namespace by hashing, deterministically and without repeats', () => {
    const make = () =>
      new TransactionIdSequence(openDatabase(':memory:'), 7, { namespace: 'a-very-long-namespace', maxLength: 16 });
    const a = make();
    const ids = Array.from({ length: 50 }, () => a.next());
    expect(ids.every((id) => id.length <= 16)).toBe(true);
    expect(new Set(ids).size).toBe(50);
    expect(make().next()).toBe(ids[0]);
  });
});
