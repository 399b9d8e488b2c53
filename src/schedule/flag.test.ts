import { describe, expect, it } from 'vitest';
import { formatScheduleFlag, parseScheduleFlag, ScheduleFlagError } from './flag.ts';

describe('parseScheduleFlag', () => {
  it('reads durations as "every" and cron patterns (seconds first) as "cron", with config defaults', () => {
    expect(parseScheduleFlag('bet-win@2s,session@*/10 * * * * *')).toEqual([
      { scenario: 'bet-win', every: '2s', players: ['p1', 'p2', 'p3'], amount: { min: 1, max: 20 } },
      { scenario: 'session', cron: '*/10 * * * * *', players: ['p1', 'p2', 'p3'], amount: { min: 1, max: 20 } },
    ]);
  });

  it('keeps commas inside a cron pattern and accepts nicknames', () => {
    const entries = parseScheduleFlag('bet-lose@0,30 * * * * *, burst@@hourly');
    expect(entries.map((e) => e.cron)).toEqual(['0,30 * * * * *', '@hourly']);
  });

  it('reads options after semicolons: players, amount range, count, size, rtp', () => {
    const [e] = parseScheduleFlag('burst@30s;players=p1+p7;amount=0.5-2.25;count=3;size=8');
    expect(e).toEqual({
      scenario: 'burst',
      every: '30s',
      players: ['p1', 'p7'],
      amount: { min: 0.5, max: 2.25 },
      count: 3,
      size: 8,
    });
    const [s] = parseScheduleFlag('session@1m;amount=5;rtp=0.9');
    expect(s).toMatchObject({ amount: { min: 5, max: 5 }, rtp: 0.9 });
  });

  it('round-trips through formatScheduleFlag', () => {
    const entries = parseScheduleFlag('burst@30s;players=p1+p7;amount=1-2;count=3;size=8,session@*/10 * * * * *;rtp=0.5');
    expect(parseScheduleFlag(formatScheduleFlag(entries))).toEqual(entries);
  });

  it('names the entry and what was expected when something is wrong', () => {
    const fails = (text: string, pattern: RegExp) => {
      expect(() => parseScheduleFlag(text)).toThrow(ScheduleFlagError);
      expect(() => parseScheduleFlag(text)).toThrow(pattern);
    };
    fails('', /empty/);
    fails('bet-win', /<scenario>@<when>/);
    fails('bet-win@2s,lottery@5s', /entry 2 .*unknown scenario "lottery".*bet-win/);
    fails('bet-win@soon', /neither a duration .* nor a cron pattern/);
    fails('bet-win@61 * * * * *', /not a valid cron pattern/);
    fails('bet-win@2s;amount=lots', /amount: expected major units/);
    fails('bet-win@2s;amount=5-1', /amount.min must not exceed amount.max/);
    fails('bet-win@2s;count=0', /count/);
    fails('bet-win@2s;speed=3', /unknown option "speed"/);
  });
});
