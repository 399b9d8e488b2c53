import { describe, expect, it } from 'vitest';
import { builtinDialect } from '../../src/dialects/index.ts';
import { ignoresIdempotency } from './dialect-receivers.ts';

/**
 * The planted bugs must always be planted: a bug that sometimes lets the request through unchanged
 * makes the check it proves pass now and then (seen in CI: `pact:duplicate-bet` passed for a
 * wallet "ignoring idempotency" when the run id's random hex happened to end in the swap's tag).
 */
describe('ignoresIdempotency', () => {
  const dialect = builtinDialect('blueocean');
  const debit = (id: string) => ({ method: 'GET', path: `/?action=debit&transaction_id=${id}`, headers: {}, body: '' });
  const forwardedId = (path: string) => new URLSearchParams(path.split('?')[1]).get('transaction_id');

  it.each([
    ['an id ending in the first tag', 'ctx-dup-mijq1x2a0a12d1'],
    ['an id ending in other hex', 'ctx-dup-mijq1x2a0a12ff'],
    ['a numbered verify id', 'verify-mijq1x2a0a12ff-7'],
  ])('lets the first request through and sends every repeat of %s with a fresh id', (_, id) => {
    const bug = ignoresIdempotency(dialect, { salt: 'x' });
    const request = bug.request as NonNullable<typeof bug.request>;
    expect(forwardedId(request(debit(id)).path)).toBe(id);
    const second = forwardedId(request(debit(id)).path);
    const third = forwardedId(request(debit(id)).path);
    expect(second).not.toBe(id);
    expect(third).not.toBe(id);
    expect(third).not.toBe(second);
    expect(second?.length).toBe(id.length);
  });
});
