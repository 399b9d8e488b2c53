/**
 * Time as the callback engine sees it. Retry schedules wait on a Clock, so tests run a whole
 * schedule (seconds to hours) instantly with {@link FakeClock}. HTTP timeouts are real I/O and
 * stay on real timers.
 */
/** Whatever the clock hands back from setTimer; only ever passed back to clearTimer. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    // A pending retry must not keep a CLI process alive on its own; stop() clears them anyway.
    t.unref();
    return t;
  },
  clearTimer(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

interface FakeTimer {
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` runs every timer that falls due, in due
 * order, letting promises settle between them, so code that reacts to a timer by setting
 * another one is followed through.
 *
 * @example
 * const clock = new FakeClock(Date.parse('2025-01-01T00:00:00Z'));
 * clock.setTimer(() => console.log('fired'), 1_000);
 * await clock.advance(1_000); // logs "fired"
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(startMs = Date.parse('2025-01-01T00:00:00.000Z')) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { due: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle as FakeTimer);
  }

  /** How many timers are waiting. */
  pending(): number {
    return this.timers.size;
  }

  /** Milliseconds until the earliest timer is due, or undefined when none is waiting. */
  nextDueIn(): number | undefined {
    const next = this.earliest();
    return next === undefined ? undefined : Math.max(0, next.due - this.current);
  }

  /** Moves time forward by `ms`, running each timer that falls due in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    for (;;) {
      await flushMicrotasks();
      const next = this.earliest();
      if (!next || next.due > target) break;
      this.timers.delete(next);
      this.current = Math.max(this.current, next.due);
      next.fn();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Moves time to the earliest waiting timer and runs it (and any due at the same moment). */
  async advanceToNext(): Promise<boolean> {
    const due = this.nextDueIn();
    if (due === undefined) return false;
    await this.advance(due);
    return true;
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
