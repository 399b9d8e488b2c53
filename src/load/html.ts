import { escapeHtml } from '../shared/index.ts';
import { correctnessLine, type LoadSummary, type SeriesPoint } from './report.ts';

/**
 * The HTML report of a load run: one self-contained page (inline SVG and CSS, no script, no
 * external asset) with the plots a person reads the knee from — rate asked and achieved, latency
 * percentiles and errors, second by second — then the tables of the text report.
 */

interface Line {
  name: string;
  color: string;
  values: number[];
  dashed?: boolean;
}

const W = 760;
const H = 220;
const PAD = { left: 56, right: 12, top: 14, bottom: 28 };

/** A line chart of per-second values as inline SVG, y from 0 to a rounded maximum. */
export function lineChart(title: string, unit: string, lines: readonly Line[], seconds: number): string {
  const max = niceMax(Math.max(1e-9, ...lines.flatMap((l) => l.values)));
  const x = (t: number) => PAD.left + ((W - PAD.left - PAD.right) * t) / Math.max(1, seconds - 1);
  const y = (v: number) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * v) / max;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const grid = ticks
    .map(
      (v) =>
        `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
    )
    .join('');
  const step = Math.max(1, Math.ceil(seconds / 10));
  const xTicks = Array.from({ length: Math.ceil(seconds / step) }, (_, i) => i * step)
    .map((t) => `<text x="${x(t)}" y="${H - 8}" text-anchor="middle">${t}s</text>`)
    .join('');
  const paths = lines
    .map((l) => {
      const d = l.values.map((v, t) => `${t === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join('');
      return `<path d="${d}" fill="none" stroke="${l.color}" stroke-width="2"${l.dashed ? ' stroke-dasharray="5 4"' : ''}/>`;
    })
    .join('');
  const legend = lines
    .map(
      (l, i) =>
        `<rect x="${PAD.left + 8 + i * 150}" y="${PAD.top - 10}" width="12" height="4" fill="${l.color}"/><text x="${PAD.left + 24 + i * 150}" y="${PAD.top - 5}">${escapeHtml(l.name)}</text>`,
    )
    .join('');
  return `<figure><figcaption>${escapeHtml(title)} (${escapeHtml(unit)})</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}">${grid}${xTicks}${paths}${legend}</svg></figure>`;
}

function niceMax(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2);
}

export function renderHtml(s: LoadSummary): string {
  const series: SeriesPoint[] = s.series;
  const n = series.length;
  const col = (k: keyof SeriesPoint) => series.map((p) => p[k]);
  const charts = [
    lineChart(
      'Rounds per second: asked and started; calls answered',
      'per second',
      [
        { name: 'asked', color: '#888', values: col('asked'), dashed: true },
        { name: 'started', color: '#1f77b4', values: col('started') },
        { name: 'answered calls', color: '#2ca02c', values: col('answered') },
      ],
      n,
    ),
    lineChart(
      'Latency percentiles per second',
      'ms',
      [
        { name: 'p50', color: '#2ca02c', values: col('p50') },
        { name: 'p90', color: '#ff7f0e', values: col('p90') },
        { name: 'p99', color: '#d62728', values: col('p99') },
      ],
      n,
    ),
    lineChart(
      'Errors, late and dropped starts per second',
      'count',
      [
        { name: 'errors', color: '#d62728', values: col('errors') },
        { name: 'late starts', color: '#ff7f0e', values: col('late') },
        { name: 'dropped', color: '#9467bd', values: col('dropped') },
      ],
      n,
    ),
  ].join('\n');
  const latencyRows = [['all', s.latency.all] as const, ...Object.entries(s.latency.byOperation)]
    .map(
      ([op, l]) =>
        `<tr><th>${escapeHtml(op)}</th><td>${l.count}</td><td>${l.p50}</td><td>${l.p90}</td><td>${l.p99}</td><td>${l['p99.9']}</td><td>${l.max}</td></tr>`,
    )
    .join('');
  const errors = Object.entries(s.errors.byClass)
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${v}</td><td>${escapeHtml(s.errors.samples[k] ?? '')}</td></tr>`)
    .join('');
  const refusals = Object.entries(s.errors.refusals)
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${v}</td></tr>`)
    .join('');
  const violations = s.correctness.violations
    .slice(0, 50)
    .map((v) => `<li>${escapeHtml(v.message)}</li>`)
    .join('');
  const thresholds = s.thresholds
    .map(
      (t) =>
        `<li class="${t.ok ? 'ok' : 'fail'}">${t.ok ? 'ok' : 'FAIL'} ${escapeHtml(t.threshold)}: ${escapeHtml(t.actual)}</li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aggmock load: ${escapeHtml(s.dialect)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;max-width:820px;color:#222}svg text{font-size:11px;fill:#555}.grid{stroke:#eee}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}th{text-align:left}
figure{margin:16px 0}figcaption{font-weight:600}.ok{color:#2a7a2a}.fail{color:#b00020;font-weight:600}</style></head>
<body><h1>aggmock load: ${escapeHtml(s.dialect)} at ${escapeHtml(s.url)}</h1>
<p>Asked ${s.rate.askedPerSecond} rounds/s, achieved ${s.rate.achievedPerSecond}/s; ${s.rate.calls} calls (${s.rate.callsPerSecond}/s), ${s.players} players.
Late starts ${s.starts.late}, dropped ${s.starts.dropped}. Limit: ${escapeHtml(s.starts.limit)}.</p>
<p class="${s.correctness.ok ? 'ok' : 'fail'}">${escapeHtml(correctnessLine(s.correctness))}</p>
${thresholds ? `<ul>${thresholds}</ul>` : ''}
${charts}
<h2>Latency (ms)</h2><table><tr><th>operation</th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>${latencyRows}</table>
<h2>Errors (${s.errors.percent.toFixed(3)}% of attempts; ${s.errors.retries} retries)</h2><table>${errors}</table>
${refusals ? `<h2>Refusals by the wallet's code</h2><table>${refusals}</table>` : ''}
${violations ? `<h2>Violations</h2><ul>${violations}</ul>` : ''}
<p><small>In memory: no journal and no durable outbox in this mode.</small></p>
</body></html>
`;
}
