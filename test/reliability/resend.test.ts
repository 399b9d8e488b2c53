import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configFor, engineFor, onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';

/**
 * The journal lists every request a wallet saw (security review L4). A kept-alive connection that
 * closes after the request was written, with no byte of answer, may have had the request applied:
 * the transport never re-sends it behind the journal's back. The engine retries it as an attempt of
 * its own, so a double debit shows as two journaled attempts, not as unexplained balance drift.
 */

afterEach(runCleanups);

/**
 * The review's dropper-wallet.mjs: a keep-alive wallet that applies the second request of each
 * connection and then closes the socket without answering. It is not idempotent on purpose.
 */
async function dropperWallet(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    let served = 0;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = JSON.parse(buffered.slice(end + 4, end + 4 + length)) as { transactionId: string };
        buffered = buffered.slice(end + 4 + length);
        seen.push(body.transactionId);
        served++;
        if (served === 2) {
          socket.destroy();
          return;
        }
        const out = JSON.stringify({ balance: 100 });
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${out.length}\r\n\r\n${out}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}/cb`, seen };
}

describe('a kept-alive connection that closes after the request was written', () => {
  it('journals every request the wallet saw: the dropped one fails as its own attempt, saying the wallet may have applied it', async () => {
    const wallet = await dropperWallet();
    const engine = engineFor(configFor(wallet.url, { retrySchedule: [0, 0, 0], concurrency: 1 }));
    engine.start();
    const first = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1000 }).settled;
    const second = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1000 }).settled;
    expect(first.status).toBe('delivered');
    expect(second.status).toBe('delivered');
    const attempts = engine.outbox.attempts(second.id);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    expect(attempts[0]?.error).toContain('the wallet may have applied it');
    // The wallet saw the second DEBIT twice; the journal lists both.
    const journaled = [first, second].flatMap((e) => engine.outbox.attempts(e.id).map(() => e.transactionId));
    expect(wallet.seen).toEqual(journaled);
  });
});
