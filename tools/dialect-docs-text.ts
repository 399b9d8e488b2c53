/*
 * The small writers of the dialect docs (tools/dialect-docs.ts and its page sections): code spans,
 * table cells, lists, and one-phrase summaries of a dialect (how it signs, its encodings and amounts).
 */

import type { Dialect, Fields, Scalar } from '../src/dialects/index.ts';

export const code = (text: string | number | boolean) => `\`${String(text)}\``;
/** A table cell: pipes escaped, newlines flattened. */
export const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
export const list = (items: readonly string[]) => (items.length === 0 ? '' : `${items.map((i) => `- ${i}`).join('\n')}\n`);
export const json = (value: Scalar | Scalar[]) =>
  Array.isArray(value) ? value.map((v) => code(JSON.stringify(v))).join(', ') : code(JSON.stringify(value));
export const and = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** The fields that carry a secret credential (not an id), nested members as dotted names (Habanero's `auth.passkey`). */
export function credentialFields(fields: Fields, d: Dialect, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([k, f]) => {
    if ('credential' in f) return d.credentials[f.credential]?.kind === 'text' ? [] : [`${prefix}${k}`];
    return 'object' in f ? credentialFields(f.object, d, `${prefix}${k}.`) : [];
  });
}

/** How a dialect's calls are authenticated, in one phrase: the recipe, or where its credentials travel. */
export function signingSummary(d: Dialect): string {
  const s = d.signing;
  if (s.algorithm === 'none')
    return (
      [
        ...Object.keys(d.request.headers).map((h) => `\`${h}\` header`),
        ...Object.keys(d.request.query).map((q) => `\`${q}\` in the query`),
        ...Object.values(d.operations).flatMap((o) => credentialFields(o?.fields ?? {}, d).map((k) => `\`${k}\` in the body`)),
      ]
        .filter((v, i, a) => a.indexOf(v) === i)
        .join(', ') || 'none'
    );
  if (s.algorithm === 'scheme') return 'aggmock header schemes';
  const over =
    s.payload.over === 'template'
      ? `\`${s.payload.template}\``
      : s.payload.over === 'params'
        ? `the sorted parameters${s.payload.headers.length ? ` and the headers ${s.payload.headers.map((h) => `\`${h}\``).join(', ')}` : ''}`
        : 'the body';
  const place =
    'header' in s.place
      ? `header \`${s.place.header}\``
      : 'field' in s.place
        ? `field \`${s.place.field}\``
        : `query \`${s.place.query}\``;
  return `${s.algorithm.toUpperCase()} over ${over}, ${s.encoding}, in ${place}`;
}

export const encodingsOf = (d: Dialect) =>
  [...new Set(Object.values(d.operations).map((o) => o?.encoding ?? d.request.encoding))].join(', ');
export const amountsOf = (d: Dialect) =>
  `${d.amounts.format}${d.amounts.exponent === undefined ? '' : ` × 10^${d.amounts.exponent}`}, ${d.amounts.as}`;
export const gradeOf = (d: Dialect) => (d.sources.some((src) => src.grade === 'primary') ? 'vendor docs' : 'third-party code');
export const pathText = (method: string, path: string) => `${method === 'POST' ? '' : `${method} `}${path || '/'}`;
