import type { AggmockConfig } from '../config/index.ts';
import { DISCREPANCY_KINDS } from '../ledger/reducer.ts';
import { AUTH_PROMPT_HTML, layout } from './layout.ts';

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
    script: 'discrepancies.js',
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
