import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { fitId } from '../../src/dialects/ids.ts';
import { builtinDialect } from '../../src/dialects/index.ts';
import { CheckContext, type CheckSettings } from '../../src/verify/index.ts';

/* Ids verify makes up stay within the longest id a dialect's wallets accept (Red Tiger: 32). */

function context(dialect: string, runId: string): CheckContext {
  const settings: CheckSettings = {
    webhookUrl: 'http://x.invalid/',
    callbacks: configSchema.parse({ callbacks: { dialect } }).callbacks,
    players: ['p1'],
    timeoutMs: 1000,
    maxLatencyMs: 1000,
    concurrency: 2,
    runId,
  };
  return new CheckContext(settings, 'id-length');
}

describe('ids verify makes up', () => {
  it('are kept as they are where they fit, and shortened the same way every time where they do not', () => {
    expect(fitId('verify-abc-1', 32, 6)).toBe('verify-abc-1');
    expect(fitId('verify-abc-1', undefined, 6)).toBe('verify-abc-1');
    const long = `verify-${'r'.repeat(30)}-12345`;
    expect(fitId(long, 32, 6)).toMatch(/^v[0-9a-f]{25}$/);
    expect(fitId(long, 32, 6)).toBe(fitId(long, 32, 6));
    expect(fitId(`${long}6`, 32, 6)).not.toBe(fitId(long, 32, 6));
  });

  it('leave room for a win round’s -round under Red Tiger’s 32, however long the run', () => {
    expect(builtinDialect('redtiger').calls.idMaxLength).toBe(32);
    const ctx = context('redtiger', 'mhx1k2a3b4c5d6e7f8');
    const ids = Array.from({ length: 20_000 }, () => ctx.tx());
    expect(Math.max(...ids.map((id) => `${id}-round`.length))).toBeLessThanOrEqual(32);
    expect(new Set(ids).size).toBe(ids.length);
    // Other wires keep the readable form.
    expect(context('evolution', 'r1').tx()).toMatch(/^verify-r1-\d+$/);
  });
});
