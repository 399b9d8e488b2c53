// @ts-check
/*
 * The catalog's results follow the search box as you type (250 ms after the last key) and the
 * filters as they change: the same page is fetched for the new query and its results block swapped
 * in, so the server stays the one place that searches. Enter and the button still submit the form.
 */
import { find } from './page-data.js';

/** @type {HTMLFormElement} */
const form = find('[data-testid=search-form]');
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
let latest = 0;

async function refresh() {
  const params = new URLSearchParams();
  // Empty fields stay out of the URL, so an unfiltered search is plain `/`.
  for (const [key, value] of new FormData(form)) if (typeof value === 'string' && value) params.append(key, value);
  const url = params.toString() ? `/?${params}` : '/';
  const mine = ++latest;
  const res = await fetch(url, { headers: { accept: 'text/html' } });
  if (mine !== latest || !res.ok) return; // a later keystroke already asked for newer results
  const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('[data-testid=results]');
  if (next) find('[data-testid=results]').replaceWith(next);
  history.replaceState(null, '', url);
}

find('[data-testid=search]', form).addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(refresh, 250);
});
for (const select of form.querySelectorAll('select')) select.addEventListener('change', refresh);
