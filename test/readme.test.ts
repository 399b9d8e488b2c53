import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_INTERACTIONS } from '../src/contracts/interactions.ts';
import { CHECKS } from '../src/verify/index.ts';
import { faultsCatching } from './verify/faults.ts';

/** The README is a short front page; the reference is docs/*.md. Each stands alone and says what the code does. */
const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docsPages = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const pages = ['README.md', ...docsPages];
/** The page that holds the tables of checks and contract interactions. */
const VERIFY_PAGE = 'docs/verify.md';

/** Markdown without its fenced code blocks (a link or heading inside a code block is neither). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 …. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = (text as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every relative link of a page (images included), as `target` and `anchor`; external links are left out. */
function links(markdown: string): { target: string; anchor: string | undefined }[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]*)\)/g)]
    .map((m) => m[1] as string)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t))
    .map((t) => {
      const hash = t.indexOf('#');
      return hash === -1 ? { target: t, anchor: undefined } : { target: t.slice(0, hash), anchor: t.slice(hash + 1) };
    });
}

/** The links of a page that lead nowhere: a missing file, or an anchor no heading of its page has. */
function deadLinks(page: string, markdown: string, readPage: (path: string) => string = read): string[] {
  const dead: string[] = [];
  for (const { target, anchor } of links(markdown)) {
    const path = target === '' ? page : relative(root, join(root, dirname(page), decodeURIComponent(target)));
    if (target !== '' && (path.startsWith('..') || !existsSync(join(root, path)))) {
      dead.push(`${target}${anchor === undefined ? '' : `#${anchor}`} (no file ${path})`);
      continue;
    }
    if (anchor !== undefined && path.endsWith('.md') && !anchors(readPage(path)).has(anchor)) {
      dead.push(`${target}#${anchor} (no heading with that anchor in ${path})`);
    }
  }
  return dead;
}

describe('README.md and docs/*.md', () => {
  it('has the reference pages in docs/', () => {
    expect(docsPages).toEqual(expect.arrayContaining([VERIFY_PAGE, 'docs/benchmarks.md', 'docs/configuration.md']));
  });

  it.each(pages)('%s refers to no document outside the repository (no "SPEC §N", no SPEC.md)', (page) => {
    expect(read(page).match(/SPEC\s*§\s*\d*|SPEC\.md/g) ?? []).toEqual([]);
  });

  it.each(pages)('%s links only to files that exist and to headings that exist', (page) => {
    expect(deadLinks(page, read(page))).toEqual([]);
  });

  it('finds a dead file link, a dead anchor and a link that leaves the repository (the link check can fail)', () => {
    const page = [
      '# Title',
      '## Verify from your own tests',
      '[ok](#title) [ok](verify.md#the-checks) [ok](../README.md#quick-start) [ok](https://x.invalid/#nope)',
      '[bad](#nope) [bad](nope.md) [bad](verify.md#nope) [bad](../../outside.md)',
      '```',
      '[in code](#not-a-link)',
      '```',
    ].join('\n');
    expect(deadLinks('docs/x.md', page, (p) => (p === 'docs/x.md' ? page : read(p)))).toEqual([
      '#nope (no heading with that anchor in docs/x.md)',
      'nope.md (no file docs/nope.md)',
      'verify.md#nope (no heading with that anchor in docs/verify.md)',
      '../../outside.md (no file ../outside.md)',
    ]);
  });

  it('makes anchors as GitHub does', () => {
    const a = anchors(
      "# Wire profiles: speak a real aggregator's format\n## Admin API (`/__admin`, JSON)\n## Callbacks\n## Callbacks\n",
    );
    expect([...a]).toEqual([
      'wire-profiles-speak-a-real-aggregators-format',
      'admin-api-__admin-json',
      'callbacks',
      'callbacks-1',
    ]);
  });
});

describe('README.md, the front page', () => {
  const readme = read('README.md');

  it('stays a front page: at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links every page of docs/', () => {
    const linked = new Set(links(readme).map((l) => l.target));
    expect(docsPages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('gives the two set-up commands .ci/run relies on: one runs the demo, one the tests', () => {
    expect(readme).toContain('npm ci && npm start     # the demo');
    expect(readme).toContain('npm ci && npm test      # the test suite');
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^npm test\b/m);
  });
});

describe(`${VERIFY_PAGE}, the tables checked against the code`, () => {
  const page = read(VERIFY_PAGE);

  it('lists the contract interactions exactly as src/contracts/interactions.ts defines them', () => {
    const rows = CONTRACT_INTERACTIONS.map((i) => {
      const states = i.states.length > 0 ? i.states.map((s) => `\`${s.name}\``).join(', ') : 'none';
      return `| \`pact:${i.id}\` | ${i.rule} | ${states} |`;
    });
    const documented = page.split('\n').filter((line) => line.startsWith('| `pact:'));
    expect(documented).toEqual(rows);
  });

  it('lists every verify check with its rule, its source and the faults that catch it, exactly as the code defines them', () => {
    const rows = CHECKS.map((c) => {
      const faults = faultsCatching(c.id).map((f) => `\`${f}\``);
      return `| \`${c.id}\` | ${c.rule.replaceAll('|', '\\|')} | ${c.source} | ${faults.join(', ')} |`;
    });
    const ids = new Set(CHECKS.map((c) => `| \`${c.id}\` |`));
    const documented = page
      .split('\n')
      .filter((line) => [...ids].some((id) => line.startsWith(id)) && line.split('|').length === 6);
    expect(documented).toEqual(rows);
  });

  it('has a --fault that catches every check (each check is proven to catch a bug)', () => {
    expect(CHECKS.filter((c) => faultsCatching(c.id).length === 0).map((c) => c.id)).toEqual([]);
  });

  it('holds the tables in one place: no other page repeats a check or interaction row', () => {
    const ids = CHECKS.map((c) => `| \`${c.id}\` |`);
    const elsewhere = pages
      .filter((p) => p !== VERIFY_PAGE)
      .filter((p) =>
        read(p)
          .split('\n')
          .some((line) => line.startsWith('| `pact:') || ids.some((id) => line.startsWith(id))),
      );
    expect(elsewhere).toEqual([]);
  });
});
