/**
 * Small text helpers every layer may use: parsing JSON without throwing and escaping text for
 * HTML. Owns no rules of its own. Must not import anything from aggmock (it sits below signing).
 */

/** The JSON value in `text`, or `fallback` when `text` is not JSON. */
export function parseJsonOr<T>(text: string, fallback: T): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe to put between HTML tags or inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}
