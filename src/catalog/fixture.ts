import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { valueAt } from '../shared/index.ts';
import {
  buildCatalog,
  type Catalog,
  type CatalogGame,
  GAME_TYPES,
  gameImagePath,
  PLATFORMS,
  PROVIDER_STATUSES,
  type ProviderDraft,
  providerKey,
  providerLogoPath,
  VOLATILITIES,
} from './catalog.ts';
import { createRng, md5Hex } from './seed.ts';
import { gameTraits } from './traits.ts';

/*
 * A fixture is a hand-written JSON file that pins providers and games an integrator's tests rely
 * on (a known game id to launch, a provider with a name full of punctuation, an image on their
 * own CDN), on top of the generated catalog or instead of it.
 */

const GAME_ID = /^[0-9a-f]{32}$/;

const twoDecimals = (n: number) => Math.round(n * 100) / 100 === n;

export const fixtureProviderSchema = z.strictObject({
  code: z
    .string()
    .max(64)
    .regex(/^[A-Z0-9][A-Z0-9_]*$/, 'expected an upper-case code of A-Z, 0-9 and _, such as "PGSOFT"'),
  name: z.string().trim().min(1, 'expected a non-empty display name').max(120),
  status: z.enum(PROVIDER_STATUSES).default('ACTIVE'),
});

export const fixtureGameSchema = z.strictObject({
  /** When absent: the MD5 of `fixture:<provider code>:<name>`, the same whatever the seed. */
  id: z.string().regex(GAME_ID, 'expected 32 lower-case hex characters (leave "id" out to have one generated)').optional(),
  name: z.string().trim().min(1, 'expected a non-empty game name').max(200),
  type: z.enum(GAME_TYPES),
  /** A provider code: one of the fixture's, or (in extend mode) a generated one. */
  provider: z.string().trim().min(1, 'expected a provider code such as "PGSOFT"'),
  rtp: z.number().min(50).max(100).refine(twoDecimals, 'expected at most two decimals, e.g. 96.5').optional(),
  volatility: z.enum(VOLATILITIES).optional(),
  demo: z.boolean().optional(),
  platforms: z.array(z.enum(PLATFORMS)).min(1, 'expected at least one of "desktop", "mobile"').optional(),
  lines: z.number().int().positive().optional(),
  releaseDate: z.iso.date('expected an ISO date such as "2024-05-01"').optional(),
  /** The currencies the game takes; absent: EUR, USD, GBP and a seeded few more. */
  currencies: z
    .array(z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code such as "EUR" or "JPY"'))
    .min(1, 'expected at least one currency code')
    .optional(),
  /** An absolute image URL used as-is; without it aggmock serves a generated SVG. */
  img: z
    .url({ protocol: /^https?$/, message: 'expected an absolute http(s) URL such as "https://cdn.example.com/cover.png"' })
    .optional(),
});

export const FIXTURE_MODES = ['extend', 'replace'] as const;

export const catalogFixtureSchema = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  /** `extend` adds to the generated catalog; `replace` serves the fixture's entries only. */
  mode: z.enum(FIXTURE_MODES).default('extend'),
  providers: z.array(fixtureProviderSchema).default([]),
  games: z.array(fixtureGameSchema).default([]),
});

export type FixtureGame = z.infer<typeof fixtureGameSchema>;

/** A validated fixture and where it came from (named in every error about it). */
export type CatalogFixture = z.infer<typeof catalogFixtureSchema> & { source: string };

/** A fixture that cannot be used; `problems` each name a JSON path, the value and what was expected. */
export class CatalogFixtureError extends Error {
  override readonly name = 'CatalogFixtureError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid catalog fixture ${source}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * Reads and validates a fixture file.
 *
 * @example applyFixture(generateCatalog({ seed: 42, providers: 30, games: 1500 }), loadCatalogFixture('fixtures/catalog.example.json'))
 */
export function loadCatalogFixture(path: string): CatalogFixture {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CatalogFixtureError(path, [`the file could not be read: ${(error as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CatalogFixtureError(path, [`the file is not valid JSON: ${(error as Error).message}`]);
  }
  return parseCatalogFixture(raw, path);
}

/** Validates an already-parsed fixture; `source` names it in errors. */
export function parseCatalogFixture(raw: unknown, source = '(inline fixture)'): CatalogFixture {
  const result = catalogFixtureSchema.safeParse(raw);
  if (!result.success)
    throw new CatalogFixtureError(
      source,
      result.error.issues.flatMap((issue) => describeIssue(issue, raw)),
    );
  return { ...result.data, source };
}

/**
 * Applies a fixture to a catalog and returns a new catalog (the input is not changed).
 *
 * - `extend`: fixture providers are appended, or replace the name and status of the generated
 *   provider with the same code (its generated games stay). Fixture games join their provider
 *   after its generated games; one with the same name as a generated game of that provider
 *   takes that game's place.
 * - `replace`: the catalog holds only the fixture's providers and games.
 *
 * Every problem is collected and thrown together as a CatalogFixtureError: an unknown provider,
 * a duplicate id (naming both games), a duplicate name within a provider, a duplicate code.
 * `totalGames` is recomputed.
 */
export function applyFixture(catalog: Catalog, fixture: CatalogFixture): Catalog {
  const problems: string[] = [];
  const extend = fixture.mode === 'extend';

  const drafts: ProviderDraft[] = extend ? catalog.providers.map(({ totalGames: _t, types: _ty, ...draft }) => draft) : [];
  const positionByCode = new Map(drafts.map((d, i) => [d.code, i]));
  const fixtureIndexByCode = new Map<string, number>();
  for (const [i, p] of fixture.providers.entries()) {
    const earlier = fixtureIndexByCode.get(p.code);
    if (earlier !== undefined) {
      problems.push(`providers[${i}].code: "${p.code}" is already given at providers[${earlier}]`);
      continue;
    }
    fixtureIndexByCode.set(p.code, i);
    const draft: ProviderDraft = {
      code: p.code,
      name: p.name,
      status: p.status,
      logoPath: providerLogoPath(p.code),
      origin: 'fixture',
    };
    const position = positionByCode.get(p.code);
    if (position === undefined) {
      positionByCode.set(p.code, drafts.length);
      drafts.push(draft);
    } else {
      drafts[position] = draft;
    }
  }

  // Clients match codes ignoring "_" and spaces, so PG_SOFT next to PGSOFT would be ambiguous.
  const codeByKey = new Map<string, string>();
  for (const draft of drafts) {
    const other = codeByKey.get(providerKey(draft.code));
    if (other === undefined) codeByKey.set(providerKey(draft.code), draft.code);
    else {
      const at = fixtureIndexByCode.get(draft.code);
      problems.push(
        `${at === undefined ? 'providers' : `providers[${at}].code`}: "${draft.code}" reads the same as provider "${other}" once spaces, "_" and "-" are ignored; clients could not tell them apart`,
      );
    }
  }
  const resolveProvider = (query: string) =>
    positionByCode.has(query.toUpperCase()) ? query.toUpperCase() : codeByKey.get(providerKey(query));

  const generatedByName = new Map<string, CatalogGame>();
  if (extend && fixture.games.length > 0)
    for (const game of catalog.games) generatedByName.set(nameKey(game.provider, game.name), game);

  const fixtureGames: CatalogGame[] = [];
  const replacedIds = new Set<string>();
  const fixtureIndexById = new Map<string, number>();
  const fixtureIndexByName = new Map<string, number>();
  for (const [i, entry] of fixture.games.entries()) {
    const code = resolveProvider(entry.provider);
    if (code === undefined) {
      problems.push(
        `games[${i}].provider: "${entry.provider}" is not a provider here; expected ${knownProviders(drafts, extend)}`,
      );
      continue;
    }
    const key = nameKey(code, entry.name);
    const sameName = fixtureIndexByName.get(key);
    if (sameName !== undefined) {
      problems.push(
        `games[${i}].name: "${entry.name}" is already a game of ${code} at games[${sameName}]; names are unique within a provider`,
      );
      continue;
    }
    fixtureIndexByName.set(key, i);

    const id = entry.id ?? md5Hex(`fixture:${code}:${entry.name}`);
    const sameId = fixtureIndexById.get(id);
    if (sameId !== undefined) {
      problems.push(`games[${i}].id: "${id}" is already the id of games[${sameId}] ("${fixture.games[sameId]?.name}")`);
      continue;
    }
    fixtureIndexById.set(id, i);
    const replaced = generatedByName.get(key);
    const clash = extend ? catalog.gameById.get(id) : undefined;
    if (clash && clash !== replaced) {
      problems.push(`games[${i}].id: "${id}" is already the id of generated game "${clash.name}" of ${clash.provider}`);
      continue;
    }
    if (replaced) replacedIds.add(replaced.id);
    fixtureGames.push(fixtureGame(entry, id, code));
  }

  if (problems.length > 0) throw new CatalogFixtureError(fixture.source, problems);
  const kept = extend ? catalog.games.filter((g) => !replacedIds.has(g.id)) : [];
  return buildCatalog(catalog.seed, drafts, [...kept, ...fixtureGames]);
}

/** A fixture entry as a catalog game: what it gives wins; the rest is drawn from its id. */
function fixtureGame(entry: FixtureGame, id: string, code: string): CatalogGame {
  const traits = gameTraits(createRng('fixture', id), entry.type);
  const lines = entry.lines ?? traits.lines;
  return {
    id,
    name: entry.name,
    type: entry.type,
    provider: code,
    rtp: entry.rtp ?? traits.rtp,
    volatility: entry.volatility ?? traits.volatility,
    demo: entry.demo ?? traits.demo,
    platforms: entry.platforms ? PLATFORMS.filter((p) => entry.platforms?.includes(p)) : traits.platforms,
    ...(lines !== undefined ? { lines } : {}),
    minBetMinor: traits.minBetMinor,
    maxBetMinor: traits.maxBetMinor,
    releaseDate: entry.releaseDate ?? traits.releaseDate,
    currencies: entry.currencies ?? traits.currencies,
    imgPath: gameImagePath(id),
    ...(entry.img ? { imgUrl: entry.img } : {}),
    origin: 'fixture',
  };
}

function nameKey(code: string, name: string): string {
  return `${code}\u0000${name.toLowerCase()}`;
}

function knownProviders(drafts: readonly ProviderDraft[], extend: boolean): string {
  if (drafts.length === 0) return 'a provider listed under "providers" (there are none)';
  const shown = drafts.slice(0, 8).map((d) => d.code);
  const more = drafts.length > shown.length ? `, … (${drafts.length} in all)` : '';
  return `${extend ? 'a generated or fixture provider code' : "one of the fixture's providers"}: ${shown.join(', ')}${more}`;
}

/** One line per problem: the JSON path, what was expected and what came. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string[] {
  if (issue.code === 'unrecognized_keys') {
    const allowed = Object.keys(objectSchemaAt(issue.path).shape).filter((k) => k !== '$schema');
    return issue.keys.map((key) => `${jsonPath([...issue.path, key])}: unknown field; expected one of ${allowed.join(', ')}`);
  }
  const value = valueAt(raw, issue.path);
  if (value === undefined && issue.code === 'invalid_type')
    return [`${jsonPath(issue.path)}: missing; expected ${issue.expected}`];
  return [`${jsonPath(issue.path)}: ${issue.message} (got ${shown(value)})`];
}

/** A value as JSON, cut short so a whole array never floods the message. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? 'nothing';
  return json.length > 80 ? `${json.slice(0, 79)}…` : json;
}

function objectSchemaAt(path: readonly PropertyKey[]) {
  if (path.length === 0) return catalogFixtureSchema;
  return path[0] === 'providers' ? fixtureProviderSchema : fixtureGameSchema;
}

/** `games[3].type` from a zod path. */
function jsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');
}
