import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/callbacks/clock.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { seededRandom } from '../../src/callbacks/random.ts';
import { configFor, engineFor, onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { withWallet } from '../../src/cli/commands/demo.ts';
import { configSchema, validateConfig } from '../../src/config/index.ts';
import { builtinDialect } from '../../src/dialects/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { planScenario, runScenario, type ScenarioName, wireParamsOf } from '../../src/scenarios/index.ts';
import { startWallet } from '../../src/wallet/index.ts';
import { PLAYER, started, VENDORS } from './vendor-table.ts';

/**
 * A session of play in every dialect, through the engine, judged by wallets written from the
 * vendors' documentation (test/dialects/receivers): a game opens with the dialect's authenticate
 * and balance calls before the first bet (Caleta's check swaps the token the later calls carry), a
 * round closes with endRound where the dialect has one (Pragmatic), and a win is rolled back with
 * rollbackWin where the dialect has one (Groove, Slotegrator).
 */

afterEach(runCleanups);

const nowClock = () => new FakeClock(Date.now());

function sessionOf(name: string, url: string, credentials: Record<string, string>, token = PLAYER.token) {
  const config = configFor(url, { profile: name, credentials, sessionTokens: { [PLAYER.playerId]: token } });
  const engine = engineFor(config, { clock: nowClock() });
  engine.start();
  const rng = seededRandom(11);
  const play = (scenario: ScenarioName) =>
    runScenario(
      engine,
      planScenario(
        scenario,
        { players: [PLAYER.playerId], amount: { min: 1, max: 5 }, size: 4, ...wireParamsOf(config.callbacks) },
        rng,
        () => engine.nextTransactionId(),
      ),
    );
  return { config, engine, play };
}

const operationOf = (event: StoredEvent) => event.facts?.operation ?? event.kind;

describe.each(VENDORS)('a session of play under $name', ({ name, receiver, credentials }) => {
  const dialect = builtinDialect(name);
  const opening = (['authenticate', 'balance'] as const).filter((op) => dialect.operations[op] !== undefined);

  it('opens the game with the dialect’s authenticate/balance calls before the first bet, and every call is accepted by the vendor’s receiver', async () => {
    const rx = await started(receiver());
    const { play } = sessionOf(name, rx.url, credentials);
    const summary = await play('session');
    expect(rx.errors).toEqual([]);
    expect(summary.ok, JSON.stringify(summary.steps)).toBe(true);
    const operations = summary.events.map(operationOf);
    expect(operations.slice(0, opening.length)).toEqual(opening);
    expect(operations.slice(opening.length).every((op) => op !== 'authenticate' && op !== 'balance')).toBe(true);
    for (const event of summary.events) expect(`${operationOf(event)} ${event.status}`).toBe(`${operationOf(event)} delivered`);
    // The receiver's paths show the same order: the opening calls reached it before any bet.
    expect(rx.log.length).toBe(summary.events.length);
  });

  it(
    dialect.operations.endRound
      ? 'closes every round of the session with endRound after its last money call'
      : 'sends no endRound (the dialect has none)',
    async () => {
      const rx = await started(receiver());
      const { play } = sessionOf(name, rx.url, credentials);
      const summary = await play('bet-win');
      expect(rx.errors).toEqual([]);
      const operations = summary.events.map(operationOf);
      if (dialect.operations.endRound) {
        expect(operations.slice(opening.length)).toEqual(['bet', 'win', 'endRound']);
        const [win, end] = summary.events.slice(-2) as [StoredEvent, StoredEvent];
        expect(end.roundId).toBe(win.roundId);
        expect(end.status).toBe('delivered');
      } else {
        expect(operations).not.toContain('endRound');
      }
    },
  );
});

const WIN_ROLLBACKS = VENDORS.filter(({ name }) => builtinDialect(name).operations.rollbackWin !== undefined);

describe.each(WIN_ROLLBACKS)('a win rolled back under $name', ({ name, receiver, credentials }) => {
  const dialect = builtinDialect(name);
  const opening = (['authenticate', 'balance'] as const).filter((op) => dialect.operations[op] !== undefined);

  it('rolls a win back with rollbackWin: the receiver takes exactly the win back, once', async () => {
    const rx = await started(receiver());
    const { engine, play } = sessionOf(name, rx.url, credentials);
    const summary = await play('win-rollback');
    expect(rx.errors).toEqual([]);
    const [bet, win, back] = summary.events.slice(opening.length) as [StoredEvent, StoredEvent, StoredEvent];
    expect([bet, win, back].map(operationOf)).toEqual(['bet', 'win', 'rollbackWin']);
    expect(back.status).toBe('delivered');
    expect(back.referenceTransactionId).toBe(win.transactionId);
    // 1000.00 − the bet: the win was paid and taken back.
    const after = (100_000 - bet.amountMinor) / 100;
    expect(rx.balanceOf(PLAYER.playerId)).toBe(after.toFixed(2));
    // The same rollbackWin again (a retry) takes nothing more.
    const again = await engine.replay(back.id).settled;
    expect(again.status).toBe('delivered');
    expect(rx.balanceOf(PLAYER.playerId)).toBe(after.toFixed(2));
    expect(rx.errors).toEqual([]);
  });
});

describe('a game opening the wallet refuses', () => {
  it('records the refused authenticate and sends none of the session’s bets (Pragmatic, a token the wallet never issued)', async () => {
    const pragmatic = VENDORS.find((v) => v.name === 'pragmatic') as (typeof VENDORS)[number];
    const rx = await started(pragmatic.receiver());
    const { engine, play } = sessionOf('pragmatic', rx.url, pragmatic.credentials, 'a-token-nobody-issued');
    const summary = await play('session');
    const [open] = summary.events;
    expect(open && operationOf(open)).toBe('authenticate');
    expect(open?.status).toBe('rejected');
    expect(summary.events).toHaveLength(1);
    expect(summary.steps.filter((s) => s.status === 'skipped').length).toBeGreaterThan(0);
    expect(engine.outbox.list({ limit: 100 }).map(operationOf)).toEqual(['authenticate']);
    expect(rx.balanceOf(PLAYER.playerId)).toBe('1000.00');
  });
});

describe('a call named by an operation the wire does not have', () => {
  const enqueueOn = (callbacks: Record<string, unknown>, req: Parameters<ReturnType<typeof engineFor>['enqueue']>[0]) => () =>
    engineFor(configFor('http://x.invalid/', callbacks)).enqueue(req);

  it('is refused on a dialect without it, naming operation and the calls the dialect has', () => {
    const call = enqueueOn({ profile: 'hub88' }, { kind: 'credit', amountMinor: 0, operation: 'endRound', playerId: 'p1' });
    expect(call).toThrow(/operation: the "hub88" dialect has no endRound call; it has authenticate, balance, bet, win, rollback/);
  });

  it('is refused on the default dialect, which sends money calls only', () => {
    const call = enqueueOn({}, { kind: 'credit', amountMinor: 0, operation: 'authenticate', playerId: 'p1' });
    expect(call).toThrow(/operation: the "default" dialect has no authenticate call; it has bet, win, rollback/);
  });

  it('is refused when a call that moves no money carries an amount, and when a rollbackWin is not a rollback', () => {
    const read = enqueueOn({ profile: 'pragmatic' }, { kind: 'debit', amountMinor: 500, operation: 'endRound', playerId: 'p1' });
    expect(read).toThrow(/operation: authenticate, balance and endRound move no money/);
    const back = enqueueOn({ profile: 'groove' }, { kind: 'credit', amountMinor: 500, operation: 'rollbackWin', playerId: 'p1' });
    expect(back).toThrow(/kind: a rollbackWin is a "rollback"/);
  });
});

describe('a scheduled win-rollback', () => {
  const schedule = [{ scenario: 'win-rollback', every: '2s' }];

  it('is refused at load where the wire has no rollbackWin, naming schedule.0.scenario', () => {
    const parsed = configSchema.safeParse({ schedule, callbacks: { profile: 'pragmatic' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['schedule', 0, 'scenario'],
      message: expect.stringContaining('"pragmatic" has none'),
    });
  });

  it('is taken where the dialect has one (groove)', () => {
    expect(configSchema.safeParse({ schedule, callbacks: { profile: 'groove' } }).success).toBe(true);
  });
});

describe('POST /__admin/events with a dialect operation as its type', () => {
  it('sends a rollbackWin (its amount found in the outbox) and an endRound where the dialect has them, and refuses one it lacks', async () => {
    const base = validateConfig({ port: 0, db: ':memory:', callbacks: { profile: 'groove', retrySchedule: [0], jitter: 0 } });
    const wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    onCleanup(() => wallet.close());
    const aggmock = await startAggmock({
      ...base,
      callbacks: withWallet(base.callbacks, wallet.webhookUrl, Object.keys(base.wallet.players)),
    });
    onCleanup(() => aggmock.close());
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(`${aggmock.url}/__admin/events?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ playerId: 'p1', ...body }),
      });
      return {
        status: res.status,
        body: (await res.json()) as { event?: StoredEvent; errors?: { field: string; message: string }[] },
      };
    };
    const before = wallet.store.balanceOf('p1') as number;
    expect((await post({ type: 'debit', amount: 1, transactionId: 'adm-bet', roundId: '501' })).status).toBe(200);
    const win = await post({
      type: 'credit',
      amount: 3,
      transactionId: 'adm-win',
      referenceTransactionId: 'adm-bet',
      roundId: '501',
    });
    expect(win.body.event?.status).toBe('delivered');
    const back = await post({ type: 'rollbackWin', referenceTransactionId: 'adm-win', roundId: '501' });
    expect(back.status).toBe(200);
    expect(back.body.event).toMatchObject({
      kind: 'rollback',
      amountMinor: 300,
      status: 'delivered',
      facts: { operation: 'rollbackWin' },
    });
    expect(wallet.store.balanceOf('p1')).toBe(before - 100);
    const refused = await post({ type: 'endRound', roundId: '501' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('the \\"groove\\" dialect has no endRound call');
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });
});
