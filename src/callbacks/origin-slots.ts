/**
 * Delivery slots per origin. A launch's `callback_url` may name a service that accepts connections
 * and never answers: with one global pool, sessions pointed at it would hold every slot for the
 * whole timeout, and the real wallet's callbacks would wait behind them. So the configured
 * webhook's origin may use the whole pool, while any other origin gets at most a quarter of it,
 * and all other origins together at most half: the webhook always keeps half the pool.
 */
export class OriginSlots {
  private readonly webhookOrigin: string;
  private readonly perOrigin: number;
  private readonly othersTotal: number;
  private readonly inFlight = new Map<string, number>();
  private others = 0;

  constructor(options: { concurrency: number; webhookUrl: string }) {
    this.webhookOrigin = originOf(options.webhookUrl);
    this.perOrigin = Math.max(1, Math.floor(options.concurrency / 4));
    this.othersTotal = Math.max(1, Math.floor(options.concurrency / 2));
  }

  /** Whether an attempt to `url` may start now (the global pool is the caller's check). */
  mayStart(url: string): boolean {
    const origin = originOf(url);
    if (origin === this.webhookOrigin) return true;
    return this.others < this.othersTotal && (this.inFlight.get(origin) ?? 0) < this.perOrigin;
  }

  started(url: string): void {
    const origin = originOf(url);
    this.inFlight.set(origin, (this.inFlight.get(origin) ?? 0) + 1);
    if (origin !== this.webhookOrigin) this.others++;
  }

  /** Returns whether the freed slot was another origin's (parked events may go now). */
  finished(url: string): boolean {
    const origin = originOf(url);
    const left = (this.inFlight.get(origin) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(origin);
    else this.inFlight.set(origin, left);
    if (origin === this.webhookOrigin) return false;
    this.others = Math.max(0, this.others - 1);
    return true;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
