// @ts-check
/*
 * The play page's Spin: posts the bet to `/play/<session>/spin` and shows each callback's reply
 * and the balance the wallet answered with.
 */
import { askForToken, bearerHeaders } from './admin-client.js';
import { byId, find, pageData } from './page-data.js';

/**
 * One callback of a spin as the spin endpoint reports it.
 * @typedef {{ type: string, amount: number, status: string, accepted: boolean, httpStatus?: number, reply?: unknown, error?: string }} SpinStep
 */

const ctx = /** @type {{ session: string, currency: string, decimals: number }} */ (pageData());
/** @type {HTMLFormElement} */
const form = byId('spin');
/** @type {HTMLButtonElement} */
const button = byId('spin-button');
const result = byId('result');
const log = byId('log');
const balance = find('[data-testid=balance]');
const source = find('[data-testid=balance-source]');
// Amounts with the session currency's decimals (JPY: whole yen; KWD: three).
/** @param {unknown} n */
const money = (n) => Number(n).toFixed(ctx.decimals);

/** @param {SpinStep} step */
function show(step) {
  const li = document.createElement('li');
  li.className = step.accepted ? 'ok' : 'bad';
  li.dataset.testid = 'reply';
  li.textContent = `${step.type} ${money(step.amount)} → ${step.status}${step.httpStatus ? ` ${step.httpStatus}` : ''} ${JSON.stringify(step.reply ?? step.error ?? null)}`;
  log.prepend(li);
}

/**
 * What the spin endpoint answered, as a line for the result area.
 * @param {{ outcome?: string, win?: number, message?: string }} body
 */
function outcomeText(body) {
  if (body.outcome === 'win') return `You won ${money(body.win)} ${ctx.currency}!`;
  if (body.outcome === 'lose') return 'No win this time.';
  return body.message || 'The wallet refused the bet.';
}

async function spin() {
  const bet = Number(/** @type {HTMLInputElement} */ (byId('bet')).value);
  const res = await fetch(`/play/${ctx.session}/spin`, {
    method: 'POST',
    headers: Object.assign({ 'content-type': 'application/json' }, bearerHeaders()),
    body: JSON.stringify({ bet }),
  });
  const body = await res.json();
  if (res.status === 401) {
    // An exposed server: spins move money, so they need the admin token (kept in this tab only).
    askForToken(`Spins on this server need the admin token (401): ${body.message || ''}`);
    result.textContent = 'Enter the admin token, then spin again.';
    return;
  }
  if (!res.ok) {
    result.textContent = body.message || `Error ${res.status}`;
    return;
  }
  for (const step of /** @type {SpinStep[]} */ (body.steps)) show(step);
  if (typeof body.balance === 'number') {
    balance.textContent = money(body.balance);
    source.textContent = `as your wallet replied to the last callback, at ${new Date().toLocaleTimeString()}`;
  }
  result.textContent = outcomeText(body);
  // A free round an operator awarded (the bet sent was 0): say how many are left.
  const free = /** @type {{ awardId: string, left: number } | undefined} */ (body.freeRound);
  const freeLine = document.querySelector('[data-testid=free-rounds]');
  if (free && freeLine) {
    freeLine.textContent =
      free.left > 0
        ? `${free.left} free round${free.left === 1 ? '' : 's'} left (award ${free.awardId}).`
        : `That was the last free round of award ${free.awardId}: the next spin is paid.`;
  }
  if (free) result.textContent = `Free round: ${result.textContent}`;
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  button.disabled = true;
  result.textContent = 'Spinning…';
  try {
    await spin();
  } catch (err) {
    result.textContent = `Network error: ${err}`;
  } finally {
    button.disabled = false;
  }
});
