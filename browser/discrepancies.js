// @ts-check
/*
 * The discrepancies page: the shadow ledger's findings and the balance it last saw per player,
 * polled from `GET /__admin/discrepancies` and `GET /__admin/ledger` every two seconds.
 */
import { admin, clock, el, errorMessage, errorStatus, fill, money, onToken, say, stamp } from './admin-client.js';
import { byId, field } from './page-data.js';

/**
 * @typedef {{ kind: string, playerId: string, expected: number, actual: number, message: string, eventIds: number[], createdAt: number }} Discrepancy
 * @typedef {{ playerId: string, balance: number, uncertain?: boolean, lastEventId?: number, note?: string }} LedgerBalance
 */

/** @type {HTMLFormElement} */
const filters = byId('filters');
const loadError = byId('load-error');
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
/** @param {number} id */
const deliveryLink = (id) =>
  el('a', { href: `/ui/deliveries?open=${id}`, dataset: { testid: 'discrepancy-delivery' } }, `#${id}`);

/** @param {Discrepancy} d */
function discrepancyRow(d) {
  return el(
    'tr',
    { dataset: { testid: 'discrepancy-row', kind: d.kind } },
    el('td', { title: stamp(d.createdAt) }, clock(d.createdAt)),
    el('td', {}, el('span', { class: 'badge kind', dataset: { testid: 'discrepancy-kind' } }, d.kind)),
    el('td', {}, d.playerId),
    el('td', { class: 'num' }, money(d.expected)),
    el('td', { class: 'num' }, money(d.actual)),
    el('td', { class: 'msg' }, d.message),
    el(
      'td',
      {},
      d.eventIds.flatMap((id, i) => (i ? [' ', deliveryLink(id)] : [deliveryLink(id)])),
    ),
  );
}

/** @param {LedgerBalance} b */
function balanceRow(b) {
  return el(
    'tr',
    { dataset: { testid: 'balance-row', player: b.playerId } },
    el('td', {}, b.playerId),
    el(
      'td',
      {
        class: `num${b.uncertain ? ' uncertain' : ''}`,
        title: b.uncertain ? 'uncertain: the next reply sets a new baseline' : undefined,
      },
      money(b.balance),
    ),
    el('td', {}, b.lastEventId ? deliveryLink(b.lastEventId) : '—'),
    el('td', { class: 'muted note' }, b.note || ''),
  );
}

function query() {
  const q = new URLSearchParams({ limit: '200' });
  const kind = field(filters, 'kind').value;
  const player = field(filters, 'player').value.trim();
  if (kind) q.set('kind', kind);
  if (player) q.set('player', player);
  return q;
}

async function refresh() {
  clearTimeout(timer);
  try {
    const [found, ledger] = /** @type {[{ total: number, discrepancies: Discrepancy[] }, { balances: LedgerBalance[] }]} */ (
      await Promise.all([admin(`/discrepancies?${query()}`), admin('/ledger')])
    );
    loadError.hidden = true;
    byId('total').textContent = found.total + (found.total === 1 ? ' discrepancy' : ' discrepancies');
    byId('empty').hidden = found.discrepancies.length > 0;
    fill(byId('rows'), found.discrepancies.map(discrepancyRow));
    byId('no-balances').hidden = ledger.balances.length > 0;
    fill(byId('balances'), ledger.balances.map(balanceRow));
  } catch (err) {
    if (errorStatus(err) === 401) return onToken(refresh);
    say(loadError, false, errorMessage(err));
  }
  timer = setTimeout(refresh, 2000);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let debounce;
filters.addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(refresh, 250);
});
filters.addEventListener('submit', (e) => e.preventDefault());
refresh();
