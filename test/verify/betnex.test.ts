/**
 * The Betnex profile against receivers written with the Betnex SDK's own helpers: aggmock's
 * callbacks pass the SDK's verifyCallback unchanged, and `aggmock verify` judges such receivers
 * correctly — the README's example fails exactly on the bugs it has, a careful one passes, and each
 * Betnex-only check catches the fault it is about.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createCallbackEngine, openDatabase } from '../../src/callbacks/index.ts';
import { checksFor, runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { BETNEX_RECEIVER_FAULTS } from './faults.ts';
import { config, failures, idsWith } from './helpers.ts';
import { type BetnexFault, type BetnexReceiver, startBetnexReceiver } from './wallets/betnex/receiver.ts';
import { verifyCallback } from './wallets/betnex/sdk.ts';

const BETNEX = config({ callbacks: { profile: 'betnex', retrySchedule: [0], jitter: 0 } });
const PLAYERS = { p1: 1000, p2: 1000 };
const running: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const r of running) await r.close();
});

async function receiver(style: 'readme' | 'careful', faults: BetnexFault[] = []): Promise<BetnexReceiver> {
  const r = await startBetnexReceiver({ style, players: PLAYERS, faults });
  running.push(r);
  return r;
}

function verify(r: BetnexReceiver): Promise<VerifyOutcome> {
  return runVerify({ webhookUrl: r.webhookUrl, players: ['p1', 'p2'], reportDir: false, config: BETNEX });
}

describe('the betnex profile speaks to a receiver built on the Betnex SDK', () => {
  it('sends callbacks the SDK’s verifyCallback accepts unchanged, with bet and win split and no signature header', async () => {
    const seen: { headers: Record<string, unknown>; body: unknown; verdict: string }[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      req.on('end', () => {
        const body = JSON.parse(text) as unknown;
        let verdict = 'valid';
        try {
          verifyCallback(body, 'aggmock-dev-key');
        } catch (error) {
          verdict = (error as Error).message;
        }
        seen.push({ headers: req.headers, body, verdict });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ success: true, msg: 'Success', handle: true, money: 1000 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    running.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/betnex/callback`;
    const engine = createCallbackEngine({ config: BETNEX, db: openDatabase(':memory:'), webhookUrl: url });
    engine.start();
    try {
      const events = [
        engine.enqueue({
          kind: 'debit',
          playerId: 'p1',
          amountMinor: 1_050,
          roundId: 'r-1',
          gameId: 'a04d1f3eb8ccec8a4823bdf18e3f0e84',
        }),
        engine.enqueue({
          kind: 'credit',
          playerId: 'p1',
          amountMinor: 2_500,
          roundId: 'r-1',
          gameName: 'Aviator',
          provider: 'SPRIBE',
        }),
        engine.enqueue({ kind: 'credit', playerId: 'p1', amountMinor: 0 }),
        engine.enqueue({ kind: 'credit', playerId: 'p2', amountMinor: 700, bonus: { kind: 'free-spins', id: 'fs-9' } }),
      ];
      const settled = await Promise.all(events.map((e) => e.settled));
      expect(settled.map((e) => e.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    } finally {
      await engine.stop();
    }
    expect(seen.map((s) => s.verdict)).toEqual(['valid', 'valid', 'valid', 'valid']);
    const bodies = seen.map((s) => s.body as Record<string, unknown>);
    const withWin = (win: number) => bodies.find((b) => b.win_amount === win);
    expect(bodies.find((b) => b.bet_amount === 10.5)).toMatchObject({
      bet_amount: 10.5,
      win_amount: 0,
      member_account: 'p1',
      game_round: 'r-1',
      currency_code: 'EUR',
      api_key: 'aggmock-dev-key',
    });
    expect(withWin(25)).toMatchObject({
      bet_amount: 0,
      win_amount: 25,
      game_round: 'r-1',
      game_name: 'Aviator',
      game_provider: 'SPRIBE',
    });
    expect(withWin(7)).toMatchObject({ member_account: 'p2', data: { bonus_type: 'free-spins', bonus_id: 'fs-9' } });
    expect(bodies.find((b) => b.bet_amount === 0 && b.win_amount === 0)).toMatchObject({ member_account: 'p1', data: {} });
    for (const s of seen) {
      expect(Object.keys(s.headers).filter((h) => /signature|webhook-/i.test(h))).toEqual([]);
      const body = s.body as Record<string, unknown>;
      expect(body.serial_number).toMatch(/^tx_/);
    }
  });

  it('lists the checks that exist on this wire: no ROLLBACK or signature checks; api key, currency and bonus checks', () => {
    const ids = checksFor(BETNEX.callbacks).map((c) => c.id);
    for (const id of [
      'wrong-api-key',
      'missing-api-key',
      'wrong-currency',
      'free-spin',
      'bonus-credited-once',
      'idempotent-debit',
    ])
      expect(ids).toContain(id);
    for (const id of ['rollback-restores', 'duplicate-rollback', 'missing-signature', 'wrong-secret', 'concurrent-rollbacks'])
      expect(ids).not.toContain(id);
  });
});

describe('aggmock verify judges Betnex receivers correctly', () => {
  it('fails the README’s example on exactly the bugs it has: no funds check, negative amounts, currency, float money', async () => {
    const r = await receiver('readme');
    const outcome = await verify(r);
    expect(Object.keys(failures(outcome)).sort()).toEqual(README_FAILURES);
  }, 120_000);

  it('passes a careful receiver built on the same SDK helpers, twice in a row, and gives back every cent', async () => {
    const r = await receiver('careful');
    const before = r.balances();
    for (const run of [1, 2]) {
      const outcome = await verify(r);
      expect(failures(outcome), `run ${run}`).toEqual({});
      expect(outcome.exitCode).toBe(0);
      expect(idsWith(outcome, 'pass').length).toBeGreaterThan(20);
    }
    expect(r.balances()).toEqual(before);
  }, 120_000);

  for (const [fault, caughtBy] of Object.entries(BETNEX_RECEIVER_FAULTS) as [BetnexFault, string[]][]) {
    it(`fails a careful receiver with the fault ${fault} on exactly ${caughtBy.join(', ')}`, async () => {
      const r = await receiver('careful', [fault]);
      expect(Object.keys(failures(await verify(r))).sort()).toEqual([...caughtBy].sort());
    }, 120_000);
  }
});

/** What the README's example really gets wrong (see the receiver's header); filled from a run and checked by hand. */
const README_FAILURES: string[] = [
  // It keeps the balance in JavaScript numbers (Mongo $inc on doubles): 0.1 + 0.2 shows.
  'cent-precision',
  // It never checks that the balance covers the bet: bets beyond it are taken, in parallel too.
  'concurrent-debits',
  // Float noise again, on the balance written after a bet of the whole balance.
  'exact-balance',
  'insufficient-funds',
  // Number(-1) is a fine bet_amount to it: a "bet" of -1.00 pays the player.
  'negative-amount',
  'pact:insufficient-funds',
  // No funds check, so the DEBIT that should be refused (and refused again when retried) is taken.
  'refused-debit-retried',
  // It stores currency_code but never compares it with the player's currency.
  'wrong-currency',
];
