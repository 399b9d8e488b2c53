import { describe, expect, it } from 'vitest';
import { FaultRuleError } from '../config/index.ts';
import type { StoredEvent } from './events.ts';
import { CallbackFaults, duplicateSource } from './faults.ts';

const event = (overrides: Partial<StoredEvent> = {}): StoredEvent =>
  ({
    id: 1,
    kind: 'debit',
    transactionId: 'tx_1',
    playerId: 'p1',
    amountMinor: 100,
    source: 'manual',
    orderingKey: 'p1',
    url: 'http://x.invalid/',
    body: '{}',
    status: 'delivering',
    attemptCount: 1,
    createdAt: 0,
    ...overrides,
  }) as StoredEvent;

describe('callback fault rules', () => {
  it('draws a probability rule from its seed: the same seed gives the same sequence, another seed another', () => {
    const sequence = (seed: number | string) => {
      const faults = new CallbackFaults({ seed: 'config-seed' });
      faults.add({ id: 'r', fault: { kind: 'duplicate' }, probability: 0.5, seed });
      return Array.from({ length: 40 }, () => (faults.fire(event()) ? 1 : 0)).join('');
    };
    expect(sequence(7)).toBe(sequence(7));
    expect(sequence(7)).not.toBe(sequence(8));
    expect(sequence(7)).toMatch(/1/);
    expect(sequence(7)).toMatch(/0/);
  });

  it('without a seed of its own draws from the config seed and the rule id', () => {
    const sequence = (configSeed: number) => {
      const faults = new CallbackFaults({ seed: configSeed });
      faults.add({ id: 'r', fault: { kind: 'timeout' }, probability: 0.3 });
      return Array.from({ length: 40 }, () => (faults.fire(event()) ? 1 : 0)).join('');
    };
    expect(sequence(42)).toBe(sequence(42));
    expect(sequence(42)).not.toBe(sequence(43));
  });

  it('without an id or a seed draws the same in two runs (fresh books) with the same config seed, and apart with another', () => {
    const sequence = (configSeed: number) => {
      const faults = new CallbackFaults({
        seed: configSeed,
        rules: [{ match: { event: 'debit' }, fault: { kind: 'duplicate', afterMs: 0 }, probability: 0.3 }],
      });
      return Array.from({ length: 40 }, () => (faults.fire(event()) ? 1 : 0)).join('');
    };
    expect(sequence(42)).toBe(sequence(42));
    expect(sequence(42)).not.toBe(sequence(43));
    expect(sequence(42)).toMatch(/1/);
  });

  it('fires on the Nth matching attempt only, counting only the kinds and player it names', () => {
    const faults = new CallbackFaults({ seed: 1 });
    faults.add({
      id: 'third-debit',
      match: { event: ['debit'], player: 'p1' },
      fault: { kind: 'timeout', giveUp: true },
      nth: 3,
    });
    const fired = [event(), event({ kind: 'credit' }), event({ playerId: 'p2' }), event(), event(), event()].map(
      (e) => faults.fire(e)?.ruleId ?? null,
    );
    expect(fired).toEqual([null, null, null, null, 'third-debit', null]);
    expect(faults.list()[0]).toMatchObject({ matched: 3, fired: 1, spent: true });
  });

  it('never faults the duplicate a rule sent, so a rule that always duplicates sends one copy per callback', () => {
    const faults = new CallbackFaults({ seed: 1 });
    const rule = faults.add({ fault: { kind: 'duplicate' } });
    expect(faults.fire(event({ source: duplicateSource(rule.id, 1) }))).toBeUndefined();
    expect(faults.fire(event())).toMatchObject({ ruleId: rule.id, fault: { kind: 'duplicate', afterMs: 0 } });
  });

  it('refuses a bad rule naming each field, and a second rule with the same id', () => {
    const faults = new CallbackFaults({ seed: 1 });
    expect(() => faults.add({ match: { event: 'bet' }, fault: { kind: 'timeout', afterMs: '2h' } })).toThrow(
      /match\.event: expected one of "debit", "credit", "rollback".*fault\.afterMs: expected a duration/,
    );
    expect(() => faults.add({ fault: { kind: 'reset' } })).toThrow(/expected a callback fault kind: timeout, duplicate/);
    expect(() => faults.add({ fault: { kind: 'duplicate' }, times: 1, nth: 2 })).toThrow(FaultRuleError);
    faults.add({ id: 'a', fault: { kind: 'duplicate' } });
    expect(() => faults.add({ id: 'a', fault: { kind: 'duplicate' } })).toThrow(/exists already/);
  });
});
