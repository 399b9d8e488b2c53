import { type AggmockConfig, API_ROUTES } from '../config/index.ts';
import { AUTH_PROMPT_HTML, LOG_PAGE_CSS, layout } from './layout.ts';

/** The faults the "Break the next call" form offers, with the rule each one adds (once, on the chosen route). */
export const BREAK_CHOICES = [
  { id: 'status-503', label: '503 Service Unavailable', fault: { kind: 'status', status: 503 } },
  { id: 'status-500', label: '500 Internal error', fault: { kind: 'status', status: 500 } },
  { id: 'delay-3s', label: 'Slow: 3 s delay', fault: { kind: 'delay', ms: 3000 } },
  { id: 'timeout', label: 'Never answers (timeout)', fault: { kind: 'timeout' } },
  { id: 'reset', label: 'Connection reset', fault: { kind: 'reset' } },
  { id: 'empty', label: 'Empty reply', fault: { kind: 'empty' } },
  { id: 'cut', label: 'Body cut mid-way', fault: { kind: 'cut' } },
  { id: 'malformed', label: 'Malformed JSON', fault: { kind: 'malformed' } },
  { id: 'drip', label: 'Slow drip', fault: { kind: 'drip', chunkBytes: 64, intervalMs: 50 } },
  { id: 'maintenance', label: 'Provider maintenance (503)', fault: { kind: 'maintenance' } },
  { id: 'expired-link', label: 'Launch link already expired', fault: { kind: 'expired-link' } },
  { id: 'used-link', label: 'Launch link already used', fault: { kind: 'used-link' } },
] as const;

/**
 * The client's requests to the aggregator API, live (polling `GET /__admin/requests` every second):
 * method, path, status, auth verdict, latency, the fault rule that fired; a detail panel with the
 * masked headers, the bodies and the hint for a refused call; the fault rules in force, and a form
 * that breaks the next call to a route. A shell; its script reads everything from the admin API.
 */
export function requestsPage(config: AggmockConfig): string {
  const routeOptions = API_ROUTES.map((r) => `<option value="${r.path}">${r.method} ${r.path}</option>`).join('');
  const faultOptions = BREAK_CHOICES.map((c) => `<option value="${c.id}">${c.label}</option>`).join('');
  const body = `<style>${CSS}</style>
<h1>Requests <span class="muted small">what your client sent to the aggregator API</span></h1>
${AUTH_PROMPT_HTML}
<div id="list-error" class="banner bad" hidden data-testid="list-error"></div>
<section class="panel tools" id="break">
<form id="break-form" data-testid="break-form">
<h2>Break the next call</h2>
<div class="fields">
<label class="field">Route<select name="path" data-testid="break-path">${routeOptions}</select></label>
<label class="field">Fault<select name="fault" data-testid="break-fault">${faultOptions}</select></label>
</div>
<button type="submit" data-testid="break-send">Break the next call</button>
<div class="result" id="break-result" hidden data-testid="break-result"></div>
</form>
<div><h2>Fault rules in force</h2><table><tbody id="rules" data-testid="rules"></tbody></table>
<p class="muted small" id="no-rules" data-testid="no-rules">None: every call is answered as it should be.</p></div>
</section>
<form id="filters" class="toolbar filters" data-testid="filters">
<select name="path" aria-label="Filter by route" data-testid="filter-path"><option value="">all routes</option>${routeOptions}</select>
<input name="status" inputmode="numeric" placeholder="status" aria-label="Filter by status" data-testid="filter-status">
<label class="live"><input type="checkbox" id="live" checked data-testid="live"> live</label>
</form>
<div class="split">
<section class="panel list"><div class="scroll"><table data-testid="requests">
<thead><tr><th class="num">#</th><th>Time</th><th>Method</th><th>Path</th><th class="num">HTTP</th><th>Auth</th><th class="num">ms</th><th>Fault</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<p class="muted empty" id="empty" hidden>No requests yet. Point your client at this server: GET /getallproviders, POST /getgameurl…</p>
</section>
<aside class="panel detail" id="detail" data-testid="detail" aria-live="polite"><p class="muted">Click a request to see its headers (credentials masked), bodies, auth verdict and what went wrong.</p></aside>
</div>`;
  return layout({
    title: 'Requests',
    active: 'requests',
    body,
    data: { tokenRequired: Boolean(config.admin.token), choices: BREAK_CHOICES },
    script: 'requests.js',
  });
}

const CSS = `${LOG_PAGE_CSS}
.tools .field{flex:1 1 160px}
.detail pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}
`;
