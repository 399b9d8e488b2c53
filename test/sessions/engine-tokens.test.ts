import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { EnqueueRequest } from '../../src/callbacks/events.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { SessionTokens } from '../../src/callbacks/session-tokens.ts';
import { onCleanup, runCleanups, tempDbPath } from '../../src/callbacks/test-engine.ts';
import { type AggmockConfig, configSchema } from '../../src/config/index.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import type { ReceiverStyle } from '../dialects/receivers/receiver-style.ts';

/*
 * Tokens a wallet hands over are adopted by every later call of the engine (issue 32 item 3):
 * Evolution's /check may answer a fresh sid, after which a style-B wallet refuses the old one
 * (INVALID_SID). Proven both ways: a wallet that rotates and one that keeps its sid take every call;
 * a refused /check hands nothing over; the adopted sid survives a restart of the engine on the same
 * outbox file, and a call queued before the handover goes out with the new sid.
 */

afterEach(runCleanups);

const LAUNCH = 'tok-player01-0123456789abcdef0123456789';
const PLAYERS = [{ playerId: 'player01', currency: 'EUR', balance: '100.00', token: LAUNCH }];

async function evolution(style: ReceiverStyle): Promise<VendorReceiver> {
  const rx = await startEvolutionReceiver({ credentials: { authToken: 'evo-token-1' }, players: PLAYERS, style });
  onCleanup(() => rx.stop());
  return rx;
}

function configOf(url: string): AggmockConfig {
  return configSchema.parse({
    seed: 'tokens',
    callbacks: {
      webhookUrl: url,
      profile: 'evolution',
      credentials: { authToken: 'evo-token-1' },
      sessionTokens: { player01: LAUNCH },
      retrySchedule: [0],
      jitter: 0,
    },
  });
}

function engineOn(config: AggmockConfig, dbPath: string) {
  const db = openDatabase(dbPath);
  const engine = createCallbackEngine({ config, db, random: seededRandom(1) });
  engine.start();
  const close = async () => {
    await engine.stop({ deadlineMs: 0 });
    db.close();
  };
  return { engine, close };
}

const check: EnqueueRequest = { kind: 'credit', operation: 'authenticate', playerId: 'player01', amountMinor: 0 };
const bet = (tx: string): EnqueueRequest => ({
  kind: 'debit',
  playerId: 'player01',
  amountMinor: 100,
  transactionId: tx,
  roundId: `r-${tx}`,
});

const sids = (rx: VendorReceiver, path: string) => rx.log.filter((e) => e.path === path).map((e) => e.fields.sid);
/** The sid the first reply to `path` answered. */
const answeredSid = (rx: VendorReceiver, path: string) =>
  (rx.log.find((e) => e.path === path)?.reply as { sid?: string } | undefined)?.sid;

describe('the engine adopts a session token a reply hands over', () => {
  it.each(['A', 'B'] as const)(
    'plays /check then a bet with the sid /check answered (style %s: rotated or kept)',
    async (style) => {
      const rx = await evolution(style);
      const { engine, close } = engineOn(configOf(rx.url), ':memory:');
      onCleanup(close);
      const auth = await engine.enqueue(check).settled;
      expect(auth.status).toBe('delivered');
      const answered = rx.log.at(-1)?.reply as { sid: string };
      const placed = await engine.enqueue(bet('tx1')).settled;
      expect(placed.status).toBe('delivered');
      expect(sids(rx, '/debit')).toEqual([answered.sid]);
      if (style === 'B') expect(answered.sid).not.toBe(LAUNCH);
      // A second /check goes with the current sid, so a wallet that rotates on every check is followed.
      await engine.enqueue(check).settled;
      expect(sids(rx, '/check')).toEqual([LAUNCH, answered.sid]);
      expect((await engine.enqueue(bet('tx2')).settled).status).toBe('delivered');
      expect(rx.errors).toEqual([]);
    },
  );

  it('adopts nothing from a refused /check: the next call keeps the token it had', async () => {
    const rx = await evolution('B');
    const config = configOf(rx.url);
    const wrong = { ...config, callbacks: { ...config.callbacks, sessionTokens: { player01: 'never-issued-token' } } };
    const { engine, close } = engineOn(wrong, ':memory:');
    onCleanup(close);
    expect((await engine.enqueue(check).settled).status).toBe('rejected');
    await engine.enqueue(bet('tx1')).settled;
    expect(sids(rx, '/debit')).toEqual(['never-issued-token']);
  });

  it('keeps the adopted sid across a restart on the same outbox file', async () => {
    const rx = await evolution('B');
    const dbPath = tempDbPath();
    const first = engineOn(configOf(rx.url), dbPath);
    await first.engine.enqueue(check).settled;
    const answered = answeredSid(rx, '/check');
    await first.close();
    const second = engineOn(configOf(rx.url), dbPath);
    onCleanup(second.close);
    expect((await second.engine.enqueue(bet('tx1')).settled).status).toBe('delivered');
    expect(sids(rx, '/debit')).toEqual([answered]);
  });

  it('sends a call queued before the handover with the new sid (its ids unchanged)', async () => {
    const rx = await evolution('B');
    const { engine, close } = engineOn(configOf(rx.url), ':memory:');
    onCleanup(close);
    // Enqueued in one turn: the bet is stored (with the launch sid) before /check is even sent.
    const [auth, queued] = engine.enqueueMany([check, bet('tx-queued')]);
    expect(queued?.event.facts?.sessionToken).toBe(LAUNCH);
    await auth?.settled;
    const placed = await queued?.settled;
    const answered = answeredSid(rx, '/check');
    expect(placed?.status).toBe('delivered');
    expect(sids(rx, '/debit')).toEqual([answered]);
    expect(rx.log.find((e) => e.path === '/debit')?.fields.transaction).toMatchObject({ id: 'tx-queued' });
  });
});

describe('SessionTokens', () => {
  it('follows a chain of handovers from the token a session began with, and forgets on clear', () => {
    const db = openDatabase(':memory:');
    onCleanup(() => db.close());
    const tokens = new SessionTokens(db);
    expect(tokens.currentOf('launch')).toBe('launch');
    tokens.handOver('launch', 't1', 'p1', 1);
    tokens.handOver('t1', 't2', 'p1', 2);
    expect([tokens.currentOf('launch'), tokens.currentOf('t1'), tokens.currentOf('t2')]).toEqual(['t2', 't2', 't2']);
    expect(tokens.currentOf('another')).toBe('another');
    expect(new SessionTokens(db).currentOf('launch')).toBe('t2');
    tokens.clear();
    expect(tokens.currentOf('launch')).toBe('launch');
    expect(new SessionTokens(db).currentOf('launch')).toBe('launch');
  });
});
