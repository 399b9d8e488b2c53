/*
 * The framing rules of the callback transport's HTTP/1.1 answers (transport-connection.ts reads
 * with them) and the errors a connection fails with: strict where a lenient reading could turn a
 * broken answer into an acceptance (RFC 9112).
 */

/** The engine stopped while the request was on the wire. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
}

/** The connection broke before a whole answer came. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The status of a status line "HTTP/1.x NNN reason" (the reason may be absent), or -1. */
export function statusOf(head: string): number {
  if (!head.startsWith('HTTP/1.') || head.charCodeAt(8) !== 0x20) return -1;
  const minor = head.charCodeAt(7) - 0x30;
  const a = head.charCodeAt(9) - 0x30;
  const b = head.charCodeAt(10) - 0x30;
  const c = head.charCodeAt(11) - 0x30;
  if (!(minor >= 0 && minor <= 9 && a >= 1 && a <= 9 && b >= 0 && b <= 9 && c >= 0 && c <= 9)) return -1;
  const after = head.charCodeAt(12); // NaN at the end of the head
  if (after === 0x20 || after === 0x0d || Number.isNaN(after)) return a * 100 + b * 10 + c;
  return -1;
}

/** A Content-Length value: decimal digits (or a list of equal ones, "5, 5"), else -1. */
export function lengthOf(text: string): number {
  if (text.includes(',')) {
    let value = -1;
    for (const part of text.split(',')) {
      const n = lengthOf(part);
      if (n < 0 || (value >= 0 && n !== value)) return -1;
      value = n;
    }
    return value;
  }
  const digits = text.trim();
  if (digits.length === 0 || digits.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < digits.length; i++) {
    const d = digits.charCodeAt(i) - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** The size of a chunk-size line `buf[0, eol)`: hex digits, then optional `;extensions`; -1 when malformed. */
export function chunkSize(buf: Buffer, eol: number): number {
  let size = 0;
  let i = 0;
  for (; i < eol; i++) {
    const c = buf[i] as number;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) break;
    size = size * 16 + d;
    if (size > Number.MAX_SAFE_INTEGER / 16) return -1;
  }
  if (i === 0) return -1;
  while (i < eol && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
  return i === eol || buf[i] === 0x3b /* ; */ ? size : -1;
}

export function isChunkedLast(codings: string): boolean {
  return (
    codings
      .slice(codings.lastIndexOf(',') + 1)
      .trim()
      .toLowerCase() === 'chunked'
  );
}

export function bareLf(head: string): ConnectionError {
  return new ConnectionError(
    `the answer's header lines end in a bare LF, not CRLF: ${JSON.stringify(head.slice(0, 80))}`,
    'EPROTO',
  );
}

export function quote(buf: Buffer): string {
  return JSON.stringify(buf.toString('latin1', 0, 80));
}
