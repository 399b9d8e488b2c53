import { describe, expect, it } from 'vitest';
import { arrivalsBy, arrivalTime, parseSchedule, rateAt, ScheduleError, scheduleLength } from './schedule.ts';

describe('the arrival schedule', () => {
  it('a constant rate: the n-th arrival is due at n/rate', () => {
    const s = parseSchedule({ rate: '200', duration: '2s' });
    expect(scheduleLength(s)).toBe(2000);
    expect(arrivalTime(s, 1)).toBeCloseTo(5, 6);
    expect(arrivalTime(s, 400)).toBeCloseTo(2000, 6);
    expect(arrivalTime(s, 401)).toBeUndefined();
    expect(arrivalsBy(s, 1000)).toBeCloseTo(200, 6);
  });

  it('stages ramp linearly and arrival times invert the count of arrivals', () => {
    const s = parseSchedule({ stages: '10s:100,30s:500,5s:0' });
    expect(rateAt(s, 5000)).toBeCloseTo(50, 6);
    expect(rateAt(s, 25_000)).toBeCloseTo(300, 6);
    expect(arrivalsBy(s, 10_000)).toBeCloseTo(500, 6);
    expect(arrivalsBy(s, 40_000)).toBeCloseTo(500 + 9000, 6);
    for (const n of [1, 17, 500, 501, 4000, 9500, 9600, 10_749]) {
      const t = arrivalTime(s, n) as number;
      expect(arrivalsBy(s, t)).toBeCloseTo(n, 4);
    }
    expect(arrivalTime(s, 10_751)).toBeUndefined();
  });

  it('a ramp starts from --rate when it is given', () => {
    const s = parseSchedule({ rate: '100', stages: '10s:300' });
    expect(rateAt(s, 0)).toBe(100);
    expect(arrivalsBy(s, 10_000)).toBeCloseTo(2000, 6);
  });

  it.each([
    [{ rate: 'fast' }, '--rate: expected a positive rate'],
    [{ rate: '0' }, '--rate: expected a positive rate'],
    [{}, '--rate: expected the rate to hold'],
    [{ rate: '10', duration: 'soon' }, '--duration: expected a length'],
    [{ stages: '10s' }, '--stages: stage 1 "10s": expected <duration>:<rate>'],
    [{ stages: '10s:5,x:9' }, '--stages: stage 2 "x:9"'],
    [{ stages: '10s:0' }, 'every stage asks for 0'],
    [{ stages: '10s:5', duration: '3s' }, 'give one of --duration or --stages'],
  ])('refuses %j, naming the flag and what it expects', (flags, message) => {
    expect(() => parseSchedule(flags)).toThrow(ScheduleError);
    expect(() => parseSchedule(flags)).toThrow(message);
  });
});
