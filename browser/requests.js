// @ts-check
/*
 * The requests page: the client's calls to the aggregator API, their summaries polled from
 * `GET /__admin/requests?view=summary` every second, a detail panel loaded on demand
 * (`GET /__admin/requests/:id`: headers, body, reply), the fault rules in force (`GET /__admin/faults`) and the
 * "Break the next call" form (`POST /__admin/faults` with times: 1).
 */
import { admin, clock, ctx, el, errorMessage, errorStatus, fill, onToken, pretty, say } from './admin-client.js';
import { byId, field } from './page-data.js';

/**
 * @typedef {{ id: number, at: string, method: string, path: string, query: Record<string, string | string[]>,
 *   headers: Record<string, string>, body: string | null, bodyBytes: number,
 *   auth: { ok: boolean, method?: string, error?: string, message?: string, signedPrefix?: string, bodySha256?: string,
 *     bodyBytes?: number },
 *   status: number | null, reply: string | null, replyBytes: number, complete: boolean, latencyMs: number,
 *   fault: { ruleId: string, kind: string, delayMs?: number } | null, hint: string | null }} Journaled
 * @typedef {{ id: string, match: Record<string, unknown>, fault: { kind: string }, times?: number, nth?: number,
 *   probability?: number, matched: number, fired: number, spent: boolean, source: string }} Rule
 * @typedef {{ id: string, label: string, fault: Record<string, unknown> }} Choice
 */

const choices = /** @type {Choice[]} */ (/** @type {{ choices?: Choice[] }} */ (ctx).choices || []);
/** @type {HTMLFormElement} */
const filters = byId('filters');
/** @type {HTMLFormElement} */
const breakForm = byId('break-form');
const listError = byId('list-error');
/** @type {HTMLInputElement} */
const live = byId('live');
/** @type {number | undefined} */
let selected;
/** @type {Map<number, Journaled>} */
const shown = new Map();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

/** @param {Journaled} r */
function row(r) {
  const auth = r.auth.ok ? r.auth.method || 'ok' : r.auth.error || 'refused';
  return el(
    'tr',
    {
      class: r.id === selected ? 'sel' : undefined,
      dataset: { testid: 'request-row', id: String(r.id) },
      onclick: () => show(r.id),
    },
    el('td', { class: 'num' }, String(r.id)),
    el('td', {}, clock(Date.parse(r.at))),
    el('td', {}, r.method),
    el('td', { class: 'mono' }, r.path),
    el('td', { class: 'num', dataset: { testid: 'request-status' } }, r.status === null ? 'none' : String(r.status)),
    el('td', {}, el('span', { class: `badge ${r.auth.ok ? 'ok' : 'bad'}` }, auth)),
    el('td', { class: 'num' }, r.latencyMs.toFixed(1)),
    // The kind only, its rule on hover and in the detail panel: a rule id made the column overflow the list.
    el(
      'td',
      { dataset: { testid: 'request-fault' }, title: r.fault ? `rule ${r.fault.ruleId}` : undefined },
      r.fault ? r.fault.kind : '',
    ),
  );
}

/** A row's details, loaded once when it is first shown (the list holds summaries only). @type {Map<number, Journaled>} */
const details = new Map();

/** @param {number} id */
async function show(id) {
  selected = id;
  if (!shown.has(id)) return;
  for (const tr of byId('rows').querySelectorAll('tr')) tr.classList.toggle('sel', tr.dataset.id === String(id));
  let r = details.get(id);
  if (!r) {
    try {
      r = /** @type {{ request: Journaled }} */ (await admin(`/requests/${id}`)).request;
    } catch (err) {
      if (errorStatus(err) === 401) return onToken(() => show(id));
      return say(listError, false, errorMessage(err));
    }
    if (details.size >= 200) details.clear();
    details.set(id, r);
  }
  if (selected !== id) return;
  const facts = [
    ['Time', r.at],
    ['Request', `${r.method} ${r.path}`],
    [
      'Reply',
      r.status === null ? 'none (the connection closed or the client gave up)' : `${r.status}${r.complete ? '' : ' (cut short)'}`,
    ],
    ['Latency', `${r.latencyMs.toFixed(1)} ms`],
    ['Auth', r.auth.ok ? `accepted (${r.auth.method})` : `${r.auth.error}: ${r.auth.message}`],
    [
      'Fault',
      r.fault
        ? `${r.fault.kind} from rule ${r.fault.ruleId}${r.fault.delayMs === undefined ? '' : ` (${r.fault.delayMs} ms)`}`
        : 'none',
    ],
    ['Hint', r.hint || '—'],
  ];
  fill(byId('detail'), [
    el('h2', {}, `#${r.id} ${r.method} ${r.path}`),
    el(
      'dl',
      {},
      facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
    ),
    r.auth.signedPrefix
      ? [
          el('h3', {}, 'String aggmock expected to be signed'),
          el('pre', { dataset: { testid: 'signed-string' } }, `${r.auth.signedPrefix}<your raw body>`),
          el(
            'p',
            { dataset: { testid: 'body-digest' } },
            `The raw body aggmock received: ${r.auth.bodyBytes} bytes, SHA-256 ${r.auth.bodySha256}. Hash the body you signed to compare (query credentials are shown masked).`,
          ),
        ]
      : null,
    el('h3', {}, 'Headers (credentials masked)'),
    el(
      'pre',
      {},
      Object.entries(r.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    ),
    el('h3', {}, `Body (${r.bodyBytes} bytes)`),
    el('pre', {}, r.body === null ? '—' : pretty(r.body)),
    el('h3', {}, `Reply body (${r.replyBytes} bytes)`),
    el('pre', {}, r.reply === null ? '—' : pretty(r.reply)),
  ]);
}

/** @param {Rule} rule */
function ruleRow(rule) {
  const when = rule.times
    ? `next ${rule.times}`
    : rule.nth
      ? `call #${rule.nth}`
      : rule.probability !== undefined
        ? `p=${rule.probability}`
        : 'always';
  return el(
    'tr',
    { dataset: { testid: 'rule-row', id: rule.id } },
    el('td', { class: 'mono' }, rule.id),
    el('td', {}, rule.fault.kind),
    el('td', { class: 'mono' }, JSON.stringify(rule.match)),
    el('td', {}, `${when}; fired ${rule.fired}${rule.spent ? ', spent' : ''}`),
    el(
      'td',
      {},
      el('button', { type: 'button', onclick: () => removeRule(rule.id), dataset: { testid: 'rule-remove' } }, 'Remove'),
    ),
  );
}

/** @param {string} id */
async function removeRule(id) {
  try {
    await admin(`/faults/${encodeURIComponent(id)}`, { method: 'DELETE' });
  } catch (err) {
    say(listError, false, errorMessage(err));
  }
  refresh();
}

function query() {
  const q = new URLSearchParams({ limit: '200', view: 'summary' });
  const path = field(filters, 'path').value;
  const status = field(filters, 'status').value.trim();
  if (path) q.set('path', path);
  if (/^\d{3}$/.test(status)) q.set('status', status);
  return q;
}

async function refresh() {
  clearTimeout(timer);
  try {
    const [page, rules] = /** @type {[{ requests: Journaled[] }, { faults: Rule[] }]} */ (
      await Promise.all([admin(`/requests?${query()}`), admin('/faults')])
    );
    listError.hidden = true;
    shown.clear();
    for (const r of page.requests) shown.set(r.id, r);
    byId('empty').hidden = page.requests.length > 0;
    fill(byId('rows'), page.requests.map(row));
    byId('no-rules').hidden = rules.faults.length > 0;
    fill(byId('rules'), rules.faults.map(ruleRow));
  } catch (err) {
    if (errorStatus(err) === 401) return onToken(refresh);
    say(listError, false, errorMessage(err));
  }
  if (live.checked) timer = setTimeout(refresh, 1000);
}

breakForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const choice = choices.find((c) => c.id === field(breakForm, 'fault').value);
  const result = byId('break-result');
  if (!choice) return;
  try {
    const created = /** @type {{ fault: Rule }} */ (
      await admin('/faults', {
        method: 'POST',
        body: JSON.stringify({ match: { path: field(breakForm, 'path').value }, fault: choice.fault, times: 1 }),
      })
    );
    say(result, true, `Rule ${created.fault.id}: the next call to ${field(breakForm, 'path').value} gets "${choice.label}".`);
  } catch (err) {
    say(result, false, errorMessage(err));
  }
  refresh();
});
filters.addEventListener('input', () => refresh());
filters.addEventListener('submit', (e) => e.preventDefault());
live.addEventListener('change', () => refresh());
refresh();
