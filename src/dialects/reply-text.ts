import { parseJsonOr } from '../shared/index.ts';

/**
 * The raw text of a top-level member's value in a JSON object, e.g. `109.71000000000001` for
 * `balance`, so precision is judged on what the wallet wrote, not on the double it parses to.
 * Undefined when the text is not a JSON object or has no such member.
 */
export function rawTopLevelValue(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = endOfString(text, i);
    if (keyEnd < 0) return undefined;
    // A key without escapes is its text between the quotes (no JSON.parse on every key of every reply).
    const raw = text.slice(i + 1, keyEnd - 1);
    const name = raw.includes('\\') ? parseJsonOr(`"${raw}"`, undefined) : raw;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const start = skipSpace(text, i + 1);
    const end = endOfValue(text, start);
    if (end < 0) return undefined;
    if (name === key) return text.slice(start, end);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return undefined;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  return i;
}

/** Index just past the string starting at `from` (which must be a quote), or -1. */
function endOfString(text: string, from: number): number {
  if (text[from] !== '"') return -1;
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `from`, or -1. */
function endOfValue(text: string, from: number): number {
  const c = text[from];
  if (c === '"') return endOfString(text, from);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        i = endOfString(text, i) - 1;
        if (i < 0) return -1;
      } else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = from;
  while (i < text.length && !',}] \t\n\r'.includes(text[i] as string)) i++;
  return i > from ? i : -1;
}
