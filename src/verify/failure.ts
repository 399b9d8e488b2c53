/*
 * How a check ends other than by passing: it found the wallet breaking its rule (`fail`), or it
 * cannot run with what it was given (`skip`). Thrown from anywhere inside a check; run.ts turns them
 * into the report's rows.
 */

/** A check found the webhook breaking its rule. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** A check cannot run with what it was given (one player only, a scheme without timestamps…). */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/**
 * What a warning note starts with: the wallet broke aggmock's safer reading of a rule (beyond what
 * the vendor's text says) or answered with a code the vendor never documented. A check with one
 * ends WARN instead of PASS; under `verify --strict` it fails instead ({@link saferReadingBroken}).
 */
export const WARNING_PREFIX = 'WARNING: ';

/** Whether a check's note is a warning. */
export function isWarning(note: string): boolean {
  return note.startsWith(WARNING_PREFIX);
}

/**
 * The wallet broke aggmock's safer reading of a rule, not the vendor's: under `--strict` the check
 * fails; otherwise the note is kept as a warning and the check goes on.
 */
export function saferReadingBroken(ctx: { notes: string[]; settings: { strict?: boolean } }, message: string): void {
  if (ctx.settings.strict) fail(`${message} (aggmock's safer reading beyond the vendor's text: a failure under --strict)`);
  ctx.notes.push(`${WARNING_PREFIX}${message} (aggmock's safer reading beyond the vendor's text: fails under --strict)`);
}
