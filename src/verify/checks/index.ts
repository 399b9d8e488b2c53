/** The stateful checks of `aggmock verify`, in the order they run and are reported. */

import type { CallbacksConfig } from '../../callbacks/events.ts';
import { type VerifyWire, verifyWireOf } from '../wire.ts';
import { BODY_CHECKS, BODY_NOT_APPLICABLE } from './bodies.ts';
import { CONCURRENCY_CHECKS } from './concurrency.ts';
import { CREDENTIAL_CHECKS, CREDENTIAL_NOT_APPLICABLE } from './credentials.ts';
import { IDEMPOTENCY_CHECKS } from './idempotency.ts';
import { IDENTIFIER_CHECKS } from './identifiers.ts';
import { MALFORMED_PARAM_CHECKS, MALFORMED_PARAM_NOT_APPLICABLE } from './malformed-params.ts';
import { MONEY_CHECKS } from './money.ts';
import { PRECISION_CHECKS } from './precision.ts';
import { PROTOCOL_CHECKS } from './protocol.ts';
import { DEEP_CHECKS, REPEAT_CHECKS } from './repeats.ts';
import { RETRY_CHECKS } from './retries.ts';
import { ROLLBACK_CHECKS } from './rollback.ts';
import { SESSION_CHECKS } from './session.ts';
import type { Check } from './shared.ts';
import { SIGNATURE_CHECKS } from './signature.ts';
import { SIGNED_EVENT_CHECKS } from './signed-events.ts';
import { STALE_TOKEN_CHECKS, STALE_TOKEN_NOT_APPLICABLE } from './stale-token.ts';
import { WIRE_CHECKS } from './wire.ts';

export type { Check } from './shared.ts';

export const CHECKS: readonly Check[] = [
  ...MONEY_CHECKS,
  ...PRECISION_CHECKS,
  ...IDEMPOTENCY_CHECKS,
  ...REPEAT_CHECKS,
  ...RETRY_CHECKS,
  ...IDENTIFIER_CHECKS,
  ...ROLLBACK_CHECKS,
  ...SESSION_CHECKS,
  ...STALE_TOKEN_CHECKS,
  ...CONCURRENCY_CHECKS,
  ...SIGNATURE_CHECKS,
  ...SIGNED_EVENT_CHECKS,
  ...CREDENTIAL_CHECKS,
  ...PROTOCOL_CHECKS,
  ...BODY_CHECKS,
  ...MALFORMED_PARAM_CHECKS,
  ...WIRE_CHECKS,
  ...DEEP_CHECKS,
];

export const CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

/**
 * The deep checks: too costly for every run (repeat-after-many sends a thousand transactions), run
 * only when named in --only, by id or as the group "deep".
 */
export const DEEP_CHECK_IDS: readonly string[] = DEEP_CHECKS.map((c) => c.id);

/**
 * The checks a run makes on this wire by default (e.g. second-rollback-new-id only in "reference"
 * rollback style; the deep checks only when asked for).
 */
export function checksFor(callbacks: CallbacksConfig): readonly Check[] {
  const wire = verifyWireOf(callbacks);
  return CHECKS.filter((c) => !DEEP_CHECK_IDS.includes(c.id) && (c.appliesTo?.(wire) ?? true));
}

/**
 * The checks of a run: every check, and for one that needs what the wire has not (a rollback call,
 * a signature, a currency field…) why it is not run, so the report says so.
 */
export function checkPlan(callbacks: CallbacksConfig): { check: Check; notApplicable?: string }[] {
  const wire = verifyWireOf(callbacks);
  return CHECKS.map((check) => ((check.appliesTo?.(wire) ?? true) ? { check } : { check, notApplicable: whyNot(check, wire) }));
}

/** Why a check does not apply to a wire, in the integrator's terms. */
function whyNot(check: Check, wire: VerifyWire): string {
  const lacks = (what: string) => `not run: the ${wire.name} dialect ${what}`;
  if (!wire.hasRollback && ROLLBACK_CHECKS.concat(CONCURRENCY_CHECKS).includes(check)) return lacks('has no rollback call');
  if (wire.signingScheme === 'none' && SIGNATURE_CHECKS.concat(SIGNED_EVENT_CHECKS).includes(check))
    return lacks('signs no requests (its credentials travel as they are)');
  const reasons: Record<string, string> = {
    'wrong-api-key': 'carries no API key in its bodies (its keys, if any, are judged by the signature checks)',
    'missing-api-key': 'carries no API key in its bodies (its keys, if any, are judged by the signature checks)',
    'wrong-currency': 'writes no currency in its bets',
    'whole-round': 'has no call that carries a bet and its win together (betWin)',
    'distinct-player-ids': 'reads player ids case-insensitively and trimmed, by its own documentation',
    'second-rollback-new-id': 'carries the bet\'s id as a rollback\'s own id (rollbackStyle "original")',
    'end-round-repeated': 'has no endRound call',
    'free-spin': 'carries no bonus reference',
    'bonus-credited-once': 'carries no bonus reference',
    'rollback-win-restores': 'has no rollbackWin call (a rollback of a win)',
    'duplicate-rollback-win': 'has no rollbackWin call (a rollback of a win)',
    ...CREDENTIAL_NOT_APPLICABLE,
    ...BODY_NOT_APPLICABLE,
    ...STALE_TOKEN_NOT_APPLICABLE,
    ...MALFORMED_PARAM_NOT_APPLICABLE,
  };
  return lacks(reasons[check.id] ?? 'lacks what this check needs');
}
