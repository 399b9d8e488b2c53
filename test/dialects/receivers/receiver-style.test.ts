/** The shared pieces of the receivers' styles and planted bugs (receiver-style.ts). */
import { describe, expect, it } from 'vitest';
import { DedupeRecall, FORGETFUL_MEMORY, plantedBugs, SessionBook, signedBytes } from './receiver-style.ts';

describe('DedupeRecall', () => {
  it('remembers every transaction when correct, only the last FORGETFUL_MEMORY when forgetful', () => {
    const correct = new DedupeRecall(false);
    const forgetful = new DedupeRecall(true);
    for (const recall of [correct, forgetful]) for (let i = 0; i <= FORGETFUL_MEMORY; i++) recall.note(`tx${i}`);
    expect(correct.remembers('tx0')).toBe(true);
    expect(forgetful.remembers('tx0')).toBe(false);
    expect(forgetful.remembers('tx1')).toBe(true);
    expect(forgetful.remembers(`tx${FORGETFUL_MEMORY}`)).toBe(true);
  });
});

describe('signedBytes', () => {
  const raw = Buffer.from('{"b": 1.0, "a": "\\u00e9"}');
  it('is the raw body for a correct wallet', () => {
    expect(signedBytes(raw, false)).toBe(raw);
  });
  it('is JSON.stringify of the parsed body under reserialised-signature (other spacing, number form, escapes)', () => {
    expect(signedBytes(raw, true).toString()).toBe('{"b":1,"a":"é"}');
    expect(signedBytes(Buffer.from('not json'), true).toString()).toBe('not json');
  });
});

describe('SessionBook', () => {
  it('binds a token to its player; rotate issues a fresh one and retires the old; adopt makes a guess valid', () => {
    const book = new SessionBook([{ playerId: 'p1', currency: 'EUR', balance: '1.00', token: 't1' }]);
    expect(book.belongsTo('t1', 'p1')).toBe(true);
    expect(book.belongsTo('t1', 'p2')).toBe(false);
    const fresh = book.rotate('t1', 'p1', 'x');
    expect(fresh).toMatch(/^x-[0-9a-f]{48}$/);
    expect(book.owner('t1')).toBeUndefined();
    expect(book.owner(fresh)).toBe('p1');
    book.adopt('guess', 'p1');
    expect(book.belongsTo('guess', 'p1')).toBe(true);
  });
});

describe('plantedBugs', () => {
  it('returns the bugs asked for and refuses one the receiver cannot plant, naming what it can', () => {
    expect([...plantedBugs('v', ['forgetful-dedupe'], ['forgetful-dedupe'])]).toEqual(['forgetful-dedupe']);
    expect([...plantedBugs('v', undefined, [])]).toEqual([]);
    expect(() => plantedBugs('v', ['session-takeover'], ['forgetful-dedupe'])).toThrow(
      'v receiver: cannot plant "session-takeover"; it plants forgetful-dedupe',
    );
  });
});
