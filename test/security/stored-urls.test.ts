import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/callbacks/index.ts';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * A launch's callback_url is judged when the game is launched and when it is spun, but the event
 * it leaves in the outbox outlives both: a replay, or a resume after a restart under a stricter
 * `callbacks.allowedUrls`, must not send it where today's policy refuses.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function receiver(respond?: Parameters<typeof startTestReceiver>[0]): Promise<TestReceiver> {
  const rx = await startTestReceiver(respond);
  cleanups.push(() => rx.close());
  return rx;
}

async function start(db: string, callbacks: AggmockConfigInput['callbacks']): Promise<Aggmock> {
  const aggmock = await startAggmock(
    validateConfig({ db, port: 0, host: '127.0.0.1', catalog: { providers: 2, games: 10 }, callbacks }),
    { stopDeadlineMs: 0 },
  );
  cleanups.push(() => aggmock.close());
  return aggmock;
}

function dbFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-stored-urls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'aggmock.db');
}

async function settledEvent(aggmock: Aggmock, id: number): Promise<StoredEvent> {
  for (;;) {
    const event = aggmock.engine.outbox.get(id);
    if (event && event.status !== 'pending' && event.status !== 'delivering') return event;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('stored event URLs are judged by the current callbacks.allowedUrls', () => {
  it('an event resumed after a restart whose URL the new list refuses ends failed, and is not sent again', async () => {
    const wallet = await receiver();
    const sink = await receiver(() => ({ hang: true }));
    const db = dbFile();
    const first = await start(db, { webhookUrl: wallet.url });
    const { event } = first.engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100, url: sink.url, source: 'play' });
    while (sink.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await first.close(); // cut off mid-attempt: the event stays pending in the outbox

    const second = await start(db, { webhookUrl: wallet.url, allowedUrls: [wallet.url] });
    const resumed = await settledEvent(second, event.id);
    expect(resumed.status).toBe('failed');
    expect(resumed.error).toMatch(/not sent: its URL .* is not allowed now \(expected a URL allowed by callbacks\.allowedUrls/);
    expect(sink.requests).toHaveLength(1);
  });

  it('a replay of an event whose URL the current list refuses ends failed, and is not sent', async () => {
    const wallet = await receiver();
    const sink = await receiver();
    const db = dbFile();
    const first = await start(db, { webhookUrl: wallet.url });
    const { settled } = first.engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100, url: sink.url, source: 'play' });
    const delivered = await settled;
    expect(delivered.status).toBe('delivered');
    await first.close();

    const second = await start(db, { webhookUrl: wallet.url, allowedUrls: [wallet.url] });
    const res = await fetch(`${second.url}/__admin/deliveries/${delivered.id}/replay?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const replayed = ((await res.json()) as { event: { id: number } }).event;
    const event = await settledEvent(second, replayed.id);
    expect(event.status).toBe('failed');
    expect(event.error).toContain('is not allowed now');
    expect(sink.requests).toHaveLength(1);
  });

  it('still replays an event to the configured webhook', async () => {
    const wallet = await receiver();
    const aggmock = await start(':memory:', { webhookUrl: wallet.url, allowedUrls: ['http://x.invalid/'] });
    const { settled } = aggmock.engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100 });
    const original = await settled;
    const replay = aggmock.engine.replay(original.id);
    expect((await replay.settled).status).toBe('delivered');
    expect(wallet.requests).toHaveLength(2);
  });
});
