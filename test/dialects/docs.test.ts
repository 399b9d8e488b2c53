import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_DIALECTS, builtinDialect } from '../../src/dialects/index.ts';
import { dialectRow } from './table.ts';

describe('docs/dialects.md', () => {
  it('lists every built-in dialect with its calls, encoding, signing, amounts and source, as the data defines them', () => {
    const doc = readFileSync(new URL('../../docs/dialects.md', import.meta.url), 'utf8');
    const documented = doc.split('\n').filter((line) => BUILTIN_DIALECTS.some((name) => line.startsWith(`| \`${name}\` |`)));
    expect(documented).toEqual(BUILTIN_DIALECTS.map((name) => dialectRow(builtinDialect(name))));
  });
});
