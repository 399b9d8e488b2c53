import type { Dialect, Fields } from '../../src/dialects/index.ts';

/** The fields that carry a secret credential (not an id), nested members as dotted names (Habanero's `auth.passkey`). */
function credentialFields(fields: Fields, d: Dialect, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([k, f]) => {
    if ('credential' in f) return d.credentials[f.credential]?.kind === 'text' ? [] : [`${prefix}${k}`];
    return 'object' in f ? credentialFields(f.object, d, `${prefix}${k}.`) : [];
  });
}

/** One row of the dialects table in docs/dialects.md, rendered from the dialect's data. */
export function dialectRow(d: Dialect): string {
  const ops = Object.entries(d.operations)
    .map(([op, def]) => `${op} \`${def?.method === 'POST' ? '' : `${def?.method} `}${def?.path || '/'}\``)
    .join(', ');
  const encoding = [...new Set(Object.values(d.operations).map((o) => o?.encoding ?? d.request.encoding))].join(', ');
  const s = d.signing;
  const signing =
    s.algorithm === 'none'
      ? [
          ...Object.keys(d.request.headers).map((h) => `\`${h}\` header`),
          ...Object.keys(d.request.query).map((q) => `\`${q}\` in the query`),
          ...Object.values(d.operations).flatMap((o) => credentialFields(o?.fields ?? {}, d).map((k) => `\`${k}\` in the body`)),
        ]
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(', ') || 'none'
      : s.algorithm === 'scheme'
        ? 'aggmock header schemes'
        : `${s.algorithm.toUpperCase()} over ${s.payload.over === 'template' ? `\`${s.payload.template}\`` : s.payload.over === 'params' ? `the sorted parameters${s.payload.headers.length ? ` and the headers ${s.payload.headers.map((h) => `\`${h}\``).join(', ')}` : ''}` : 'the body'}, ${s.encoding}, in ${'header' in s.place ? `header \`${s.place.header}\`` : 'field' in s.place ? `field \`${s.place.field}\`` : `query \`${s.place.query}\``}`;
  const a = d.amounts;
  const amounts = `${a.format}${a.exponent === undefined ? '' : ` × 10^${a.exponent}`}, ${a.as}`;
  const grade = d.sources.some((src) => src.grade === 'primary') ? 'vendor docs' : 'third-party code';
  return `| \`${d.name}\` | ${ops} | ${encoding} | ${signing} | ${amounts} | ${grade} |`;
}
