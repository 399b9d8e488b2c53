import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { type CallbackEngine, createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { MAX_JOURNALED_BODY } from '../../src/callbacks/outbox.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { createTransport, type Transport } from '../../src/callbacks/transport.ts';
import { configSchema } from '../../src/config/index.ts';

/**
 * The callback client against wallet servers that answer with broken, hostile or merely unusual
 * HTTP: raw TCP servers on 127.0.0.1 write the exact bytes. Whatever comes back, aggmock must not
 * crash, hang past its timeout, read a broken answer as an acceptance, or reuse a connection that
 * is out of step; and every legal shape of answer must still be read.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

type Script = (socket: net.Socket, index: number) => void;

/** A TCP server that runs `script` for each whole request it reads (requests are framed by Content-Length). */
async function hostile(script: Script): Promise<{ url: string; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        if (socket.destroyed || socket.writableEnded) return;
        script(socket, requests++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/wallet`, connections: () => connections, requests: () => requests };
}

const answer =
  (text: string): Script =>
  (socket) =>
    socket.write(text);

/** Writes `text` one byte per write, a millisecond apart. */
const dribble =
  (text: string): Script =>
  (socket) => {
    let i = 0;
    const next = () => {
      if (socket.destroyed || i >= text.length) return;
      socket.write(text[i++] as string);
      setTimeout(next, 1);
    };
    next();
  };

/** Writes `piece` again and again until the socket closes. */
const endless =
  (first: string, piece: string): Script =>
  (socket) => {
    socket.write(first);
    const timer = setInterval(() => {
      if (socket.destroyed) clearInterval(timer);
      else socket.write(piece);
    }, 1);
  };

function transport(options: { maxSockets?: number; timeoutMs?: number } = {}): Transport {
  const t = createTransport({ maxSockets: options.maxSockets ?? 4, timeoutMs: options.timeoutMs ?? 3_000 });
  cleanups.push(() => t.close());
  return t;
}

/** The promise's outcome, or 'hung' when it has none after `ms`: a test fails instead of hanging. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The answer or the error (its code and message) a post ends with. */
async function outcome(t: Transport, url: string, ms = 5_000) {
  const result = await within(
    ms,
    t.post(url, { 'Content-Type': 'application/json' }, '{"type":"DEBIT"}').then(
      (a) => ({ ok: a }),
      (e: NodeJS.ErrnoException) => ({ code: e.code, message: e.message }),
    ),
  );
  return result;
}

const OK = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('broken answers fail the attempt as a protocol error, never read as an answer', () => {
  // Each would otherwise be read as an acceptance, misframed, or waited on until the timeout.
  const BROKEN: [string, Script, RegExp][] = [
    ['a four-digit status', answer('HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\n{}'), /not an HTTP\/1\.x answer/],
    ['a status in exponent notation', answer('HTTP/1.1 2e2 OK\r\nContent-Length: 2\r\n\r\n{}'), /not an HTTP\/1\.x answer/],
    ['a status run into its reason', answer('HTTP/1.1 200x OK\r\nContent-Length: 2\r\n\r\n{}'), /not an HTTP\/1\.x answer/],
    ['a lowercase protocol name', answer('http/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'), /not an HTTP\/1\.x answer/],
    ['garbage before the status line', answer(`xyz${OK('{}')}`), /not an HTTP\/1\.x answer/],
    ['bare-LF line endings', answer('HTTP/1.1 200 OK\nContent-Length: 2\n\n{}'), /bare LF/],
    ['a bare LF hiding a header', answer('HTTP/1.1 200 OK\nContent-Length: 2\r\nX-A: b\r\n\r\n{}'), /bare LF/],
    [
      'conflicting Content-Length headers',
      answer('HTTP/1.1 200 OK\r\nContent-Length: 40\r\nContent-Length: 2\r\n\r\n{}{"balance":1}'),
      /conflicting Content-Length/,
    ],
    ['a hex Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: 0x2\r\n\r\n{}'), /bad Content-Length/],
    ['an empty Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n{}'), /bad Content-Length/],
    ['a negative Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}'), /bad Content-Length/],
    ['a non-numeric Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\n{}'), /bad Content-Length/],
    ['a huge Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n{}'), /bad Content-Length/],
    ['a folded Content-Length', answer('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n 0\r\n\r\n{}'), /folded framing header/],
    [
      'a chunk longer than announced',
      answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}"balance":1}\r\n0\r\n\r\n'),
      /chunk is longer than its announced size/,
    ],
    [
      'a chunk size with trailing junk',
      answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2zz\r\n{}\r\n0\r\n\r\n'),
      /bad chunk size "2zz"/,
    ],
    [
      'a chunk size with a 0x prefix',
      answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n'),
      /bad chunk size "0x2"/,
    ],
    [
      'a chunk size that is not hex',
      answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'),
      /bad chunk size/,
    ],
    [
      'an endless chunk-size line',
      endless('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'f'.repeat(16 * 1024)),
      /chunk-size or trailer line exceeds 64 KiB/,
    ],
    [
      'endless trailers',
      endless('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n', 'X-T: y\r\n'.repeat(2048)),
      /trailers exceed 64 KiB/,
    ],
    [
      'a 1 MB header block',
      answer(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(1 << 20)}\r\nContent-Length: 2\r\n\r\n{}`),
      /exceed 64 KiB/,
    ],
    [
      'a 101 Switching Protocols nobody asked for',
      answer('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello'),
      /switched protocols/,
    ],
  ];

  for (const [name, script, message] of BROKEN) {
    it(name, async () => {
      const server = await hostile(script);
      const t = transport({ timeoutMs: 3_000 });
      // EPROTO, not ETIMEDOUT: refused as soon as it is seen, not waited on.
      expect(await outcome(t, server.url)).toEqual({ code: 'EPROTO', message: expect.stringMatching(message) });
      // The transport goes on working: the next request gets a fresh connection.
      expect(await outcome(t, server.url)).toMatchObject({ code: 'EPROTO' });
      expect(server.connections()).toBe(2);
    });
  }
});

describe('answers that never end are cut at the timeout, with an error that says how far they got', () => {
  it('an endless close-delimited body: the kept body stays bounded, the error names it', async () => {
    const server = await hostile(endless('HTTP/1.1 200 OK\r\n\r\n', 'x'.repeat(64 * 1024)));
    expect(await outcome(transport({ timeoutMs: 300 }), server.url)).toEqual({
      code: 'ETIMEDOUT',
      message: expect.stringMatching(/no answer within 300 ms.*HTTP 200, a body that ends when the server closes/),
    });
  });

  it('a flood of 100 Continue answers', async () => {
    const server = await hostile(endless('', 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(50)));
    expect(await outcome(transport({ timeoutMs: 300 }), server.url)).toEqual({
      code: 'ETIMEDOUT',
      message: expect.stringMatching(/no answer within 300 ms.*\d+ interim \(1xx\) answers/),
    });
  });

  it('a Content-Length body that stops short, then the server closes', async () => {
    const server = await hostile((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"bal'));
    expect(await outcome(transport(), server.url)).toEqual({
      code: 'ECONNRESET',
      message: expect.stringMatching(
        /closed the connection mid-answer \(HTTP 200, 45 bytes of its Content-Length body missing\)/,
      ),
    });
  });

  it('a chunked body without its final CRLF, then the server closes', async () => {
    const server = await hostile((socket) => socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n'));
    expect(await outcome(transport(), server.url)).toMatchObject({
      code: 'ECONNRESET',
      message: expect.stringMatching(/mid-answer/),
    });
  });

  it('a reset in the middle of the body', async () => {
    const server = await hostile((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"bal');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    expect(await outcome(transport(), server.url)).toMatchObject({ code: 'ECONNRESET' });
  });
});

describe('every legal shape of answer is still read', () => {
  const BALANCE = '{"balance":1}';
  const LEGAL: [string, Script, { status: number; body: string; retryAfter?: string }][] = [
    ['Content-Length', answer(OK(BALANCE)), { status: 200, body: BALANCE }],
    [
      'a status line without a reason phrase',
      answer(`HTTP/1.1 200\r\nContent-Length: 13\r\n\r\n${BALANCE}`),
      { status: 200, body: BALANCE },
    ],
    [
      'duplicate equal Content-Length headers, and a list of equal values',
      answer(`HTTP/1.1 200 OK\r\nContent-Length: 13\r\ncontent-length: 13, 13\r\n\r\n${BALANCE}`),
      { status: 200, body: BALANCE },
    ],
    [
      'chunked with extensions, uppercase hex, leading zeros and trailers',
      answer(
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n00D ;name="x y"\r\n${BALANCE}\r\n0;last\r\nX-Trailer: t\r\n\r\n`,
      ),
      { status: 200, body: BALANCE },
    ],
    [
      'chunked, one byte per write',
      dribble(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n${BALANCE}\r\n0\r\n\r\n`),
      { status: 200, body: BALANCE },
    ],
    ['a header block one byte per write', dribble(OK(BALANCE)), { status: 200, body: BALANCE }],
    [
      '100 Continue and 103 Early Hints, then the answer',
      answer(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\nRetry-After: 9\r\n\r\n${OK(BALANCE)}`),
      { status: 200, body: BALANCE },
    ],
    [
      'an obs-fold continuation of an ordinary header',
      answer(`HTTP/1.1 429 Slow\r\nX-Note: a\r\n Content-Length: 999\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\n{}`),
      { status: 429, body: '{}', retryAfter: '7' },
    ],
    ['a 204 without a body', answer('HTTP/1.1 204 No Content\r\n\r\n'), { status: 204, body: '' }],
    [
      'a close-delimited HTTP/1.0 body',
      (socket) => socket.end(`HTTP/1.0 200 OK\r\n\r\n${BALANCE}`),
      { status: 200, body: BALANCE },
    ],
    [
      'a close-delimited HTTP/1.1 body',
      (socket) => socket.end(`HTTP/1.1 503 Busy\r\nRetry-After: 2\r\n\r\nlater`),
      { status: 503, body: 'later', retryAfter: '2' },
    ],
  ];

  for (const [name, script, expected] of LEGAL) {
    it(name, async () => {
      const server = await hostile(script);
      const t = transport({ maxSockets: 1 });
      expect(await outcome(t, server.url)).toEqual({ ok: expected });
      expect(await outcome(t, server.url)).toEqual({ ok: expected });
    });
  }

  it('keeps one connection for many requests when the server keeps it', async () => {
    const server = await hostile(answer(OK(BALANCE)));
    const t = transport();
    for (let i = 0; i < 20; i++) expect(await outcome(t, server.url)).toEqual({ ok: { status: 200, body: BALANCE } });
    expect(server.connections()).toBe(1);
  });

  it('reuses an HTTP/1.0 connection only when it says keep-alive', async () => {
    const server = await hostile((socket, i) =>
      socket.write(`HTTP/1.0 200 OK\r\nConnection: ${i < 2 ? 'keep-alive' : 'x-other'}\r\nContent-Length: 1\r\n\r\n${i}`),
    );
    const t = transport({ maxSockets: 1 });
    for (let i = 0; i < 4; i++) expect(await outcome(t, server.url)).toEqual({ ok: { status: 200, body: String(i) } });
    // 0, 1 and 2 on the first connection (2 does not keep it), 3 on a second one.
    expect(server.connections()).toBe(2);
  });
});

describe('the keep-alive pool against servers that close, reset or talk out of turn', () => {
  it('does not leak a pool slot per connection the answer closes (Connection: close, close-delimited)', async () => {
    const server = await hostile((socket, i) =>
      i % 2 === 0
        ? socket.write(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n${i}`)
        : socket.end(`HTTP/1.0 200 OK\r\n\r\n${i}`),
    );
    const t = transport({ maxSockets: 1, timeoutMs: 2_000 });
    for (let i = 0; i < 4; i++) expect(await outcome(t, server.url, 2_500)).toEqual({ ok: { status: 200, body: String(i) } });
    expect(server.connections()).toBe(4);
  });

  it('drops an idle connection that receives bytes nobody asked for; the next request goes out on a new one', async () => {
    const server = await hostile((socket, i) => {
      socket.write(OK(`{"balance":${i}}`));
      if (i === 0) setTimeout(() => socket.write(OK('{"balance":666}')), 20);
    });
    const t = transport({ maxSockets: 1, timeoutMs: 2_000 });
    expect(await outcome(t, server.url)).toEqual({ ok: { status: 200, body: '{"balance":0}' } });
    await new Promise((resolve) => setTimeout(resolve, 80)); // the stray answer arrives while the connection is idle
    expect(await outcome(t, server.url, 2_500)).toEqual({ ok: { status: 200, body: '{"balance":1}' } });
    expect({ connections: server.connections(), requests: server.requests() }).toEqual({ connections: 2, requests: 2 });
  });

  it('does not reuse a connection whose answer came with bytes past its end', async () => {
    const server = await hostile((socket, i) =>
      socket.write(i === 0 ? `HTTP/1.1 204 No Content\r\n\r\n${OK('{"balance":666}')}` : OK(`{"balance":${i}}`)),
    );
    const t = transport({ maxSockets: 1 });
    expect(await outcome(t, server.url)).toEqual({ ok: { status: 204, body: '' } });
    // Its own answer, not the stray 200 that followed the 204.
    expect(await outcome(t, server.url)).toEqual({ ok: { status: 200, body: '{"balance":1}' } });
    expect(server.connections()).toBe(2);
  });

  it('never sends a request twice when the server closes right after an answer: one written into the closing connection fails saying so', async () => {
    const server = await hostile((socket, i) => {
      socket.write(OK(`{"balance":${i}}`));
      socket.destroy();
    });
    const t = transport({ maxSockets: 1 });
    const results = await Promise.all([outcome(t, server.url), outcome(t, server.url), outcome(t, server.url)]);
    expect(results[0]).toEqual({ ok: { status: 200, body: '{"balance":0}' } });
    // Each either answered on a fresh connection, or failed naming the risk: never re-sent here
    // (the engine retries it as a journaled attempt of its own).
    const isAnswer = (r: (typeof results)[number]) => typeof r === 'object' && 'ok' in r;
    for (const result of results) {
      if (!isAnswer(result))
        expect(result).toMatchObject({ code: 'ECONNRESET', message: expect.stringContaining('may have applied it') });
    }
    const answered = results.filter(isAnswer).length;
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(server.requests()).toBeLessThanOrEqual(3);
    expect(server.connections()).toBe(answered);
  });
});

// ---- through the engine: journaled, retried, settled as docs/callbacks.md says ----

function engineAt(url: string, callbacks: Record<string, unknown> = {}): CallbackEngine {
  const config = configSchema.parse({
    seed: 'hostile-servers',
    callbacks: { webhookUrl: url, jitter: 0, retrySchedule: [0, 10], timeout: 1_000, ...callbacks },
  });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db, random: seededRandom(1) });
  cleanups.push(async () => {
    await engine.stop({ deadlineMs: 0 });
    db.close();
  });
  engine.start();
  return engine;
}

async function settled(engine: CallbackEngine, events: Promise<StoredEvent>[], ms = 8_000): Promise<StoredEvent[]> {
  const result = await within(ms, Promise.all(events));
  if (result === 'hung') {
    const stuck = engine.outbox.list({ limit: 1_000 }).filter((e) => !['delivered', 'rejected', 'failed'].includes(e.status));
    throw new Error(`${stuck.length} event(s) never settled (in flight: ${engine.inFlight()})`);
  }
  return result;
}

describe('through the engine', () => {
  it('delivers every event to a wallet that closes each connection after its answer (no stall after `concurrency` answers)', async () => {
    const server = await hostile((socket, i) =>
      i % 2 === 0
        ? socket.end(`HTTP/1.0 200 OK\r\n\r\n{"balance":${i}}`)
        : socket.write(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`),
    );
    const engine = engineAt(server.url, { concurrency: 2 });
    const queued = Array.from(
      { length: 12 },
      (_, i) => engine.enqueue({ kind: 'credit', playerId: `p${i}`, amountMinor: 100 + i }).settled,
    );
    const events = await settled(engine, queued);
    expect(events.map((e) => e.status)).toEqual(Array(12).fill('delivered'));
    expect(events.map((e) => e.attemptCount)).toEqual(Array(12).fill(1));
    expect(server.requests()).toBe(12);
  });

  it('never delivers a broken 2xx: retried with a journaled protocol error, failed, and the DEBIT rolled back', async () => {
    const server = await hostile((socket) => socket.write('HTTP/1.1 2000 OK\r\nContent-Length: 13\r\n\r\n{"balance":1}'));
    const engine = engineAt(server.url);
    const rolledBack = new Promise<StoredEvent>((resolve) =>
      engine.onSettled((event) => {
        if (event.kind === 'rollback') resolve(event);
      }),
    );
    const [debit] = await settled(engine, [engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500 }).settled]);
    expect(debit).toMatchObject({
      status: 'failed',
      attemptCount: 2,
      error: expect.stringMatching(/EPROTO: not an HTTP\/1\.x answer.*gave up after 2/),
    });
    const attempts = engine.outbox.attempts(debit!.id);
    expect(attempts.map((a) => [a.outcome, a.responseStatus, a.requestBody])).toEqual([
      ['retry', undefined, debit!.body],
      ['failed', undefined, debit!.body],
    ]);
    for (const a of attempts) expect(a.error).toMatch(/EPROTO: not an HTTP\/1\.x answer: "HTTP\/1\.1 2000 OK/);
    const rollback = await within(8_000, rolledBack);
    expect(rollback).toMatchObject({ kind: 'rollback', transactionId: debit!.transactionId, status: 'failed' });
  });

  it('honours Retry-After in every spelling, bounded by retryAfterMax, and settles', async () => {
    const spellings = [
      'Wed, 21 Oct 2015 07:28:00 GMT',
      'Fri, 01 Jan 2100 00:00:00 GMT',
      '-5',
      '99999999999999999999999',
      'soon',
      '0',
    ];
    const server = await hostile((socket, i) => {
      const body = '{"error":"BUSY"}';
      socket.write(
        `HTTP/1.1 503 Busy\r\nRetry-After: ${spellings[Math.floor(i / 2)]}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const engine = engineAt(server.url, { retryAfterMax: 150 });
    const events: StoredEvent[] = [];
    for (const [i] of spellings.entries()) {
      // One after another, so the server knows which spelling each request gets.
      const [event] = await settled(engine, [engine.enqueue({ kind: 'credit', playerId: `p${i}`, amountMinor: 1 }).settled]);
      events.push(event!);
    }
    for (const event of events) {
      expect(event).toMatchObject({
        status: 'failed',
        attemptCount: 2,
        error: expect.stringMatching(/HTTP 503 BUSY: will retry/),
      });
      const [first, second] = engine.outbox.attempts(event.id);
      expect([first?.responseStatus, second?.responseStatus]).toEqual([503, 503]);
      // The wait between the attempts is at least the schedule's and at most retryAfterMax (plus slack).
      expect(second!.startedAt - first!.startedAt).toBeGreaterThanOrEqual(10);
      expect(second!.startedAt - first!.startedAt).toBeLessThan(150 + 2_000);
    }
  });

  it('delivers a 2xx JSON object whose balance is unreadable, journaling the body as it came', async () => {
    const bodies = ['{"balance":"NaN"}', '{"balance":1e309}', '{"balance":-1e309,"error":0}'];
    const server = await hostile((socket, i) => socket.write(OK(bodies[i] as string)));
    const engine = engineAt(server.url);
    for (const [i, body] of bodies.entries()) {
      const [event] = await settled(engine, [engine.enqueue({ kind: 'credit', playerId: `p${i}`, amountMinor: 1 }).settled]);
      expect(event).toMatchObject({ status: 'delivered', attemptCount: 1 });
      expect(engine.outbox.attempts(event!.id).map((a) => a.responseBody)).toEqual([body]);
    }
  });

  it('an endless body is cut at the timeout, journaled within the limit, then retried', async () => {
    const server = await hostile(
      endless('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"balance":', '1'.repeat(64 * 1024)),
    );
    const engine = engineAt(server.url, { timeout: 300 });
    const [event] = await settled(engine, [engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 }).settled]);
    expect(event).toMatchObject({
      status: 'failed',
      attemptCount: 2,
      error: expect.stringMatching(/ETIMEDOUT: no answer within 300 ms/),
    });
    for (const a of engine.outbox.attempts(event!.id))
      expect((a.responseBody ?? '').length).toBeLessThanOrEqual(MAX_JOURNALED_BODY);
  });

  it('after the wallet closes idle connections, the next callback is neither lost nor counted twice', async () => {
    const seen: string[] = [];
    const wallet = http.createServer({ keepAliveTimeout: 30 }, (req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1}');
      });
    });
    await new Promise<void>((resolve) => wallet.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      wallet.closeAllConnections();
      return new Promise<void>((resolve) => wallet.close(() => resolve()));
    });
    const engine = engineAt(`http://127.0.0.1:${(wallet.address() as AddressInfo).port}/`);
    const events: StoredEvent[] = [];
    for (let i = 0; i < 4; i++) {
      const [event] = await settled(engine, [engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 1 + i }).settled]);
      events.push(event!);
      await new Promise((resolve) => setTimeout(resolve, 80)); // the wallet drops the idle connection
    }
    expect(events.map((e) => [e.status, e.attemptCount])).toEqual(Array(4).fill(['delivered', 1]));
    expect(seen).toEqual(events.map((e) => e.body));
  });
});
