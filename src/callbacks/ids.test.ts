import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/index.ts';
import { ID_BLOCK, idNamespaceOf, TransactionIdSequence, transactionIdAt } from './ids.ts';

describe('TransactionIdSequence', () => {
  it('gives tx_<namespace>_ + 24 hex digits, the same sequence for the same seed and namespace', () => {
    const a = new TransactionIdSequence(openDatabase(':memory:'), 42, { namespace: 'run1' });
    const b = new TransactionIdSequence(openDatabase(':memory:'), 42, { namespace: 'run1' });
    const c = new TransactionIdSequence(openDatabase(':memory:'), 43, { namespace: 'run1' });
    const first = [a.next(), a.next(), a.next()];
    expect(first.every((id) => /^tx_run1_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect([b.next(), b.next(), b.next()]).toEqual(first);
    expect(c.next()).not.toBe(first[0]);
    expect(new Set(first).size).toBe(3);
  });

  it('never repeats an id across two fresh databases with the same seed (each draws its own namespace)', () => {
    const a = new TransactionIdSequence(openDatabase(':memory:'), 42);
    const b = new TransactionIdSequence(openDatabase(':memory:'), 42);
    expect(a.namespace).toMatch(/^[a-z0-9]{6}$/);
    expect(b.namespace).not.toBe(a.namespace);
    const idsA = [a.next(), a.next()];
    expect(idsA).toEqual([transactionIdAt(42, 0, a.namespace), transactionIdAt(42, 1, a.namespace)]);
    expect(idsA).not.toContain(b.next());
  });

  it('keeps the namespace a database drew, across restarts', () => {
    const db = openDatabase(':memory:');
    const first = new TransactionIdSequence(db, 42).namespace;
    expect(idNamespaceOf(db)).toBe(first);
    expect(new TransactionIdSequence(db, 42).namespace).toBe(first);
  });

  it('uses a configured namespace, and none at all for ""', () => {
    expect(new TransactionIdSequence(openDatabase(':memory:'), 42, { namespace: 'ci' }).next()).toBe(
      transactionIdAt(42, 0, 'ci'),
    );
    expect(new TransactionIdSequence(openDatabase(':memory:'), 42, { namespace: '' }).next()).toMatch(/^tx_[0-9a-f]{24}$/);
  });

  it('continues with the next id after a clean restart', () => {
    const db = openDatabase(':memory:');
    const before = new TransactionIdSequence(db, 's', { namespace: '' });
    before.next();
    before.next();
    before.checkpoint();
    expect(new TransactionIdSequence(db, 's', { namespace: '' }).next()).toBe(transactionIdAt('s', 2));
  });

  it('skips to the next block after a crash rather than repeating an id', () => {
    const db = openDatabase(':memory:');
    const before = new TransactionIdSequence(db, 's', { namespace: '' });
    const used = [before.next(), before.next()];
    const after = new TransactionIdSequence(db, 's', { namespace: '' }); // no checkpoint: the process died
    const next = after.next();
    expect(used).not.toContain(next);
    expect(next).toBe(transactionIdAt('s', ID_BLOCK));
  });
});
