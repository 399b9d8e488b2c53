import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/callbacks/clock.ts';
import { configFor, engineFor, runCleanups } from '../../src/callbacks/test-engine.ts';
import { ConfigError, credentialsOf, dialectOf, loadConfig } from '../../src/config/index.ts';
import { buildRequest } from '../../src/dialects/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { startWallet } from '../../src/wallet/index.ts';
import { acceptsAnySignature, ignoresIdempotency, overdraws, startBuggyProxy } from '../verify/dialect-receivers.ts';
import { failures } from '../verify/helpers.ts';
import { startEvoplayReceiver } from './receivers/evoplay.ts';
import { betWinReplayRollback } from './vendor-table.ts';

/*
 * A user's dialect file that names a hooks module (examples/dialects/evoplay.json and its
 * evoplay-hooks.mjs): read from anywhere, the hooks found beside the file, a bad module refused at
 * start with its name, and the dialect spoken by the engine, the reference wallet and verify.
 */

const EXAMPLE = fileURLToPath(new URL('../../examples/dialects/evoplay.json', import.meta.url));
const HOOKS = fileURLToPath(new URL('../../examples/dialects/evoplay-hooks.mjs', import.meta.url));

/** A working folder elsewhere, so relative paths cannot resolve from the repository by chance. */
const elsewhere = () => mkdtempSync(join(tmpdir(), 'aggmock-hooks-cwd-'));

const configOf = (profile: string, cwd = elsewhere()) =>
  loadConfig({ flags: { callbacks: { profile } }, cwd, env: { AGGMOCK_ALLOW_HOOKS: '1' } });
// The engine and the wallet load the hooks from this run's environment too.
process.env.AGGMOCK_ALLOW_HOOKS = '1';
// Taken back after the file: a worker runs other files after this one (isolate: false).
afterAll(() => {
  delete process.env.AGGMOCK_ALLOW_HOOKS;
});

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('a dialect file with a hooks module', () => {
  it('finds the hooks beside the dialect file whatever the working folder, and signs with them', () => {
    const config = configOf(EXAMPLE);
    const dialect = dialectOf(config.callbacks);
    expect(dialect.hooks).toBe(HOOKS);
    const req = buildRequest(
      dialect,
      {
        operation: 'bet',
        playerId: 'p1',
        currency: 'EUR',
        transactionId: 'tx-1',
        roundId: 'r-1',
        amountMinor: 1050,
        sessionToken: 'tok-1',
        createdAt: 0,
      },
      credentialsOf(config.callbacks),
    );
    expect(req.signed).toBe(
      '1*1*tok-1*tx-1*bet*r-1:tx-1:0:10.50:EUR:{"game":{"game_id":"1001","absolute_name":"aggmock_slot"}}*evoplay-dev-secret',
    );
  });

  it('takes a dialect file named relative to the working folder too', () => {
    const cwd = elsewhere();
    copyFileSync(EXAMPLE, join(cwd, 'evoplay.json'));
    copyFileSync(HOOKS, join(cwd, 'evoplay-hooks.mjs'));
    expect(dialectOf(configOf('evoplay.json', cwd).callbacks).hooks).toBe(join(cwd, 'evoplay-hooks.mjs'));
  });

  it('stops the start with the dialect file and the module named when the hooks module is missing or exports no hook', () => {
    const cwd = elsewhere();
    const dialect = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
    writeFileSync(join(cwd, 'missing.json'), JSON.stringify({ ...dialect, hooks: './nowhere.mjs' }));
    expect(() => configOf('missing.json', cwd)).toThrow(ConfigError);
    expect(() => configOf('missing.json', cwd)).toThrow(
      `callbacks.profile: ${join(cwd, 'missing.json')}: hooks: the hooks module ${join(cwd, 'nowhere.mjs')} does not exist (hooks: "./nowhere.mjs")`,
    );
    writeFileSync(join(cwd, 'wrong-hooks.mjs'), 'export const sign = () => "";');
    writeFileSync(join(cwd, 'wrong.json'), JSON.stringify({ ...dialect, hooks: './wrong-hooks.mjs' }));
    expect(() => configOf('wrong.json', cwd)).toThrow(/exports "sign", which is not a hook; a hooks module exports signedText/);
    const { hooks: _hooks, ...withoutHooks } = dialect;
    writeFileSync(join(cwd, 'none.json'), JSON.stringify(withoutHooks));
    expect(() => configOf('none.json', cwd)).toThrow(/hooks: signing\.payload\.over is "hook": name the module/);
  });

  it('is answered by the reference wallet, which verify passes, and a wallet that lets any signature through is caught', async () => {
    const config = configOf(EXAMPLE);
    const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
    stops.push(() => wallet.close());
    const verify = (url: string, only?: string[]) =>
      runVerify({
        webhookUrl: url,
        config,
        players: ['p1', 'p2'],
        tokens: { p1: 'aggmock-session-p1', p2: 'aggmock-session-p2' },
        reportDir: false,
        ...(only ? { only } : {}),
      });
    const outcome = await verify(wallet.url);
    expect({ failed: failures(outcome), cause: outcome.report?.firstCause?.summary }).toEqual({ failed: {}, cause: undefined });
    const passed = (outcome.report?.results ?? []).filter((r) => r.status === 'pass').map((r) => r.id);
    expect(passed).toEqual(
      expect.arrayContaining(['wrong-secret', 'tampered-signature', 'missing-signature', 'idempotent-debit']),
    );

    const proxy = await startBuggyProxy(
      wallet.url,
      acceptsAnySignature(dialectOf(config.callbacks), credentialsOf(config.callbacks)),
    );
    stops.push(() => proxy.stop());
    const buggy = await verify(proxy.url, ['wrong-secret']);
    expect(failures(buggy)).toHaveProperty('wrong-secret', expect.stringMatching(/signed with a wrong secret/));
  }, 120_000);
});

describe('the example Evoplay dialect against an Evoplay wallet written from the vendor integrations by someone else', () => {
  const PLAYERS = [
    { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef' },
    { playerId: 'player02', currency: 'EUR', balance: '500.00', token: 'tok-player02-0123456789abcdef' },
  ];
  const CREDENTIALS = { project: '1', secretKey: 'evoplay-dev-secret' };

  async function evoplayReceiver() {
    const rx = await startEvoplayReceiver({ credentials: CREDENTIALS, players: PLAYERS });
    stops.push(() => rx.stop());
    return rx;
  }

  it('delivers a bet, its win, a duplicate and a refund through the engine, accepted with no receiver-side error', async () => {
    const rx = await evoplayReceiver();
    const profile = dialectOf(configOf(EXAMPLE).callbacks);
    const engine = engineFor(configFor(rx.url, { profile }), { clock: new FakeClock(Date.now()) });
    stops.push(async () => runCleanups());
    engine.start();
    const events = await betWinReplayRollback(
      engine,
      { playerId: 'player01', sessionToken: PLAYERS[0]?.token },
      'book-of-aggmock',
    );
    const call = { playerId: 'player01', sessionToken: PLAYERS[0]?.token, currency: 'EUR', gameId: 'book-of-aggmock' };
    const tooMuch = await engine.enqueue({
      ...call,
      kind: 'debit',
      transactionId: 'tx0004',
      roundId: '1003',
      amountMinor: 500_000,
    }).settled;
    expect(rx.errors).toEqual([]);
    expect([...events, tooMuch].map((e) => e.status)).toEqual([
      'delivered',
      'delivered',
      'delivered',
      'delivered',
      'delivered',
      'rejected',
    ]);
    expect(rx.balanceOf('player01')).toBe('1014.50');
  });

  it('passes aggmock verify twice in a row, and verify catches the same wallet ignoring idempotency or overdrawing', async () => {
    const rx = await evoplayReceiver();
    const config = loadConfig({
      flags: { callbacks: { profile: EXAMPLE, credentials: { projectId: '1' } } },
      cwd: elsewhere(),
      env: {},
    });
    const verify = (url: string, only?: string[]) =>
      runVerify({
        webhookUrl: url,
        config,
        players: PLAYERS.map((p) => p.playerId),
        tokens: Object.fromEntries(PLAYERS.map((p) => [p.playerId, p.token])),
        reportDir: false,
        ...(only ? { only } : {}),
      });
    for (const round of [1, 2]) {
      const outcome = await verify(rx.url);
      expect({ round, failed: failures(outcome), cause: outcome.report?.firstCause?.summary }).toEqual({
        round,
        failed: {},
        cause: undefined,
      });
    }
    expect(PLAYERS.map((p) => rx.balanceOf(p.playerId))).toEqual(['1000.00', '500.00']);
    const dialect = dialectOf(config.callbacks);
    const idempotency = await startBuggyProxy(rx.url, ignoresIdempotency(dialect, credentialsOf(config.callbacks)));
    stops.push(() => idempotency.stop());
    expect(failures(await verify(idempotency.url, ['idempotent-debit']))).toHaveProperty('idempotent-debit');
    const overdraw = await startBuggyProxy(rx.url, overdraws(dialect));
    stops.push(() => overdraw.stop());
    expect(failures(await verify(overdraw.url, ['insufficient-funds']))).toHaveProperty('insufficient-funds');
  }, 180_000);
});
