import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_INTERACTIONS } from '../src/contracts/interactions.ts';

/** The README stands alone and says what the code does. */
const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

describe('README.md', () => {
  it('refers to no document outside the repository (no "SPEC §N")', () => {
    expect(readme.match(/SPEC\s*§\s*\d*/g) ?? []).toEqual([]);
  });

  it('links only to files that exist in the repository', () => {
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1] as string)
      .filter((t) => !/^[a-z]+:/i.test(t));
    expect(targets.filter((t) => !existsSync(`${root}${t}`))).toEqual([]);
  });

  it('lists the contract interactions exactly as src/contracts/interactions.ts defines them', () => {
    const rows = CONTRACT_INTERACTIONS.map((i) => {
      const states = i.states.length > 0 ? i.states.map((s) => `\`${s.name}\``).join(', ') : 'none';
      return `| \`pact:${i.id}\` | ${i.rule} | ${states} |`;
    });
    const documented = readme.split('\n').filter((line) => line.startsWith('| `pact:'));
    expect(documented).toEqual(rows);
  });
});
