import type { ErrorClass } from './client.ts';
import { Histogram } from './histogram.ts';

/**
 * What a load run counts while it runs: latency per operation (microseconds, HDR-style
 * histograms), start lag, late and dropped starts, errors by class and refusals by the vendor's
 * code, and the same per second for the plots. In memory only.
 */

/**
 * Error classes the report counts. Refusals (a vendor code in an answer) are counted apart: they are
 * answers. `rolledBack`: an answer the vendor takes as "maybe applied" (`rolledBackAfter`), then rolled back.
 */
export const ERROR_CLASSES = ['timeout', 'reset', 'refused', 'other', 'http5xx', 'retryCode', 'invalid', 'rolledBack'] as const;
export type CountedError = (typeof ERROR_CLASSES)[number];

export interface Second {
  /** Seconds since the start. */
  t: number;
  /** Rounds due in this second by the schedule. */
  asked: number;
  started: number;
  late: number;
  dropped: number;
  /** Attempts that got a reply, and their latencies. */
  answered: number;
  latency: Histogram;
  errors: number;
}

export class LoadStats {
  readonly perOperation = new Map<string, Histogram>();
  readonly all = new Histogram();
  /** How late each round started after the time it was due (µs). */
  readonly startLag = new Histogram();
  readonly errors: Record<CountedError, number> = {
    timeout: 0,
    reset: 0,
    refused: 0,
    other: 0,
    http5xx: 0,
    retryCode: 0,
    invalid: 0,
    rolledBack: 0,
  };
  /** Refusals by the wallet's own code (or HTTP status when it gave none). */
  readonly refusals = new Map<string, number>();
  readonly series: Second[] = [];
  roundsDue = 0;
  roundsStarted = 0;
  late = 0;
  dropped = 0;
  /** Dropped because the in-flight cap was reached (the rest: started too late). */
  droppedInFlight = 0;
  attempts = 0;
  calls = 0;
  retries = 0;
  faultTimeouts = 0;
  faultDuplicates = 0;
  /** One error message of each class, for the report. */
  readonly samples = new Map<string, string>();

  second(ms: number): Second {
    const t = Math.max(0, Math.floor(ms / 1000));
    while (this.series.length <= t)
      this.series.push({
        t: this.series.length,
        asked: 0,
        started: 0,
        late: 0,
        dropped: 0,
        answered: 0,
        latency: new Histogram(),
        errors: 0,
      });
    return this.series[t] as Second;
  }

  answered(at: number, operation: string, micros: number): void {
    let h = this.perOperation.get(operation);
    if (!h) {
      h = new Histogram();
      this.perOperation.set(operation, h);
    }
    h.record(micros);
    this.all.record(micros);
    const s = this.second(at);
    s.answered++;
    s.latency.record(micros);
  }

  error(at: number, kind: CountedError | ErrorClass, message: string): void {
    this.errors[kind]++;
    this.second(at).errors++;
    if (!this.samples.has(kind)) this.samples.set(kind, message);
  }

  refusal(code: string): void {
    this.refusals.set(code, (this.refusals.get(code) ?? 0) + 1);
  }

  /** Attempts that ended in an error (transport, 5xx, unreadable), over all attempts. */
  get errorRate(): number {
    let n = 0;
    for (const k of ERROR_CLASSES) n += this.errors[k];
    return this.attempts === 0 ? 0 : n / this.attempts;
  }
}
