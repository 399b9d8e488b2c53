import { describe, expect, it } from 'vitest';
import { FreeRoundAwards, MAX_AWARDS } from './awards.ts';

describe('FreeRoundAwards', () => {
  const input = { id: 'A-1', players: ['p1', 'p2'], gameIds: ['g1'], currency: 'EUR', rounds: 2, bet: '0.20' };

  it('counts each player down to zero in the awarded game and currency only, then has none', () => {
    const awards = new FreeRoundAwards();
    awards.create(input);
    expect(awards.take('p1', 'g2', 'EUR')).toBeUndefined();
    expect(awards.take('p1', 'g1', 'USD')).toBeUndefined();
    expect(awards.take('p3', 'g1', 'EUR')).toBeUndefined();
    expect(awards.take('p1', 'g1', 'EUR')?.left).toBe(1);
    expect(awards.leftFor('p1', 'g1', 'EUR')).toEqual({ awardId: 'A-1', left: 1 });
    expect(awards.take('p1', 'g1', 'EUR')?.left).toBe(0);
    expect(awards.take('p1', 'g1', 'EUR')).toBeUndefined();
    expect(awards.leftFor('p1', 'g1', 'EUR')).toBeUndefined();
    // Another player of the same award keeps his own count.
    expect(awards.leftFor('p2', 'g1', 'EUR')).toEqual({ awardId: 'A-1', left: 2 });
  });

  it('takes any currency when the award names none', () => {
    const awards = new FreeRoundAwards();
    awards.create({ ...input, currency: undefined });
    expect(awards.take('p1', 'g1', 'JPY')?.left).toBe(1);
  });

  it('is the same award when created again with the same id (a retried create)', () => {
    const awards = new FreeRoundAwards();
    expect(awards.create(input).created).toBe(true);
    awards.take('p1', 'g1', 'EUR');
    const again = awards.create({ ...input, rounds: 50 });
    expect(again.created).toBe(false);
    expect(again.award.left.get('p1')).toBe(1);
    expect(awards.size).toBe(1);
  });

  it('gives back a round the wallet refused, never above the award', () => {
    const awards = new FreeRoundAwards();
    awards.create(input);
    const taken = awards.take('p1', 'g1', 'EUR');
    if (!taken) throw new Error('no round');
    awards.giveBack(taken);
    expect(awards.leftFor('p1', 'g1', 'EUR')?.left).toBe(2);
    awards.giveBack(taken);
    expect(awards.leftFor('p1', 'g1', 'EUR')?.left).toBe(2);
  });

  it('stops at a cancel and after its end; an unknown id cancels nothing', () => {
    let now = 1_000;
    const awards = new FreeRoundAwards(() => now);
    awards.create(input);
    awards.create({ ...input, id: 'A-2', validUntil: 2_000 });
    expect(awards.cancel('A-1')?.cancelledAt).toBe(1_000);
    expect(awards.cancel('nope')).toBeUndefined();
    expect(awards.leftFor('p1', 'g1', 'EUR')).toEqual({ awardId: 'A-2', left: 2 });
    now = 2_001;
    expect(awards.take('p1', 'g1', 'EUR')).toBeUndefined();
  });

  it(`keeps at most ${MAX_AWARDS} awards, forgetting the oldest`, () => {
    const awards = new FreeRoundAwards();
    for (let i = 0; i <= MAX_AWARDS; i++) awards.create({ ...input, id: `A-${i}` });
    expect(awards.size).toBe(MAX_AWARDS);
    expect(awards.get('A-0')).toBeUndefined();
    expect(awards.get(`A-${MAX_AWARDS}`)).toBeDefined();
  });
});
