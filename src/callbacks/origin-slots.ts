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
  /** URL → origin: asked three times per attempt, and most attempts go to a handful of URLs. */
  private readonly origins = new Map<string, string>();
  private others = 0;

  constructor(options: { concurrency: number; webhookUrl: string }) {
    this.webhookOrigin = parseOrigin(options.webhookUrl);
    this.perOrigin = Math.max(1, Math.floor(options.concurrency / 4));
    this.othersTotal = Math.max(1, Math.floor(options.concurrency / 2));
  }

  private originOf(url: string): string {
    let origin = this.origins.get(url);
    if (origin === undefined) {
      if (this.origins.size > 10_000) this.origins.clear();
      origin = parseOrigin(url);
      this.origins.set(url, origin);
    }
    return origin;
  }

  /** Whether an attempt to `url` may start now (the global pool is the caller's check). */
  mayStart(url: string): boolean {
    const origin = this.originOf(url);
    if (origin === this.webhookOrigin) return true;
    return this.others < this.othersTotal && (this.inFlight.get(origin) ?? 0) < this.perOrigin;
  }

  started(url: string): void {
    const origin = this.originOf(url);
    this.inFlight.set(origin, (this.inFlight.get(origin) ?? 0) + 1);
    if (origin !== this.webhookOrigin) this.others++;
  }

  /** Returns whether the freed slot was another origin's (parked events may go now). */
  finished(url: string): boolean {
    const origin = this.originOf(url);
    const left = (this.inFlight.get(origin) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(origin);
    else this.inFlight.set(origin, left);
    if (origin === this.webhookOrigin) return false;
    this.others = Math.max(0, this.others - 1);
    return true;
  }
}

function parseOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
