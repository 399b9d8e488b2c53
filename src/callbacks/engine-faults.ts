import type { AttemptInFlight } from './attempt.ts';
import type { HttpAnswer } from './dispatcher.ts';
import { type FiredCallbackFault, postWithTimeoutFault } from './faults.ts';
import type { Transport } from './transport.ts';

/**
 * One attempt under the callback fault rule that fired (src/callbacks/faults.ts): a `duplicate`
 * has `duplicate` store a copy of the event (at once, or after the rule's delay) while this one
 * goes out; a `timeout` gives up on this attempt, and a reply that comes later goes to `onLate`.
 */
export function postUnderFault(
  transport: Transport,
  attempt: AttemptInFlight,
  fired: FiredCallbackFault,
  on: { late: (answer: HttpAnswer) => void; duplicate: () => void },
): Promise<HttpAnswer> {
  const { request } = attempt;
  const { fault } = fired;
  if (fault.kind === 'duplicate') {
    if (fault.afterMs > 0) setTimeout(on.duplicate, fault.afterMs).unref();
    else on.duplicate();
    return transport.post(request.url, request.headers, request.body, request.method);
  }
  return postWithTimeoutFault(transport, { ...fired, fault }, request, on.late);
}
