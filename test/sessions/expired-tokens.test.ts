import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import {
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Credentials,
  type Dialect,
  readReply,
} from '../../src/dialects/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

/*
 * Wins and rollbacks after the session ended (issue 32 item 3). Hub88: "Token validity must not be
 * validated in case of wins and rollbacks" (docs/research/vendor-rules.md H3); Groove: results and
 * rollbacks are accepted after the session expired, never 1000 "Not logged on" (V1); Caleta: "expired
 * tokens should continue be valid for Win/Rollback transactions if is related to a previous existing
 * bet" (C1). The reference wallet checks a token only on the dialect's `session.checkedOn` calls
 * (bets, authenticate, balance), never on a win or a rollback, so it accepts them with a token that is
 * no longer valid; where a vendor is silent both answers are allowed, and no verify check sends a
 * stale token on a win or a rollback (nothing fails a wallet that accepts it).
 */

const LIVE = 'live-session-token-0123456789abcdef';
const STALE = 'ended-session-token-0123456789abcdef';

let wallet: RunningWallet | undefined;
afterEach(async () => {
  await wallet?.close();
  wallet = undefined;
});

function devCredentials(dialect: Dialect): Credentials {
  return Object.fromEntries(
    Object.entries(dialect.credentials).flatMap(([name, c]) => (c.default === undefined ? [] : [[name, c.default]])),
  );
}

describe.each(['hub88', 'groove'])('the reference wallet under %s', (name) => {
  it('refuses a bet with a token it does not hold, and accepts that bet’s win and rollback with it', async () => {
    const dialect = builtinDialect(name);
    wallet = await startWallet({
      config: configSchema.parse({ callbacks: { profile: name }, wallet: { currency: 'EUR', players: { p1: 1000 } } }),
      dbPath: ':memory:',
      port: 0,
      sessions: { [LIVE]: 'p1' },
    });
    const url = wallet.webhookUrl;
    let n = 0;
    const send = async (facts: Omit<CallFacts, 'requestId' | 'createdAt' | 'currency' | 'playerId'>) => {
      const full: CallFacts = { playerId: 'p1', currency: 'EUR', requestId: `req-${++n}`, createdAt: Date.now(), ...facts };
      const req = buildRequest(dialect, full, devCredentials(dialect));
      const res = await fetch(`${url}${req.path}`, {
        method: req.method,
        headers: req.headers,
        ...(req.body === undefined ? {} : { body: req.body }),
      });
      return readReply(dialect, full, { status: res.status, text: await res.text() });
    };
    const round = '100000000000001';
    // The control: a bet with a token the wallet does not hold is refused for it.
    const staleBet = await send({ operation: 'bet', sessionToken: STALE, transactionId: 'b0', amountMinor: 100, roundId: round });
    expect(staleBet.verdict).toBe('rejected');
    expect(staleBet.outcome).toBe('INVALID_TOKEN');
    expect(
      (await send({ operation: 'bet', sessionToken: LIVE, transactionId: 'b1', amountMinor: 100, roundId: round })).verdict,
    ).toBe('accepted');
    const win = await send({
      operation: 'win',
      sessionToken: STALE,
      transactionId: 'w1',
      betTransactionId: 'b1',
      amountMinor: 300,
      roundId: round,
      roundClosed: true,
    });
    expect(win.verdict).toBe('accepted');
    expect(
      await send({ operation: 'bet', sessionToken: LIVE, transactionId: 'b2', amountMinor: 100, roundId: '100000000000002' }),
    ).toMatchObject({
      verdict: 'accepted',
    });
    const back = await send({
      operation: 'rollback',
      sessionToken: STALE,
      transactionId: 'r2',
      betTransactionId: 'b2',
      amountMinor: 100,
      roundId: '100000000000002',
    });
    expect(back.verdict).toBe('accepted');
    // 1000 - 1 + 3 - 1 + 1
    expect(wallet.store.balanceOf('p1')).toBe(100_200);
  });
});
