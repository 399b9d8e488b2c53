import { afterEach, describe, expect, it } from 'vitest';
import { createCallbackEngine, openDatabase, seededRandom } from '../../src/callbacks/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { planScenario, runScenario, wireParamsOf } from '../../src/scenarios/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

/*
 * A whole round in one callback (a DEBIT carrying its win): on a wire whose body has bet and win
 * fields (betnex) it goes out as one body, the outbox keeps the win, the reference wallet applies
 * both at once and the shadow ledger agrees; on a wire without them it is refused, naming the field.
 */

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function betnexLoop() {
  const callbacks = { profile: 'betnex', retrySchedule: [0], jitter: 0 } as const;
  const wallet: RunningWallet = await startWallet({
    config: validateConfig({ callbacks }),
    dbPath: ':memory:',
    port: 0,
  });
  stops.push(() => wallet.close());
  const aggmock: Aggmock = await startAggmock(
    validateConfig({ port: 0, db: ':memory:', callbacks: { ...callbacks, webhookUrl: wallet.webhookUrl } }),
  );
  stops.push(() => aggmock.close());
  return { wallet, aggmock };
}

describe('a whole round in one callback', () => {
  it('goes out as one betnex body with both amounts, is applied at once and judged right by the shadow ledger', async () => {
    const { wallet, aggmock } = await betnexLoop();
    const round = await aggmock.engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 150, winMinor: 400, roundId: 'r-7' })
      .settled;
    expect(round.status).toBe('delivered');
    expect(JSON.parse(round.body)).toMatchObject({ bet_amount: 1.5, win_amount: 4, game_round: 'r-7', member_account: 'p1' });
    expect(aggmock.engine.outbox.get(round.id)?.winMinor).toBe(400);
    expect(wallet.store.balanceOf('p1')).toBe(100_000 - 150 + 400);
    // The same round again: the wallet answers it as a duplicate and moves nothing; the ledger agrees.
    const again = await aggmock.engine.enqueue({
      kind: 'debit',
      playerId: 'p1',
      amountMinor: 150,
      winMinor: 400,
      transactionId: round.transactionId,
    }).settled;
    expect(again.status).toBe('delivered');
    expect(wallet.store.balanceOf('p1')).toBe(100_250);
    expect(aggmock.ledger.balance('p1')?.balanceMinor).toBe(100_250);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });

  it('is how bet-win and session rounds go out on betnex; the wallet and the shadow ledger agree to the cent', async () => {
    const { wallet, aggmock } = await betnexLoop();
    const rng = seededRandom(5);
    const params = { players: ['p3'], amount: { min: 1, max: 20 }, size: 12, rtp: 3, ...wireParamsOf(aggmock.config.callbacks) };
    const betWin = planScenario('bet-win', params, rng, () => aggmock.engine.nextTransactionId());
    expect(betWin.steps.map((s) => [s.request.kind, s.request.winMinor !== undefined])).toEqual([['debit', true]]);
    const session = planScenario('session', params, rng, () => aggmock.engine.nextTransactionId());
    expect(session.steps.every((s) => s.request.kind === 'debit')).toBe(true);
    expect(session.steps.some((s) => (s.request.winMinor ?? 0) > 0)).toBe(true);
    for (const plan of [betWin, session]) {
      const run = await runScenario(aggmock.engine, plan);
      expect(run.steps.every((s) => s.status === 'sent' && s.event.status === 'delivered')).toBe(true);
    }
    expect(aggmock.ledger.discrepancies()).toEqual([]);
    expect(aggmock.ledger.balance('p3')?.balanceMinor).toBe(wallet.store.balanceOf('p3'));
    expect(wallet.store.balanceOf('p3')).not.toBe(100_000);
  });

  it('can be sent through the admin API as {type:"debit", amount, win}', async () => {
    const { wallet, aggmock } = await betnexLoop();
    const res = await fetch(`${aggmock.url}/__admin/events?wait=true`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'debit', playerId: 'p2', amount: 2, win: '5.25' }),
    });
    expect(res.status).toBe(200);
    expect(wallet.store.balanceOf('p2')).toBe(100_000 - 200 + 525);
    const bad = await fetch(`${aggmock.url}/__admin/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'debit', playerId: 'p2', amount: 2, win: 'lots' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errors: [{ field: 'win' }] });
  });

  it('is refused on a wire without bet and win fields, and on anything but a DEBIT, naming winMinor', () => {
    const engine = createCallbackEngine({ config: validateConfig({}), db: openDatabase(':memory:') });
    expect(() => engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100, winMinor: 50 })).toThrow(
      /winMinor: the "default" dialect has no body for a whole round/,
    );
    const betnex = createCallbackEngine({
      config: validateConfig({ callbacks: { profile: 'betnex' } }),
      db: openDatabase(':memory:'),
    });
    expect(() => betnex.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 100, winMinor: 50 })).toThrow(
      /winMinor: only a DEBIT carries a win/,
    );
    expect(() => betnex.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 100, winMinor: -1 })).toThrow(/winMinor/);
  });
});
