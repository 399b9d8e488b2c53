/** The stateful checks of `aggmock verify`, in the order they run and are reported. */

import type { CallbacksConfig } from '../../callbacks/events.ts';
import { wireOf } from '../../profiles/index.ts';
import { CONCURRENCY_CHECKS } from './concurrency.ts';
import { IDEMPOTENCY_CHECKS } from './idempotency.ts';
import { IDENTIFIER_CHECKS } from './identifiers.ts';
import { MONEY_CHECKS } from './money.ts';
import { PRECISION_CHECKS } from './precision.ts';
import { PROTOCOL_CHECKS } from './protocol.ts';
import { RETRY_CHECKS } from './retries.ts';
import { ROLLBACK_CHECKS } from './rollback.ts';
import type { Check } from './shared.ts';
import { SIGNATURE_CHECKS } from './signature.ts';
import { SIGNED_EVENT_CHECKS } from './signed-events.ts';
import { WIRE_CHECKS } from './wire.ts';

export type { Check } from './shared.ts';

export const CHECKS: readonly Check[] = [
  ...MONEY_CHECKS,
  ...PRECISION_CHECKS,
  ...IDEMPOTENCY_CHECKS,
  ...RETRY_CHECKS,
  ...IDENTIFIER_CHECKS,
  ...ROLLBACK_CHECKS,
  ...CONCURRENCY_CHECKS,
  ...SIGNATURE_CHECKS,
  ...SIGNED_EVENT_CHECKS,
  ...PROTOCOL_CHECKS,
  ...WIRE_CHECKS,
];

export const CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

/** The checks that exist on this wire (e.g. second-rollback-new-id only in "reference" rollback style). */
export function checksFor(callbacks: CallbacksConfig): readonly Check[] {
  const wire = wireOf(callbacks);
  return CHECKS.filter((c) => c.appliesTo?.(wire) ?? true);
}

export function findCheck(id: string): Check | undefined {
  return CHECKS.find((c) => c.id === id);
}
