import { EVENT_KINDS, EVENT_STATUSES } from '../callbacks/events.ts';
import type { AggmockConfig } from '../config/index.ts';
import { ADMIN_CLIENT_JS, AUTH_PROMPT_HTML } from './client.ts';
import { escapeHtml, layout } from './layout.ts';

/** Header names that carry the callback signature in the configured scheme (lower-case). */
export function signatureHeaderNames(config: AggmockConfig): string[] {
  const { scheme, headers } = config.callbacks.signing;
  const names =
    scheme === 'standard-webhooks'
      ? [headers.webhookId, headers.webhookTimestamp, headers.webhookSignature]
      : [headers.signature];
  return names.map((n) => n.toLowerCase());
}

/**
 * The deliveries inspector: a live list of callbacks (polling `GET /__admin/deliveries` every
 * second), a detail panel with every attempt (request headers with the signature highlighted,
 * exact body, reply, latency, error), Replay and Rollback, and forms to send one event or run a
 * scenario. The page is a shell; its script reads everything from the admin API.
 */
export function deliveriesPage(config: AggmockConfig, players: readonly string[]): string {
  const types = config.callbacks.types;
  const typeOptions = EVENT_KINDS.map((k) => `<option value="${k}">${escapeHtml(types[k])}</option>`).join('');
  const statusOptions = EVENT_STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('');
  const playerOptions = players.map((p) => `<option value="${escapeHtml(p)}">`).join('');
  const body = `<style>${CSS}</style>
<h1>Deliveries <span class="muted small">callbacks to <span class="mono">${escapeHtml(config.callbacks.webhookUrl)}</span></span></h1>
${AUTH_PROMPT_HTML}
<div id="list-error" class="banner bad" hidden data-testid="list-error"></div>
<details class="tools-box" id="tools" open><summary>Send an event · Run a scenario</summary>
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
    data: { tokenRequired: Boolean(config.admin.token), types, signatureHeaders: signatureHeaderNames(config) },
    script: ADMIN_CLIENT_JS + SCRIPT,
  });
}

const CSS = `
.small{font-size:.8rem;font-weight:400}
.tools{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.tools form{display:flex;flex-direction:column;gap:10px;margin:0}
.tools-box>summary{cursor:pointer;color:var(--muted);margin:0 0 10px}
.tools .fields{display:flex;flex-wrap:wrap;gap:8px}.tools .field{flex:1 1 120px}
.tools button{align-self:flex-start}
.tools .result{margin:0;font-size:.9rem}
.filters{margin:16px 0 10px}.filters input[type=search]{flex:0 1 12rem}.live{display:flex;gap:4px;align-items:center;color:var(--muted)}
.split{display:grid;grid-template-columns:minmax(0,1.4fr) minmax(0,1fr);gap:16px;align-items:start}
.list{padding:6px 8px}
.list table{font-size:.85rem}.list th,.list td{padding:5px 6px;white-space:nowrap}
#rows tr{cursor:pointer}#rows tr:hover{background:#273449}#rows tr.sel{background:#3b2f10;outline:1px solid var(--accent)}
.detail{position:sticky;top:64px;max-height:calc(100vh - 80px);overflow:auto}
.detail h2{display:flex;flex-wrap:wrap;gap:8px;align-items:center}.detail h3{font-size:1rem;margin:12px 0 4px}
.detail dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0 0 10px;font-size:.85rem}
.detail dt{color:var(--muted)}.detail dd{margin:0;overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 10px}
.attempt{border-top:1px solid var(--line);padding:10px 0 4px}
.attempt h3{font-size:.95rem;margin:0 0 6px}
.headers td{font-family:ui-monospace,monospace;font-size:.78rem;overflow-wrap:anywhere;padding:3px 6px}.headers td:first-child{white-space:nowrap}
.headers tr.sig td{background:#422006;color:#fde68a}.headers tr.sig td:first-child{border-left:3px solid var(--accent)}
@media (max-width:900px){.tools,.split{grid-template-columns:minmax(0,1fr)}.detail{position:static;max-height:none}}
`;

const SCRIPT = `
const rows = document.getElementById('rows');
const detail = document.getElementById('detail');
const listError = document.getElementById('list-error');
const filters = document.getElementById('filters');
const live = document.getElementById('live');
const info = document.getElementById('list-info');
const params = new URLSearchParams(location.search);
// On a phone the list matters more than the forms: fold them away.
if (matchMedia('(max-width: 900px)').matches) document.getElementById('tools').open = false;
for (const name of ['player', 'type', 'status']) if (params.get(name)) filters.elements[name].value = params.get(name);
let selected = Number(params.get('open')) || null;
let lastList = '';
let lastDetail = '';
let timer = null;

const replyBalance = (d) => {
  const body = d.reply && d.reply.body;
  if (!body || typeof body !== 'object') return '—';
  if (body.balance !== undefined) return money(body.balance);
  return body.error || '—';
};

function query() {
  const q = new URLSearchParams({ limit: '200' });
  for (const name of ['player', 'type', 'status']) {
    const value = filters.elements[name].value.trim();
    if (value) q.set(name, value);
  }
  return q.toString();
}

async function refreshList() {
  clearTimeout(timer);
  try {
    const { deliveries } = await admin('/deliveries?' + query());
    listError.hidden = true;
    const key = JSON.stringify(deliveries.map((d) => [d.id, d.status, d.attemptCount, d.reply && d.reply.status]));
    if (key !== lastList) {
      lastList = key;
      renderRows(deliveries);
      info.textContent = deliveries.length + (deliveries.length === 200 ? '+' : '') + ' shown';
      if (selected && deliveries.some((d) => d.id === selected)) refreshDetail();
    }
  } catch (err) {
    if (err.status !== 401) say(listError, false, err.message);
    if (err.status === 401) return onToken(refreshList);
  }
  if (live.checked) timer = setTimeout(refreshList, 1000);
}

function renderRows(deliveries) {
  document.getElementById('empty').hidden = deliveries.length > 0;
  fill(rows, deliveries.map((d) => el('tr', {
    class: d.id === selected ? 'sel' : '',
    dataset: { testid: 'delivery-row', id: d.id, kind: d.kind, status: d.status },
    tabindex: 0,
    onclick: () => select(d.id),
    onkeydown: (e) => { if (e.key === 'Enter') select(d.id); },
  },
    el('td', { class: 'num' }, d.id),
    el('td', { title: stamp(d.createdAt) }, clock(d.createdAt)),
    el('td', {}, ctx.types[d.kind] || d.kind),
    el('td', {}, d.playerId),
    el('td', { class: 'num' }, money(d.amount)),
    el('td', {}, el('span', { class: 'badge s-' + d.status, dataset: { testid: 'status' } }, d.status)),
    el('td', { class: 'num' }, d.attemptCount),
    el('td', { class: 'num' }, d.reply ? d.reply.status : '—'),
    el('td', { class: 'num', dataset: { testid: 'reply-balance' } }, replyBalance(d)),
  )));
}

function select(id) {
  selected = id;
  lastDetail = '';
  for (const tr of rows.children) tr.classList.toggle('sel', Number(tr.dataset.id) === id);
  const url = new URL(location.href); url.searchParams.set('open', id); history.replaceState(null, '', url);
  refreshDetail();
}

async function refreshDetail() {
  const id = selected;
  if (!id) return;
  try {
    const data = await admin('/deliveries/' + id);
    if (id !== selected) return;
    const key = JSON.stringify([data.delivery.status, data.attempts.length]);
    if (key === lastDetail) return;
    lastDetail = key;
    renderDetail(data.delivery, data.attempts);
  } catch (err) {
    if (err.status !== 401) fill(detail, el('p', { class: 'error' }, 'Delivery #' + id + ': ' + err.message));
  }
}

function renderDetail(d, attempts) {
  const type = ctx.types[d.kind] || d.kind;
  const result = el('div', { hidden: true, dataset: { testid: 'action-result' } });
  const act = async (button, path, label) => {
    button.disabled = true;
    try {
      const { event } = await admin(path, { method: 'POST' });
      say(result, true, [label + ' queued as delivery #' + event.id + ' ', el('button', { class: 'secondary', type: 'button', onclick: () => select(event.id) }, 'open #' + event.id)]);
      lastList = '';
      refreshList();
    } catch (err) { say(result, false, label + ' refused: ' + err.message); }
    finally { button.disabled = false; }
  };
  const replay = el('button', { type: 'button', dataset: { testid: 'replay' } }, 'Replay');
  replay.addEventListener('click', () => act(replay, '/deliveries/' + d.id + '/replay', 'Replay'));
  const actions = el('div', { class: 'actions' }, replay);
  if (d.kind === 'debit') {
    const rollback = el('button', { type: 'button', class: 'secondary', dataset: { testid: 'rollback' } }, 'Rollback this ' + type);
    rollback.addEventListener('click', () => act(rollback, '/deliveries/' + d.id + '/rollback', 'Rollback'));
    actions.append(rollback);
  }
  const facts = [
    ['transactionId', d.transactionId], ['reverses', d.referenceTransactionId], ['player', d.playerId], ['amount', money(d.amount)],
    ['to', d.url], ['source', d.source], ['group', d.group], ['round', d.roundId], ['game', d.gameId], ['currency', d.currency],
    ['created', stamp(d.createdAt)], ['settled', d.settledAt ? stamp(d.settledAt) : undefined],
    ['next attempt', d.nextAttemptAt ? stamp(d.nextAttemptAt) : undefined], ['error', d.error],
  ].filter(([, v]) => v !== undefined && v !== null && v !== '');
  fill(detail, [
    el('h2', {}, type + ' #' + d.id, el('span', { class: 'badge s-' + d.status, dataset: { testid: 'detail-status' } }, d.status)),
    actions, result,
    el('dl', {}, facts.map(([k, v]) => [el('dt', {}, k), el('dd', { class: k === 'transactionId' || k === 'to' ? 'mono' : '' }, v)])),
    el('h3', {}, 'Reply'),
    d.reply
      ? [el('p', { class: 'mono' }, 'HTTP ' + d.reply.status), el('pre', { dataset: { testid: 'detail-reply' } }, JSON.stringify(d.reply.body, null, 2))]
      : el('p', { class: 'muted' }, 'No reply yet.'),
    el('h3', {}, attempts.length + ' attempt' + (attempts.length === 1 ? '' : 's')),
    attempts.map(renderAttempt),
  ]);
}

function renderAttempt(a) {
  const headers = Object.entries(a.requestHeaders || {});
  return el('section', { class: 'attempt', dataset: { testid: 'attempt' } },
    el('h3', {}, 'Attempt ' + a.n + ' · ',
      el('span', { class: 'badge s-' + (a.outcome === 'retry' ? 'pending' : a.outcome) }, a.outcome),
      ' · ' + (a.responseStatus ? 'HTTP ' + a.responseStatus : 'no response') + ' · ' + a.latencyMs + ' ms · ' + clock(a.startedAt)),
    el('table', { class: 'headers' }, el('tbody', {}, headers.map(([name, value]) => {
      const sig = ctx.signatureHeaders.includes(name.toLowerCase());
      return el('tr', { class: sig ? 'sig' : '', dataset: sig ? { testid: 'signature-header' } : {}, title: sig ? 'signature header' : undefined },
        el('td', {}, name), el('td', {}, value));
    }))),
    el('div', { class: 'muted small' }, 'Request body (exact bytes)'),
    el('pre', { dataset: { testid: 'request-body' } }, a.requestBody),
    el('div', { class: 'muted small' }, 'Response' + (a.responseStatus ? ' ' + a.responseStatus : '')),
    a.responseBody !== undefined && a.responseBody !== null
      ? el('pre', { dataset: { testid: 'response-body' } }, pretty(a.responseBody))
      : el('p', { class: 'muted' }, '(no body)'),
    a.error ? el('p', { class: 'error', dataset: { testid: 'attempt-error' } }, a.error) : null,
  );
}

let debounce;
filters.addEventListener('input', () => { clearTimeout(debounce); debounce = setTimeout(() => { lastList = ''; refreshList(); }, 250); });
filters.addEventListener('submit', (e) => e.preventDefault());
live.addEventListener('change', () => { if (live.checked) refreshList(); else clearTimeout(timer); });

// Manual event: POST /__admin/events.
const eventForm = document.getElementById('event-form');
eventForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = eventForm.elements;
  const out = eventForm.querySelector('.result');
  const body = { type: f.type.value, playerId: f.playerId.value.trim() };
  if (f.amount.value.trim()) body.amount = f.amount.value.trim();
  if (f.transactionId.value.trim()) body.transactionId = f.transactionId.value.trim();
  if (f.referenceTransactionId.value.trim()) body.referenceTransactionId = f.referenceTransactionId.value.trim();
  const send = eventForm.querySelector('button[type=submit]');
  send.disabled = true;
  try {
    const { event } = await admin('/events', { method: 'POST', body: JSON.stringify(body) });
    say(out, true, [(ctx.types[event.kind] || event.kind) + ' ' + money(event.amount) + ' for ' + event.playerId + ' queued as #' + event.id + ' ', el('button', { class: 'secondary', type: 'button', onclick: () => select(event.id) }, 'open')]);
    lastList = ''; refreshList();
  } catch (err) { say(out, false, err.message); }
  finally { send.disabled = false; }
});

// Scenarios: the list from GET /__admin/scenarios, a run with POST /__admin/scenarios/:name/run.
const scenarioForm = document.getElementById('scenario-form');
const scenarioSelect = scenarioForm.elements.scenario;
let scenarios = [];
async function loadScenarios() {
  try {
    scenarios = (await admin('/scenarios')).scenarios;
    fill(scenarioSelect, scenarios.map((s) => el('option', { value: s.name }, s.name)));
    describeScenario();
  } catch (err) {
    if (err.status === 401) return onToken(loadScenarios);
    fill(scenarioSelect, el('option', { value: '' }, 'unavailable'));
    document.getElementById('scenario-description').textContent = err.message;
  }
}
function describeScenario() {
  const s = scenarios.find((x) => x.name === scenarioSelect.value);
  document.getElementById('scenario-description').textContent = s ? s.description : '';
}
scenarioSelect.addEventListener('change', describeScenario);
scenarioForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = scenarioForm.elements;
  const out = scenarioForm.querySelector('.result');
  const name = scenarioSelect.value;
  if (!name) return say(out, false, 'Pick a scenario first.');
  const body = {};
  const players = f.players.value.split(',').map((p) => p.trim()).filter(Boolean);
  if (players.length) body.players = players;
  const amount = f.amount.value.trim();
  if (amount) body.amount = Number.isFinite(Number(amount)) ? Number(amount) : amount;
  try {
    const run = await admin('/scenarios/' + encodeURIComponent(name) + '/run', { method: 'POST', body: JSON.stringify(body) });
    const ids = (run.events || []).map((ev) => '#' + ev.id).join(', ');
    say(out, true, 'Started ' + run.scenario + ' for ' + run.playerId + (ids ? ': deliveries ' + ids : '') + '.');
    lastList = ''; refreshList();
  } catch (err) { say(out, false, err.message); }
});

onToken(() => { lastList = ''; });
loadScenarios();
refreshList();
if (selected) refreshDetail();
`;
