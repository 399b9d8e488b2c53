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
