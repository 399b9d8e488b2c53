import { EVENT_KINDS, EVENT_STATUSES } from '../callbacks/events.ts';
import type { AggmockConfig } from '../config/index.ts';
import { redactUrl } from '../shared/index.ts';
import { schemeHeaders } from '../signing/index.ts';
import { AUTH_PROMPT_HTML, escapeHtml, LOG_PAGE_CSS, layout } from './layout.ts';

/** Header names that carry the callback signature in the configured scheme (lower-case). */
export function signatureHeaderNames(config: AggmockConfig): string[] {
  const { scheme, headers } = config.callbacks.signing;
  return schemeHeaders(scheme, headers).map((n) => n.toLowerCase());
}

/**
 * The races the "Make a callback race" form offers, each the callback fault rule it adds (for the
 * next matching callback only; the form may narrow it to one player).
 */
export const CALLBACK_FAULT_CHOICES = [
  race('debit-timeout-rollback', 'Time out the next DEBIT after the wallet applied it, then roll it back', 'debit', {
    kind: 'timeout',
    giveUp: true,
  }),
  race('debit-in-flight-rollback', 'Give up on the next DEBIT while it is in flight: the ROLLBACK races it', 'debit', {
    kind: 'timeout',
    afterMs: 0,
    giveUp: true,
  }),
  race('debit-timeout-retry', 'Time out the next DEBIT after the wallet applied it, then retry it', 'debit', { kind: 'timeout' }),
  race('debit-duplicate', 'Duplicate the next DEBIT (both in flight)', 'debit', { kind: 'duplicate' }),
  race('credit-timeout-retry', 'Time out the next CREDIT after the wallet applied it, then retry it', 'credit', {
    kind: 'timeout',
  }),
  race('credit-duplicate', 'Duplicate the next CREDIT (both in flight)', 'credit', { kind: 'duplicate' }),
  race('rollback-duplicate', 'Duplicate the next ROLLBACK (both in flight)', 'rollback', { kind: 'duplicate' }),
];

function race(id: string, label: string, event: string, fault: { kind: string; afterMs?: number; giveUp?: boolean }) {
  return { id, label, rule: { match: { event }, fault } };
}

/**
 * The deliveries inspector: a live list of callbacks (polling `GET /__admin/deliveries` every
 * second), a detail panel with every attempt (request headers with the signature highlighted,
 * exact body, reply, latency, error), Replay and Rollback, forms to send one event or run a
 * scenario, and the callback fault rules in force with a form that makes the next callback race
 * (`/__admin/callback-faults`). The page is a shell; its script reads everything from the admin API.
 */
export function deliveriesPage(config: AggmockConfig, players: readonly string[]): string {
  const types = config.callbacks.types;
  const typeOptions = EVENT_KINDS.map((k) => `<option value="${k}">${escapeHtml(types[k])}</option>`).join('');
  const statusOptions = EVENT_STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('');
  const playerOptions = players.map((p) => `<option value="${escapeHtml(p)}">`).join('');
  const raceOptions = CALLBACK_FAULT_CHOICES.map((c) => `<option value="${c.id}">${escapeHtml(c.label)}</option>`).join('');
  const body = `<style>${CSS}</style>
<h1>Deliveries <span class="muted small">callbacks to <span class="mono">${escapeHtml(redactUrl(config.callbacks.webhookUrl))}</span></span></h1>
${AUTH_PROMPT_HTML}
<div id="list-error" class="banner bad" hidden data-testid="list-error"></div>
<details class="tools-box" id="tools" open><summary>Send an event · Run a scenario · Make a callback race</summary>
<section class="tools">
<form id="event-form" class="panel" data-testid="event-form">
<h2>Send an event</h2>
<div class="fields">
<label class="field">Type<select name="type" data-testid="event-type">${typeOptions}</select></label>
<label class="field">Player<input name="playerId" list="players" value="${escapeHtml(players[0] ?? 'p1')}" required data-testid="event-player"></label>
<label class="field">Amount<input name="amount" inputmode="decimal" value="5.00" data-testid="event-amount"></label>
<label class="field">Transaction id<input name="transactionId" placeholder="optional: next seeded id" data-testid="event-tx"></label>
<label class="field">Reverses<input name="referenceTransactionId" placeholder="ROLLBACK: the DEBIT's transactionId" data-testid="event-ref"></label>
</div>
<button type="submit" data-testid="event-send">Send</button>
<div class="result" hidden data-testid="event-result"></div>
</form>
<form id="scenario-form" class="panel" data-testid="scenario-form">
<h2>Run a scenario once</h2>
<div class="fields">
<label class="field">Scenario<select name="scenario" data-testid="scenario-name"><option value="">loading…</option></select></label>
<label class="field">Players<input name="players" placeholder="p1, p2" value="${escapeHtml(players[0] ?? 'p1')}" data-testid="scenario-players"></label>
<label class="field">Amount<input name="amount" inputmode="decimal" placeholder="random 1–20" data-testid="scenario-amount"></label>
</div>
<p class="muted small" id="scenario-description" data-testid="scenario-description"></p>
<button type="submit" data-testid="scenario-run">Run</button>
<div class="result" hidden data-testid="scenario-result"></div>
</form>
<form id="race-form" class="panel" data-testid="race-form">
<h2>Make the next callback race</h2>
<div class="fields">
<label class="field wide">Fault<select name="choice" data-testid="race-choice">${raceOptions}</select></label>
<label class="field">Player<input name="player" list="players" placeholder="optional: any player" data-testid="race-player"></label>
</div>
<button type="submit" data-testid="race-add">Add the rule</button>
<div class="result" hidden data-testid="race-result"></div>
</form>
<div class="panel">
<h2>Callback fault rules in force</h2>
<table><tbody id="race-rules" data-testid="race-rules"></tbody></table>
<p class="muted small" id="no-race-rules" data-testid="no-race-rules">None: every callback goes out once and is waited for.</p>
<button type="button" class="secondary" id="race-clear" hidden data-testid="race-clear">Remove every rule</button>
</div>
</section>
</details>
<datalist id="players">${playerOptions}</datalist>
<form id="filters" class="toolbar filters" data-testid="filters">
<input name="player" type="search" list="players" placeholder="player" aria-label="Filter by player" data-testid="filter-player">
<select name="type" aria-label="Filter by type" data-testid="filter-type"><option value="">all types</option>${typeOptions}</select>
<select name="status" aria-label="Filter by status" data-testid="filter-status"><option value="">all statuses</option>${statusOptions}</select>
<label class="live"><input type="checkbox" id="live" checked data-testid="live"> live</label>
<span class="muted small" id="list-info" data-testid="list-info"></span>
</form>
<div class="split">
<section class="panel list"><div class="scroll"><table data-testid="deliveries">
<thead><tr><th class="num">#</th><th>Time</th><th>Type</th><th>Player</th><th class="num">Amount</th><th>Status</th><th class="num">Tries</th><th class="num">HTTP</th><th class="num">Reply balance</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<p class="muted empty" id="empty" hidden>No deliveries yet. Spin on a play page, send an event or run a scenario.</p>
</section>
<aside class="panel detail" id="detail" data-testid="detail" aria-live="polite"><p class="muted">Click a delivery to see each attempt: the signed request, the wallet's reply, latency and errors.</p></aside>
</div>`;
  return layout({
    title: 'Deliveries',
    active: 'deliveries',
    body,
    data: {
      tokenRequired: Boolean(config.admin.token),
      types,
      signatureHeaders: signatureHeaderNames(config),
      raceChoices: CALLBACK_FAULT_CHOICES,
    },
    script: 'deliveries.js',
  });
}

const CSS = `${LOG_PAGE_CSS}
.tools-box>summary{cursor:pointer;color:var(--muted);margin:0 0 10px}
.tools .field{flex:1 1 120px}.tools .field.wide{flex:2 1 260px}
.tools table{font-size:.85rem}.tools td{padding:4px 6px}
.tools .result{margin:0;font-size:.9rem}
.filters input[type=search]{flex:0 1 12rem}
.list{padding:6px 8px}
.detail h2{display:flex;flex-wrap:wrap;gap:8px;align-items:center}.detail h3{font-size:1rem;margin:12px 0 4px}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 10px}
.attempt{border-top:1px solid var(--line);padding:10px 0 4px}
.attempt h3{font-size:.95rem;margin:0 0 6px}
.headers td{font-family:ui-monospace,monospace;font-size:.78rem;overflow-wrap:anywhere;padding:3px 6px}.headers td:first-child{white-space:nowrap}
.headers tr.sig td{background:#422006;color:#fde68a}.headers tr.sig td:first-child{border-left:3px solid var(--accent)}
`;
