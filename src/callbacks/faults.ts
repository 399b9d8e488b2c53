import { type CallbackFault, type CallbackFaultRule, callbackFaultRuleSchema, firesNow } from '../config/index.ts';
import type { HttpAnswer } from './dispatcher.ts';
import type { StoredEvent } from './events.ts';
import { RuleBook, type RuleCounters } from './rule-book.ts';
import type { Transport } from './transport.ts';

/** A callback fault rule as stored and listed: the rule, how often it matched and fired, whether it is spent. */
export type CallbackFaultRuleState = CallbackFaultRule & RuleCounters;

/** What a rule matches on: the engine's events, and the load generator's calls. */
export type FaultTarget = Pick<StoredEvent, 'source' | 'kind' | 'playerId' | 'transactionId'>;

/** The rule that fired for one attempt and its fault. */
export interface FiredCallbackFault {
  ruleId: string;
  fault: CallbackFault;
}

/** The `source` of a duplicate a fault rule sent: `fault:<rule id>:duplicate-of:<event id>`. */
export function duplicateSource(ruleId: string, eventId: number): string {
  return `fault:${ruleId}:duplicate-of:${eventId}`;
}

/**
 * The fault rules on the callbacks aggmock sends, and which one fires for an attempt: the first
 * added that matches (kind, player, transaction id) and decides to fire (always, `times`, `nth` or a
 * seeded `probability`, as the API's rules). The duplicates a rule sends are never faulted again.
 * Pure logic: the engine applies what it returns at its send ({@link postWithFault}).
 *
 * @example
 * const faults = new CallbackFaults({ seed: 42 });
 * faults.add({ match: { event: 'debit' }, fault: { kind: 'timeout', giveUp: true }, times: 1 });
 */
export class CallbackFaults extends RuleBook<CallbackFaultRule> {
  constructor(options: { seed: number | string; rules?: readonly CallbackFaultRule[] }) {
    super(
      {
        schema: callbackFaultRuleSchema,
        noun: 'callback fault rule',
        route: '/__admin/callback-faults',
        idPrefix: 'cf',
        seedTag: 'callback-fault',
        seed: options.seed,
      },
      options.rules,
    );
  }

  /** Counts the attempt against every matching rule and returns the fault of the first that fires. */
  fire(event: FaultTarget): FiredCallbackFault | undefined {
    if (event.source.startsWith('fault:')) return undefined;
    let fired: FiredCallbackFault | undefined;
    for (const rule of this.rules) {
      const { state } = rule;
      if (state.spent || !matches(state, event)) continue;
      state.matched++;
      if (fired || !firesNow(state, rule.next)) continue;
      fired = { ruleId: state.id, fault: state.fault };
    }
    return fired;
  }
}

function matches({ match }: CallbackFaultRuleState, event: FaultTarget): boolean {
  if (match.event !== undefined && !(Array.isArray(match.event) ? match.event.includes(event.kind) : match.event === event.kind))
    return false;
  if (match.player !== undefined && match.player !== event.playerId) return false;
  if (match.transactionId !== undefined && match.transactionId !== event.transactionId) return false;
  return true;
}

/**
 * aggmock gave up on an attempt because a `timeout` fault rule said so. `answer` is the wallet's
 * reply when it came before aggmock gave up (it is journaled, and ignored); `final` ends the event
 * failed without a retry.
 */
export class FaultTimeoutError extends Error {
  override readonly name = 'FaultTimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(
    message: string,
    readonly final: boolean,
    readonly answer?: HttpAnswer,
  ) {
    super(message);
  }
}

/**
 * Sends one attempt under a `timeout` fault: the request goes out as always, and aggmock gives up
 * on it — when the wallet's reply is in (no `afterMs`), or `afterMs` after sending or at the reply,
 * whichever is first. A reply that comes after aggmock gave up is handed to `onLate` (the journal
 * adds it to the attempt); a network failure stays what it was.
 */
export function postWithTimeoutFault(
  transport: Transport,
  fired: FiredCallbackFault & { fault: { kind: 'timeout' } },
  request: { url: string; headers: Record<string, string>; body: string; method?: string },
  onLate: (answer: HttpAnswer) => void,
): Promise<HttpAnswer> {
  const { afterMs, giveUp } = fired.fault;
  const rule = `aggmock callback fault rule ${fired.ruleId}`;
  const next = giveUp ? 'no retry: the event ends failed' : 'retried on callbacks.retrySchedule';
  const sent = transport.post(request.url, request.headers, request.body, request.method);
  const inTime = (answer: HttpAnswer) =>
    new FaultTimeoutError(
      `timed out (${rule}): the wallet answered HTTP ${answer.status}, treated as too late and ignored; ${next}`,
      giveUp,
      answer,
    );
  if (afterMs === undefined) return sent.then((answer) => Promise.reject(inTime(answer)));
  return new Promise<HttpAnswer>((_, reject) => {
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      reject(
        new FaultTimeoutError(
          `timed out after ${afterMs} ms (${rule}) with the request still open: the wallet may still apply it; ${next}`,
          giveUp,
        ),
      );
    }, afterMs);
    sent.then(
      (answer) => {
        if (gaveUp) onLate(answer);
        else {
          clearTimeout(timer);
          reject(inTime(answer));
        }
      },
      (error: unknown) => {
        if (gaveUp) return; // Its failure after aggmock gave up changes nothing.
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
