import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/callbacks/clock.ts';
import { openDatabase } from '../../src/callbacks/index.ts';
import { Outbox } from '../../src/callbacks/outbox.ts';
import { configFor, drive, engineFor, receiver, runCleanups, tempDbPath, verify } from '../../src/callbacks/test-engine.ts';

/**
 * A call is signed once, when each attempt is sent: the stored event keeps its request without a
 * signature in a header, and shows, once sent, the request its last attempt sent (signature
 * included, `attempt` naming it) — the same in memory, read back from its row, and after a restart
 * on the same file. A replay is a new call: it shows its own request, unsigned, until it is sent.
 */
afterAll(runCleanups);

describe('a call signed when it is sent', () => {
  it('shows no signature before its first attempt and its last attempt’s request after, in memory and in its row', async () => {
    let answered = 0;
    const rx = await receiver(() => (++answered === 1 ? { status: 503, body: 'busy' } : { status: 200, body: { balance: 5 } }));
    const config = configFor(rx.url);
    const clock = new FakeClock();
    const dbPath = tempDbPath();
    const engine = engineFor(config, { clock, dbPath });
    const { event, settled } = engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500 });
    // Stored, not started: no signature anywhere yet, and no attempt named.
    expect(event.request).toEqual({ method: 'POST', path: '', headers: { 'content-type': 'application/json' } });
    await Promise.resolve();
    expect(engine.outbox.get(event.id)?.request).toEqual(event.request);

    engine.start();
    const done = await drive(engine, clock, settled);
    expect(done.status).toBe('delivered');
    const [first, second] = rx.requests;
    // Two attempts a second apart, each signed at its own second, over the stored body.
    expect(verify(second!, config, clock).timestamp).toBe(Math.floor(clock.now() / 1000));
    expect(first?.headers['x-signature']).not.toBe(second?.headers['x-signature']);
    expect([first?.body, second?.body]).toEqual([event.body, event.body]);
    const attempts = engine.outbox.attempts(event.id);
    expect(done.request).toEqual({ method: 'POST', path: '', headers: attempts[1]?.requestHeaders, attempt: 2 });
    expect(done.request?.headers['X-Signature']).toBe(second?.headers['x-signature']);
    expect(engine.outbox.get(event.id)?.request).toEqual(done.request);
    expect(engine.outbox.list({ playerId: 'p1' })[0]?.request).toEqual(done.request);

    // A replay: a new call, shown unsigned until it is sent, whatever its original showed.
    const replay = engine.replay(event.id);
    expect(replay.event.request).toEqual({ method: 'POST', path: '', headers: { 'content-type': 'application/json' } });
    expect(replay.event.body).toBe(event.body);
    const replayed = await drive(engine, clock, replay.settled);
    expect(replayed.request?.attempt).toBe(1);
    expect(verify(rx.requests[2]!, config, clock).timestamp).toBe(Math.floor(clock.now() / 1000));

    // After a restart on the same file: the row still reads as its last attempt's request.
    await engine.stop();
    const reopened = openDatabase(dbPath);
    try {
      expect(new Outbox(reopened).get(event.id)?.request).toEqual(done.request);
    } finally {
      reopened.close();
    }
  });

  it('under a vendor recipe in a header (Hub88), shows the signature only once sent; in the body (Pragmatic), keeps it in the bytes', async () => {
    const rx = await receiver(() => ({ status: 200, body: { balance: 100_000, status: 'RS_OK', currency: 'EUR' } }));
    const clock = new FakeClock();
    const hub88 = engineFor(configFor(rx.url, { profile: 'hub88' }), { clock });
    const { event, settled } = hub88.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500, roundId: '1', gameId: 'g1' });
    const names = (headers: Record<string, string> | undefined) => Object.keys(headers ?? {}).map((h) => h.toLowerCase());
    expect(names(event.request?.headers)).not.toContain('x-hub88-signature');
    hub88.start();
    const done = await drive(hub88, clock, settled);
    const sent = rx.requests[0];
    expect(sent?.headers['x-hub88-signature']).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    expect(names(done.request?.headers)).toContain('x-hub88-signature');
    expect(done.request?.attempt).toBe(1);

    const pragmatic = engineFor(configFor('http://x.invalid/cb', { profile: 'pragmatic' }));
    const form = pragmatic.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 500, roundId: '1', gameId: 'g1' }).event;
    expect(form.body).toMatch(/(^|&)hash=[0-9a-f]{32}(&|$)/);
    expect(form.request?.attempt).toBeUndefined();
  });
});
