import type { Logger } from 'pino';
import type { Attempt, StoredEvent } from './events.ts';

/**
 * Who hears of the callback engine's events: an event enqueued, an attempt committed, an event
 * settled. Each listener gets its own snapshot of the event, and one that throws is logged, never
 * let into the engine.
 */
export class EngineListeners {
  private readonly enqueued = new Set<(event: StoredEvent) => void>();
  private readonly settled = new Set<(event: StoredEvent) => void>();
  private readonly attempts = new Set<(attempt: Attempt, event: StoredEvent) => void>();

  constructor(private readonly logger: Logger | undefined) {}

  onEnqueued(listener: (event: StoredEvent) => void): () => void {
    this.enqueued.add(listener);
    return () => this.enqueued.delete(listener);
  }

  onSettled(listener: (event: StoredEvent) => void): () => void {
    this.settled.add(listener);
    return () => this.settled.delete(listener);
  }

  onAttempt(listener: (attempt: Attempt, event: StoredEvent) => void): () => void {
    this.attempts.add(listener);
    return () => this.attempts.delete(listener);
  }

  /** Tells the enqueued listeners, all with the one snapshot. */
  enqueuedEvent(snapshot: StoredEvent): void {
    for (const listener of this.enqueued) this.safely(() => listener(snapshot));
  }

  /** Tells the attempt listeners, with a snapshot taken only when someone listens. */
  attempted(attempt: Attempt, event: StoredEvent): void {
    if (this.attempts.size === 0) return;
    const snapshot = { ...event };
    for (const listener of this.attempts) this.safely(() => listener(attempt, snapshot));
  }

  settledEvent(snapshot: StoredEvent): void {
    for (const listener of this.settled) this.safely(() => listener(snapshot));
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.logger?.error({ err: error }, 'a callback engine listener threw');
    }
  }
}
