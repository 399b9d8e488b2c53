import { describe, expect, it } from 'vitest';
import { BUILTIN_DIALECTS, builtinDialect, OUTCOME_CODES, RULE_NAMES, rulesOf, saferDialect } from '../../src/dialects/index.ts';

/**
 * Every rule of every built-in vendor dialect names where it comes from (issue 32 item 1): the
 * vendor's document (a URL and its section), third-party code (a repository and path), or
 * "unknown" and what aggmock accepts because of it.
 */

const VENDORS = BUILTIN_DIALECTS.filter((name) => name !== 'default' && name !== 'betnex');

describe.each(VENDORS)('the %s dialect', (name) => {
  const dialect = builtinDialect(name);

  it('records a source for each rule: a URL, a repository path, or "unknown: what aggmock accepts"', () => {
    expect(Object.keys(dialect.rules).sort()).toEqual([...RULE_NAMES].sort());
    for (const rule of rulesOf(dialect)) {
      if (rule.grade === 'unknown') expect(rule.source, rule.rule).toMatch(/^unknown: .*(accepts|aggmock)/);
      else expect(rule.source, rule.rule).toMatch(/https:\/\/|[\w-]+\/[\w-]+(?: @ [0-9a-f]+)?: [\w/.-]+|search-index document/);
    }
  });

  it('has a safer reading only where the vendor allows the other answer too', () => {
    const safer = saferDialect(dialect);
    if (safer === undefined) return;
    // The safer reading narrows what the vendor allows; it never allows what the vendor refuses.
    if (dialect.reply.safer.unknownRollback !== undefined) expect(dialect.reply.unknownRollback).toBeUndefined();
    if (dialect.reply.safer.duplicates !== undefined) expect(dialect.reply.duplicates).toBe('current-balance');
    expect(rulesOf(dialect).some((r) => r.safer !== undefined)).toBe(true);
  });

  it('guesses only codes it maps', () => {
    for (const outcome of dialect.reply.guessed) {
      expect(OUTCOME_CODES).toContain(outcome);
      expect(dialect.reply.codes[outcome], outcome).toBeDefined();
    }
  });
});
