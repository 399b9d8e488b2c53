import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configFor, engineFor, onCleanup, receiver, runCleanups } from '../../src/callbacks/test-engine.ts';

afterEach(runCleanups);

/** A loopback service that accepts connections and never answers (test/security/tools/tarpit.mjs, in-process). */
async function tarpit(): Promise<{ url: string; connections: () => number }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/x`, connections: () => connections };
}

/**
 * M1 of the 2026-11-25 review: sessions whose callback_url is a loopback port that never answers
 * held every delivery slot for the whole timeout, and the real wallet's callbacks waited behind them.
 */
describe('callback engine: a tarpit callback_url cannot starve the webhook', () => {
  it("delivers the webhook's events while the tarpit's attempts are still in flight, and gives the tarpit a quarter of the pool", async () => {
    const wallet = await receiver();
    const pit = await tarpit();
    const engine = engineFor(configFor(wallet.url, { concurrency: 8, timeout: 4_000 }));
    const ended: string[] = [];
    engine.onAttempt((_attempt, event) => ended.push(event.url === pit.url ? 'tarpit' : 'wallet'));
    engine.start();
    for (let i = 0; i < 20; i++) engine.enqueue({ kind: 'debit', playerId: `t${i}`, amountMinor: 100, url: pit.url });
    // The tarpit takes every slot it may before the wallet's events arrive (before the fix: all 8).
    while (pit.connections() < 2) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));

    const queued = Array.from({ length: 5 }, (_, i) => engine.enqueue({ kind: 'credit', playerId: `w${i}`, amountMinor: 100 }));
    const settled = await Promise.all(queued.map((q) => q.settled));

    expect(settled.map((e) => e.status)).toEqual(Array(5).fill('delivered'));
    expect(wallet.requests).toHaveLength(5);
    // No tarpit attempt ended first: the wallet's went out beside them, not after their timeout.
    expect(ended.filter((x) => x === 'tarpit')).toEqual([]);
    // One origin other than the webhook's: a quarter of the pool.
    expect(pit.connections()).toBe(2);
    expect(engine.inFlight()).toBe(2);
  });
});
