import type { Logger } from 'pino';
import type { AttemptInFlight } from './attempt.ts';
import type { Transport } from './transport.ts';

/** An attempt journaled and waiting for its row to be committed before it goes out. */
export interface JournaledSend {
  transport: Transport;
  sending: Omit<AttemptInFlight, 't0'>;
}

/**
 * The callback engine's rule that nothing goes out unjournaled: the attempts started in one
 * event-loop iteration wait for one commit of their journal rows (setImmediate runs after every
 * reply the poll phase brought in, so one commit covers the attempts they freed slots for; a
 * microtask would commit once per reply), then go out. When the commit fails, or the outbox was
 * reset since an attempt began, that attempt ends unsent (a retry, on the schedule) instead of
 * reaching the wallet with no row to show for it.
 */
export class SendsAfterCommit {
  private queue: JournaledSend[] = [];

  constructor(
    private readonly steps: {
      logger: Logger | undefined;
      /** Commits the journal rows written so far (throws when it cannot). */
      commit: () => void;
      /** The outbox's generation now (an attempt of an older one was started before a reset). */
      generation: () => number;
      post: (send: JournaledSend) => void;
      unsent: (send: JournaledSend, why: string) => void;
      /** After a successful commit: it also carried the outcomes journaled before it. */
      committed: () => void;
    },
  ) {}

  add(send: JournaledSend): void {
    this.queue.push(send);
    if (this.queue.length === 1) setImmediate(this.run);
  }

  private readonly run = (): void => {
    const sends = this.queue;
    this.queue = [];
    let unjournaled: string | undefined;
    try {
      this.steps.commit();
    } catch (error) {
      this.steps.logger?.error({ err: error }, 'could not journal attempts before sending them');
      unjournaled = `not sent: its journal row could not be committed (${error instanceof Error ? error.message : String(error)})`;
    }
    for (const send of sends) {
      const unsent =
        send.sending.generation !== this.steps.generation()
          ? 'not sent: the outbox was reset before the attempt went out'
          : unjournaled;
      if (unsent === undefined) this.steps.post(send);
      else this.steps.unsent(send, unsent);
    }
    if (unjournaled === undefined) this.steps.committed();
  };
}
