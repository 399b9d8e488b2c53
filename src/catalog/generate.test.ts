import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GAME_TYPES, PLATFORMS, VOLATILITIES } from './catalog.ts';
import { generateCatalog, shareOut } from './generate.ts';
import { CURATED_PROVIDERS } from './providers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const DEFAULTS = { seed: 42, providers: 30, games: 1500 };

describe('generateCatalog', () => {
  it('gives byte-identical JSON for the same seed, generated twice independently', () => {
    const first = JSON.stringify(generateCatalog(DEFAULTS));
    const second = JSON.stringify(generateCatalog({ ...DEFAULTS }));
    expect(second).toBe(first);
    expect(sha256(second)).toBe(sha256(first));
    expect(first.length).toBeGreaterThan(100_000);
  });

  it('gives the same sha256 in a separate Node process (no state carried between generations)', () => {
    const script = [
      "import { createHash } from 'node:crypto';",
      `import { generateCatalog } from ${JSON.stringify(new URL('./generate.ts', import.meta.url).href)};`,
      'const json = JSON.stringify(generateCatalog({ seed: 42, providers: 70, games: 1500 }));',
      "process.stdout.write(createHash('sha256').update(json).digest('hex'));",
    ].join('\n');
    const child = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child).toBe(sha256(JSON.stringify(generateCatalog({ seed: 42, providers: 70, games: 1500 }))));
  });

  it('treats the seed 42 and "42" as the same seed', () => {
    expect(JSON.stringify(generateCatalog({ ...DEFAULTS, seed: '42' }))).toBe(JSON.stringify(generateCatalog(DEFAULTS)));
  });

  it('gives a different catalog for a different seed, with different ids and names', () => {
    const a = generateCatalog(DEFAULTS);
    const b = generateCatalog({ ...DEFAULTS, seed: 43 });
    expect(sha256(JSON.stringify(b))).not.toBe(sha256(JSON.stringify(a)));
    const idsA = new Set(a.games.map((g) => g.id));
    expect(b.games.filter((g) => idsA.has(g.id))).toEqual([]);
    expect(b.games.slice(0, 20).map((g) => g.name)).not.toEqual(a.games.slice(0, 20).map((g) => g.name));
  });

  it('lists curated providers first in a fixed order, whatever the seed', () => {
    for (const seed of [1, 42, 'demo']) {
      const codes = generateCatalog({ seed, providers: 30, games: 0 }).providers.map((p) => p.code);
      expect(codes).toEqual(CURATED_PROVIDERS.slice(0, 30).map((p) => p.code));
    }
    expect(CURATED_PROVIDERS.length).toBeGreaterThanOrEqual(40);
  });

  it('puts PRAGMATICPLAY among the first few providers, ACTIVE with the default seed', () => {
    const catalog = generateCatalog(DEFAULTS);
    const index = catalog.providers.findIndex((p) => p.code === 'PRAGMATICPLAY');
    expect(index).toBeGreaterThanOrEqual(0);
    expect(index).toBeLessThan(5);
    expect(catalog.providers[index]?.status).toBe('ACTIVE');
    expect(catalog.providers[index]?.name).toBe('Pragmatic Play');
  });

  it('gives each provider its type mix: live studios live, crash studios crash, Asian studios fishing and slots', () => {
    const catalog = generateCatalog({ seed: 42, providers: 30, games: 3000 });
    const typesOf = (code: string) => new Set(catalog.gamesByProvider.get(code)?.map((g) => g.type));
    for (const live of ['EVOLUTIONLIVE', 'EZUGI', 'PRAGMATICLIVE']) expect([...typesOf(live)]).toEqual(['live']);
    expect([...typesOf('SPRIBE')]).toEqual(['crash']);
    expect(typesOf('SMARTSOFT').has('crash')).toBe(true);
    for (const asian of ['JILI', 'TADAGAMING', 'SPADEGAMING']) {
      expect(typesOf(asian).has('fishing')).toBe(true);
      expect(typesOf(asian).has('slot')).toBe(true);
    }
    for (const type of ['slot', 'table', 'live'] as const) expect(typesOf('PLAYTECH').has(type)).toBe(true);
    expect(catalog.providers.find((p) => p.code === 'EVOLUTIONLIVE')?.types).toEqual(['live']);
  });

  it('keeps each game of a provider identical when the number of providers changes', () => {
    const small = generateCatalog({ seed: 7, providers: 10, games: 500 });
    const large = generateCatalog({ seed: 7, providers: 200, games: 5000 });
    let compared = 0;
    for (const provider of small.providers) {
      const before = small.gamesByProvider.get(provider.code) ?? [];
      const after = large.gamesByProvider.get(provider.code) ?? [];
      const shared = Math.min(before.length, after.length);
      expect(after.slice(0, shared)).toEqual(before.slice(0, shared));
      compared += shared;
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('keeps each game identical when the total number of games changes (a provider list is a prefix)', () => {
    const small = generateCatalog({ seed: 'x', providers: 30, games: 300 });
    const large = generateCatalog({ seed: 'x', providers: 30, games: 3000 });
    for (const provider of small.providers) {
      const before = small.gamesByProvider.get(provider.code) ?? [];
      expect(large.gamesByProvider.get(provider.code)?.slice(0, before.length)).toEqual(before);
    }
  });

  it('keeps earlier providers identical when more providers are asked for', () => {
    const few = generateCatalog({ seed: 5, providers: 80, games: 0 });
    const many = generateCatalog({ seed: 5, providers: 300, games: 0 });
    expect(many.providers.slice(0, 80)).toEqual(few.providers);
  });

  it('makes ids of 32 lower-case hex characters, unique, and codes unique upper-case [A-Z0-9]', () => {
    const catalog = generateCatalog({ seed: 42, providers: 1000, games: 20_000 });
    expect(catalog.providers).toHaveLength(1000);
    for (const game of catalog.games) expect(game.id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(catalog.games.map((g) => g.id)).size).toBe(catalog.games.length);
    for (const provider of catalog.providers) expect(provider.code).toMatch(/^[A-Z0-9]{2,20}$/);
    expect(new Set(catalog.providers.map((p) => p.code)).size).toBe(1000);
    expect(new Set(catalog.providers.map((p) => p.name.toLowerCase())).size).toBe(1000);
  });

  it('keeps game names unique within each provider', () => {
    const catalog = generateCatalog({ seed: 42, providers: 3, games: 30_000 });
    for (const games of catalog.gamesByProvider.values()) {
      expect(new Set(games.map((g) => g.name.toLowerCase())).size).toBe(games.length);
    }
  });

  it('gives every game a realistic shape', () => {
    const catalog = generateCatalog({ seed: 42, providers: 60, games: 5000 });
    const codes = new Set(catalog.providers.map((p) => p.code));
    // Each rule lists the games that break it, so a failure names them.
    const broken = (rule: (g: (typeof catalog.games)[number]) => boolean) => catalog.games.filter((g) => !rule(g)).slice(0, 3);
    expect(broken((g) => GAME_TYPES.includes(g.type))).toEqual([]);
    expect(broken((g) => codes.has(g.provider))).toEqual([]);
    expect(broken((g) => g.rtp >= 92 && g.rtp <= 98.5 && Math.round(g.rtp * 100) / 100 === g.rtp)).toEqual([]);
    expect(broken((g) => VOLATILITIES.includes(g.volatility))).toEqual([]);
    expect(broken((g) => typeof g.demo === 'boolean')).toEqual([]);
    expect(broken((g) => g.platforms.length > 0 && g.platforms.every((p) => PLATFORMS.includes(p)))).toEqual([]);
    expect(broken((g) => /^20(1[2-9]|2[0-5])-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(g.releaseDate))).toEqual([]);
    expect(broken((g) => Number.isInteger(g.minBetMinor) && g.minBetMinor > 0 && g.minBetMinor < g.maxBetMinor)).toEqual([]);
    expect(broken((g) => g.imgPath === `/assets/games/${g.id}.svg` && g.imgUrl === undefined)).toEqual([]);
    expect(broken((g) => g.name.length > 0 && g.name.trim() === g.name)).toEqual([]);
    expect(broken((g) => (g.type === 'slot') === (g.lines !== undefined))).toEqual([]);
    expect(new Set(catalog.games.map((g) => g.type))).toEqual(new Set(GAME_TYPES));
  });

  it('gives providers a logo path, a status and a totalGames that matches their games', () => {
    const catalog = generateCatalog(DEFAULTS);
    expect(catalog.games).toHaveLength(1500);
    for (const provider of catalog.providers) {
      expect(provider.totalGames).toBe(catalog.gamesByProvider.get(provider.code)?.length);
      expect(provider.totalGames).toBeGreaterThan(0);
      expect(['ACTIVE', 'MAINTENANCE']).toContain(provider.status);
      expect(provider.logoPath).toBe(`/assets/providers/${provider.code}.svg`);
    }
  });

  it('puts a small, seeded share of providers in MAINTENANCE', () => {
    const catalog = generateCatalog({ seed: 42, providers: 1000, games: 0 });
    const inMaintenance = catalog.providers.filter((p) => p.status === 'MAINTENANCE').length;
    expect(inMaintenance).toBeGreaterThan(10);
    expect(inMaintenance).toBeLessThan(120);
  });

  it('generates an empty catalog with 0 games', () => {
    const catalog = generateCatalog({ seed: 42, providers: 30, games: 0 });
    expect(catalog.games).toEqual([]);
    expect(catalog.providers).toHaveLength(30);
    expect(catalog.providers.every((p) => p.totalGames === 0 && p.types.length === 0)).toBe(true);
  });

  it('generates 100,000 games', () => {
    const catalog = generateCatalog({ seed: 42, providers: 30, games: 100_000 });
    expect(catalog.games).toHaveLength(100_000);
    expect(catalog.gameById.size).toBe(100_000);
    expect(catalog.providers.reduce((sum, p) => sum + p.totalGames, 0)).toBe(100_000);
  });

  it('gives games with the same currencies one shared, frozen list (a large catalog is ~20 MB smaller)', () => {
    const { games } = generateCatalog({ seed: 7, providers: 30, games: 20_000 });
    const lists = new Map<string, readonly string[]>();
    for (const game of games) {
      expect(game.currencies.slice(0, 3)).toEqual(['EUR', 'USD', 'GBP']);
      expect(Object.isFrozen(game.currencies)).toBe(true);
      const key = game.currencies.join();
      const seen = lists.get(key);
      if (seen) expect(game.currencies).toBe(seen);
      else lists.set(key, game.currencies);
    }
    // 14 optional currencies, each drawn with even odds: at most 2^14 distinct lists however many games.
    expect(lists.size).toBeGreaterThan(1_000);
    expect(lists.size).toBeLessThanOrEqual(2 ** 14);
    expect(lists.size).toBeLessThan(games.length);
    // A frozen list cannot be changed through one game and show up in another.
    const first = games[0]?.currencies as string[];
    expect(first).toBeDefined();
    expect(() => first.push('XXX')).toThrow(TypeError);
  });

  it('rejects a size that is not a whole number in range, naming the field', () => {
    expect(() => generateCatalog({ seed: 1, providers: 1001, games: 0 })).toThrow(/catalog\.providers.*0 to 1000.*1001/);
    expect(() => generateCatalog({ seed: 1, providers: 3, games: -1 })).toThrow(/catalog\.games.*-1/);
    expect(() => generateCatalog({ seed: 1, providers: 3, games: 1.5 })).toThrow(/catalog\.games/);
  });
});

describe('shareOut', () => {
  it('splits the total exactly, in proportion, at least one each when there are enough', () => {
    expect(shareOut(10, [1, 1, 2])).toEqual([3, 3, 4]);
    expect(shareOut(3, [1, 100, 1])).toEqual([1, 1, 1]);
    expect(shareOut(2, [1, 3, 1])).toEqual([1, 1, 0]);
    expect(shareOut(0, [1, 2])).toEqual([0, 0]);
    expect(shareOut(5, [])).toEqual([]);
    const counts = shareOut(100_003, [0.3, 2.7, 1.1, 0.9]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100_003);
  });
});
