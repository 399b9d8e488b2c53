import {
  type Catalog,
  type CatalogGame,
  type CatalogProvider,
  findProvider,
  GAME_TYPES,
  type GameType,
} from '../catalog/index.ts';
import { formatMinor } from '../money/index.ts';
import { cached } from '../shared/index.ts';
import { escapeHtml, layout } from './layout.ts';

/** Cards per page: enough to browse, small enough that a 100,000-game catalog renders fast. */
export const PAGE_SIZE = 60;
/** Providers listed as open chips; larger catalogs fold the list away. */
const OPEN_PROVIDER_LIST = 40;

export interface GameQuery {
  q?: string | undefined;
  provider?: string | undefined;
  type?: string | undefined;
  page?: string | number | undefined;
}

export interface GamePage {
  games: CatalogGame[];
  /** Games matching the query over all pages. */
  total: number;
  /** 1-based, clamped into 1…pages. */
  page: number;
  pages: number;
  q: string;
  provider?: CatalogProvider;
  type?: GameType;
  /** Filters that did not name anything, said in words for the page. */
  notices: string[];
}

// Lower-cased names per catalog, computed once: a search then scans plain strings.
const lowerNames = new WeakMap<Catalog, Map<CatalogGame, string>>();

function lowerName(catalog: Catalog, game: CatalogGame): string {
  const names = cached(lowerNames, catalog, (c) => new Map(c.games.map((g) => [g, g.name.toLowerCase()])));
  return names.get(game) ?? game.name.toLowerCase();
}

/**
 * One page of the catalog for the home page: games whose name contains `q` (case-insensitive; a
 * full game id also matches), of one provider (code or name) and one type. Pure: no HTTP.
 *
 * @example searchCatalog(catalog, { q: 'bonanza', type: 'slot', page: 2 })
 */
export function searchCatalog(catalog: Catalog, query: GameQuery): GamePage {
  const notices: string[] = [];
  const q = (query.q ?? '').trim();
  const needle = q.toLowerCase();

  let provider: CatalogProvider | undefined;
  if (query.provider?.trim()) {
    provider = findProvider(catalog, query.provider);
    if (!provider)
      notices.push(`No provider ${JSON.stringify(query.provider.trim())}; showing no games. Pick one from the list.`);
  }
  let type: GameType | undefined;
  if (query.type?.trim()) {
    const wanted = query.type.trim().toLowerCase();
    type = GAME_TYPES.find((t) => t === wanted);
    if (!type) notices.push(`No game type ${JSON.stringify(query.type.trim())}; expected one of ${GAME_TYPES.join(', ')}.`);
  }
  const unknownFilter = notices.length > 0;

  const pool = provider ? (catalog.gamesByProvider.get(provider.code) ?? []) : catalog.games;
  const matches = unknownFilter
    ? []
    : pool.filter(
        (g) =>
          (type === undefined || g.type === type) && (needle === '' || g.id === needle || lowerName(catalog, g).includes(needle)),
      );
  const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
  const requested = Number.parseInt(String(query.page ?? '1'), 10);
  const page = Number.isFinite(requested) ? Math.min(Math.max(requested, 1), pages) : 1;
  return {
    games: matches.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    total: matches.length,
    page,
    pages,
    q,
    ...(provider ? { provider } : {}),
    ...(type ? { type } : {}),
    notices,
  };
}

/** The home page: search and filters, the provider list with counts, a grid of game cards, pagination. */
export function homePage(catalog: Catalog, result: GamePage): string {
  const providerName = (code: string) => catalog.providerByCode.get(code)?.name ?? code;
  const link = (changes: Record<string, string | number | undefined>) => {
    const params = new URLSearchParams();
    const current = { q: result.q, provider: result.provider?.code, type: result.type, page: result.page, ...changes };
    for (const [key, value] of Object.entries(current)) {
      if (value !== undefined && value !== '' && !(key === 'page' && value === 1)) params.set(key, String(value));
    }
    const query = params.toString();
    return escapeHtml(query ? `/?${query}` : '/');
  };

  const providerOptions = catalog.providers
    .map(
      (p) =>
        `<option value="${escapeHtml(p.code)}"${p.code === result.provider?.code ? ' selected' : ''}>${escapeHtml(p.name)} (${p.totalGames})</option>`,
    )
    .join('');
  const typeOptions = GAME_TYPES.map((t) => `<option value="${t}"${t === result.type ? ' selected' : ''}>${t}</option>`).join('');

  const chips = catalog.providers
    .map(
      (p) =>
        `<a class="chip${p.code === result.provider?.code ? ' on' : ''}" href="${link({ provider: p.code, page: 1 })}" data-testid="provider-chip">${escapeHtml(p.name)} <b>${p.totalGames}</b>${p.status === 'ACTIVE' ? '' : ` <span class="badge">${escapeHtml(p.status.toLowerCase())}</span>`}</a>`,
    )
    .join('');

  const cards = result.games
    .map((g) => {
      const href = `/ui/launch?gameId=${g.id}`;
      return `<article class="card" data-testid="game-card" data-game-id="${g.id}">
<a href="${href}" class="art" tabindex="-1"><img src="${escapeHtml(g.imgPath)}" alt="" width="200" height="200" loading="lazy"></a>
<div class="info"><h3 data-testid="game-name" title="${escapeHtml(g.name)}">${escapeHtml(g.name)}</h3>
<p class="muted">${escapeHtml(providerName(g.provider))}</p>
<p class="meta"><span class="badge">${g.type}</span> <span title="return to player">RTP ${g.rtp.toFixed(2)}%</span></p>
<p class="muted small">Bet ${formatMinor(g.minBetMinor)}–${formatMinor(g.maxBetMinor)}</p>
<a class="button" href="${href}" data-testid="launch-link">Launch</a></div>
</article>`;
    })
    .join('\n');

  const from = result.total === 0 ? 0 : (result.page - 1) * PAGE_SIZE + 1;
  const to = Math.min(result.page * PAGE_SIZE, result.total);
  const pager =
    result.pages > 1
      ? `<nav class="pager" aria-label="pages">
${result.page > 1 ? `<a class="button secondary" rel="prev" href="${link({ page: result.page - 1 })}" data-testid="prev-page">← Previous</a>` : ''}
<span data-testid="page-info">Page ${result.page} of ${result.pages}</span>
${result.page < result.pages ? `<a class="button secondary" rel="next" href="${link({ page: result.page + 1 })}" data-testid="next-page">Next →</a>` : ''}
</nav>`
      : '';
  const filtered = result.q || result.provider || result.type;
  const notices = result.notices.map((n) => `<div class="banner bad" data-testid="notice">${escapeHtml(n)}</div>`).join('');

  const body = `<style>${CSS}</style>
<form class="panel toolbar" method="get" action="/" role="search" data-testid="search-form">
<input type="search" name="q" value="${escapeHtml(result.q)}" placeholder="Search ${catalog.games.length.toLocaleString('en')} games by name" aria-label="Search games by name" data-testid="search">
<select name="provider" aria-label="Provider" data-testid="provider-filter"><option value="">All providers</option>${providerOptions}</select>
<select name="type" aria-label="Game type" data-testid="type-filter"><option value="">All types</option>${typeOptions}</select>
<button type="submit">Search</button>${filtered ? ' <a href="/" class="button secondary">Clear</a>' : ''}
</form>
<details class="providers"${catalog.providers.length <= OPEN_PROVIDER_LIST ? ' open' : ''}><summary>${catalog.providers.length} providers · ${catalog.games.length.toLocaleString('en')} games</summary>
<div class="chips">${chips}</div></details>
<div data-testid="results">${notices}
<p class="muted" data-testid="result-count">${result.total === 0 ? 'No games match.' : `Showing ${from}–${to} of ${result.total.toLocaleString('en')} game${result.total === 1 ? '' : 's'}`}${result.provider ? ` by ${escapeHtml(result.provider.name)}` : ''}${result.type ? ` of type ${result.type}` : ''}${result.q ? ` named like “${escapeHtml(result.q)}”` : ''}.</p>
<section class="grid" data-testid="games">${cards}</section>
${pager}</div>`;
  return layout({ title: 'Games', active: 'games', body, script: 'search.js' });
}

const CSS = `
.providers{margin:0 0 12px}.providers summary{cursor:pointer;color:var(--muted);margin:0 0 8px}
.chips{display:flex;flex-wrap:wrap;gap:6px;max-height:220px;overflow:auto}
.chip{font-size:.85rem;padding:4px 10px;border-radius:999px;background:var(--panel);border:1px solid var(--line);color:var(--text);text-decoration:none}
.chip b{color:var(--accent);font-weight:600}.chip.on{border-color:var(--accent);background:#422006}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:14px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:12px;overflow:hidden;display:flex;flex-direction:column}
.card .art{display:block;aspect-ratio:1;background:#0b1222}.card img{width:100%;height:100%;display:block;object-fit:cover}
.card .info{padding:8px 10px 12px;display:flex;flex-direction:column;gap:2px;flex:1}
.card h3{font-size:.95rem;margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.card p{margin:0;font-size:.85rem}.card .small{font-size:.78rem}
.card .button{margin-top:auto;align-self:flex-start;padding:6px 14px;font-size:.9rem}
.card .meta{display:flex;gap:6px;align-items:center;margin:2px 0}
.pager{display:flex;gap:12px;align-items:center;justify-content:center;margin:20px 0}
@media (max-width:520px){.grid{grid-template-columns:repeat(2,1fr);gap:10px}.toolbar select{flex:1 1 40%}}
`;
