import { timingSafeEqual } from 'node:crypto';

/** Compares two strings in time that depends only on their lengths, never on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  return equalBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * {@link constantTimeEqual} against one fixed secret whose bytes are encoded once, for a check
 * that runs on every request (the API key).
 */
export function constantTimeMatcher(secret: string): (candidate: string) => boolean {
  const right = Buffer.from(secret, 'utf8');
  return (candidate) => equalBytes(Buffer.from(candidate, 'utf8'), right);
}

function equalBytes(left: Buffer, right: Buffer): boolean {
  if (left.length !== right.length) {
    // Still spend the comparison so a length mismatch is not measurably faster.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
