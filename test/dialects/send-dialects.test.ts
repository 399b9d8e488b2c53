import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { runSend, type SendFlags } from '../../src/cli/commands/send.ts';
import { validateConfig } from '../../src/config/index.ts';
import { devSessionToken } from '../../src/dialects/index.ts';
import { startWallet } from '../../src/wallet/index.ts';
import { PLAYER, started, VENDORS } from './vendor-table.ts';

/**
 * `aggmock send <type> --profile <vendor> --to <base URL>` for every built-in dialect, judged by
 * the independent receivers: a bet, its win and a rollback of a second bet are accepted with no
 * receiver-side error, and the wallet's balance is what the calls should leave.
 */

afterEach(runCleanups);

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      env: {},
      cwd: process.cwd(),
      retrySchedule: [0],
    },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

describe.each(VENDORS)('aggmock send --profile $name', ({ name, receiver, credentials }) => {
  it('sends a bet, its win and a rollback that the vendor wallet accepts, and prints each request as sent', async () => {
    const rx = await started(receiver());
    const common: SendFlags = {
      profile: name,
      to: rx.url,
      player: PLAYER.playerId,
      token: PLAYER.token,
      credential: credentials,
    };
    const bet = io();
    expect(await runSend('debit', { ...common, amount: '10.50', tx: 'tx0001', round: '1001' }, bet.io), bet.err()).toBe(0);
    const win = io();
    expect(
      await runSend('credit', { ...common, amount: '25', tx: 'tx0002', ref: 'tx0001', round: '1001' }, win.io),
      win.err(),
    ).toBe(0);
    const bet2 = io();
    expect(await runSend('debit', { ...common, amount: '20', tx: 'tx0003', round: '1002' }, bet2.io), bet2.err()).toBe(0);
    const rollback = io();
    expect(
      await runSend('rollback', { ...common, amount: '20', tx: 'rb0003', ref: 'tx0003', round: '1002' }, rollback.io),
      rollback.err(),
    ).toBe(0);
    expect(rx.errors).toEqual([]);
    expect(rx.balanceOf(PLAYER.playerId)).toBe('1014.50');
    // The printed request names the method and the URL under the base URL that the wallet saw.
    const first = rx.log[0];
    expect(bet.out()).toContain(`→ ${first?.method} ${rx.url}`);
    expect(bet.out()).toContain(first?.path === '/' ? rx.url : first?.path);
  });

  it('exits 1 with the refusal when the bet is beyond the balance', async () => {
    const rx = await started(receiver());
    const out = io();
    const code = await runSend(
      'debit',
      {
        profile: name,
        to: rx.url,
        player: PLAYER.playerId,
        token: PLAYER.token,
        credential: credentials,
        amount: '500000',
        round: '9',
      },
      out.io,
    );
    expect(code).toBe(1);
    expect(out.out()).toMatch(/rejected: DEBIT/);
    expect(rx.balanceOf(PLAYER.playerId)).toBe('1000.00');
  });
});

describe('aggmock send without --token', () => {
  it('carries the player’s development session token, which aggmock wallet issued (groove checks it on every bet)', async () => {
    const config = validateConfig({ callbacks: { profile: 'groove' } });
    const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
    onCleanup(() => wallet.close());
    const before = wallet.store.balanceOf('p1') as number;
    const out = io();
    const code = await runSend(
      'debit',
      { profile: 'groove', to: wallet.webhookUrl, player: 'p1', amount: '2', round: '77' },
      out.io,
    );
    expect(code, out.err() + out.out()).toBe(0);
    expect(out.out()).toContain(`gamesessionid=${devSessionToken('p1')}`);
    expect(wallet.store.balanceOf('p1')).toBe(before - 200);
  });
});
