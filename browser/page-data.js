// @ts-check
/**
 * The data the server gave the page: a `<script type="application/json" id="page-data">` block it
 * escaped for HTML, never JavaScript it wrote by concatenation. `{}` when the page has none.
 * @returns {Record<string, unknown>}
 */
export function pageData() {
  const text = document.getElementById('page-data')?.textContent;
  if (!text) return {};
  const value = JSON.parse(text);
  return value !== null && typeof value === 'object' ? value : {};
}

/**
 * The element with this id; a page script only asks for the ids its own page writes, so a missing
 * one is a bug worth a loud error rather than a silent null.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @returns {T}
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return /** @type {T} */ (node);
}

/**
 * The first element matching the selector (same contract as byId).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {T}
 */
export function find(selector, root = document) {
  const node = root.querySelector(selector);
  if (!node) throw new Error(`the page has no ${selector}`);
  return /** @type {T} */ (node);
}

/**
 * The form's control with this name (inputs and selects alike: the scripts read `value`).
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {HTMLInputElement}
 */
export function field(form, name) {
  const control = form.elements.namedItem(name);
  if (!control) throw new Error(`the form #${form.id} has no field ${name}`);
  return /** @type {HTMLInputElement} */ (control);
}
