import { afterEach, describe, expect, it } from 'vitest';
import { type AggmockConfig, configSchema } from '../../src/config/index.ts';
import { builtinDialect, devSessionToken } from '../../src/dialects/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { startWallet } from '../../src/wallet/index.ts';
import {
  DIALECTS_UNDER_TEST,
  type DialectUnderTest,
  keepsTheWin,
  type PlantedBug,
  RECEIVER_PLAYERS,
  refusesRepeatedEndRound,
  startBuggyProxy,
  takesTheWinTwice,
} from './dialect-receivers.ts';
import { DIALECT_RECEIVER_FAULTS } from './faults.ts';
import { failures } from './helpers.ts';

/**
 * verify's checks of a dialect's session calls: endRound repeated (Pragmatic) and the rollback of a
 * win (Groove, Slotegrator). Each passes the independent receivers and the reference wallet of the
 * dialects that have the call, is skipped with the reason on the others, and catches a wallet with
 * the bug it is about (planted by a proxy in front of the receiver).
 */

const SESSION_CHECK_IDS = ['end-round-repeated', 'rollback-win-restores', 'duplicate-rollback-win'];
const OPERATION_OF: Record<string, 'endRound' | 'rollbackWin'> = {
  'end-round-repeated': 'endRound',
  'rollback-win-restores': 'rollbackWin',
  'duplicate-rollback-win': 'rollbackWin',
};

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function configOf(d: DialectUnderTest): AggmockConfig {
  return configSchema.parse({ callbacks: { profile: d.dialect, credentials: d.credentials } });
}

function verify(config: AggmockConfig, url: string, tokens: Record<string, string>, players: string[]): Promise<VerifyOutcome> {
  return runVerify({ webhookUrl: url, config, players, tokens, reportDir: false, only: SESSION_CHECK_IDS });
}

const receiverTokens = Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string]));
const receiverPlayers = RECEIVER_PLAYERS.map((p) => p.playerId);

async function againstReceiver(d: DialectUnderTest, bug?: PlantedBug): Promise<VerifyOutcome> {
  const receiver = await d.start(RECEIVER_PLAYERS);
  stops.push(() => receiver.stop());
  let url = receiver.url;
  if (bug) {
    const proxy = await startBuggyProxy(receiver.url, bug);
    stops.push(() => proxy.stop());
    url = proxy.url;
  }
  const outcome = await verify(configOf(d), url, receiverTokens, receiverPlayers);
  if (!bug) {
    // Every player is left with what it had.
    for (const p of RECEIVER_PLAYERS) expect(receiver.balanceOf(p.playerId), p.playerId).toBe(p.balance);
  }
  return outcome;
}

const statusOf = (outcome: VerifyOutcome) =>
  Object.fromEntries((outcome.report?.results ?? []).map((r) => [r.id, r.status] as const));

describe.each(DIALECTS_UNDER_TEST)('the session checks under $dialect', (d) => {
  const dialect = builtinDialect(d.dialect);
  const expected = Object.fromEntries(
    SESSION_CHECK_IDS.map((id) => [id, dialect.operations[OPERATION_OF[id] as 'endRound'] ? 'pass' : 'skip']),
  );

  it('pass the independent wallet where the dialect has the call, and are skipped with the reason where it has not', async () => {
    const outcome = await againstReceiver(d);
    expect(failures(outcome)).toEqual({});
    expect(statusOf(outcome)).toEqual(expected);
    for (const r of outcome.report?.results ?? [])
      if (r.status === 'skip')
        expect(r.reason, r.id).toMatch(new RegExp(`the ${d.dialect} dialect has no (endRound|rollbackWin)`));
  });

  it('pass the reference wallet speaking the dialect', async () => {
    const config = configOf(d);
    const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
    stops.push(() => wallet.close());
    const players = ['p1', 'p2'];
    const before = players.map((p) => wallet.store.balanceOf(p));
    const outcome = await verify(
      config,
      wallet.webhookUrl,
      Object.fromEntries(players.map((p) => [p, devSessionToken(p)])),
      players,
    );
    expect(failures(outcome)).toEqual({});
    expect(statusOf(outcome)).toEqual(expected);
    expect(players.map((p) => wallet.store.balanceOf(p))).toEqual(before);
  });
});

const withCall = (operation: 'endRound' | 'rollbackWin') =>
  DIALECTS_UNDER_TEST.filter((d) => builtinDialect(d.dialect).operations[operation] !== undefined);

describe.each(withCall('endRound'))('end-round-repeated under $dialect', (d) => {
  it('catches a wallet that answers a repeated endRound of a closed round with an error', async () => {
    const outcome = await againstReceiver(d, refusesRepeatedEndRound(builtinDialect(d.dialect)));
    expect(Object.keys(failures(outcome))).toEqual(DIALECT_RECEIVER_FAULTS['refuses-repeated-end-round']);
    expect(failures(outcome)['end-round-repeated']).toMatch(/the repeated endRound of round \d+ .*expected a success/);
  });
});

describe.each(withCall('rollbackWin'))('the rollback of a win under $dialect', (d) => {
  it('catches a wallet that acknowledges a rollbackWin and keeps the win paid', async () => {
    const outcome = await againstReceiver(d, keepsTheWin(builtinDialect(d.dialect)));
    expect(Object.keys(failures(outcome))).toEqual(DIALECT_RECEIVER_FAULTS['keeps-the-win']);
    expect(failures(outcome)['rollback-win-restores']).toMatch(/take exactly the win back|expected player .* balance/);
  });

  it('catches a wallet that takes the win back again on a repeated rollbackWin', async () => {
    const outcome = await againstReceiver(d, takesTheWinTwice(builtinDialect(d.dialect)));
    expect(Object.keys(failures(outcome))).toEqual(DIALECT_RECEIVER_FAULTS['takes-the-win-twice']);
    expect(failures(outcome)['duplicate-rollback-win']).toMatch(/the repeated rollbackWin took the win back again/);
  });
});
