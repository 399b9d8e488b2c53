import { randomBytes } from 'node:crypto';
import {
  type CallbackFault,
  type CallbackFaultRule,
  type CallbackFaultRuleInput,
  callbackFaultRuleSchema,
  FaultRuleError,
  firesNow,
  MAX_FAULT_RULES,
} from '../config/index.ts';
import { valueAt } from '../shared/index.ts';
import type { HttpAnswer } from './dispatcher.ts';
import type { StoredEvent } from './events.ts';
import { seededRandom } from './random.ts';
import type { Transport } from './transport.ts';

/** A callback fault rule as stored and listed: the rule, how often it matched and fired, whether it is spent. */
export interface CallbackFaultRuleState extends CallbackFaultRule {
  id: string;
  source: 'config' | 'admin';
  matched: number;
  fired: number;
  spent: boolean;
}

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
export class CallbackFaults {
  private readonly rules: { state: CallbackFaultRuleState; next: () => number }[] = [];

  constructor(private readonly options: { seed: number | string; rules?: readonly CallbackFaultRule[] }) {
    for (const rule of options.rules ?? []) this.insert(rule, 'config');
  }

  get size(): number {
    return this.rules.length;
  }

  /** Validates and adds a rule; a bad one throws a {@link FaultRuleError} naming each field. */
  add(input: CallbackFaultRuleInput | unknown): CallbackFaultRuleState {
    const parsed = callbackFaultRuleSchema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({
        field: i.path.map(String).join('.') || '(body)',
        message: i.message,
        ...(valueAt(input, i.path) === undefined ? {} : { received: valueAt(input, i.path) }),
      }));
      throw new FaultRuleError(
        `Invalid callback fault rule: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`,
        issues,
      );
    }
    return this.insert(parsed.data, 'admin');
  }

  private insert(rule: CallbackFaultRule, source: CallbackFaultRuleState['source']): CallbackFaultRuleState {
    if (this.rules.length >= MAX_FAULT_RULES)
      throw new FaultRuleError(
        `At most ${MAX_FAULT_RULES} callback fault rules; DELETE /__admin/callback-faults/<id> one first.`,
      );
    const id = rule.id ?? `cf_${randomBytes(6).toString('hex')}`;
    if (this.rules.some((r) => r.state.id === id))
      throw new FaultRuleError(`A callback fault rule with id ${JSON.stringify(id)} exists already.`, [
        { field: 'id', message: 'already used', received: id },
      ]);
    const state: CallbackFaultRuleState = { ...rule, id, source, matched: 0, fired: 0, spent: false };
    this.rules.push({ state, next: seededRandom(rule.seed ?? `${this.options.seed}:callback-fault:${id}`).next });
    return { ...state };
  }

  list(): CallbackFaultRuleState[] {
    return this.rules.map((r) => ({ ...r.state }));
  }

  remove(id: string): boolean {
    const i = this.rules.findIndex((r) => r.state.id === id);
    if (i < 0) return false;
    this.rules.splice(i, 1);
    return true;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules.length = 0;
    return n;
  }

  /** Counts the attempt against every matching rule and returns the fault of the first that fires. */
  fire(event: StoredEvent): FiredCallbackFault | undefined {
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

function matches({ match }: CallbackFaultRuleState, event: StoredEvent): boolean {
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
