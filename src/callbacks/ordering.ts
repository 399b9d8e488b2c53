import type { Clock, TimerHandle } from './clock.ts';
import type { StoredEvent } from './events.ts';

/** What the lines ask of the engine that owns them. */
export interface OrderingHost {
  clock: Clock;
  /** A stopped engine makes nothing ready and sets no timers. */
  isRunning(): boolean;
  /** Whether the event's row is committed: an uncommitted one must not be attempted yet. */
  isStored(event: StoredEvent): boolean;
  /** A key's retry fell due: send what may go now. */
  onDue(): void;
}

/**
 * Strict order per ordering key (SPEC §3): one line of unsettled events per key, in send order.
 * Only a line's head may be on the wire; it becomes ready now or when its retry falls due, and
 * ready keys are served first come first served while different keys go out concurrently.
 */
export class OrderingLines {
  /** Unsettled events per ordering key, in send order; the head is the only one that may be on the wire. */
  private readonly lines = new Map<string, StoredEvent[]>();
  /** Keys whose head is due now, first come first served. */
  private ready: string[] = [];
  private readyHead = 0;
  private readonly readyKeys = new Set<string>();
  private readonly timers = new Map<string, TimerHandle>();
  /** Keys whose head could not start because its row was not committed yet. */
  private awaitingStore = new Set<string>();
  /** Keys whose head was ready but its origin had no free slot (see OriginSlots). */
  private parked = new Set<string>();

  constructor(private readonly host: OrderingHost) {}

  /** Rebuilds the lines from the outbox's unsettled events, in their original order, and activates them. */
  resume(events: Iterable<StoredEvent>): void {
    this.lines.clear();
    this.clearReady();
    for (const event of events) {
      const line = this.lines.get(event.orderingKey);
      if (line) line.push(event);
      else this.lines.set(event.orderingKey, [event]);
    }
    for (const key of this.lines.keys()) this.activate(key);
  }

  /**
   * Queues a new event at the back of its line (or at the front: a rollback goes next). Returns
   * true when it opened a new line, whose head may go at once.
   */
  add(event: StoredEvent, atFront: boolean): boolean {
    const line = this.lines.get(event.orderingKey);
    if (!line) {
      this.lines.set(event.orderingKey, [event]);
      this.activate(event.orderingKey);
      return true;
    }
    if (atFront) line.unshift(event);
    else line.push(event);
    return false;
  }

  /** The key's head becomes ready now, or when its retry falls due. */
  activate(key: string): void {
    if (!this.host.isRunning()) return;
    const head = this.lines.get(key)?.[0];
    if (head?.status !== 'pending' || this.timers.has(key) || this.readyKeys.has(key)) return;
    if (!this.host.isStored(head)) {
      // Stored before its first attempt: the commit at the end of this turn activates it.
      this.awaitingStore.add(key);
      return;
    }
    const wait = head.nextAttemptAt === undefined ? 0 : head.nextAttemptAt - this.host.clock.now();
    if (wait <= 0) {
      this.markReady(key);
      return;
    }
    this.timers.set(
      key,
      this.host.clock.setTimer(() => this.fallDue(key), wait),
    );
  }

  /** The heads that waited for their rows: the commit happened, so they may go. */
  activateCommitted(): void {
    if (this.awaitingStore.size === 0) return;
    const keys = this.awaitingStore;
    this.awaitingStore = new Set();
    for (const key of keys) this.activate(key);
  }

  /**
   * The next head that may be sent now, taken off the ready list; undefined when none is ready.
   * A head `mayGo` refuses (its origin is at its share of the pool) is parked until {@link unpark}.
   */
  nextReady(mayGo: (event: StoredEvent) => boolean = () => true): StoredEvent | undefined {
    while (this.readyHead < this.ready.length) {
      const key = this.ready[this.readyHead++] as string;
      this.readyKeys.delete(key);
      const head = this.lines.get(key)?.[0];
      if (head?.status !== 'pending') continue;
      if (!this.host.isStored(head)) {
        this.awaitingStore.add(key);
        continue;
      }
      if (mayGo(head)) return head;
      this.parked.add(key);
    }
    return undefined;
  }

  /** A slot freed: the parked heads are ready again (in the order they were parked). */
  unpark(): void {
    if (this.parked.size === 0) return;
    const keys = this.parked;
    this.parked = new Set();
    for (const key of keys) if (!this.readyKeys.has(key)) this.markReady(key);
  }

  /** Drops the served part of the ready list once it is most of it (it only grows otherwise). */
  compact(): void {
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  /** The settled event leaves the head of its line; an emptied line goes. */
  settle(event: StoredEvent): void {
    const line = this.lines.get(event.orderingKey);
    if (line && line[0] === event) line.shift();
    if (line && line.length === 0) this.lines.delete(event.orderingKey);
  }

  has(key: string): boolean {
    return this.lines.has(key);
  }

  stopTimers(): void {
    for (const timer of this.timers.values()) this.host.clock.clearTimer(timer);
    this.timers.clear();
  }

  /** Forgets every line, due time and waiting key (the outbox was reset). */
  forget(): void {
    this.stopTimers();
    this.lines.clear();
    this.clearReady();
    this.awaitingStore.clear();
    this.parked.clear();
  }

  private fallDue(key: string): void {
    this.timers.delete(key);
    if (!this.host.isRunning()) return;
    this.markReady(key);
    this.host.onDue();
  }

  private markReady(key: string): void {
    this.readyKeys.add(key);
    this.ready.push(key);
  }

  private clearReady(): void {
    this.ready = [];
    this.readyHead = 0;
    this.readyKeys.clear();
  }
}
