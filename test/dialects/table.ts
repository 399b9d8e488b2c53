import type { Dialect } from '../../src/dialects/index.ts';

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
          ...Object.values(d.operations).flatMap((o) =>
            Object.entries(o?.fields ?? {})
              .filter(([, f]) => 'credential' in f)
              .map(([k]) => `\`${k}\` in the body`),
          ),
        ]
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(', ') || 'none'
      : s.algorithm === 'scheme'
        ? 'aggmock header schemes'
        : `${s.algorithm.toUpperCase()} over ${s.payload.over === 'template' ? `\`${s.payload.template}\`` : s.payload.over === 'params' ? 'the sorted parameters' : 'the body'}, ${s.encoding}, in ${'header' in s.place ? `header \`${s.place.header}\`` : 'field' in s.place ? `field \`${s.place.field}\`` : `query \`${s.place.query}\``}`;
  const a = d.amounts;
  const amounts = `${a.format}${a.exponent === undefined ? '' : ` × 10^${a.exponent}`}, ${a.as}`;
  const grade = d.sources.some((src) => src.grade === 'primary') ? 'vendor docs' : 'third-party code';
  return `| \`${d.name}\` | ${ops} | ${encoding} | ${signing} | ${amounts} | ${grade} |`;
}
