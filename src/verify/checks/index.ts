/** The stateful checks of `aggmock verify`, in the order they run and are reported. */
import { CONCURRENCY_CHECKS } from './concurrency.ts';
import { IDEMPOTENCY_CHECKS } from './idempotency.ts';
import { MONEY_CHECKS } from './money.ts';
import { PROTOCOL_CHECKS } from './protocol.ts';
import { ROLLBACK_CHECKS } from './rollback.ts';
import type { Check } from './shared.ts';
import { SIGNATURE_CHECKS } from './signature.ts';

export type { Check } from './shared.ts';

export const CHECKS: readonly Check[] = [
  ...MONEY_CHECKS,
  ...IDEMPOTENCY_CHECKS,
  ...ROLLBACK_CHECKS,
  ...CONCURRENCY_CHECKS,
  ...SIGNATURE_CHECKS,
  ...PROTOCOL_CHECKS,
];

export const CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

export function findCheck(id: string): Check | undefined {
  return CHECKS.find((c) => c.id === id);
}
