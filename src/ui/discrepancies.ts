import type { AggmockConfig } from '../config/index.ts';
import { DISCREPANCY_KINDS } from '../ledger/reducer.ts';
import { ADMIN_CLIENT_JS, AUTH_PROMPT_HTML } from './client.ts';
import { layout } from './layout.ts';

/**
 * The shadow ledger's view: every discrepancy (kind, player, expected vs actual balance, message,
 * links to the deliveries that show it) and the balance the ledger last saw per player. Polls
 * `GET /__admin/discrepancies` and `GET /__admin/ledger` every two seconds.
 */
export function discrepanciesPage(config: AggmockConfig): string {
  const kindOptions = DISCREPANCY_KINDS.map((k) => `<option value="${k}">${k}</option>`).join('');
  const body = `<style>${CSS}</style>
<h1>Discrepancies</h1>
<p class="muted">The shadow ledger checks every reply: the balance after an event must be the balance before it ± the event's amount, and a duplicate must move nothing. Each mismatch is listed here.</p>
${AUTH_PROMPT_HTML}
<div id="load-error" class="banner bad" hidden data-testid="load-error"></div>
<div class="split">
<section class="panel">
<h2>Found <span id="total" data-testid="discrepancy-total">…</span></h2>
<form id="filters" class="toolbar" data-testid="filters">
<select name="kind" aria-label="Filter by kind" data-testid="filter-kind"><option value="">all kinds</option>${kindOptions}</select>
<input name="player" type="search" placeholder="player" aria-label="Filter by player" data-testid="filter-player">
</form>
<div class="scroll"><table data-testid="discrepancies">
<thead><tr><th>Time</th><th>Kind</th><th>Player</th><th class="num">Expected</th><th class="num">Actual</th><th>What happened</th><th>Deliveries</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<p class="muted" id="empty" hidden data-testid="no-discrepancies">No discrepancies: every reply so far adds up.</p>
</section>
<section class="panel balances-panel">
<h2>Ledger balances</h2>
<div class="scroll"><table data-testid="balances">
<thead><tr><th>Player</th><th class="num">Balance</th><th>Last delivery</th><th>Note</th></tr></thead>
<tbody id="balances"></tbody></table></div>
<p class="muted" id="no-balances" hidden>No replies seen yet.</p>
</section>
</div>`;
  return layout({
    title: 'Discrepancies',
    active: 'discrepancies',
    body,
    data: { tokenRequired: Boolean(config.admin.token) },
    script: ADMIN_CLIENT_JS + SCRIPT,
  });
}

const CSS = `
.split{display:grid;grid-template-columns:minmax(0,1fr);gap:0}.balances-panel{max-width:760px}
.split .toolbar{margin:0 0 8px}
.kind{background:#7f1d1d;color:#fecaca;white-space:nowrap}
td.note{overflow-wrap:anywhere;font-size:.8rem}
td.msg{min-width:16rem;overflow-wrap:anywhere}
.uncertain{color:var(--warn)}
`;

const SCRIPT = `
const filters = document.getElementById('filters');
const loadError = document.getElementById('load-error');
let timer = null;
const deliveryLink = (id) => el('a', { href: '/ui/deliveries?open=' + id, dataset: { testid: 'discrepancy-delivery' } }, '#' + id);

async function refresh() {
  clearTimeout(timer);
  const q = new URLSearchParams({ limit: '200' });
  if (filters.elements.kind.value) q.set('kind', filters.elements.kind.value);
  if (filters.elements.player.value.trim()) q.set('player', filters.elements.player.value.trim());
  try {
    const [found, ledger] = await Promise.all([admin('/discrepancies?' + q), admin('/ledger')]);
    loadError.hidden = true;
    document.getElementById('total').textContent = found.total + (found.total === 1 ? ' discrepancy' : ' discrepancies');
    document.getElementById('empty').hidden = found.discrepancies.length > 0;
    fill(document.getElementById('rows'), found.discrepancies.map((d) => el('tr', { dataset: { testid: 'discrepancy-row', kind: d.kind } },
      el('td', { title: stamp(d.createdAt) }, clock(d.createdAt)),
      el('td', {}, el('span', { class: 'badge kind', dataset: { testid: 'discrepancy-kind' } }, d.kind)),
      el('td', {}, d.playerId),
      el('td', { class: 'num' }, money(d.expected)),
      el('td', { class: 'num' }, money(d.actual)),
      el('td', { class: 'msg' }, d.message),
      el('td', {}, d.eventIds.flatMap((id, i) => (i ? [' ', deliveryLink(id)] : [deliveryLink(id)]))),
    )));
    document.getElementById('no-balances').hidden = ledger.balances.length > 0;
    fill(document.getElementById('balances'), ledger.balances.map((b) => el('tr', { dataset: { testid: 'balance-row', player: b.playerId } },
      el('td', {}, b.playerId),
      el('td', { class: 'num' + (b.uncertain ? ' uncertain' : ''), title: b.uncertain ? 'uncertain: the next reply sets a new baseline' : undefined }, money(b.balance)),
      el('td', {}, b.lastEventId ? deliveryLink(b.lastEventId) : '—'),
      el('td', { class: 'muted note' }, b.note || ''),
    )));
  } catch (err) {
    if (err.status === 401) return onToken(refresh);
    say(loadError, false, err.message);
  }
  timer = setTimeout(refresh, 2000);
}
let debounce;
filters.addEventListener('input', () => { clearTimeout(debounce); debounce = setTimeout(refresh, 250); });
filters.addEventListener('submit', (e) => e.preventDefault());
refresh();
`;
