import { describe, expect, it } from 'vitest';
import { findGame, findProvider, gameImageUrl, providerKey, providerLogoUrl } from './catalog.ts';
import { generateCatalog } from './generate.ts';
import { createRng, hashToInt } from './seed.ts';

const catalog = generateCatalog({ seed: 42, providers: 30, games: 1500 });

describe('findProvider', () => {
  it.each([
    'PRAGMATICPLAY',
    'pragmaticplay',
    'PRAGMATIC PLAY',
    ' Pragmatic Play ',
    'Pragmatic_Play',
    'pragmatic-play',
    '\tPRAGMATIC  PLAY\n',
  ])('finds PRAGMATICPLAY for %j', (query) => {
    expect(findProvider(catalog, query)?.code).toBe('PRAGMATICPLAY');
  });

  it('matches display names as well as codes', () => {
    expect(findProvider(catalog, 'pg soft')?.code).toBe('PGSOFT');
    expect(findProvider(catalog, 'Evolution')?.code).toBe('EVOLUTIONLIVE');
    expect(findProvider(catalog, "play'n go")?.code).toBe('PLAYNGO');
    expect(findProvider(catalog, 'playn go')?.code).toBe('PLAYNGO');
    expect(findProvider(catalog, 'Pragmatic Play Live')?.code).toBe('PRAGMATICLIVE');
  });

  it('finds nothing for an unknown provider or an empty query', () => {
    expect(findProvider(catalog, 'NOSUCHSTUDIO')).toBeUndefined();
    expect(findProvider(catalog, '')).toBeUndefined();
    expect(findProvider(catalog, '   ')).toBeUndefined();
  });
});

describe('findGame', () => {
  it('finds a game by id, trimmed and in any case', () => {
    const game = catalog.games[123]!;
    expect(findGame(catalog, game.id)).toBe(game);
    expect(findGame(catalog, ` ${game.id.toUpperCase()} `)).toBe(game);
    expect(findGame(catalog, '0'.repeat(32))).toBeUndefined();
  });
});

describe('image URLs', () => {
  it('prefixes the public base URL to the stored paths, without doubling slashes', () => {
    const game = catalog.games[0]!;
    expect(gameImageUrl(game, 'https://demo.example.com/')).toBe(`https://demo.example.com/assets/games/${game.id}.svg`);
    expect(providerLogoUrl(catalog.providers[0]!, 'http://127.0.0.1:4000')).toBe(
      'http://127.0.0.1:4000/assets/providers/PGSOFT.svg',
    );
  });
});

describe('providerKey', () => {
  it('ignores case, spaces, underscores, hyphens and other punctuation', () => {
    expect(providerKey(' Pragmatic_Play-Live. ')).toBe('PRAGMATICPLAYLIVE');
    expect(providerKey("Play'n GO")).toBe('PLAYNGO');
  });
});

describe('seeded randomness', () => {
  it('gives the same draws for the same (seed, key) and different draws otherwise', () => {
    const draws = (seed: number | string, key: string) => {
      const rng = createRng(seed, key);
      return Array.from({ length: 8 }, () => rng.int(0, 1_000_000));
    };
    expect(draws(42, 'a')).toEqual(draws(42, 'a'));
    expect(draws(42, 'a')).not.toEqual(draws(42, 'b'));
    expect(draws(42, 'a')).not.toEqual(draws(43, 'a'));
    expect(hashToInt('4', '2x')).not.toBe(hashToInt('42', 'x'));
    expect(hashToInt(42, 'k')).toBe(hashToInt('42', 'k'));
  });

  it('keeps draws inside their bounds and weights', () => {
    const rng = createRng(1, 'bounds');
    const counts = { a: 0, b: 0 };
    const ints = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      ints.add(rng.int(3, 5));
      counts[rng.weighted({ a: 9, b: 1 })]++;
    }
    expect([...ints].sort()).toEqual([3, 4, 5]);
    expect(counts.a).toBeGreaterThan(8500);
    expect(counts.b).toBeGreaterThan(700);
  });
});
