import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findGame, findProvider, gameImageUrl } from './catalog.ts';
import { applyFixture, CatalogFixtureError, loadCatalogFixture, parseCatalogFixture } from './fixture.ts';
import { generateCatalog } from './generate.ts';
import { createCatalog } from './index.ts';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/catalog.example.json', import.meta.url));
const base = () => generateCatalog({ seed: 42, providers: 30, games: 1500 });

const dir = mkdtempSync(join(tmpdir(), 'aggmock-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function writeFixture(content: unknown): string {
  const path = join(dir, `fixture-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The error a function throws, for assertions on its message. */
function thrown(fn: () => unknown): CatalogFixtureError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogFixtureError);
    return error as CatalogFixtureError;
  }
  throw new Error('expected a CatalogFixtureError, nothing was thrown');
}

describe('the example fixture', () => {
  it('loads, validates and extends the default catalog', () => {
    const fixture = loadCatalogFixture(EXAMPLE);
    expect(fixture.mode).toBe('extend');
    const catalog = applyFixture(base(), fixture);

    expect(catalog.providers).toHaveLength(32);
    expect(findProvider(catalog, 'acme gaming')?.totalGames).toBe(3);
    expect(findProvider(catalog, 'QASTUDIO')?.status).toBe('MAINTENANCE');
    const pinned = findGame(catalog, '0123456789abcdef0123456789abcdef');
    expect(pinned).toMatchObject({
      name: 'Acme Fortune',
      provider: 'ACMEGAMING',
      rtp: 96.5,
      volatility: 'high',
      lines: 20,
      origin: 'fixture',
    });
    expect(catalog.gamesByProvider.get('PRAGMATICPLAY')?.some((g) => g.name === 'Sweet Bonanza' && g.rtp === 96.48)).toBe(true);
  });

  it('is what createCatalog applies when the config names a fixture', () => {
    const catalog = createCatalog({ seed: 42, providers: 30, games: 1500, fixture: EXAMPLE });
    expect(findProvider(catalog, 'ACMEGAMING')).toBeDefined();
    expect(createCatalog({ seed: 42, providers: 30, games: 1500 }).providers).toHaveLength(30);
  });
});

describe('applyFixture in extend mode', () => {
  it('adds providers and games and recomputes totalGames', () => {
    const generated = base();
    const fixture = parseCatalogFixture({
      providers: [{ code: 'NEWSTUDIO', name: 'New Studio' }],
      games: [
        { name: 'First', type: 'slot', provider: 'NEWSTUDIO' },
        { name: 'Second', type: 'crash', provider: 'newstudio' },
        { name: 'Extra Pg', type: 'slot', provider: 'PG SOFT' },
      ],
    });
    const catalog = applyFixture(generated, fixture);
    expect(catalog.games).toHaveLength(1503);
    expect(findProvider(catalog, 'NEWSTUDIO')?.totalGames).toBe(2);
    expect(findProvider(catalog, 'NEWSTUDIO')?.types).toEqual(['slot', 'crash']);
    const pgsoft = catalog.gamesByProvider.get('PGSOFT')!;
    expect(pgsoft.at(-1)?.name).toBe('Extra Pg');
    expect(findProvider(catalog, 'PGSOFT')?.totalGames).toBe(findProvider(generated, 'PGSOFT')!.totalGames + 1);
    expect(generated.games).toHaveLength(1500); // the input catalog is left alone
  });

  it('overrides the name and status of a generated provider with the same code and keeps its games', () => {
    const generated = base();
    const catalog = applyFixture(
      generated,
      parseCatalogFixture({ providers: [{ code: 'PGSOFT', name: 'Pocket Games Soft', status: 'MAINTENANCE' }] }),
    );
    expect(catalog.providers).toHaveLength(30);
    expect(catalog.providers[0]).toMatchObject({
      code: 'PGSOFT',
      name: 'Pocket Games Soft',
      status: 'MAINTENANCE',
      origin: 'fixture',
    });
    expect(catalog.gamesByProvider.get('PGSOFT')).toEqual(generated.gamesByProvider.get('PGSOFT'));
    expect(findProvider(catalog, 'pocket games soft')?.code).toBe('PGSOFT');
  });

  it('lets a fixture game take the place of the generated game with the same name in that provider', () => {
    const generated = base();
    const victim = generated.gamesByProvider.get('NETENT')![3]!;
    const catalog = applyFixture(
      generated,
      parseCatalogFixture({ games: [{ name: victim.name.toUpperCase(), type: 'table', provider: 'NETENT', rtp: 97 }] }),
    );
    expect(findGame(catalog, victim.id)).toBeUndefined();
    expect(catalog.gamesByProvider.get('NETENT')).toHaveLength(generated.gamesByProvider.get('NETENT')!.length);
    expect(catalog.gamesByProvider.get('NETENT')!.at(-1)).toMatchObject({ type: 'table', rtp: 97, origin: 'fixture' });
  });

  it('generates a missing id deterministically, the same whatever the seed', () => {
    const fixture = parseCatalogFixture({ games: [{ name: 'Pinned', type: 'slot', provider: 'PGSOFT' }] });
    const a = applyFixture(generateCatalog({ seed: 1, providers: 5, games: 10 }), fixture);
    const b = applyFixture(generateCatalog({ seed: 2, providers: 5, games: 10 }), fixture);
    const id = a.games.find((g) => g.name === 'Pinned')?.id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(b.games.find((g) => g.name === 'Pinned')?.id).toBe(id);
    expect(b.games.find((g) => g.name === 'Pinned')).toEqual(a.games.find((g) => g.name === 'Pinned'));
  });

  it('uses an absolute img URL as-is and serves a generated SVG otherwise', () => {
    const catalog = applyFixture(
      base(),
      parseCatalogFixture({
        games: [
          { name: 'Own Cover', type: 'slot', provider: 'PGSOFT', img: 'https://cdn.example.com/own.png' },
          { name: 'Our Cover', type: 'slot', provider: 'PGSOFT' },
        ],
      }),
    );
    const own = catalog.games.find((g) => g.name === 'Own Cover')!;
    const ours = catalog.games.find((g) => g.name === 'Our Cover')!;
    expect(gameImageUrl(own, 'http://127.0.0.1:4000')).toBe('https://cdn.example.com/own.png');
    expect(gameImageUrl(ours, 'http://127.0.0.1:4000')).toBe(`http://127.0.0.1:4000/assets/games/${ours.id}.svg`);
  });
});

describe('applyFixture in replace mode', () => {
  it('keeps only the fixture providers and games', () => {
    const catalog = applyFixture(
      base(),
      parseCatalogFixture({
        mode: 'replace',
        providers: [
          { code: 'ONLY', name: 'Only Studio' },
          { code: 'EMPTY', name: 'Empty Studio' },
        ],
        games: [
          { name: 'A', type: 'slot', provider: 'ONLY' },
          { name: 'B', type: 'live', provider: 'ONLY' },
        ],
      }),
    );
    expect(catalog.providers.map((p) => [p.code, p.totalGames])).toEqual([
      ['ONLY', 2],
      ['EMPTY', 0],
    ]);
    expect(catalog.games.map((g) => g.name)).toEqual(['A', 'B']);
    expect(findProvider(catalog, 'PGSOFT')).toBeUndefined();
  });

  it('rejects a game of a generated provider, which replace mode drops', () => {
    const error = thrown(() =>
      applyFixture(
        base(),
        parseCatalogFixture(
          {
            mode: 'replace',
            providers: [{ code: 'ONLY', name: 'Only' }],
            games: [{ name: 'X', type: 'slot', provider: 'PGSOFT' }],
          },
          'r.json',
        ),
      ),
    );
    expect(error.message).toContain('r.json');
    expect(error.message).toContain('games[0].provider: "PGSOFT" is not a provider here');
    expect(error.message).toContain("one of the fixture's providers: ONLY");
  });
});

describe('fixture errors', () => {
  it('names the file, the JSON path, the value and what was expected for a bad field', () => {
    const path = writeFixture({
      games: [
        { name: 'ok', type: 'slot', provider: 'PGSOFT' },
        { name: 'ok2', type: 'slot', provider: 'PGSOFT' },
        { name: 'ok3', type: 'slot', provider: 'PGSOFT' },
        { name: 'bad', type: 'slots', provider: 'PGSOFT' },
      ],
    });
    const error = thrown(() => loadCatalogFixture(path));
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/games\[3\]\.type: .*expected one of .*"slot".*\(got "slots"\)/);
    expect(error.problems).toHaveLength(1);
  });

  it('reports every bad field at once, including unknown keys and a missing name', () => {
    const error = thrown(() =>
      parseCatalogFixture(
        {
          mode: 'merge',
          providers: [{ code: 'lower', name: 'x' }],
          games: [{ type: 'slot', provider: 'PGSOFT', rtp: 96.555, volatilty: 'high', id: 'ABC', img: 'ftp://x/y.png' }],
        },
        'bad.json',
      ),
    );
    const text = error.message;
    expect(text).toContain('Invalid catalog fixture bad.json');
    expect(text).toMatch(/mode: .*"extend".*"replace".*\(got "merge"\)/);
    expect(text).toMatch(/providers\[0\]\.code: expected an upper-case code.*\(got "lower"\)/);
    expect(text).toContain('games[0].name: missing; expected string');
    expect(text).toMatch(/games\[0\]\.rtp: expected at most two decimals.*\(got 96\.555\)/);
    expect(text).toMatch(/games\[0\]\.volatilty: unknown field; expected one of id, name, type, provider, rtp, volatility/);
    expect(text).toMatch(/games\[0\]\.id: expected 32 lower-case hex characters.*\(got "ABC"\)/);
    expect(text).toMatch(/games\[0\]\.img: expected an absolute http\(s\) URL.*\(got "ftp:\/\/x\/y\.png"\)/);
  });

  it('says what the root should be when the file holds something else', () => {
    const error = thrown(() =>
      parseCatalogFixture(
        Array.from({ length: 100 }, () => 'game'),
        'list.json',
      ),
    );
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^\(root\): .*expected object.*\(got \["game","game",.*…\)$/);
    expect(error.problems[0]!.length).toBeLessThan(200);
  });

  it('names the file when it is not JSON or cannot be read', () => {
    const path = writeFixture('{ "games": [ }');
    expect(thrown(() => loadCatalogFixture(path)).message).toMatch(new RegExp(`${path}.*\\n.*not valid JSON`));
    const missing = join(dir, 'missing.json');
    expect(thrown(() => loadCatalogFixture(missing)).message).toMatch(/missing\.json[\s\S]*could not be read/);
  });

  it('rejects a game naming an unknown provider', () => {
    const error = thrown(() =>
      applyFixture(base(), parseCatalogFixture({ games: [{ name: 'X', type: 'slot', provider: 'NOPE' }] }, 'u.json')),
    );
    expect(error.message).toContain('u.json');
    expect(error.message).toMatch(
      /games\[0\]\.provider: "NOPE" is not a provider here; expected a generated or fixture provider code: PGSOFT, PRAGMATICPLAY/,
    );
  });

  it('rejects a duplicate id, naming both games', () => {
    const id = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const error = thrown(() =>
      applyFixture(
        base(),
        parseCatalogFixture({
          games: [
            { id, name: 'One', type: 'slot', provider: 'PGSOFT' },
            { id, name: 'Two', type: 'slot', provider: 'JILI' },
          ],
        }),
      ),
    );
    expect(error.message).toContain(`games[1].id: "${id}" is already the id of games[0] ("One")`);
  });

  it('rejects an id already used by a generated game, naming that game', () => {
    const generated = base();
    const taken = generated.games[10]!;
    const error = thrown(() =>
      applyFixture(
        generated,
        parseCatalogFixture({ games: [{ id: taken.id, name: 'Usurper', type: 'slot', provider: 'JILI' }] }),
      ),
    );
    expect(error.message).toContain(
      `games[0].id: "${taken.id}" is already the id of generated game "${taken.name}" of ${taken.provider}`,
    );
  });

  it('rejects the same name twice in one provider and the same code twice', () => {
    const error = thrown(() =>
      applyFixture(
        base(),
        parseCatalogFixture({
          providers: [
            { code: 'DUP', name: 'Dup' },
            { code: 'DUP', name: 'Dup again' },
          ],
          games: [
            { name: 'Same', type: 'slot', provider: 'DUP' },
            { name: 'same', type: 'live', provider: 'DUP' },
          ],
        }),
      ),
    );
    expect(error.problems).toEqual([
      'providers[1].code: "DUP" is already given at providers[0]',
      'games[1].name: "same" is already a game of DUP at games[0]; names are unique within a provider',
    ]);
  });

  it('rejects a code that clients could not tell apart from another once "_" is ignored', () => {
    const error = thrown(() => applyFixture(base(), parseCatalogFixture({ providers: [{ code: 'PG_SOFT', name: 'Other PG' }] })));
    expect(error.message).toContain('providers[0].code: "PG_SOFT" reads the same as provider "PGSOFT"');
  });
});
