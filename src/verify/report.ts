import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { escapeHtml, terminalSafe } from '../shared/index.ts';
import { isSecretName, MASKED, maskedBody, maskedJson, maskedText } from '../shared/secrets.ts';
import type { Exchange } from './client.ts';
import type { FirstCause } from './preflight.ts';

/**
 * `blocked`: not run, because the first cause (the preflight's finding) makes its verdict meaningless.
 * `warn`: passed the vendor's rule but not aggmock's safer reading of it (a failure under --strict).
 */
export type ResultStatus = 'pass' | 'fail' | 'skip' | 'blocked' | 'warn';

/** One line of the report: a pact interaction or a stateful check. */
export interface ResultEntry {
  kind: 'pact' | 'check';
  id: string;
  rule: string;
  /** How to fix it (checks). */
  hint?: string;
  status: ResultStatus;
  durationMs: number;
  /** Why it failed, was skipped or is blocked. */
  reason?: string;
  notes: string[];
  /** Every request and reply of a check, in order. */
  exchanges: Exchange[];
  /** Pact: the provider states and the interaction as written in the contract. */
  states?: string[];
  interaction?: unknown;
  /** The wire rule it tries (src/dialects/judge.ts), where the rule comes from, and aggmock's safer reading of it. */
  wireRule?: { name: string; source: string; grade: string; safer?: string };
  /** The vendor's own test cases it tries on this dialect (src/verify/vendor-cases.ts). */
  vendorCases?: string[];
  /** A failure: the answer it likely failed on (failures sharing one are grouped as one likely cause). */
  likelyCause?: string;
}

export interface VerifyReport {
  tool: 'aggmock verify';
  version: string;
  webhookUrl: string;
  stateUrl?: string;
  /** 'state': exact balances set through the state URL; 'players': relative to the balances read from replies. */
  mode: 'state' | 'players';
  players: string[];
  scheme: string;
  /** The wire profile verified against (default, betnex, or a profile file's name). */
  profile: string;
  runId: string;
  startedAt: string;
  durationMs: number;
  /** `warned` only when some check warned (the shape stays as it was for runs without warnings). */
  summary: { total: number; passed: number; failed: number; skipped: number; blocked: number; warned?: number };
  /** `--strict`: aggmock's safer readings failed instead of warning. */
  strict?: boolean;
  /** The failures grouped by the answer they share, the largest group first: read these first. */
  failureGroups?: FailureGroup[];
  /** The vendor's published wallet test suite, and its cases no check tries yet. */
  vendorSuite?: { name: string; source: string; uncovered: string[] };
  /** What the preflight found wrong before the checks (wallet down, signature refused…); the blocked results depend on it. */
  firstCause?: FirstCause;
  /**
   * The session tokens the wallet handed over (a wallet that rotates its token on authenticate), the
   * flags that start the next run with them, and the --tokens file they were written to.
   */
  sessionTokens?: { handedOver: Record<string, string>; nextRun: string; file?: string };
  notices: string[];
  results: ResultEntry[];
}

/**
 * A result as the reports (JSON, JUnit, HTML, the terminal table) show it: what the wallet echoed
 * back of a request's credentials masked by name, the one rule of src/shared/secrets.ts (L-1) —
 * reply bodies, parsed replies and reply headers, and the reasons, hints and notes that quote them.
 * The requests are masked already (shownRequest); the checks judged the replies as received.
 */
export function shownResult(entry: ResultEntry): ResultEntry {
  return {
    ...entry,
    ...(entry.reason === undefined ? {} : { reason: maskedText(entry.reason) }),
    ...(entry.hint === undefined ? {} : { hint: maskedText(entry.hint) }),
    notes: entry.notes.map(maskedText),
    exchanges: entry.exchanges.map(shownExchange),
  };
}

/** A first cause as the reports show it (see {@link shownResult}). */
export function shownCause(cause: FirstCause): FirstCause {
  return {
    ...cause,
    summary: maskedText(cause.summary),
    fix: maskedText(cause.fix),
    exchanges: cause.exchanges.map(shownExchange),
  };
}

function shownExchange(x: Exchange): Exchange {
  const { response } = x;
  if (response === undefined) return x.error === undefined ? x : { ...x, error: maskedText(x.error) };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name] = isSecretName(name) ? MASKED : value;
  const json = response.json === undefined ? undefined : maskedJson(response.json);
  const { json: _json, ...rest } = response;
  return {
    ...x,
    ...(x.error === undefined ? {} : { error: maskedText(x.error) }),
    response: { ...rest, headers, body: maskedBody(response.body), ...(json === undefined ? {} : { json }) } as NonNullable<
      Exchange['response']
    >,
  };
}

/** Failures that share an answer, read as one likely cause (src/verify/read-first.ts groups them). */
export interface FailureGroup {
  /** The shared answer, and what it likely means. */
  cause: string;
  ids: string[];
}

/** Results in reading order: failures, then warnings, blocked, skipped and passed, each in run order. */
export function inReadingOrder<T extends Pick<ResultEntry, 'status'>>(results: readonly T[]): T[] {
  const rank: Record<ResultStatus, number> = { fail: 0, warn: 1, blocked: 2, skip: 3, pass: 4 };
  return results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank[a.r.status] - rank[b.r.status] || a.i - b.i)
    .map(({ r }) => r);
}

export type ReportFiles = Record<'junit' | 'json' | 'html', string>;

export function summarise(results: readonly ResultEntry[]): VerifyReport['summary'] {
  const warned = results.filter((r) => r.status === 'warn').length;
  return {
    total: results.length,
    passed: results.filter((r) => r.status === 'pass').length,
    failed: results.filter((r) => r.status === 'fail').length,
    skipped: results.filter((r) => r.status === 'skip').length,
    blocked: results.filter((r) => r.status === 'blocked').length,
    ...(warned > 0 ? { warned } : {}),
  };
}

/** Whether the run passed: nothing failed, nothing blocked, no first cause. */
export function passed(report: Pick<VerifyReport, 'summary' | 'firstCause'>): boolean {
  return report.firstCause === undefined && report.summary.failed === 0 && report.summary.blocked === 0;
}

/** The first cause in one line: what happened, then how to fix it. */
export function firstCauseLine(cause: FirstCause): string {
  return `${cause.summary}: ${cause.fix}`;
}

/** Writes junit.xml, report.json and report.html into `dir` (created if missing). */
export function writeReports(report: VerifyReport, dir: string): ReportFiles {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  const files = { junit: join(abs, 'junit.xml'), json: join(abs, 'report.json'), html: join(abs, 'report.html') };
  writeFileSync(files.junit, junitXml(report));
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.html, htmlReport(report));
  return files;
}

// ---- console ----

const COLUMNS = { id: 28, result: 7, time: 9 };
/** ANSI colours of the console table's RESULT column. */
const COLOURS: Record<ResultStatus, number> = { pass: 32, fail: 31, skip: 33, blocked: 35, warn: 93 };

export function tableHeader(): string {
  return `${'CHECK'.padEnd(COLUMNS.id)} ${'RESULT'.padEnd(COLUMNS.result)} ${'TIME'.padStart(COLUMNS.time)}  REASON\n`;
}

/** One row of the live console table. */
export function tableRow(entry: ResultEntry, color = false): string {
  const label = entry.status.toUpperCase();
  const painted = color
    ? `\u001b[${COLOURS[entry.status]}m${label.padEnd(COLUMNS.result)}\u001b[0m`
    : label.padEnd(COLUMNS.result);
  const time = `${entry.durationMs < 10 ? entry.durationMs.toFixed(1) : Math.round(entry.durationMs)} ms`;
  const reason = entry.reason ? oneLine(entry.reason, 160) : '';
  return `${entry.id.padEnd(COLUMNS.id)} ${painted} ${time.padStart(COLUMNS.time)}  ${reason}\n`;
}

/** The first cause, said once before the table: what happened and how to fix it. */
export function firstCauseBlock(cause: FirstCause): string {
  return `FIRST CAUSE: ${cause.summary}.\n  Fix: ${cause.fix}\n  The checks that depend on it are BLOCKED (not run); the others still ran.\n\n`;
}

export function summaryLine(report: VerifyReport): string {
  const s = report.summary;
  const verdict = passed(report) ? 'PASSED' : 'FAILED';
  // Blocked results are named only when there are some, so a clean run reads as it always did.
  const blocked =
    report.firstCause !== undefined
      ? `, ${s.blocked} blocked by the first cause above,`
      : s.blocked > 0
        ? `, ${s.blocked} blocked,`
        : '';
  const warned = s.warned ? `, ${s.warned} warned (aggmock's safer readings; --strict fails them)` : '';
  return `${readFirstBlock(report)}\n${verdict}: ${s.passed} passed, ${s.failed} failed${warned}, ${s.skipped} skipped${blocked} of ${s.total} in ${(report.durationMs / 1000).toFixed(1)} s\n`;
}

/** After the summary: the tokens the wallet handed over and how the next run starts with them. */
export function sessionTokensBlock(kept: NonNullable<VerifyReport['sessionTokens']>): string {
  const players = Object.keys(kept.handedOver).sort();
  if (players.length === 0)
    return kept.file === undefined ? '' : `Session tokens: ${kept.file} is up to date (the wallet handed none over).\n`;
  const lines = players.map((p) => `  ${p}: ${kept.handedOver[p]}`).join('\n');
  const next =
    kept.file === undefined
      ? `  Next run: ${kept.nextRun}\n  (or give --tokens <file>: verify reads the tokens from it and writes the new ones back)\n`
      : `  Written to ${kept.file}: run the next verify with --tokens ${kept.file} again.\n`;
  return `SESSION TOKENS: the wallet handed over new session tokens; the ones this run started with may be stale.\n${lines}\n${next}`;
}

/** After the live table: the failures grouped under the answer they share, each with its rule's source; then the warnings. */
export function readFirstBlock(report: Pick<VerifyReport, 'failureGroups' | 'results' | 'vendorSuite'>): string {
  const groups = report.failureGroups ?? [];
  const byId = new Map(report.results.map((r) => [r.id, r]));
  const lines: string[] = [];
  if (groups.length > 0) {
    lines.push('', 'READ FIRST: the failures, grouped by the answer they share (a likely first cause):');
    for (const g of groups) {
      lines.push(`  ${g.ids.length} × ${oneLine(g.cause, 200)}`);
      for (const id of g.ids.slice(0, 8)) {
        const rule = byId.get(id)?.wireRule;
        lines.push(`    - ${id}${rule ? `  [${rule.name} rule, ${rule.grade}: ${oneLine(rule.source, 200)}]` : ''}`);
      }
      if (g.ids.length > 8) lines.push(`    - … and ${g.ids.length - 8} more`);
    }
  }
  const warned = report.results.filter((r) => r.status === 'warn');
  if (warned.length > 0) {
    lines.push('', "WARNINGS: the vendor's rule passed, aggmock's safer reading of it did not (failures under --strict):");
    for (const r of warned) lines.push(`  - ${r.id}: ${oneLine(r.notes.find((n) => n.startsWith('WARNING: ')) ?? '', 200)}`);
  }
  const uncovered = report.vendorSuite?.uncovered ?? [];
  if (uncovered.length > 0) lines.push('', `Not covered yet of ${report.vendorSuite?.name}: ${uncovered.join(', ')}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function oneLine(text: string, max: number): string {
  const flat = terminalSafe(text.replace(/\s+/g, ' ').trim(), { oneLine: true });
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// ---- JUnit ----

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // XML 1.0 forbids these control characters.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

/**
 * JUnit XML: one testsuite per kind, one testcase per interaction and check. A first cause is one
 * testcase of its own suite with an <error> (the run could not judge the wallet: not an assertion
 * that failed); the results it blocks are <skipped message="blocked by …"/>, so a CI page shows
 * one red line naming the cause instead of dozens of failures that all repeat it.
 */
export function junitXml(report: VerifyReport): string {
  const suites = (['pact', 'check'] as const).map((kind) => {
    const entries = inReadingOrder(report.results.filter((r) => r.kind === kind));
    const s = summarise(entries);
    const name = kind === 'pact' ? 'aggmock verify: contracts (Pact)' : 'aggmock verify: stateful checks';
    const seconds = (entries.reduce((t, e) => t + e.durationMs, 0) / 1000).toFixed(3);
    const cases = entries.map((e) => {
      const open = `    <testcase classname="aggmock.verify.${kind}" name="${xml(e.id)}" time="${(e.durationMs / 1000).toFixed(3)}">`;
      const body =
        e.status === 'fail'
          ? `\n      <failure message="${xml(oneLine(e.reason ?? 'failed', 500))}" type="${kind === 'pact' ? 'ContractMismatch' : 'RuleBroken'}">${xml(failureText(e))}</failure>\n    `
          : e.status === 'skip' || e.status === 'blocked'
            ? `\n      <skipped message="${xml(e.reason ?? e.status)}"/>\n    `
            : e.status === 'warn'
              ? `\n      <system-out>${xml(e.notes.join('\n'))}</system-out>\n    `
              : '';
      return `${open}${body}</testcase>`;
    });
    return (
      `  <testsuite name="${xml(name)}" tests="${s.total}" failures="${s.failed}" errors="0" skipped="${s.skipped + s.blocked}" time="${seconds}" timestamp="${xml(report.startedAt)}">\n` +
      `${cases.join('\n')}\n  </testsuite>`
    );
  });
  const cause = report.firstCause;
  if (cause) {
    suites.unshift(
      `  <testsuite name="aggmock verify: preflight" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${xml(report.startedAt)}">\n` +
        `    <testcase classname="aggmock.verify.preflight" name="first-cause" time="0.000">\n` +
        `      <error message="${xml(oneLine(firstCauseLine(cause), 500))}" type="FirstCause">${xml(causeText(cause))}</error>\n` +
        '    </testcase>\n  </testsuite>',
    );
  }
  const s = report.summary;
  const errors = cause ? 1 : 0;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="aggmock verify ${xml(report.webhookUrl)}" tests="${s.total + errors}" failures="${s.failed}" errors="${errors}" skipped="${s.skipped + s.blocked}" time="${(report.durationMs / 1000).toFixed(3)}">\n` +
    `${suites.join('\n')}\n</testsuites>\n`
  );
}

function causeText(cause: FirstCause): string {
  return [`First cause: ${cause.summary}`, `How to fix: ${cause.fix}`, ...exchangeLines(cause.exchanges)].join('\n');
}

function exchangeLines(exchanges: readonly Exchange[]): string[] {
  const lines: string[] = [];
  for (const x of exchanges) {
    lines.push('', `> ${x.label}`, `> ${x.request.method} ${x.request.url}`, `> ${x.request.body}`);
    lines.push(x.response ? `< HTTP ${x.response.status} ${x.response.body}` : `< ${x.error ?? 'no answer'}`);
  }
  return lines;
}

function failureText(e: ResultEntry): string {
  const lines = [`Rule: ${e.rule}`, `Failure: ${e.reason ?? ''}`];
  if (e.wireRule) lines.push(`Wire rule: ${e.wireRule.name} (${e.wireRule.grade}): ${e.wireRule.source}`);
  if (e.vendorCases?.length) lines.push(`Vendor cases: ${e.vendorCases.join(', ')}`);
  if (e.likelyCause) lines.push(`Likely cause: ${e.likelyCause}`);
  if (e.hint) lines.push(`How to fix: ${e.hint}`);
  for (const note of e.notes) lines.push(`Note: ${note}`);
  lines.push(...exchangeLines(e.exchanges));
  return lines.join('\n');
}

// ---- HTML ----

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:20px 28px}header h1{margin:0 0 4px;font-size:20px}header p{margin:2px 0;color:#c9d1e0}
main{padding:20px 28px;max-width:1200px}
.summary{display:flex;gap:12px;margin:0 0 20px}.pill{padding:8px 14px;border-radius:8px;background:#fff;border:1px solid #dde2ea;font-weight:600}
.pill.fail{color:#b42318;border-color:#f4c7c3}.pill.warn{color:#b54708;border-color:#fedf89}.st.warn{color:#b54708}.pill.pass{color:#067647;border-color:#b5e4ca}.pill.skip{color:#8a6100;border-color:#f1dca7}.pill.blocked{color:#6941c6;border-color:#d9d6fe}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde2ea;border-radius:8px;overflow:hidden;margin-bottom:24px}
th,td{padding:7px 10px;border-bottom:1px solid #eef1f5;text-align:left;vertical-align:top}th{background:#f0f2f6;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
td:first-child,td:nth-child(4){white-space:nowrap}.st{font-weight:700}.st.pass{color:#067647}.st.fail{color:#b42318}.st.skip{color:#8a6100}.st.blocked{color:#6941c6}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#0f1420;color:#e6edf3;padding:10px 12px;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-all;margin:6px 0}
section.failure{background:#fff;border:1px solid #f4c7c3;border-left:5px solid #b42318;border-radius:8px;padding:14px 18px;margin:0 0 18px}
section.failure h3{margin:0 0 6px;font-size:16px}.rule{color:#475467}.hint{background:#fffaeb;border:1px solid #fedf89;border-radius:6px;padding:8px 10px;margin:8px 0}
.reason{color:#b42318;font-weight:600;margin:8px 0}.x{border-top:1px dashed #dde2ea;padding-top:8px;margin-top:8px}.x h4{margin:0;font-size:13px}
.lat{color:#667085;font-weight:400}details summary{cursor:pointer;color:#344054;margin:6px 0}.notice{background:#eef4ff;border:1px solid #c7d7fe;padding:8px 12px;border-radius:6px;margin:0 0 8px}
code{overflow-wrap:anywhere}
@media (max-width:640px){header,main{padding:14px}.summary{flex-wrap:wrap}
table.results thead{display:none}table.results tr{display:block;border-bottom:1px solid #dde2ea;padding:6px 0}
table.results td{display:inline-block;border:0;padding:2px 8px;white-space:normal}table.results td:nth-child(3),table.results td:nth-child(5){display:block}}
`;

/** One self-contained HTML page (inline CSS, no scripts, no external assets). */
export function htmlReport(report: VerifyReport): string {
  const s = report.summary;
  const rows = inReadingOrder(report.results)
    .map(
      (r) =>
        `<tr><td><a href="#${escapeHtml(anchor(r.id))}"><code>${escapeHtml(r.id)}</code></a></td><td class="st ${r.status}">${r.status.toUpperCase()}</td>` +
        `<td>${escapeHtml(r.rule)}</td><td>${Math.round(r.durationMs)} ms</td><td>${escapeHtml(r.reason ?? '')}</td></tr>`,
    )
    .join('\n');
  const failures = report.results
    .filter((r) => r.status === 'fail')
    .map(failureSection)
    .join('\n');
  const others = report.results
    .filter((r) => r.status !== 'fail' && r.exchanges.length > 0)
    .map(
      (r) =>
        `<details id="${escapeHtml(anchor(r.id))}"><summary><code>${escapeHtml(r.id)}</code> — ${r.status.toUpperCase()}, ${r.exchanges.length} request(s)</summary>${r.exchanges.map(exchangeBlock).join('')}</details>`,
    )
    .join('\n');
  const verdict = passed(report) ? 'PASSED' : 'FAILED';
  const cause = report.firstCause ? causeSection(report.firstCause) : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>aggmock verify — ${verdict} — ${escapeHtml(report.webhookUrl)}</title><style>${CSS}</style></head>
<body><header><h1>aggmock verify: ${verdict}</h1>
<p>Webhook <code>${escapeHtml(report.webhookUrl)}</code> · profile <code>${escapeHtml(report.profile)}</code> · scheme <code>${escapeHtml(report.scheme)}</code> · ${report.mode === 'state' ? `state URL <code>${escapeHtml(report.stateUrl ?? '')}</code>` : `players ${escapeHtml(report.players.join(', '))} (relative balances)`}</p>
<p>Run ${escapeHtml(report.runId)} started ${escapeHtml(report.startedAt)}, took ${(report.durationMs / 1000).toFixed(1)} s · aggmock ${escapeHtml(report.version)}</p></header>
<main>
<div class="summary"><span class="pill">${s.total} total</span><span class="pill pass">${s.passed} passed</span><span class="pill fail">${s.failed} failed</span><span class="pill skip">${s.skipped} skipped</span><span class="pill blocked">${s.blocked} blocked</span>${s.warned ? `<span class="pill warn">${s.warned} warned</span>` : ''}</div>
${cause}${readFirstSection(report)}${report.notices.map((n) => `<div class="notice">${escapeHtml(n)}</div>`).join('\n')}
<h2>Results</h2>
<table class="results"><thead><tr><th>Check</th><th>Result</th><th>Rule</th><th>Time</th><th>Reason</th></tr></thead><tbody>
${rows}
</tbody></table>
${failures ? `<h2>Failures: every request and reply</h2>\n${failures}` : passed(report) ? '<p>Every selected check passed.</p>' : ''}
${others ? `<h2>Passed and skipped checks</h2>\n${others}` : ''}
</main></body></html>
`;
}

/** The failure groups (a likely first cause each) and the warnings, above the table. */
function readFirstSection(report: VerifyReport): string {
  const groups = report.failureGroups ?? [];
  const warned = report.results.filter((r) => r.status === 'warn');
  const link = (id: string) => `<a href="#${escapeHtml(anchor(id))}"><code>${escapeHtml(id)}</code></a>`;
  const parts: string[] = [];
  if (groups.length)
    parts.push(
      '<h2>Read first: failures by likely cause</h2><ul>',
      ...groups.map((g) => `<li><strong>${g.ids.length} × ${escapeHtml(g.cause)}</strong>: ${g.ids.map(link).join(', ')}</li>`),
      '</ul>',
    );
  if (warned.length)
    parts.push(
      "<h2>Warnings: aggmock's safer readings (failures under --strict)</h2><ul>",
      ...warned.map((r) => `<li>${link(r.id)}: ${escapeHtml(r.notes.find((n) => n.startsWith('WARNING: ')) ?? '')}</li>`),
      '</ul>',
    );
  const uncovered = report.vendorSuite?.uncovered ?? [];
  if (uncovered.length)
    parts.push(
      `<div class="notice">Not covered yet of ${escapeHtml(report.vendorSuite?.name ?? '')}: ${escapeHtml(uncovered.join(', '))}</div>`,
    );
  return parts.join('\n');
}

function anchor(id: string): string {
  return `r-${id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
}

/** The first cause, once, above the results: what happened, the fix, and the requests that showed it. */
function causeSection(cause: FirstCause): string {
  return (
    `<section class="failure" id="first-cause"><h3>First cause: ${escapeHtml(cause.summary)}</h3>\n` +
    `<div class="hint"><strong>How to fix:</strong> ${escapeHtml(cause.fix)}</div>\n` +
    '<div class="rule">The checks that depend on it are BLOCKED (not run); the others still ran.</div>\n' +
    `${cause.exchanges.map(exchangeBlock).join('')}</section>\n`
  );
}

function failureSection(r: ResultEntry): string {
  const parts = [
    `<section class="failure" id="${escapeHtml(anchor(r.id))}"><h3><code>${escapeHtml(r.id)}</code></h3>`,
    `<div class="rule">Rule: ${escapeHtml(r.rule)}</div>`,
    `<div class="reason">${escapeHtml(r.reason ?? 'failed')}</div>`,
  ];
  if (r.wireRule)
    parts.push(
      `<div class="rule">Wire rule <code>${escapeHtml(r.wireRule.name)}</code> (${escapeHtml(r.wireRule.grade)}): ${escapeHtml(r.wireRule.source)}</div>`,
    );
  if (r.vendorCases?.length) parts.push(`<div class="rule">Vendor cases: ${escapeHtml(r.vendorCases.join(', '))}</div>`);
  if (r.likelyCause) parts.push(`<div class="rule">Likely cause: ${escapeHtml(r.likelyCause)}</div>`);
  if (r.hint) parts.push(`<div class="hint"><strong>How to fix:</strong> ${escapeHtml(r.hint)}</div>`);
  for (const n of r.notes) parts.push(`<div class="rule">Note: ${escapeHtml(n)}</div>`);
  if (r.states?.length)
    parts.push(`<div class="rule">Provider states: ${r.states.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ')}</div>`);
  if (r.interaction !== undefined)
    parts.push(
      `<details open><summary>The contract interaction</summary><pre>${escapeHtml(JSON.stringify(r.interaction, null, 2))}</pre></details>`,
    );
  parts.push(r.exchanges.map(exchangeBlock).join(''));
  parts.push('</section>');
  return parts.join('\n');
}

function exchangeBlock(x: Exchange): string {
  const headers = Object.entries(x.request.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const response = x.response
    ? `HTTP ${x.response.status}\n${Object.entries(x.response.headers)
        .filter(([k]) => k === 'content-type')
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${x.response.body}`
    : `(no answer) ${x.error ?? ''}`;
  return (
    `<div class="x"><h4>${escapeHtml(x.label)} <span class="lat">${x.latencyMs.toFixed(1)} ms</span></h4>` +
    `<pre>${escapeHtml(x.request.method)} ${escapeHtml(x.request.url)}\n${escapeHtml(headers)}\n\n${escapeHtml(x.request.body)}</pre><pre>${escapeHtml(response)}</pre></div>`
  );
}
