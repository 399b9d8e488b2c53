import { describe, expect, it } from 'vitest';
import { parsePlayers } from './commands/players.ts';
import { countFlag, durationFlag, UsageError } from './options.ts';

describe('durationFlag and countFlag (aggmock load, verify)', () => {
  it('reads durations in ms, s or bare milliseconds, and leaves an absent flag undefined', () => {
    expect(durationFlag('--timeout', '250')).toBe(250);
    expect(durationFlag('--timeout', '250ms')).toBe(250);
    expect(durationFlag('--timeout', ' 2s ')).toBe(2_000);
    expect(durationFlag('--late', '0')).toBe(0);
    expect(durationFlag('--timeout', undefined)).toBeUndefined();
  });

  it('refuses a duration that is not one, or below the minimum, naming the flag', () => {
    expect(() => durationFlag('--timeout', 'soon')).toThrow(
      new UsageError('--timeout: expected milliseconds or a duration such as "2s", got "soon".'),
    );
    expect(() => durationFlag('--timeout', '0', 1)).toThrow(UsageError);
    expect(() => durationFlag('--timeout', '-5')).toThrow(UsageError);
  });

  it('reads whole numbers of at least 1 and refuses anything else', () => {
    expect(countFlag('--connections', '64')).toBe(64);
    expect(countFlag('--connections', ' 3 ')).toBe(3);
    expect(countFlag('--connections', undefined)).toBeUndefined();
    for (const bad of ['0', '1.5', '-2', 'many', ''])
      expect(() => countFlag('--connections', bad)).toThrow(
        new UsageError(`--connections: expected a whole number of at least 1, got ${JSON.stringify(bad)}.`),
      );
  });
});

describe('parsePlayers with a bound (aggmock load takes up to 100000 players, serve and demo 1000)', () => {
  it('counts up to the bound given, and refuses one past it', () => {
    expect(parsePlayers('1001', 100_000)).toHaveLength(1001);
    expect(parsePlayers('100000', 100_000).at(-1)).toBe('p100000');
    expect(() => parsePlayers('100001', 100_000)).toThrow(/from 1 to 100000/);
    expect(() => parsePlayers('1001')).toThrow(/from 1 to 1000,/);
  });
});
