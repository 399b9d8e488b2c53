import type net from 'node:net';
import type { HttpAnswer } from './dispatcher.ts';
import { MAX_JOURNALED_BODY } from './outbox.ts';

/**
 * One persistent HTTP/1.1 connection of the callback transport (transport.ts) and the parser of
 * the answer to its current request: Content-Length, chunked and close-delimited bodies, 1xx
 * interim replies, `Connection: close`.
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

export interface Job {
  request: string;
  resolve: (answer: HttpAnswer) => void;
  reject: (error: unknown) => void;
  /** Sent once already on a kept-alive connection that turned out closed. */
  retried: boolean;
}

/** Where a connection reports that it is free again or gone (the transport's pool for one origin). */
export interface ConnectionOwner {
  released(conn: Connection): void;
  dropped(conn: Connection, retry?: Job): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One persistent connection and the parser of the answer to its current request. */
export class Connection {
  private job: Job | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Requests completed on this socket: a failure on a reused socket before any byte came is a stale keep-alive. */
  private served = 0;
  private gotBytes = false;
  private dead = false;
  // parser state
  private pending: Buffer | undefined;
  private state: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers' | 'until-close' = 'head';
  private status = 0;
  private retryAfter: string | undefined;
  private keepAlive = true;
  private remaining = 0;
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

  send(job: Job, timeoutMs: number): void {
    this.job = job;
    this.gotBytes = false;
    this.resetParser();
    this.socket.ref();
    this.timer = setTimeout(() => this.fail(new TimeoutError(`no answer within ${timeoutMs} ms (callbacks.timeout)`)), timeoutMs);
    this.socket.write(job.request);
  }

  fail(error: Error): void {
    this.finishJob(undefined, error);
    this.destroy();
  }

  destroy(): void {
    this.dead = true;
    this.socket.destroy();
  }

  private resetParser(): void {
    this.pending = undefined;
    this.state = 'head';
    this.status = 0;
    this.retryAfter = undefined;
    this.keepAlive = true;
    this.remaining = 0;
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
            if (end < 0) {
              if (buf.length > 64 * 1024) throw new ConnectionError('the answer headers exceed 64 KiB', 'EPROTO');
              this.pending = buf;
              return;
            }
            const head = buf.toString('latin1', 0, end);
            buf = buf.subarray(end + 4);
            this.parseHead(head); // may complete an empty answer
            break;
          }
          case 'length':
          case 'chunk-data': {
            const take = Math.min(this.remaining, buf.length);
            this.keep(buf.subarray(0, take));
            this.remaining -= take;
            buf = buf.subarray(take);
            if (this.remaining > 0) return;
            if (this.state === 'length') this.complete();
            else this.state = 'chunk-crlf';
            break;
          }
          case 'until-close':
            this.keep(buf);
            return;
          default: {
            // chunk-size, chunk-crlf, trailers: line based
            const eol = buf.indexOf('\r\n');
            if (eol < 0) {
              this.pending = buf;
              return;
            }
            const line = buf.toString('latin1', 0, eol);
            buf = buf.subarray(eol + 2);
            if (this.state === 'chunk-crlf') this.state = 'chunk-size';
            else if (this.state === 'trailers') {
              if (line === '') this.complete();
            } else {
              const size = Number.parseInt(line.split(';', 1)[0] as string, 16);
              if (!Number.isFinite(size) || size < 0)
                throw new ConnectionError(`bad chunk size ${JSON.stringify(line)}`, 'EPROTO');
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
    // "HTTP/1.1 200 OK"
    const status = head.startsWith('HTTP/1.') && head.charCodeAt(8) === 0x20 ? Number(head.slice(9, 12)) : Number.NaN;
    if (!(status >= 100 && status <= 999)) {
      throw new ConnectionError(`not an HTTP/1.x answer: ${JSON.stringify(head.slice(0, 80))}`, 'EPROTO');
    }
    let contentLength: number | undefined;
    let chunked = false;
    let connection = head.charCodeAt(7) === 0x30 /* HTTP/1.0 */ ? 'close' : 'keep-alive';
    let start = head.indexOf('\r\n');
    while (start >= 0) {
      const end = head.indexOf('\r\n', start + 2);
      const line = end < 0 ? head.slice(start + 2) : head.slice(start + 2, end);
      start = end;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name === 'content-length') contentLength = Number(line.slice(colon + 1).trim());
      else if (name === 'transfer-encoding')
        chunked = line
          .slice(colon + 1)
          .toLowerCase()
          .includes('chunked');
      else if (name === 'connection')
        connection = line
          .slice(colon + 1)
          .trim()
          .toLowerCase();
      else if (name === 'retry-after') this.retryAfter = line.slice(colon + 1).trim();
    }
    if (status >= 100 && status < 200) {
      this.retryAfter = undefined;
      return; // interim; the real answer follows
    }
    this.status = status;
    this.keepAlive = !connection.includes('close');
    if (status === 204 || status === 304) {
      this.remaining = 0;
      this.state = 'length';
    } else if (chunked) {
      this.state = 'chunk-size';
    } else if (contentLength !== undefined && Number.isSafeInteger(contentLength) && contentLength >= 0) {
      this.remaining = contentLength;
      this.state = 'length';
    } else {
      this.state = 'until-close';
      this.keepAlive = false;
    }
    if (this.state === 'length' && this.remaining === 0) this.complete();
  }

  private keep(part: Buffer): void {
    if (this.bodyBytes >= MAX_JOURNALED_BODY * 4 || part.length === 0) return; // the rest is read and dropped
    this.bodyParts.push(Buffer.from(part));
    this.bodyBytes += part.length;
  }

  private complete(): void {
    if (!this.job) return;
    const raw = this.bodyParts.length === 1 ? (this.bodyParts[0] as Buffer) : Buffer.concat(this.bodyParts);
    let body = raw.toString('utf8');
    if (body.length > MAX_JOURNALED_BODY) body = body.slice(0, MAX_JOURNALED_BODY);
    const answer: HttpAnswer = { status: this.status, body };
    if (this.retryAfter !== undefined) answer.retryAfter = this.retryAfter;
    const reusable = this.keepAlive && this.state !== 'until-close';
    this.finishJob(answer);
    this.served++;
    if (reusable && !this.dead) {
      this.socket.unref();
      this.origin.released(this);
    } else {
      this.destroy();
    }
  }

  private onEnd(): void {
    if (this.job && this.state === 'until-close') {
      this.complete();
      return;
    }
    this.onBroken(new ConnectionError('the server closed the connection before answering', 'ECONNRESET'));
  }

  private onBroken(error: NodeJS.ErrnoException): void {
    if (this.dead && !this.job) return;
    const job = this.job;
    this.dead = true;
    this.clearTimer();
    this.job = undefined;
    this.socket.destroy();
    if (!job) {
      this.origin.dropped(this);
      return;
    }
    // A kept-alive connection the server closed while it was idle: the request never reached a
    // handler (not a byte came back), so it goes again on a fresh connection, once. This is the
    // race every keep-alive client has; it is not counted as an attempt.
    if (
      this.served > 0 &&
      !this.gotBytes &&
      !job.retried &&
      !(error instanceof InterruptedError) &&
      !(error instanceof TimeoutError)
    ) {
      job.retried = true;
      this.origin.dropped(this, job);
      return;
    }
    this.origin.dropped(this);
    job.reject(error);
  }

  private finishJob(answer: HttpAnswer | undefined, error?: Error): void {
    const job = this.job;
    if (!job) return;
    this.clearTimer();
    this.job = undefined;
    if (answer) job.resolve(answer);
    else {
      this.dead = true;
      this.origin.dropped(this);
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
