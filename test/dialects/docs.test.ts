import { describe, expect, it } from 'vitest';
import { BUILTIN_DIALECTS, builtinDialect, type Dialect, FACTS } from '../../src/dialects/index.ts';
import {
  dialectPage,
  dialectRow,
  generatedDocs,
  handWrittenOf,
  INDEX_PAGE,
  pagePath,
  README,
  readmeRow,
  readRepoFile,
  withTable,
} from '../../tools/dialect-docs.ts';

/** The dialect docs are generated from the dialect data (npm run docs:dialects); these tests keep the committed files equal to it. */

const read = (path: string): string => {
  const text = readRepoFile(path);
  if (text === undefined) throw new Error(`${path} is missing: run npm run docs:dialects`);
  return text;
};
const generated = generatedDocs(readRepoFile);
const dialects = BUILTIN_DIALECTS.map(builtinDialect);

describe('the dialect docs, generated from the dialect data', () => {
  it('has a page in docs/dialects/ for every built-in dialect', () => {
    expect([...generated.keys()].filter((p) => p.startsWith('docs/dialects/'))).toEqual(BUILTIN_DIALECTS.map(pagePath));
  });

  it.each([...generated.keys()])('%s is what npm run docs:dialects writes from the data', (path) => {
    expect(read(path), `${path} differs from the dialect data: run npm run docs:dialects`).toBe(generated.get(path));
  });

  it('README.md lists every built-in dialect with its operations, encoding, signing, amount format and source', () => {
    const rows = read(README)
      .split('\n')
      .filter((line) => line.startsWith('| [`'));
    expect(rows).toEqual(dialects.map(readmeRow));
    expect(rows.find((r) => r.includes('`hub88`'))).toBe(
      '| [`hub88`](docs/dialects/hub88.md) | authenticate, balance, bet, win, rollback | json | RSA-SHA256 | minor × 10^5, number | vendor docs |',
    );
  });

  it('docs/dialects.md lists every built-in dialect with its calls and paths, linking its page', () => {
    const rows = read(INDEX_PAGE)
      .split('\n')
      .filter((line) => line.startsWith('| [`'));
    expect(rows).toEqual(dialects.map((d) => dialectRow(d)));
    for (const name of BUILTIN_DIALECTS) expect(read(INDEX_PAGE)).toContain(`](dialects/${name}.md)`);
  });

  it('docs/dialects.md explains every fact a field can carry', () => {
    const facts = read(INDEX_PAGE).split('### The facts a field can carry')[1]?.split('\n## ')[0] ?? '';
    const documented = [...facts.matchAll(/^\| (.+?) \| /gm)].flatMap((m) =>
      [...(m[1] as string).matchAll(/`(\w+)`/g)].map((n) => n[1]),
    );
    expect(documented.sort()).toEqual([...FACTS].sort());
  });

  it('fails when the data changes and the page does not: a renamed path, a new field, another retry code', () => {
    const hub88 = builtinDialect('hub88');
    const bet = hub88.operations.bet as NonNullable<Dialect['operations']['bet']>;
    const changed: Dialect = {
      ...hub88,
      operations: {
        ...hub88.operations,
        bet: { ...bet, path: '/transaction/wager', fields: { ...bet.fields, extra: { const: 1 } } },
      },
      reply: { ...hub88.reply, retryCodes: ['RS_ERROR_TIMEOUT'] },
    };
    const committed = read(pagePath('hub88'));
    const page = dialectPage(changed, handWrittenOf(committed, changed));
    expect(page).not.toBe(committed);
    expect(page).toContain('POST /transaction/wager HTTP/1.1');
    expect(page).toContain('| `extra` | constant `1` |');
    expect(page).toContain('| retry codes | `"RS_ERROR_TIMEOUT"` |');
    expect(readmeRow(changed)).toBe(readmeRow(hub88));
    expect(dialectRow(changed)).not.toBe(dialectRow(hub88));
  });

  it('keeps the hand-written section of a page as it is, and starts a new page with a placeholder', () => {
    const pragmatic = builtinDialect('pragmatic');
    const prose = '## About Pragmatic Play\n\nWritten by hand | with a pipe.';
    const page = dialectPage(pragmatic, prose);
    expect(handWrittenOf(page, pragmatic)).toBe(prose);
    expect(handWrittenOf(read(pagePath('pragmatic')), pragmatic)).toMatch(/^## About Pragmatic Play\n/);
    expect(handWrittenOf(undefined, pragmatic)).toMatch(/^## About pragmatic\n\nTODO/);
  });

  it('shows each dialect its real request: the bet the engine sends, signed with the development credentials', () => {
    const page = read(pagePath('pragmatic'));
    expect(page).toContain(
      'POST /bet.html HTTP/1.1\nHost: 127.0.0.1:4001\nContent-Type: application/x-www-form-urlencoded\nUser-Agent: aggmock/<version>\n',
    );
    // That the request is right (signature, fields) is for test/dialects/docs-examples.test.ts: the vendors' receivers judge it.
    expect(page).toMatch(/&hash=[0-9a-f]{32}\n/);
    expect(read(pagePath('blueocean'))).toMatch(
      /^GET \/\?callerId=aggmock&callerPassword=aggmock-dev-password&action=debit&.*&key=[0-9a-f]{40} HTTP\/1\.1$/m,
    );
  });

  it('says which verify checks do not run on a dialect and why', () => {
    expect(read(pagePath('groove'))).toContain('- `missing-signature`: not run: the groove dialect signs no requests');
    expect(read(pagePath('softswiss'))).not.toContain('- `whole-round`:');
    expect(read(pagePath('hub88'))).toContain(
      '- `whole-round`: not run: the hub88 dialect has no call that carries a bet and its win together (betWin)\n',
    );
  });

  it('refuses a file without the markers of its table, naming them', () => {
    expect(() => withTable('# no table here\n', '| x |', 'README.md')).toThrow(
      /README\.md: expected the markers <!-- dialects table/,
    );
  });
});
