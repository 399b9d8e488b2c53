/**
 * More correct wallets in styles correct-wallets.test.ts does not cover, each of which verify must
 * pass (twice in a row on the same storage, leaving the players as it found them), and subtly
 * broken ones outside the reference wallet's fault catalogue, each of which verify must fail on
 * exactly the rule it breaks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../../src/config/index.ts';
import { type SigningScheme, signPayload } from '../../src/signing/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { expectPassed, failures, idsWith, notApplicableIds } from './helpers.ts';
import { asyncLocksBalances, startAsyncLocksWallet } from './wallets/async-locks.ts';
import { claimFirstBalances, startClaimFirstWallet } from './wallets/claim-first.ts';
import { globalIdsBalances, startGlobalIdsWallet } from './wallets/global-ids.ts';
import { startSubtleBugWallet } from './wallets/subtle-bugs.ts';
import type { StartedWallet, WalletOptions } from './wallets/types.ts';

interface WalletCase {
  name: string;
  start: (options: WalletOptions) => Promise<StartedWallet>;
  /** Balances in minor units, read straight from the wallet's storage. */
  balances: (dbPath: string) => Record<string, number>;
  file: string;
  config: AggmockConfigInput;
  /** The modes it is verified in: 'state' only for a wallet with a provider-state endpoint. */
  modes: ('players' | 'state')[];
  /** Checks that cannot apply to its wire (hmac-hex signs no timestamp); every other one must run. */
  skipped?: string[];
  /** How it wants callbacks signed, and whether a ROLLBACK carries its own id + referenceTransactionId. */
  scheme: SigningScheme;
  referenceRollbacks: boolean;
  refusesZero: boolean;
  /** A transactionId belongs to one player: another player's reuse of it is refused. */
  globalIds: boolean;
}

const CORRECT: WalletCase[] = [
  {
    name: 'async-locks (200 + {error} for every refusal, extra reply fields, standard-webhooks)',
    start: startAsyncLocksWallet,
    balances: asyncLocksBalances,
    file: 'wallet.json',
    config: { callbacks: { signing: { scheme: 'standard-webhooks' } } },
    modes: ['players', 'state'],
    scheme: 'standard-webhooks',
    referenceRollbacks: true,
    refusesZero: false,
    globalIds: false,
  },
  {
    name: 'claim-first (strict 4xx without balances, zero refused, 404 for an unknown ROLLBACK, hmac-hex, reference rollbacks)',
    start: startClaimFirstWallet,
    balances: claimFirstBalances,
    file: 'wallet.db',
    config: { callbacks: { rollbackStyle: 'reference', signing: { scheme: 'hmac-hex' } } },
    modes: ['players'],
    skipped: ['stale-timestamp', 'future-timestamp'],
    scheme: 'hmac-hex',
    referenceRollbacks: true,
    refusesZero: true,
    globalIds: false,
  },
  {
    name: 'global-ids (a transactionId belongs to one player, 403/422 refusals, late DEBIT acknowledged)',
    start: startGlobalIdsWallet,
    balances: globalIdsBalances,
    file: 'wallet.json',
    config: {},
    modes: ['players', 'state'],
    scheme: 'timestamped',
    referenceRollbacks: false,
    refusesZero: false,
    globalIds: true,
  },
];

const PLAYERS = { p1: 1000, p2: 1000 };
const dirs: string[] = [];
const running = new Set<StartedWallet>();

afterAll(async () => {
  for (const w of running) await w.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(c: Pick<WalletCase, 'start' | 'file'>): Promise<{ wallet: StartedWallet; dbPath: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
  dirs.push(dir);
  const dbPath = join(dir, c.file);
  const wallet = await c.start({ dbPath, players: PLAYERS });
  running.add(wallet);
  return { wallet, dbPath };
}

async function stop(w: StartedWallet): Promise<void> {
  running.delete(w);
  await w.close();
}

describe.each(CORRECT)('aggmock verify against a correct $name wallet', (c) => {
  const config: AggmockConfig = configSchema.parse(c.config);

  it.each(c.modes)(
    'passes twice in a row (%s mode) and leaves the players as it found them',
    async (mode) => {
      const { wallet, dbPath } = await start(c);
      const before = c.balances(dbPath);
      expect(before).toEqual({ p1: 100_000, p2: 100_000 });
      for (const run of [1, 2]) {
        const outcome = await runVerify({
          webhookUrl: wallet.webhookUrl,
          players: ['p1', 'p2'],
          ...(mode === 'state' ? { stateUrl: wallet.stateUrl as string } : {}),
          reportDir: false,
          config,
        });
        expectPassed(outcome, `${c.name}, ${mode} mode, run ${run}`);
        const na = notApplicableIds(outcome);
        expect(
          idsWith(outcome, 'skip').filter((id) => !na.includes(id)),
          'every check that applies ran',
        ).toEqual(c.skipped ?? []);
      }
      await stop(wallet);
      if (mode === 'players') expect(c.balances(dbPath), 'verify must give back every cent it moved').toEqual(before);
    },
    180_000,
  );
});

/**
 * The wallets must be correct on their own, not just "pass verify": these probes check the wire
 * rules directly, reading the balances from the wallet's own storage.
 */
describe.each(CORRECT)('the $name wallet honours the wire rules on its own', (c) => {
  let wallet: StartedWallet;
  let dbPath: string;
  let n = 0;
  const tx = () => `probe-${Date.now().toString(36)}-${++n}`;
  beforeAll(async () => {
    ({ wallet, dbPath } = await start(c));
  });

  type Sent = { status: number; json: Record<string, unknown> };
  async function send(fields: Record<string, unknown>): Promise<Sent> {
    const body = JSON.stringify(fields);
    const headers = signPayload({ scheme: c.scheme, secrets: ['aggmock-dev-secret'], payload: body });
    const res = await fetch(wallet.webhookUrl, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  const debit = (playerId: string, cents: number, transactionId = tx()) =>
    send({ type: 'DEBIT', transactionId, amount: cents / 100, playerId });
  const credit = (playerId: string, cents: number, transactionId = tx()) =>
    send({ type: 'CREDIT', transactionId, amount: cents / 100, playerId });
  const rollback = (playerId: string, debitTx: string, cents: number) =>
    send({
      type: 'ROLLBACK',
      transactionId: c.referenceRollbacks ? tx() : debitTx,
      ...(c.referenceRollbacks ? { referenceTransactionId: debitTx } : {}),
      amount: cents / 100,
      playerId,
    });
  const accepted = (r: Sent) => r.status >= 200 && r.status < 300 && r.json.error === undefined;
  const balance = (p = 'p1') => c.balances(dbPath)[p] as number;

  it('answers a repeat with its first reply, also after the balance moved, and moves money once', async () => {
    const b0 = balance();
    const id = tx();
    const first = await debit('p1', 250, id);
    expect(accepted(first)).toBe(true);
    expect(accepted(await credit('p1', 7))).toBe(true);
    expect(await debit('p1', 250, id)).toEqual(first);
    expect(balance()).toBe(b0 - 243);
  });

  it('restores a DEBIT once, and never charges it again: not when it is retried after its ROLLBACK, nor when its ROLLBACK came first', async () => {
    const b0 = balance();
    const id = tx();
    await debit('p1', 400, id);
    expect((await rollback('p1', id, 400)).json.balance).toBe(b0 / 100);
    await rollback('p1', id, 400);
    const retry = await debit('p1', 400, id);
    expect(retry.status).toBeLessThan(500);
    const early = tx();
    const unknown = await rollback('p1', early, 300);
    expect(accepted(unknown) || unknown.json.error === 'TRANSACTION_NOT_FOUND').toBe(true);
    expect((await debit('p1', 300, early)).status).toBeLessThan(500);
    expect(balance()).toBe(b0);
  });

  it('keeps parallel DEBITs and parallel copies of one DEBIT exact', async () => {
    const b0 = balance();
    const id = tx();
    const copies = await Promise.all(Array.from({ length: 8 }, () => debit('p1', 100, id)));
    for (const r of copies) expect(r).toEqual(copies[0]);
    await Promise.all(Array.from({ length: 10 }, () => debit('p1', 3)));
    await Promise.all(Array.from({ length: 10 }, () => credit('p1', 5)));
    expect(balance()).toBe(b0 - 100 - 30 + 50);
  });

  it('refuses unknown players, overdrafts and negative amounts, and handles 0 in its style', async () => {
    const b0 = balance();
    const ghost = await credit('ghost', 100);
    expect([ghost.status < 500, ghost.json.error]).toEqual([true, 'PLAYER_NOT_FOUND']);
    expect(c.balances(dbPath).ghost).toBeUndefined();
    expect((await debit('p1', b0 + 1)).json.error).toBe('INSUFFICIENT_FUNDS');
    for (const r of [await debit('p1', -100), await credit('p1', -100)]) expect(r.json.error).toBe('INVALID_REQUEST');
    for (const r of [await debit('p1', 0), await credit('p1', 0)]) {
      if (c.refusesZero) expect([r.status, r.json.error]).toEqual([400, 'INVALID_REQUEST']);
      else expect(accepted(r)).toBe(true);
    }
    expect(balance()).toBe(b0);
  });

  it(c.globalIds ? "refuses another player's reuse of a transactionId" : 'keys transactions per player', async () => {
    const [a0, b0] = [balance('p1'), balance('p2')];
    const id = tx();
    expect(accepted(await debit('p1', 100, id))).toBe(true);
    const other = await debit('p2', 200, id);
    expect(accepted(other)).toBe(!c.globalIds);
    expect([balance('p1'), balance('p2')]).toEqual([a0 - 100, c.globalIds ? b0 : b0 - 200]);
  });
});

/**
 * Bugs outside the reference wallet's fault catalogue, on a small wallet that passes every check
 * without them: each must fail verify, on exactly the checks that name it, in players mode.
 */
describe.each([
  ['no bug (the control: the same wallet passes)', undefined, {}],
  [
    'refund-deletes-debit',
    'refund-deletes-debit' as const,
    { 'debit-retry-after-rollback': expect.stringMatching(/charged again/) },
  ],
  [
    'current-balance-on-duplicate',
    'current-balance-on-duplicate' as const,
    {
      'idempotent-debit': expect.stringMatching(/must get the first reply again/),
      'idempotent-credit': expect.stringMatching(/must get the first reply again/),
      'idempotent-later-retry': expect.stringMatching(/repeated after later transactions must get the first reply again/),
    },
  ],
  [
    'amount-in-key',
    'amount-in-key' as const,
    { 'duplicate-changed-amount': expect.stringMatching(/must get the first reply again/) },
  ],
  [
    'rollback-capped-by-claim',
    'rollback-capped-by-claim' as const,
    { 'rollback-amount-mismatch': expect.stringMatching(/claiming 0\.50 for a DEBIT of 1\.00: expected balance/) },
  ],
  [
    'trims-ids',
    'trims-ids' as const,
    {
      'distinct-transaction-ids': expect.stringMatching(/differ only by surrounding spaces .*: the second: expected balance/),
      'distinct-player-ids': expect.stringMatching(/DEBITs for " p1", "p1 " must not touch player "p1"/),
    },
  ],
  [
    'lower-cases-ids',
    'lower-cases-ids' as const,
    {
      'distinct-transaction-ids': expect.stringMatching(/differ only in case .*: the second: expected balance/),
      'distinct-player-ids': expect.stringMatching(/DEBITs for "P1" must not touch player "p1"/),
    },
  ],
  [
    'rounds-amounts',
    'rounds-amounts' as const,
    { 'excess-decimals': expect.stringMatching(/a DEBIT of 1\.005 .*the wallet rounds amounts/) },
  ],
  [
    'forgets-refusals',
    'forgets-refusals' as const,
    { 'refused-debit-retried': expect.stringMatching(/repeat of a DEBIT refused for lack of funds.*INSUFFICIENT_FUNDS/) },
  ],
] as const)('verify against a wallet with the subtle bug %s', (_, bug, expected) => {
  it(bug ? 'fails exactly the checks that name the bug' : 'passes every check', async () => {
    const wallet = await startSubtleBugWallet({ players: PLAYERS, ...(bug ? { bug } : {}) });
    running.add(wallet);
    const before = wallet.balances();
    // The contracts run on the control; a bug run checks the stateful checks only (each bug's
    // failures are checks, and the Pact Verifier's start would double the file's time).
    const outcome = await runVerify({
      webhookUrl: wallet.webhookUrl,
      players: ['p1', 'p2'],
      reportDir: false,
      ...(bug ? { skip: ['pact'] } : {}),
    });
    expect(failures(outcome)).toEqual(expected);
    expect(outcome.exitCode).toBe(bug ? 1 : 0);
    // Even a broken wallet is left as verify found it.
    expect(wallet.balances()).toEqual(before);
    await stop(wallet);
  }, 60_000);
});
