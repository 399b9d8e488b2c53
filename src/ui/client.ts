/**
 * Browser code shared by the pages that read the admin API (deliveries, discrepancies): the
 * bearer token kept in sessionStorage, `admin()` to call `/__admin`, and `el()` to build DOM
 * nodes from text (never innerHTML, so names and bodies from the wire cannot inject markup).
 * Plain ES2020 in a string: served inline, no build step.
 */
export const ADMIN_CLIENT_JS = `
const TOKEN_KEY = 'aggmock.adminToken';
const ctx = window.AGGMOCK || {};
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  return fill(node, children, true);
}
/** Replaces (or, with keep, appends to) a node's children: nested arrays flattened, null/false skipped, text as text. */
function fill(node, children, keep) {
  if (!keep) node.replaceChildren();
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const money = (n) => (typeof n === 'number' ? n.toFixed(2) : n === null || n === undefined ? '—' : String(n));
const clock = (ms) => (ms ? new Date(ms).toLocaleTimeString([], { hour12: false }) : '—');
const stamp = (ms) => (ms ? new Date(ms).toLocaleString([], { hour12: false }) : '—');
const pretty = (text) => { try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; } };

class AdminError extends Error {
  constructor(status, message, body) { super(message); this.status = status; this.body = body; }
}

const auth = document.getElementById('auth');
const authForm = document.getElementById('auth-form');
const authMessage = document.getElementById('auth-message');
let authWaiters = [];
function askForToken(message) {
  auth.hidden = false;
  authMessage.textContent = message;
  document.getElementById('auth-token').focus();
}
authForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const value = document.getElementById('auth-token').value.trim();
  if (value) sessionStorage.setItem(TOKEN_KEY, value); else sessionStorage.removeItem(TOKEN_KEY);
  auth.hidden = true;
  const waiters = authWaiters; authWaiters = [];
  waiters.forEach((fn) => fn());
});
/** Runs fn now, and again each time a new token is saved. */
function onToken(fn) { authWaiters.push(fn); }
if (ctx.tokenRequired && !sessionStorage.getItem(TOKEN_KEY)) {
  askForToken('The admin API of this server wants a bearer token (config admin.token or AGGMOCK_ADMIN_TOKEN). It is kept in this tab only.');
}

/** Calls the admin API; a 401 opens the token prompt and throws AdminError. */
async function admin(path, init) {
  init = init || {};
  const headers = Object.assign({}, init.headers);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = 'Bearer ' + token;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch('/__admin' + path, Object.assign({}, init, { headers }));
  } catch (err) {
    throw new AdminError(0, 'aggmock is not answering (' + err.message + '). Is the server still running?');
  }
  let body = null;
  try { body = await res.json(); } catch {}
  const message = (body && (body.message || body.msg)) || 'HTTP ' + res.status;
  if (res.status === 401) {
    askForToken((token ? 'The admin API refused this token (401): ' : 'The admin API wants a bearer token (401): ') + message);
    throw new AdminError(401, message, body);
  }
  if (res.status === 404 && body && /No route/.test(message)) {
    throw new AdminError(404, 'This server has no admin API mounted; start aggmock with "aggmock serve" or "aggmock demo".', body);
  }
  if (!res.ok) throw new AdminError(res.status, message, body);
  return body;
}

/** Shows a short result line (ok or error) in the given element. */
function say(node, ok, text) {
  node.className = 'banner ' + (ok ? 'ok' : 'bad');
  node.hidden = false;
  fill(node, text);
}
`;

/** The token prompt the admin pages share; hidden until a token is needed. */
export const AUTH_PROMPT_HTML = `<section id="auth" class="panel banner bad" hidden data-testid="auth-prompt">
<p id="auth-message" data-testid="auth-message"></p>
<form id="auth-form" class="toolbar"><input id="auth-token" type="password" placeholder="admin token" aria-label="Admin token" autocomplete="off" data-testid="auth-token">
<button type="submit">Use token</button></form></section>`;
