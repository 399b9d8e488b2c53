/**
 * Reading a reply body that someone else controls, with a byte limit: `res.text()` buffers
 * whatever comes (a 100 MB reply is 100 MB of heap, then an out-of-memory crash with no report).
 */

/** The most of one reply body aggmock reads (the rest is not read: the connection is dropped). */
export const MAX_REPLY_BYTES = 64 * 1024;

export interface BoundedText {
  /** The first `maxBytes` bytes as UTF-8 text (a character cut at the limit becomes U+FFFD). */
  text: string;
  /** More came than the limit allows: `text` is its start, the rest was never read. */
  truncated: boolean;
}

/**
 * The body of a fetch `Response` (or undici's `res.body`, or any async iterable of bytes) as text,
 * keeping at most `maxBytes`; past that the body is cancelled, so the sender's connection closes.
 *
 * @example const { text, truncated } = await readBoundedText(res.body)
 */
export async function readBoundedText(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null | undefined,
  maxBytes: number = MAX_REPLY_BYTES,
): Promise<BoundedText> {
  if (!body) return { text: '', truncated: false };
  const parts: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  // Leaving the loop early (break) cancels the stream: the rest is never buffered.
  for await (const chunk of 'getReader' in body ? chunksOf(body) : body) {
    const room = maxBytes - kept;
    if (chunk.length > room) {
      if (room > 0) parts.push(chunk.subarray(0, room));
      kept += room;
      truncated = true;
      break;
    }
    parts.push(chunk);
    kept += chunk.length;
  }
  return { text: Buffer.concat(parts, kept).toString('utf8'), truncated };
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Reached on a break too: cancelling drops the connection instead of reading the rest.
    await reader.cancel().catch(() => undefined);
  }
}
