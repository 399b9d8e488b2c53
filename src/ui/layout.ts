import { type BrowserScript, pageDataTag, scriptTag } from '../http/browser-scripts.ts';
import { escapeHtml } from '../shared/index.ts';

export { escapeHtml };

/** The pages of the header nav, by the key a page passes as `active`. */
const NAV = [
  { key: 'games', href: '/', label: 'Games' },
  { key: 'deliveries', href: '/ui/deliveries', label: 'Deliveries' },
  { key: 'discrepancies', href: '/ui/discrepancies', label: 'Discrepancies' },
  { key: 'requests', href: '/ui/requests', label: 'Requests' },
  { key: 'docs', href: '/docs', label: 'API docs' },
] as const;

export type NavKey = (typeof NAV)[number]['key'];

export interface LayoutOptions {
  title: string;
  active?: NavKey;
  /** Already-escaped HTML of the page body. */
  body: string;
  /** What the page script reads with `pageData()`: JSON in a block escaped for HTML. */
  data?: unknown;
  /** The page's entry module in `browser/`. */
  script?: BrowserScript;
}

/**
 * The shared page shell: header nav, the dark style of the play page, and an optional page script
 * served from this origin (no build step; its data travels as JSON, never as written code).
 */
export function layout(options: LayoutOptions): string {
  const nav = NAV.map(
    (item) =>
      `<a href="${item.href}"${item.key === options.active ? ' aria-current="page"' : ''} data-testid="nav-${item.key}">${item.label}</a>`,
  ).join('');
  const data = options.data === undefined ? '' : `${pageDataTag(options.data)}\n`;
  const script = options.script ? `${scriptTag(options.script)}\n` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)} — aggmock</title>
<link rel="icon" href="data:,">
<style>${CSS}</style></head>
<body>
<header class="top"><a class="brand" href="/">agg<span>mock</span></a><nav>${nav}</nav></header>
<main>
${options.body}
</main>
${data}${script}</body></html>`;
}

/** A whole page that explains one problem (unknown game, bad request) with a way back. */
export function messagePage(title: string, message: string, active?: NavKey): string {
  return layout({
    title,
    ...(active ? { active } : {}),
    body: `<section class="panel message" data-testid="message"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
<p><a href="/">← Back to the games</a></p></section>`,
  });
}

/** The token prompt the admin pages (and, exposed, the play page) share; hidden until a token is needed. */
export { AUTH_PROMPT_HTML } from '../http/browser-scripts.ts';

/**
 * The log pages' frame (the deliveries and the requests pages): tools above, a filtered list on the
 * left, the selected row's detail beside it, one column on a narrow screen. A page adds its own rules after it.
 */
export const LOG_PAGE_CSS = `
.small{font-size:.8rem;font-weight:400}
.tools{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.tools form{display:flex;flex-direction:column;gap:10px;margin:0}
.tools .fields{display:flex;flex-wrap:wrap;gap:8px}
.tools button{align-self:flex-start}
.filters{margin:16px 0 10px}.live{display:flex;gap:4px;align-items:center;color:var(--muted)}
.split{display:grid;grid-template-columns:minmax(0,1.4fr) minmax(0,1fr);gap:16px;align-items:start}
.list table{font-size:.85rem}.list th,.list td{padding:5px 6px;white-space:nowrap}
#rows tr{cursor:pointer}#rows tr:hover{background:#273449}#rows tr.sel{background:#3b2f10;outline:1px solid var(--accent)}
.detail{position:sticky;top:64px;max-height:calc(100vh - 80px);overflow:auto}
.detail dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0 0 10px;font-size:.85rem}
.detail dt{color:var(--muted)}.detail dd{margin:0;overflow-wrap:anywhere}
@media (max-width:900px){.tools,.split{grid-template-columns:minmax(0,1fr)}.detail{position:static;max-height:none}}
`;

// The play page's palette: slate background, amber accent.
const CSS = `
:root{--bg:#0f172a;--panel:#1e293b;--line:#334155;--text:#f1f5f9;--muted:#94a3b8;--accent:#f59e0b;--ok:#22c55e;--bad:#ef4444;--warn:#eab308;--link:#93c5fd}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;background:var(--bg);color:var(--text);margin:0;line-height:1.4}
a{color:var(--link)}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:8px 24px;padding:10px 20px;background:#0b1222;border-bottom:1px solid var(--line);position:sticky;top:0;z-index:5}
.brand{font-weight:800;font-size:1.25rem;color:var(--text);text-decoration:none}.brand span{color:var(--accent)}
nav{display:flex;flex-wrap:wrap;gap:4px}
nav a{color:var(--muted);text-decoration:none;padding:6px 10px;border-radius:8px}
nav a:hover{color:var(--text);background:var(--panel)}
nav a[aria-current=page]{color:#111;background:var(--accent);font-weight:600}
main{max-width:1280px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:1.5rem;margin:8px 0 12px}h2{font-size:1.1rem;margin:0 0 10px}
.muted{color:var(--muted)}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:12px;padding:14px 16px;margin:0 0 16px}
.message{max-width:40rem;margin:40px auto}
input,select,textarea{font:inherit;padding:7px 9px;border-radius:8px;border:1px solid var(--line);background:#0f172a;color:var(--text);min-width:0}
input:focus,select:focus{outline:2px solid var(--accent);outline-offset:0}
button,.button{font:inherit;font-weight:700;padding:8px 16px;border-radius:999px;border:0;background:var(--accent);color:#111;cursor:pointer;text-decoration:none;display:inline-block;white-space:nowrap}
button.secondary,.button.secondary{background:#475569;color:var(--text)}
button:disabled{opacity:.5;cursor:wait}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.toolbar input[type=search]{flex:1 1 220px}
label.field{display:flex;flex-direction:column;gap:4px;font-size:.9rem;color:var(--muted)}
label.field>span.hint{font-size:.8rem}
.error{color:#fca5a5}
.field-error{color:#fca5a5;font-size:.85rem}
[aria-invalid=true]{border-color:var(--bad)}
.banner{padding:10px 14px;border-radius:10px;margin:0 0 16px;border:1px solid}
.banner.bad{background:#450a0a;border-color:var(--bad)}.banner.ok{background:#052e16;border-color:var(--ok)}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:.8rem;font-weight:600;background:#334155;color:var(--text)}
.s-delivered{background:#14532d;color:#bbf7d0}.s-rejected{background:#7c2d12;color:#fed7aa}.s-failed{background:#7f1d1d;color:#fecaca}
.s-pending,.s-delivering{background:#713f12;color:#fef08a}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
pre,code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.82rem}
@media (max-width:520px){header.top{padding:8px 12px;gap:4px 12px}nav a{padding:5px 8px}main{padding:12px 12px 32px}}
pre{background:#0b1222;border:1px solid var(--line);border-radius:8px;padding:8px 10px;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0 8px}
`;
