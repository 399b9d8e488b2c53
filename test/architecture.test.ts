import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of `src/` follows the layer table of ARCHITECTURE.md: no module imports from a
 * higher layer, the bottom layer imports nothing outside its own folder, and no import circle.
 * The table in the document is the rule; this test reads it, so the two cannot drift apart.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

interface Layer {
  name: string;
  /** Top-level entries of src/: folders and files such as app.ts. */
  members: string[];
}

/** One import: the importing file and the imported one, both relative to src/. */
interface Edge {
  from: string;
  to: string;
}

/**
 * The layers of the table under "## Layers", top first: a line that starts with a layer name, then
 * the entries of src/ it holds (other words on the line are prose).
 */
function layerTable(markdown: string, entries: readonly string[]): Layer[] {
  const section = markdown.split('## Layers')[1] ?? '';
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => /^\s*([a-z]+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      name: m[1] as string,
      members: (m[2] as string).split(/\s+/).filter((word) => entries.includes(word)),
    }));
}

/** The relative module specifiers a TypeScript source imports or re-exports (static and dynamic). */
function importsOf(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((p) => [...source.matchAll(p)].map((m) => m[1] as string)).filter((s) => s.startsWith('.'));
}

/** Every import between two files of src/. */
function srcImports(): Edge[] {
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  return files.flatMap((file) =>
    importsOf(readFileSync(join(src, file), 'utf8'))
      .map((spec) => relative(src, resolve(dirname(join(src, file)), spec)))
      .filter((to) => !to.startsWith('..'))
      .map((to) => ({ from: file.split(sep).join('/'), to: to.split(sep).join('/') })),
  );
}

const entryOf = (path: string): string => path.split('/')[0] as string;

/** The imports that point to a higher layer, or out of a bottom-layer folder, as "from -> to". */
function brokenRules(edges: readonly Edge[], layers: readonly Layer[]): string[] {
  const rank = new Map(layers.flatMap((layer, i) => layer.members.map((m) => [m, layers.length - i] as const)));
  const bottom = new Set(layers.at(-1)?.members ?? []);
  return edges
    .filter(({ from, to }) => {
      const [a, b] = [entryOf(from), entryOf(to)];
      if (a === b) return false;
      return (rank.get(b) ?? 0) > (rank.get(a) ?? 0) || bottom.has(a);
    })
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** A circle in the graph as the files along it (first = last), or undefined when there is none. */
function findCycle(edges: readonly Edge[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return undefined;
    path.push(node);
    for (const to of next.get(node) ?? []) {
      const cycle = visit(to);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return undefined;
  };
  for (const node of next.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the import graph of src/ follows ARCHITECTURE.md', () => {
  const entries = readdirSync(src).filter((e) => !e.endsWith('.test.ts'));
  const layers = layerTable(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'), entries);
  const edges = srcImports();

  it('places every top-level entry of src/ in exactly one layer', () => {
    expect(layers.map((l) => l.name)).toEqual(['cli', 'surfaces', 'engines', 'foundation', 'base']);
    const placed = layers.flatMap((l) => l.members);
    expect([...placed].sort()).toEqual([...entries].sort());
  });

  it('has no import to a higher layer, and none out of a base folder', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(brokenRules(edges, layers)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(findCycle(edges)).toBeUndefined();
  });
});

describe('the rules themselves catch what they are for', () => {
  const layers: Layer[] = [
    { name: 'top', members: ['cli'] },
    { name: 'middle', members: ['ledger', 'callbacks'] },
    { name: 'base', members: ['money', 'shared'] },
  ];

  it('reads static, type-only, re-exported, side-effect and dynamic imports, over several lines', () => {
    const source = [
      "import { a } from './a.ts';",
      "import type {\n  B,\n} from '../b/index.ts';",
      "export { c } from './c.ts';",
      "import './d.ts';",
      "const e = await import('./e.ts');",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(importsOf(source)).toEqual(['./a.ts', '../b/index.ts', './c.ts', './d.ts', './e.ts']);
  });

  it('flags an upward import and a base folder importing another', () => {
    const edges = [
      { from: 'ledger/index.ts', to: 'callbacks/engine.ts' },
      { from: 'money/index.ts', to: 'cli/main.ts' },
      { from: 'callbacks/engine.ts', to: 'cli/main.ts' },
      { from: 'money/index.ts', to: 'shared/index.ts' },
    ];
    expect(brokenRules(edges, layers)).toEqual([
      'money/index.ts -> cli/main.ts',
      'callbacks/engine.ts -> cli/main.ts',
      'money/index.ts -> shared/index.ts',
    ]);
  });

  it('finds a circle through several files, and none in a tree', () => {
    const chain = [
      { from: 'a.ts', to: 'b.ts' },
      { from: 'b.ts', to: 'c.ts' },
      { from: 'a.ts', to: 'c.ts' },
    ];
    expect(findCycle(chain)).toBeUndefined();
    expect(findCycle([...chain, { from: 'c.ts', to: 'a.ts' }])).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});

/*
 * One wire (issue 31): a surface asks the dialect what the wire can do (src/dialects/capabilities.ts),
 * never which kind of wire it is (a profile or a vendor dialect). Only the layer that turns a setting
 * into a dialect may tell them apart: src/dialects, src/profiles and src/config/dialect.ts. No file
 * is excused.
 */

/** Code that tests the kind of wire: the old predicates, the legacy profile view, a wire's "vendor" flag. */
const WIRE_KIND_TESTS: readonly RegExp[] = [
  /\bisVendorDialect\(/,
  /\bwireOf\(/,
  /\blegacyProfileReading\(/,
  /\b(?:wire|ctx|settings|callbacks|config|dialect)\.(?:vendor|isVendor)\b/,
  /\bisVendor\b/,
];

/** The code that makes a setting a dialect, and so may know what it was. */
const WIRE_KIND_MAY_KNOW = (f: string) => f.startsWith('dialects/') || f.startsWith('profiles/') || f === 'config/dialect.ts';

/** Every line of `files` that tests the kind of wire: "path:line: code" (comments left alone). */
function wireKindTests(files: readonly { path: string; source: string }[]): string[] {
  return files.flatMap(({ path, source }) =>
    source.split('\n').flatMap((line, i) => {
      const code = line.trim();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
      return WIRE_KIND_TESTS.some((re) => re.test(code)) ? [`${path}:${i + 1}: ${code}`] : [];
    }),
  );
}

/** The source files of src/ (tests left out) outside the layer that may know, relative to src/ with "/". */
function sourcesOutsideTheDialectLayer(): { path: string; source: string }[] {
  return (readdirSync(src, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !WIRE_KIND_MAY_KNOW(f))
    .map((path) => ({ path, source: readFileSync(join(src, path), 'utf8') }));
}

describe('surfaces ask the dialect what the wire can do, never which kind of wire it is', () => {
  it('finds no test of the kind of wire anywhere in src/ outside src/dialects, src/profiles and src/config/dialect.ts', () => {
    const files = sourcesOutsideTheDialectLayer();
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((f) => f.path === 'verify/plan.ts')).toBe(true);
    expect(files.some((f) => f.path.startsWith('dialects/') || f.path === 'config/dialect.ts')).toBe(false);
    expect(wireKindTests(files)).toEqual([]);
  });

  it('catches each way of asking, and leaves comments, capability questions and other vendors alone', () => {
    const files = [
      { path: 'verify/a.ts', source: "if (isVendorDialect(cfg)) x();\nconst w = wireOf(cfg);\nif (ctx.isVendor) skip('no');" },
      {
        path: 'contracts/b.ts',
        source:
          'const d = wire.vendor ?? dialect;\n// wire.vendor was here\n * isVendor, in a doc comment\nconst r = legacyProfileReading(c);',
      },
      {
        path: 'aggregator/c.ts',
        source:
          "if (has(dialect, 'rollback') && signs(dialect)) x();\nconst vendorName = 'hub88';\noperatorOpenApi(deps.vendor, api);",
      },
    ];
    expect(wireKindTests(files)).toEqual([
      'verify/a.ts:1: if (isVendorDialect(cfg)) x();',
      'verify/a.ts:2: const w = wireOf(cfg);',
      "verify/a.ts:3: if (ctx.isVendor) skip('no');",
      'contracts/b.ts:1: const d = wire.vendor ?? dialect;',
      'contracts/b.ts:4: const r = legacyProfileReading(c);',
    ]);
  });
});

describe('src/profiles (issue 31)', () => {
  it('is only the profile-file schema and its JSON Schema: three files, 300 lines at most', () => {
    const files = (readdirSync(join(src, 'profiles')) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .sort();
    expect(files).toEqual(['index.ts', 'json-schema.ts', 'schema.ts']);
    const lines = files.reduce((sum, f) => sum + readFileSync(join(src, 'profiles', f), 'utf8').split('\n').length - 1, 0);
    expect(lines).toBeGreaterThan(100);
    expect(lines).toBeLessThanOrEqual(300);
  });
});
