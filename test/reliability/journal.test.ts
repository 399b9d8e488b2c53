import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine, UNANSWERED_ATTEMPT } from '../../src/callbacks/engine.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { startTestReceiver } from '../../src/callbacks/test-receiver.ts';
import { configSchema } from '../../src/config/index.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** The journal lists every request a receiver saw, also across a crash in the middle of one. */
describe('attempt journal after a crash', () => {
  it('journals the attempt a crash cut off, and the re-sent one after the restart as a new attempt', async () => {
    let mode: 'fail' | 'hang' | 'ok' = 'fail';
    const rx = await startTestReceiver(() =>
      mode === 'fail' ? { status: 500, body: 'down' } : mode === 'hang' ? { hang: true } : { status: 200, body: { balance: 1 } },
    );
    cleanups.push(() => rx.close());
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-journal-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'outbox.db');
    const config = configSchema.parse({
      callbacks: { webhookUrl: rx.url, jitter: 0, retrySchedule: [0, 100, 100, 100], timeout: 60_000 },
    });

    const crashed = createCallbackEngine({ config, db: openDatabase(path), random: seededRandom(1) });
    crashed.start();
    const { event } = crashed.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100 });
    await expect.poll(() => rx.requests.length).toBe(1); // attempt 1: HTTP 500
    mode = 'hang';
    await expect.poll(() => rx.requests.length).toBe(2); // attempt 2: on the wire when the process dies
    // The "crash": the first engine is abandoned mid-attempt, never stopped; a new one opens the file.
    mode = 'ok';
    const db = openDatabase(path);
    const restarted = createCallbackEngine({ config, db, random: seededRandom(2) });
    cleanups.push(async () => {
      await restarted.stop({ deadlineMs: 0 });
      db.close();
    });
    const settled = new Promise((resolve) => restarted.onSettled(resolve));
    restarted.start();
    await settled;

    expect(rx.requests).toHaveLength(3);
    const journal = restarted.outbox.attempts(event.id);
    expect(journal.map((a) => [a.n, a.outcome])).toEqual([
      [1, 'retry'],
      [2, 'retry'],
      [3, 'delivered'],
    ]);
    expect(journal[1]?.error).toBe(UNANSWERED_ATTEMPT);
  });
});
