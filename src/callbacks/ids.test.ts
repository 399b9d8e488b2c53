import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ID_BLOCK, TransactionIdSequence, transactionIdAt } from './ids.ts';

describe('TransactionIdSequence', () => {
  it('gives tx_ + 24 hex digits, the same sequence for the same seed', () => {
    const a = new TransactionIdSequence(new Database(':memory:'), 42);
    const b = new TransactionIdSequence(new Database(':memory:'), 42);
    const c = new TransactionIdSequence(new Database(':memory:'), 43);
    const first = [a.next(), a.next(), a.next()];
    expect(first.every((id) => /^tx_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect([b.next(), b.next(), b.next()]).toEqual(first);
    expect(c.next()).not.toBe(first[0]);
    expect(new Set(first).size).toBe(3);
  });

  it('continues with the next id after a clean restart', () => {
    const db = new Database(':memory:');
    const before = new TransactionIdSequence(db, 's');
    before.next();
    before.next();
    before.checkpoint();
    expect(new TransactionIdSequence(db, 's').next()).toBe(transactionIdAt('s', 2));
  });

  it('skips to the next block after a crash rather than repeating an id', () => {
    const db = new Database(':memory:');
    const before = new TransactionIdSequence(db, 's');
    const used = [before.next(), before.next()];
    const after = new TransactionIdSequence(db, 's'); // no checkpoint: the process died
    const next = after.next();
    expect(used).not.toContain(next);
    expect(next).toBe(transactionIdAt('s', ID_BLOCK));
  });
});
