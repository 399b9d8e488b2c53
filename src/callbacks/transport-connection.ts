import type net from 'node:net';
import type { HttpAnswer } from './dispatcher.ts';
import { MAX_JOURNALED_BODY } from './outbox.ts';
import {
  bareLf,
  ConnectionError,
  chunkSize,
  InterruptedError,
  isChunkedLast,
  lengthOf,
  quote,
  statusOf,
  TimeoutError,
} from './transport-framing.ts';

/**
 * One persistent HTTP/1.1 connection of the callback transport (transport.ts) and the parser of
 * the answer to its current request: Content-Length, chunked and close-delimited bodies, 1xx
 * interim replies, `Connection: close`.
 *
 * The parser is strict where a lenient reading could turn a broken answer into an acceptance
 * (RFC 9112): the status is exactly three digits; a Content-Length is digits only, and several
 * must agree; a chunk size is hex digits (then optional extensions) and a chunk ends exactly
 * where it said; a folded framing header is refused. Each of these fails the attempt with an
 * EPROTO error (retried like any network error) instead of guessing. A connection is reused only
 * when its answer ended exactly at the last byte received: bytes past the end mean the two sides
 * disagree about where the answer ended, and the next answer cannot be trusted.
 */

export { ConnectionError, InterruptedError, TimeoutError };

export interface Job {
  request: string;
  /** Filled with the answer's headers when the caller wants them (verify's report shows them). */
  headers?: Record<string, string>;
  /** Overrides the transport's timeout for this request (ms). */
  timeoutMs?: number | undefined;
  resolve: (answer: HttpAnswer) => void;
  reject: (error: unknown) => void;
}

/** Where a connection reports that it is free again or gone (the transport's pool for one origin). */
export interface ConnectionOwner {
  released(conn: Connection): void;
  /** Called exactly once per connection, when it is gone. */
  dropped(conn: Connection): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const LFLF = Buffer.from('\n\n');
const EMPTY = Buffer.alloc(0);
/** The most one header block (each interim answer's too), one chunk-size line or the trailers may take. */
const MAX_HEAD = 64 * 1024;

type ParserState = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers' | 'until-close';

/** One persistent connection and the parser of the answer to its current request. */
export class Connection {
  private job: Job | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Requests completed on this socket: a failure on a reused socket before any byte came is a stale keep-alive. */
  private served = 0;
  private gotBytes = false;
  /** performance.now() when the connection last became idle. */
  idleSince = 0;
  /** The socket is destroyed: never hand it another request. */
  private dead = false;
  /** The owner has been told the connection is gone (it must hear it exactly once). */
  private left = false;
  // parser state
  private pending: Buffer | undefined;
  private state: ParserState = 'head';
  private status = 0;
  private retryAfter: string | undefined;
  private keepAlive = true;
  private remaining = 0;
  private trailerBytes = 0;
  /** Interim (1xx) answers before the real one. */
  private interim = 0;
  private bodyParts: Buffer[] = [];
  private bodyBytes = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly origin: ConnectionOwner,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => this.onBroken(error));
    socket.on('end', () => this.onEnd());
    socket.on('close', () => this.onBroken(new ConnectionError('the server closed the connection', 'ECONNRESET')));
  }

  send(job: Job, defaultTimeoutMs: number, setting = 'callbacks.timeout'): void {
    const timeoutMs = job.timeoutMs ?? defaultTimeoutMs;
    this.job = job;
    this.gotBytes = false;
    this.resetParser();
    this.socket.ref();
    this.timer = setTimeout(() => this.onTimeout(timeoutMs, setting), timeoutMs);
    this.socket.write(job.request);
  }

  fail(error: Error): void {
    this.finishJob(undefined, error);
    this.destroy();
  }

  destroy(): void {
    this.dead = true;
    this.socket.destroy();
    this.leave();
  }

  private leave(): void {
    if (this.left) return;
    this.left = true;
    this.origin.dropped(this);
  }

  private resetParser(): void {
    this.pending = undefined;
    this.state = 'head';
    this.status = 0;
    this.retryAfter = undefined;
    this.keepAlive = true;
    this.remaining = 0;
    this.interim = 0;
    this.bodyParts = [];
    this.bodyBytes = 0;
  }

  private onData(chunk: Buffer): void {
    const job = this.job;
    if (!job) {
      // Bytes nobody asked for: the connection is out of step, never reuse it.
      this.destroy();
      return;
    }
    this.gotBytes = true;
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    try {
      // Each step consumes from buf until it needs more bytes or this job's answer is complete
      // (complete() may already have handed the connection to the next job).
      while (this.job === job) {
        switch (this.state) {
          case 'head': {
            const end = buf.indexOf(CRLFCRLF);
            if (end < 0 || end > MAX_HEAD) {
              if (end > MAX_HEAD || buf.length > MAX_HEAD)
                throw new ConnectionError(`the answer headers exceed ${MAX_HEAD / 1024} KiB`, 'EPROTO');
              if (buf.indexOf(LFLF) >= 0)
                throw new ConnectionError(`the answer's header lines end in a bare LF, not CRLF: ${quote(buf)}`, 'EPROTO');
              this.pending = buf;
              return;
            }
            const head = buf.toString('latin1', 0, end);
            buf = buf.subarray(end + 4);
            this.parseHead(head);
            break;
          }
          case 'length':
          case 'chunk-data': {
            const take = Math.min(this.remaining, buf.length);
            if (take === buf.length) {
              this.keep(buf);
              buf = EMPTY;
            } else {
              this.keep(buf.subarray(0, take));
              buf = buf.subarray(take);
            }
            this.remaining -= take;
            if (this.remaining > 0) return;
            if (this.state === 'length') this.complete(buf.length);
            else this.state = 'chunk-crlf';
            break;
          }
          case 'chunk-crlf': {
            // Exactly CRLF after a chunk's data: anything else means the chunk was longer than announced.
            if (buf.length === 0) return;
            if (buf[0] !== 0x0d || (buf.length > 1 && buf[1] !== 0x0a))
              throw new ConnectionError(`a chunk is longer than its announced size: ${quote(buf)}`, 'EPROTO');
            if (buf.length === 1) {
              this.pending = buf;
              return;
            }
            buf = buf.subarray(2);
            this.state = 'chunk-size';
            break;
          }
          case 'until-close':
            this.keep(buf);
            return;
          default: {
            // chunk-size, trailers: line based
            const eol = buf.indexOf('\r\n');
            if (eol < 0) {
              if (buf.length > MAX_HEAD)
                throw new ConnectionError(`a chunk-size or trailer line exceeds ${MAX_HEAD / 1024} KiB`, 'EPROTO');
              if (buf.length > 0) this.pending = buf;
              return;
            }
            if (this.state === 'trailers') {
              this.trailerBytes += eol + 2;
              if (this.trailerBytes > MAX_HEAD) throw new ConnectionError(`the trailers exceed ${MAX_HEAD / 1024} KiB`, 'EPROTO');
              buf = buf.subarray(eol + 2);
              if (eol === 0) this.complete(buf.length);
            } else {
              const size = chunkSize(buf, eol);
              if (size < 0) throw new ConnectionError(`bad chunk size ${quote(buf.subarray(0, eol))}`, 'EPROTO');
              buf = buf.subarray(eol + 2);
              this.remaining = size;
              this.state = size === 0 ? 'trailers' : 'chunk-data';
            }
          }
        }
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private parseHead(head: string): void {
    const status = statusOf(head);
    if (status < 0) {
      throw new ConnectionError(`not an HTTP/1.x answer: ${JSON.stringify(head.slice(0, 80))}`, 'EPROTO');
    }
    const http10 = head.charCodeAt(7) === 0x30;
    let contentLength = -1;
    let transferEncoding: string | undefined;
    let connection: string | undefined;
    /** The field just read frames the body: a folded continuation of it cannot be read safely. */
    let framing = false;
    // An interim (1xx) answer's headers are not the answer's: each head starts the record afresh.
    let kept: Record<string, string> | undefined;
    if (this.job?.headers !== undefined) {
      kept = {};
      this.job.headers = kept;
    }
    // Lines end in CRLF; a bare LF could hide a field inside another line, so it is refused.
    let lf = head.indexOf('\n');
    if (lf >= 0 && head.charCodeAt(lf - 1) !== 0x0d) throw bareLf(head);
    while (lf >= 0) {
      const next = head.indexOf('\n', lf + 1);
      if (next >= 0 && head.charCodeAt(next - 1) !== 0x0d) throw bareLf(head);
      const line = next < 0 ? head.slice(lf + 1) : head.slice(lf + 1, next - 1);
      lf = next;
      const first = line.charCodeAt(0);
      if (first === 0x20 || first === 0x09) {
        // obs-fold: continues the previous field, never a field of its own.
        if (framing) throw new ConnectionError(`a folded framing header: ${JSON.stringify(line.slice(0, 80))}`, 'EPROTO');
        continue;
      }
      framing = false;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (kept) {
        const value = line.slice(colon + 1).trim();
        kept[name] = kept[name] === undefined ? value : `${kept[name]}, ${value}`;
      }
      if (name === 'content-length') {
        const value = lengthOf(line.slice(colon + 1));
        if (value < 0)
          throw new ConnectionError(`bad Content-Length ${JSON.stringify(line.slice(colon + 1, colon + 41).trim())}`, 'EPROTO');
        if (contentLength >= 0 && value !== contentLength)
          throw new ConnectionError(`conflicting Content-Length headers (${contentLength} and ${value})`, 'EPROTO');
        contentLength = value;
        framing = true;
      } else if (name === 'transfer-encoding') {
        const value = line.slice(colon + 1);
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding},${value}`;
        framing = true;
      } else if (name === 'connection') {
        const value = line.slice(colon + 1).toLowerCase();
        connection = connection === undefined ? value : `${connection},${value}`;
        framing = true;
      } else if (name === 'retry-after') this.retryAfter = line.slice(colon + 1).trim();
    }
    if (status < 200) {
      if (status === 101)
        throw new ConnectionError('the server switched protocols (101), which a callback never asks for', 'EPROTO');
      this.retryAfter = undefined;
      this.interim++;
      return; // interim; the real answer follows
    }
    this.status = status;
    // HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes it unless told to keep it.
    this.keepAlive =
      connection === undefined ? !http10 : !connection.includes('close') && (!http10 || connection.includes('keep-alive'));
    if (status === 204 || status === 304) {
      this.remaining = 0;
      this.state = 'length';
    } else if (transferEncoding !== undefined) {
      // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3); a message with both is suspect,
      // so its connection is not reused. Unless chunked is the last coding, the body runs to the close.
      if (contentLength >= 0 || http10) this.keepAlive = false;
      if (isChunkedLast(transferEncoding)) {
        this.state = 'chunk-size';
        this.trailerBytes = 0;
      } else {
        this.state = 'until-close';
        this.keepAlive = false;
      }
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      this.state = 'length';
    } else {
      this.state = 'until-close';
      this.keepAlive = false;
    }
    // A body of length 0 completes in onData's loop, which also sees any byte past its end.
  }

  private keep(part: Buffer): void {
    if (this.bodyBytes >= MAX_JOURNALED_BODY * 4 || part.length === 0) return; // the rest is read and dropped
    this.bodyParts.push(Buffer.from(part));
    this.bodyBytes += part.length;
    // verify (keepHeaders) reads no more than the limit of a reply: a reply that never ends is cut
    // there and its connection dropped. The engine reads to the end (an unfinished reply is a retry).
    if (this.job?.headers !== undefined && this.bodyBytes > MAX_JOURNALED_BODY) {
      this.keepAlive = false;
      this.complete(0);
    }
  }

  /** The answer is whole; `extra` bytes came after its end. */
  private complete(extra: number): void {
    if (!this.job) return;
    let raw = this.bodyParts.length === 1 ? (this.bodyParts[0] as Buffer) : Buffer.concat(this.bodyParts);
    const cut = this.job.headers !== undefined && raw.length > MAX_JOURNALED_BODY;
    if (cut) raw = raw.subarray(0, MAX_JOURNALED_BODY);
    let body = raw.toString('utf8');
    if (body.length > MAX_JOURNALED_BODY) body = body.slice(0, MAX_JOURNALED_BODY);
    const answer: HttpAnswer = { status: this.status, body };
    if (this.retryAfter !== undefined) answer.retryAfter = this.retryAfter;
    if (this.job.headers !== undefined) {
      answer.headers = this.job.headers;
      if (cut) answer.truncated = true;
    }
    // A byte past the end of the answer: the server and this parser disagree about where it ended,
    // so the next answer on this connection could not be trusted.
    const reusable = this.keepAlive && this.state !== 'until-close' && extra === 0 && !this.dead;
    this.finishJob(answer);
    this.served++;
    if (reusable) {
      this.socket.unref();
      this.origin.released(this);
    } else {
      this.destroy();
    }
  }

  private onTimeout(timeoutMs: number, setting: string): void {
    const partial = this.gotBytes ? `; only part of one came (${this.progress()})` : '';
    this.fail(new TimeoutError(`no answer within ${timeoutMs} ms (${setting})${partial}`));
  }

  /** How far the current answer got, for an error message. */
  private progress(): string {
    switch (this.state) {
      case 'head': {
        const interim = this.interim > 0 ? `${this.interim} interim (1xx) answers, then ` : '';
        return `${interim}an unfinished header block of ${this.pending?.length ?? 0} bytes`;
      }
      case 'length':
        return `HTTP ${this.status}, ${this.remaining} bytes of its Content-Length body missing`;
      case 'until-close':
        return `HTTP ${this.status}, a body that ends when the server closes the connection`;
      default:
        return `HTTP ${this.status}, a chunked body without its last chunk`;
    }
  }

  private onEnd(): void {
    if (this.job && this.state === 'until-close') {
      this.complete(0);
      return;
    }
    const message =
      this.job && this.gotBytes
        ? `the server closed the connection mid-answer (${this.progress()})`
        : 'the server closed the connection before answering';
    this.onBroken(new ConnectionError(message, 'ECONNRESET'));
  }

  private onBroken(error: NodeJS.ErrnoException): void {
    const job = this.job;
    this.dead = true;
    this.clearTimer();
    this.job = undefined;
    this.socket.destroy();
    if (!job) {
      this.leave();
      return;
    }
    // A request written to a kept-alive connection that then closed without a byte of answer is
    // NOT sent again here: the wallet may have read and applied it before closing (a DEBIT taken
    // twice). It fails as an attempt of its own, journaled, and the engine retries it on its
    // schedule. Connections the server closed while idle are dropped before reuse (transport.ts).
    this.leave();
    const reusedAndSilent =
      this.served > 0 && !this.gotBytes && !(error instanceof InterruptedError) && !(error instanceof TimeoutError);
    job.reject(
      reusedAndSilent
        ? new ConnectionError(
            `${error.message} on a kept-alive connection, after the request was written: the wallet may have applied it`,
            error.code ?? 'ECONNRESET',
          )
        : error,
    );
  }

  private finishJob(answer: HttpAnswer | undefined, error?: Error): void {
    const job = this.job;
    if (!job) return;
    this.clearTimer();
    this.job = undefined;
    if (answer) job.resolve(answer);
    else {
      this.dead = true;
      this.leave();
      job.reject(error);
    }
  }

  private clearTimer(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
