import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.ts';
import { classifyAnswer, classifyFailure, parseRetryAfter, retryDelayMs } from './dispatcher.ts';
import { seededRandom } from './random.ts';

const NOW = Date.UTC(2025, 0, 1);

describe('classifyAnswer', () => {
  it('counts a 2xx with a balance as delivered and keeps the parsed reply', () => {
    expect(classifyAnswer({ status: 200, body: '{"balance":12.5}' }, NOW)).toEqual({
      outcome: 'delivered',
      reply: { status: 200, body: { balance: 12.5 } },
    });
  });

  it('counts a 2xx carrying {error} as a business rejection', () => {
    const v = classifyAnswer({ status: 200, body: '{"error":"INSUFFICIENT_FUNDS","message":"balance 1.00"}' }, NOW);
    expect(v.outcome).toBe('rejected');
    expect(v.outcome === 'rejected' && v.error).toContain('INSUFFICIENT_FUNDS: balance 1.00');
  });

  it('rejects other 4xx without retrying, keeping a non-JSON body as text', () => {
    expect(classifyAnswer({ status: 400, body: '{"error":"INVALID_REQUEST"}' }, NOW).outcome).toBe('rejected');
    expect(classifyAnswer({ status: 404, body: '<html>nope</html>' }, NOW)).toMatchObject({
      outcome: 'rejected',
      reply: { status: 404, body: '<html>nope</html>' },
    });
  });

  it('retries 5xx, 408 and 429, reading Retry-After', () => {
    expect(classifyAnswer({ status: 500, body: '' }, NOW).outcome).toBe('retry');
    expect(classifyAnswer({ status: 503, body: 'down' }, NOW).outcome).toBe('retry');
    expect(classifyAnswer({ status: 408, body: '' }, NOW).outcome).toBe('retry');
    expect(classifyAnswer({ status: 429, body: '', retryAfter: '7' }, NOW)).toMatchObject({
      outcome: 'retry',
      retryAfterMs: 7000,
    });
  });

  it('retries a 2xx whose body is not a JSON object: nobody can tell whether the wallet applied it', () => {
    for (const body of ['<html>ok</html>', '', 'OK', '[1]']) {
      const v = classifyAnswer({ status: 200, body }, NOW);
      expect(v.outcome).toBe('retry');
      expect(v.outcome === 'retry' && v.error).toMatch(/not a JSON object.*will retry/);
    }
  });

  it('reads {"error":0} as success and a numeric error code as a rejection', () => {
    expect(classifyAnswer({ status: 200, body: '{"balance":10,"error":0}' }, NOW).outcome).toBe('delivered');
    expect(classifyAnswer({ status: 200, body: '{"error":7,"description":"limit"}' }, NOW)).toMatchObject({
      outcome: 'rejected',
      error: 'HTTP 200 with business rejection 7: limit',
    });
  });

  it('does not follow redirects and says why', () => {
    const v = classifyAnswer({ status: 302, body: '' }, NOW);
    expect(v.outcome === 'rejected' && v.error).toContain('redirects are not followed');
  });

  it('retries network failures and names the error code', () => {
    const error = Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' });
    expect(classifyFailure(error)).toEqual({ outcome: 'retry', error: 'ECONNREFUSED: connect refused' });
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  const base = { retrySchedule: [0, 1_000, 5_000], jitter: 0, timeScale: 1, retryAfterMax: 300_000 };

  it('follows the schedule and ends when it is exhausted', () => {
    const random = seededRandom(1);
    expect([0, 1, 2, 3].map((i) => retryDelayMs(i, base, random))).toEqual([0, 1_000, 5_000, undefined]);
  });

  it('adds at most ±jitter and scales by timeScale', () => {
    const random = seededRandom(7);
    const delays = Array.from(
      { length: 200 },
      () => retryDelayMs(2, { ...base, jitter: 0.2, timeScale: 0.01 }, random) as number,
    );
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(40);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
    expect(new Set(delays).size).toBeGreaterThan(5);
  });

  it('waits at least Retry-After, capped at retryAfterMax, unscaled', () => {
    const random = seededRandom(1);
    expect(retryDelayMs(1, { ...base, timeScale: 0.001 }, random, 120_000)).toBe(120_000);
    expect(retryDelayMs(1, base, random, 3_600_000)).toBe(300_000);
    expect(retryDelayMs(2, base, random, 10)).toBe(5_000);
  });
});

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const a = seededRandom('s');
    const b = seededRandom('s');
    const c = seededRandom('t');
    const seq = (r: ReturnType<typeof seededRandom>) => Array.from({ length: 5 }, () => r.int(1, 1000));
    const first = seq(a);
    expect(seq(b)).toEqual(first);
    expect(seq(c)).not.toEqual(first);
    expect(first.every((n) => n >= 1 && n <= 1000)).toBe(true);
  });
});

describe('FakeClock', () => {
  it('runs due timers in due order, following timers set by timers', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(() => fired.push('b@20'), 20);
    clock.setTimer(() => {
      fired.push('a@10');
      clock.setTimer(() => fired.push('c@15'), 5);
    }, 10);
    const cancelled = clock.setTimer(() => fired.push('never'), 12);
    clock.clearTimer(cancelled);
    await clock.advance(19);
    expect(fired).toEqual(['a@10', 'c@15']);
    expect(clock.now()).toBe(19);
    expect(clock.pending()).toBe(1);
    expect(await clock.advanceToNext()).toBe(true);
    expect(fired).toEqual(['a@10', 'c@15', 'b@20']);
    expect(clock.now()).toBe(20);
  });
});
