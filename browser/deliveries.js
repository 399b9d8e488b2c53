// @ts-check
/*
 * The deliveries inspector: the live list (polling `GET /__admin/deliveries` every second), the
 * detail of one delivery with every attempt, Replay and Rollback, the forms that send one
 * event or run a scenario, and the callback fault rules (`/__admin/callback-faults`): the form that
 * makes the next callback race, the rules in force, Remove and Remove every rule.
 */
import { admin, clock, ctx, el, errorMessage, errorStatus, fill, money, onToken, pretty, say, stamp } from './admin-client.js';
import { byId, field, find } from './page-data.js';

/**
 * @typedef {{ status: number, body: unknown }} Reply
 * @typedef {{
 *   id: number, kind: string, status: string, attemptCount: number, playerId: string, amount: number,
 *   transactionId: string, referenceTransactionId?: string, url: string, source: string, group?: string,
 *   roundId?: string, gameId?: string, currency?: string, createdAt: number, settledAt?: number,
 *   nextAttemptAt?: number, error?: string, reply?: Reply
 * }} Delivery
 * @typedef {{
 *   n: number, outcome: string, startedAt: number, latencyMs: number, requestHeaders?: Record<string, string>,
 *   requestBody: string, requestMethod?: string, requestPath?: string, responseStatus?: number, responseBody?: string | null, error?: string,
 *   responseBytes?: number, responseSha256?: string
 * }} Attempt
 * @typedef {{ id: number, kind: string, amount: number, playerId: string }} QueuedEvent
 * @typedef {{ name: string, description: string }} Scenario
 * @typedef {{ id: string, label: string, rule: { match: Record<string, unknown>, fault: Record<string, unknown> } }} RaceChoice
 * @typedef {{ id: string, match: { event?: string | string[], player?: string, transactionId?: string },
 *   fault: { kind: string, afterMs?: number, giveUp?: boolean }, times?: number, nth?: number, probability?: number,
 *   matched: number, fired: number, spent: boolean, source: string }} CallbackFaultRule
 */

const types = /** @type {Record<string, string>} */ (ctx.types);
const signatureHeaders = /** @type {string[]} */ (ctx.signatureHeaders);
const rows = byId('rows');
const detail = byId('detail');
const listError = byId('list-error');
/** @type {HTMLFormElement} */
const filters = byId('filters');
/** @type {HTMLInputElement} */
const live = byId('live');
const info = byId('list-info');
const FILTERS = /** @type {const} */ (['player', 'type', 'status']);
const params = new URLSearchParams(location.search);
// On a phone the list matters more than the forms: fold them away.
if (matchMedia('(max-width: 900px)').matches) /** @type {HTMLDetailsElement} */ (byId('tools')).open = false;
for (const name of FILTERS) if (params.get(name)) field(filters, name).value = /** @type {string} */ (params.get(name));
/** @type {number | null} */
let selected = Number(params.get('open')) || null;
let lastList = '';
let lastDetail = '';
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

/** @param {string} kind */
const typeName = (kind) => types[kind] || kind;

/** @param {Delivery} d */
const replyBalance = (d) => {
  const body = /** @type {{ balance?: number, error?: string } | null | undefined} */ (d.reply?.body);
  if (!body || typeof body !== 'object') return '—';
  if (body.balance !== undefined) return money(body.balance);
  return body.error || '—';
};

function query() {
  const q = new URLSearchParams({ limit: '200' });
  for (const name of FILTERS) {
    const value = field(filters, name).value.trim();
    if (value) q.set(name, value);
  }
  return q.toString();
}

/** The list changed under the page (an action queued something): redraw it now. */
function relist() {
  lastList = '';
  refreshList();
}

async function refreshList() {
  clearTimeout(timer);
  try {
    const { deliveries } = /** @type {{ deliveries: Delivery[] }} */ (await admin(`/deliveries?${query()}`));
    listError.hidden = true;
    const key = JSON.stringify(deliveries.map((d) => [d.id, d.status, d.attemptCount, d.reply?.status]));
    if (key !== lastList) {
      lastList = key;
      renderRows(deliveries);
      info.textContent = `${deliveries.length}${deliveries.length === 200 ? '+' : ''} shown`;
      if (selected && deliveries.some((d) => d.id === selected)) refreshDetail();
    }
  } catch (err) {
    if (errorStatus(err) !== 401) say(listError, false, errorMessage(err));
    if (errorStatus(err) === 401) return onToken(refreshList);
  }
  if (live.checked)
    timer = setTimeout(() => {
      refreshList();
      refreshRules();
    }, 1000);
}

/** @param {Delivery} d */
function deliveryRow(d) {
  return el(
    'tr',
    {
      class: d.id === selected ? 'sel' : '',
      dataset: { testid: 'delivery-row', id: d.id, kind: d.kind, status: d.status },
      tabindex: 0,
      onclick: () => select(d.id),
      /** @param {KeyboardEvent} e */
      onkeydown: (e) => {
        if (e.key === 'Enter') select(d.id);
      },
    },
    el('td', { class: 'num' }, d.id),
    el('td', { title: stamp(d.createdAt) }, clock(d.createdAt)),
    el('td', {}, typeName(d.kind)),
    el('td', {}, d.playerId),
    el('td', { class: 'num' }, money(d.amount, d.currency)),
    el('td', {}, el('span', { class: `badge s-${d.status}`, dataset: { testid: 'status' } }, d.status)),
    el('td', { class: 'num' }, d.attemptCount),
    el('td', { class: 'num' }, d.reply ? d.reply.status : '—'),
    el('td', { class: 'num', dataset: { testid: 'reply-balance' } }, replyBalance(d)),
  );
}

/** @param {Delivery[]} deliveries */
function renderRows(deliveries) {
  byId('empty').hidden = deliveries.length > 0;
  fill(rows, deliveries.map(deliveryRow));
}

/** @param {number} id */
function select(id) {
  selected = id;
  lastDetail = '';
  for (const tr of /** @type {HTMLCollectionOf<HTMLElement>} */ (rows.children))
    tr.classList.toggle('sel', Number(tr.dataset.id) === id);
  const url = new URL(location.href);
  url.searchParams.set('open', String(id));
  history.replaceState(null, '', url);
  refreshDetail();
}

async function refreshDetail() {
  const id = selected;
  if (!id) return;
  try {
    const data = /** @type {{ delivery: Delivery, attempts: Attempt[] }} */ (await admin(`/deliveries/${id}`));
    if (id !== selected) return;
    // An attempt's row changes too: a late reply after a timeout fault rule is added to it.
    const key = JSON.stringify([data.delivery.status, data.attempts.map((a) => [a.outcome, a.responseStatus, a.error])]);
    if (key === lastDetail) return;
    lastDetail = key;
    renderDetail(data.delivery, data.attempts);
  } catch (err) {
    if (errorStatus(err) !== 401) fill(detail, el('p', { class: 'error' }, `Delivery #${id}: ${errorMessage(err)}`));
  }
}

/**
 * A button that opens delivery #id.
 * @param {number} id
 * @param {string} label
 */
const openButton = (id, label) => el('button', { class: 'secondary', type: 'button', onclick: () => select(id) }, label);

/**
 * Replay, and for a DEBIT Rollback, with the line that says what each queued.
 * @param {Delivery} d
 */
function detailActions(d) {
  const result = el('div', { hidden: true, dataset: { testid: 'action-result' } });
  /**
   * @param {HTMLButtonElement} button
   * @param {string} path
   * @param {string} label
   */
  const act = async (button, path, label) => {
    button.disabled = true;
    try {
      const { event } = /** @type {{ event: QueuedEvent }} */ (await admin(path, { method: 'POST' }));
      say(result, true, [`${label} queued as delivery #${event.id} `, openButton(event.id, `open #${event.id}`)]);
      relist();
    } catch (err) {
      say(result, false, `${label} refused: ${errorMessage(err)}`);
    } finally {
      button.disabled = false;
    }
  };
  /**
   * @param {string} action
   * @param {string} label
   * @param {Record<string, unknown>} attrs
   */
  const actionButton = (action, label, attrs) => {
    const button = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', ...attrs }, label));
    const name = action === 'replay' ? 'Replay' : 'Rollback';
    button.addEventListener('click', () => act(button, `/deliveries/${d.id}/${action}`, name));
    return button;
  };
  const actions = el('div', { class: 'actions' }, actionButton('replay', 'Replay', { dataset: { testid: 'replay' } }));
  if (d.kind === 'debit') {
    actions.append(
      actionButton('rollback', `Rollback this ${typeName(d.kind)}`, { class: 'secondary', dataset: { testid: 'rollback' } }),
    );
  }
  return [actions, result];
}

/**
 * The delivery's facts that are set, as term and value.
 * @param {Delivery} d
 * @returns {[string, unknown][]}
 */
function facts(d) {
  /** @type {[string, unknown][]} */
  const all = [
    ['transactionId', d.transactionId],
    ['reverses', d.referenceTransactionId],
    ['player', d.playerId],
    ['amount', money(d.amount, d.currency)],
    ['to', d.url],
    ['source', d.source],
    ['group', d.group],
    ['round', d.roundId],
    ['game', d.gameId],
    ['currency', d.currency],
    ['created', stamp(d.createdAt)],
    ['settled', d.settledAt ? stamp(d.settledAt) : undefined],
    ['next attempt', d.nextAttemptAt ? stamp(d.nextAttemptAt) : undefined],
    ['error', d.error],
  ];
  return all.filter(([, v]) => v !== undefined && v !== null && v !== '');
}

/**
 * @param {Delivery} d
 * @param {Attempt[]} attempts
 */
function renderDetail(d, attempts) {
  fill(detail, [
    el(
      'h2',
      {},
      `${typeName(d.kind)} #${d.id}`,
      el('span', { class: `badge s-${d.status}`, dataset: { testid: 'detail-status' } }, d.status),
    ),
    detailActions(d),
    el(
      'dl',
      {},
      facts(d).map(([k, v]) => [
        el('dt', {}, k),
        el('dd', { class: k === 'transactionId' || k === 'to' ? 'mono' : '' }, /** @type {string} */ (v)),
      ]),
    ),
    el('h3', {}, 'Reply'),
    d.reply
      ? [
          el('p', { class: 'mono' }, `HTTP ${d.reply.status}`),
          el('pre', { dataset: { testid: 'detail-reply' } }, JSON.stringify(d.reply.body, null, 2)),
        ]
      : el('p', { class: 'muted' }, 'No reply yet.'),
    el('h3', {}, `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`),
    attempts.map(renderAttempt),
  ]);
}

/**
 * The request headers, the signature ones highlighted.
 * @param {Record<string, string>} headers
 */
function headersTable(headers) {
  const row = /** @param {[string, string]} header */ ([name, value]) => {
    const sig = signatureHeaders.includes(name.toLowerCase());
    return el(
      'tr',
      {
        class: sig ? 'sig' : '',
        dataset: sig ? { testid: 'signature-header' } : {},
        title: sig ? 'signature header' : undefined,
      },
      el('td', {}, name),
      el('td', {}, value),
    );
  };
  return el('table', { class: 'headers' }, el('tbody', {}, Object.entries(headers).map(row)));
}

/** @param {Attempt} a */
function renderAttempt(a) {
  return el(
    'section',
    { class: 'attempt', dataset: { testid: 'attempt' } },
    el(
      'h3',
      {},
      `Attempt ${a.n} · `,
      el('span', { class: `badge s-${a.outcome === 'retry' ? 'pending' : a.outcome}` }, a.outcome),
      ` · ${a.responseStatus ? `HTTP ${a.responseStatus}` : 'no response'} · ${a.latencyMs} ms · ${clock(a.startedAt)}`,
    ),
    // A dialect's call goes to a path under the delivery's URL, maybe as a GET with its fields in the query.
    a.requestMethod || a.requestPath
      ? el('p', { class: 'small', dataset: { testid: 'request-line' } }, `${a.requestMethod || 'POST'} ${a.requestPath || ''}`)
      : null,
    headersTable(a.requestHeaders || {}),
    el('div', { class: 'muted small' }, 'Request body (exact bytes)'),
    el('pre', { dataset: { testid: 'request-body' } }, a.requestBody),
    el('div', { class: 'muted small' }, `Response${a.responseStatus ? ` ${a.responseStatus}` : ''}`),
    a.responseBody !== undefined && a.responseBody !== null
      ? el('pre', { dataset: { testid: 'response-body' } }, pretty(a.responseBody))
      : el('p', { class: 'muted' }, '(no body)'),
    a.responseBytes !== undefined
      ? el(
          'p',
          { class: 'muted small', dataset: { testid: 'response-truncated' } },
          `Truncated: the first 4 KiB of ${a.responseBytes} bytes are stored (sha256 of the whole: ${a.responseSha256 ?? '?'})`,
        )
      : null,
    a.error ? el('p', { class: 'error', dataset: { testid: 'attempt-error' } }, a.error) : null,
  );
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let debounce;
filters.addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(relist, 250);
});
filters.addEventListener('submit', (e) => e.preventDefault());
live.addEventListener('change', () => {
  if (live.checked) refreshList();
  else clearTimeout(timer);
});

/**
 * Runs a form's submit: the default is prevented and what `run` returns (or throws) is said in
 * the form's result line.
 * @param {HTMLFormElement} form
 * @param {(out: HTMLElement) => Promise<void>} run
 */
function onSubmit(form, run) {
  const out = find('.result', form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await run(out);
    } catch (err) {
      say(out, false, errorMessage(err));
    }
  });
}

// Manual event: POST /__admin/events.
/** @type {HTMLFormElement} */
const eventForm = byId('event-form');
onSubmit(eventForm, async (out) => {
  /** @type {Record<string, string>} */
  const body = { type: field(eventForm, 'type').value, playerId: field(eventForm, 'playerId').value.trim() };
  for (const name of ['amount', 'transactionId', 'referenceTransactionId']) {
    const value = field(eventForm, name).value.trim();
    if (value) body[name] = value;
  }
  /** @type {HTMLButtonElement} */
  const send = find('button[type=submit]', eventForm);
  send.disabled = true;
  try {
    const { event } = /** @type {{ event: QueuedEvent }} */ (
      await admin('/events', { method: 'POST', body: JSON.stringify(body) })
    );
    say(out, true, [
      `${typeName(event.kind)} ${money(event.amount)} for ${event.playerId} queued as #${event.id} `,
      openButton(event.id, 'open'),
    ]);
    relist();
  } finally {
    send.disabled = false;
  }
});

// Scenarios: the list from GET /__admin/scenarios, a run with POST /__admin/scenarios/:name/run.
/** @type {HTMLFormElement} */
const scenarioForm = byId('scenario-form');
const scenarioSelect = field(scenarioForm, 'scenario');
const scenarioDescription = byId('scenario-description');
/** @type {Scenario[]} */
let scenarios = [];

async function loadScenarios() {
  try {
    scenarios = /** @type {{ scenarios: Scenario[] }} */ (await admin('/scenarios')).scenarios;
    fill(
      scenarioSelect,
      scenarios.map((s) => el('option', { value: s.name }, s.name)),
    );
    describeScenario();
  } catch (err) {
    if (errorStatus(err) === 401) return onToken(loadScenarios);
    fill(scenarioSelect, el('option', { value: '' }, 'unavailable'));
    scenarioDescription.textContent = errorMessage(err);
  }
}

function describeScenario() {
  const s = scenarios.find((x) => x.name === scenarioSelect.value);
  scenarioDescription.textContent = s ? s.description : '';
}

/** The run request: the players and amount typed, when typed. */
function scenarioRequest() {
  /** @type {{ players?: string[], amount?: number | string }} */
  const body = {};
  const players = field(scenarioForm, 'players')
    .value.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (players.length) body.players = players;
  const amount = field(scenarioForm, 'amount').value.trim();
  if (amount) body.amount = Number.isFinite(Number(amount)) ? Number(amount) : amount;
  return body;
}

scenarioSelect.addEventListener('change', describeScenario);
onSubmit(scenarioForm, async (out) => {
  const name = scenarioSelect.value;
  if (!name) return say(out, false, 'Pick a scenario first.');
  const run = /** @type {{ scenario: string, playerId: string, events?: { id: number }[] }} */ (
    await admin(`/scenarios/${encodeURIComponent(name)}/run`, { method: 'POST', body: JSON.stringify(scenarioRequest()) })
  );
  const ids = (run.events || []).map((ev) => `#${ev.id}`).join(', ');
  say(out, true, `Started ${run.scenario} for ${run.playerId}${ids ? `: deliveries ${ids}` : ''}.`);
  relist();
});

// Callback fault rules: the form adds one for the next matching callback (POST /__admin/callback-faults, times: 1).
const raceChoices = /** @type {RaceChoice[]} */ (/** @type {{ raceChoices?: RaceChoice[] }} */ (ctx).raceChoices || []);
/** @type {HTMLFormElement} */
const raceForm = byId('race-form');
/** @type {HTMLButtonElement} */
const raceClear = byId('race-clear');
// Held, not looked up by class: say() replaces the class of the line it fills.
const raceResult = find('.result', raceForm);
let lastRules = '';

/** @param {CallbackFaultRule} rule */
function raceFault(rule) {
  const { fault } = rule;
  if (fault.kind === 'duplicate') return fault.afterMs ? `duplicate after ${fault.afterMs} ms` : 'duplicate';
  const when = fault.afterMs === undefined ? 'after the reply' : `after ${fault.afterMs} ms`;
  return `timeout ${when}${fault.giveUp ? ', give up' : ', retry'}`;
}

/** @param {CallbackFaultRule} rule */
function raceRow(rule) {
  const events = rule.match.event === undefined ? 'every callback' : [rule.match.event].flat().map(typeName).join(', ');
  const who = rule.match.player === undefined ? '' : ` of ${rule.match.player}`;
  const when = rule.times
    ? `next ${rule.times}`
    : rule.nth
      ? `#${rule.nth}`
      : rule.probability !== undefined
        ? `p=${rule.probability}`
        : 'always';
  return el(
    'tr',
    { dataset: { testid: 'race-rule', id: rule.id } },
    el('td', { class: 'mono' }, rule.id),
    el('td', {}, `${events}${who}`),
    el('td', {}, raceFault(rule)),
    el('td', { dataset: { testid: 'race-rule-state' } }, `${when}; fired ${rule.fired}${rule.spent ? ', spent' : ''}`),
    el(
      'td',
      {},
      el(
        'button',
        { type: 'button', class: 'secondary', dataset: { testid: 'race-remove' }, onclick: () => removeRaceRules(rule.id) },
        'Remove',
      ),
    ),
  );
}

async function refreshRules() {
  try {
    const { faults } = /** @type {{ faults: CallbackFaultRule[] }} */ (await admin('/callback-faults'));
    const key = JSON.stringify(faults);
    if (key === lastRules) return;
    lastRules = key;
    fill(byId('race-rules'), faults.map(raceRow));
    byId('no-race-rules').hidden = faults.length > 0;
    raceClear.hidden = faults.length === 0;
  } catch (err) {
    if (errorStatus(err) !== 401) say(raceResult, false, errorMessage(err));
  }
}

/** @param {string} [id] one rule, or every rule */
async function removeRaceRules(id) {
  try {
    const { removed } = /** @type {{ removed: number }} */ (
      await admin(id === undefined ? '/callback-faults' : `/callback-faults/${encodeURIComponent(id)}`, { method: 'DELETE' })
    );
    say(raceResult, true, id === undefined ? `Removed ${removed} rule${removed === 1 ? '' : 's'}.` : `Removed rule ${id}.`);
  } catch (err) {
    say(raceResult, false, errorMessage(err));
  }
  refreshRules();
}

raceClear.addEventListener('click', () => removeRaceRules());
onSubmit(raceForm, async (out) => {
  const choice = raceChoices.find((c) => c.id === field(raceForm, 'choice').value);
  if (!choice) return say(out, false, 'Pick a fault first.');
  const player = field(raceForm, 'player').value.trim();
  const rule = { ...choice.rule, match: { ...choice.rule.match, ...(player ? { player } : {}) }, times: 1 };
  const { fault } = /** @type {{ fault: CallbackFaultRule }} */ (
    await admin('/callback-faults', { method: 'POST', body: JSON.stringify(rule) })
  );
  say(
    out,
    true,
    `Rule ${fault.id}: ${choice.label.charAt(0).toLowerCase()}${choice.label.slice(1)}${player ? ` (player ${player})` : ''}.`,
  );
  refreshRules();
});

onToken(() => {
  lastList = '';
  lastRules = '';
  refreshRules();
});
loadScenarios();
refreshList();
refreshRules();
if (selected) refreshDetail();
