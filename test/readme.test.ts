import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_INTERACTIONS } from '../src/contracts/interactions.ts';
import { CHECKS } from '../src/verify/index.ts';
import { faultsCatching } from './verify/faults.ts';

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

  it('lists every verify check with its rule, its source and the faults that catch it, exactly as the code defines them', () => {
    const rows = CHECKS.map((c) => {
      const faults = faultsCatching(c.id).map((f) => `\`${f}\``);
      return `| \`${c.id}\` | ${c.rule.replaceAll('|', '\\|')} | ${c.source} | ${faults.join(', ')} |`;
    });
    const ids = new Set(CHECKS.map((c) => `| \`${c.id}\` |`));
    const documented = readme
      .split('\n')
      .filter((line) => [...ids].some((id) => line.startsWith(id)) && line.split('|').length === 6);
    expect(documented).toEqual(rows);
  });

  it('has a --fault that catches every check (each check is proven to catch a bug)', () => {
    expect(CHECKS.filter((c) => faultsCatching(c.id).length === 0).map((c) => c.id)).toEqual([]);
  });
});
