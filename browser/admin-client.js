// @ts-check
/*
 * Browser code shared by the pages that read the admin API (deliveries, discrepancies; the play
 * page, for its token when the server is exposed): the
 * bearer token kept in sessionStorage, `admin()` to call `/__admin`, and `el()` to build DOM nodes
 * from text (never innerHTML, so names and bodies from the wire cannot inject markup).
 */
import { byId, pageData } from './page-data.js';

const TOKEN_KEY = 'aggmock.adminToken';

/** What the server tells an admin page (see the page's `data`). */
export const ctx = pageData();

/**
 * A child for el() and fill(): nodes stay nodes, anything else becomes text; null, undefined and
 * false are skipped and arrays are flattened.
 * @typedef {Node | string | number | boolean | null | undefined | readonly unknown[]} Child
 */

/**
 * Attributes for el(): `class`, `dataset`, `on<event>` listeners, else plain attributes (true is
 * an empty attribute; null, undefined and false leave it out).
 * @typedef {Record<string, unknown>} Attrs
 */

/**
 * @param {string} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  return fill(node, children, true);
}

/**
 * Replaces (or, with keep, appends to) a node's children: nested arrays flattened, null/false skipped, text as text.
 * @template {Element} T
 * @param {T} node
 * @param {Child} children
 * @param {boolean} [keep]
 * @returns {T}
 */
export function fill(node, children, keep) {
  if (!keep) node.replaceChildren();
  for (const child of [children].flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * An amount in major units with its currency's decimals (JPY 0, EUR 2, KWD 3; 2 for a code the
 * browser does not know).
 * @param {unknown} n
 * @param {string} [currency]
 */
export const money = (n, currency) =>
  typeof n === 'number' ? n.toFixed(decimalsOf(currency)) : n === null || n === undefined ? '—' : String(n);

/** @param {string | undefined} currency */
function decimalsOf(currency) {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().minimumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
/** @param {number | null | undefined} ms */
export const clock = (ms) => (ms ? new Date(ms).toLocaleTimeString([], { hour12: false }) : '—');
/** @param {number | null | undefined} ms */
export const stamp = (ms) => (ms ? new Date(ms).toLocaleString([], { hour12: false }) : '—');
/** @param {string} text */
export const pretty = (text) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

/** A refusal of the admin API (status 0: it did not answer at all). */
export class AdminError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {unknown} [body]
   */
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

const auth = byId('auth');
/** @type {HTMLInputElement} */
const tokenInput = byId('auth-token');
/** @type {(() => void)[]} */
let authWaiters = [];

/**
 * Opens the token prompt with this message.
 * @param {string} message
 */
export function askForToken(message) {
  auth.hidden = false;
  byId('auth-message').textContent = message;
  tokenInput.focus();
}

byId('auth-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = tokenInput.value.trim();
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
  auth.hidden = true;
  const waiters = authWaiters;
  authWaiters = [];
  for (const fn of waiters) fn();
});

/**
 * Runs fn the next time a token is saved (after a 401 asked for one).
 * @param {() => void} fn
 */
export function onToken(fn) {
  authWaiters.push(fn);
}

if (ctx.tokenRequired && !sessionStorage.getItem(TOKEN_KEY)) {
  askForToken(
    'The admin API of this server wants a bearer token (config admin.token or AGGMOCK_ADMIN_TOKEN). It is kept in this tab only.',
  );
}

/**
 * The Authorization header of the token this tab keeps, or none.
 * @returns {Record<string, string>}
 */
export function bearerHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * Calls the admin API; a 401 opens the token prompt and throws AdminError. The caller names the
 * shape of the answer it reads.
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<unknown>}
 */
export async function admin(path, init = {}) {
  const headers = /** @type {Record<string, string>} */ (Object.assign({}, init.headers, bearerHeaders()));
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(`/__admin${path}`, Object.assign({}, init, { headers }));
  } catch (err) {
    throw new AdminError(0, `aggmock is not answering (${errorMessage(err)}). Is the server still running?`);
  }
  /** @type {unknown} */
  const body = await res.json().catch(() => null);
  return answer(res, body, Boolean(token));
}

/**
 * The body of an admin answer, or the AdminError it stands for.
 * @param {Response} res
 * @param {unknown} body
 * @param {boolean} hadToken
 */
function answer(res, body, hadToken) {
  const said = /** @type {{ message?: string, msg?: string } | null} */ (body);
  const message = (said && (said.message || said.msg)) || `HTTP ${res.status}`;
  if (res.status === 401) {
    askForToken(
      `${hadToken ? 'The admin API refused this token (401): ' : 'The admin API wants a bearer token (401): '}${message}`,
    );
    throw new AdminError(401, message, body);
  }
  if (res.status === 404 && body && /No route/.test(message)) {
    throw new AdminError(
      404,
      'This server has no admin API mounted; start aggmock with "aggmock serve" or "aggmock demo".',
      body,
    );
  }
  if (!res.ok) throw new AdminError(res.status, message, body);
  return body;
}

/**
 * The HTTP status of an admin refusal (0: no answer), undefined for any other error.
 * @param {unknown} err
 */
export function errorStatus(err) {
  return err instanceof AdminError ? err.status : undefined;
}

/** @param {unknown} err */
export function errorMessage(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Shows a short result line (ok or error) in the given element.
 * @param {HTMLElement} node
 * @param {boolean} ok
 * @param {Child} text
 */
export function say(node, ok, text) {
  node.className = `banner ${ok ? 'ok' : 'bad'}`;
  node.hidden = false;
  fill(node, text);
}
