import { describe, expect, it } from 'vitest';
import { builtinDialect, readReply, rulesOf } from '../../src/dialects/index.ts';

/* Retry codes per call (issue 32): Pragmatic's 130 "endRound error, retry" asks for a retry of an endRound only. */

const pragmatic = builtinDialect('pragmatic');
const verdict = (operation: 'bet' | 'endRound', error: number) =>
  readReply(
    pragmatic,
    { operation, playerId: 'p1', currency: 'EUR', requestId: 'r', createdAt: 0 },
    { status: 200, text: JSON.stringify({ error, description: 'x', cash: 10, bonus: 0 }) },
  ).verdict;

describe('retry codes per call', () => {
  it('read Pragmatic 130 as a retry on endRound and as a refusal elsewhere; 100 is a retry on both', () => {
    expect([verdict('endRound', 130), verdict('bet', 130)]).toEqual(['retry', 'rejected']);
    expect([verdict('endRound', 100), verdict('bet', 100)]).toEqual(['retry', 'retry']);
    expect(verdict('endRound', 0)).toBe('accepted');
  });

  it('are said with their source in the retry rule', () => {
    const retry = rulesOf(pragmatic).find((r) => r.rule === 'retry');
    expect(retry?.accepts).toContain('on endRound: 100, 130');
    expect(retry?.source).toMatch(/130 endRound error: retried, endRound only/);
  });
});
