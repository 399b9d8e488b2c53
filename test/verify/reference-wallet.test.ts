import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/config/dialect.ts';
import type { AggmockConfigInput } from '../../src/config/index.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { config, DEFAULT_CHECK_IDS, failures, idsWith, startReferenceWallet, verifyWallet } from './helpers.ts';

/** The committed contracts: the default wire's. */
const DEFAULT_CONTRACTS = dialectContracts(dialectOf(defaultConfig().callbacks));

const PACT_IDS = DEFAULT_CONTRACTS.map((i) => `pact:${i.id}`);

describe('aggmock verify against the reference wallet', () => {
  let wallet: RunningWallet;
  beforeAll(async () => {
    wallet = await startReferenceWallet();
  });
  afterAll(() => wallet.close());

  it('passes every pact interaction and every stateful check with a state URL (exit 0)', async () => {
    const outcome = await verifyWallet(wallet, 'state');
    expect(failures(outcome)).toEqual({});
    expect(idsWith(outcome, 'pass')).toEqual([...PACT_IDS, ...DEFAULT_CHECK_IDS]);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.report?.mode).toBe('state');
  });

  it('passes every pact interaction and every check from player ids alone, the states realised through the webhook', async () => {
    const before = { p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') };
    const outcome = await verifyWallet(wallet, 'players');
    expect(failures(outcome)).toEqual({});
    expect(outcome.exitCode).toBe(0);
    expect(idsWith(outcome, 'pass')).toEqual([...PACT_IDS, ...DEFAULT_CHECK_IDS]);
    expect(outcome.report?.notices.join(' ')).toMatch(/No --state-url: provider states are realised through the webhook/);
    // The interactions used p1 (and a fresh unknown player), fresh ids, and put p1 back where it was.
    const sent = (outcome.report?.results ?? []).filter((r) => r.kind === 'pact').flatMap((r) => r.exchanges);
    expect(sent).toHaveLength(PACT_IDS.length);
    for (const x of sent) expect(JSON.parse(x.request.body).transactionId).toMatch(/^ctx-.*-\w+$/);
    expect({ p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') }).toEqual(before);
  });

  it('shows the request it sent and the reply it got on every contract card', async () => {
    const outcome = await verifyWallet(wallet, 'state', { only: ['pact:insufficient-funds'] });
    const [card] = outcome.report?.results ?? [];
    expect(card?.hint).toMatch(/insufficient-funds code/);
    expect(card?.exchanges[0]?.request.headers['x-signature']).toMatch(/^t=\d+,v1=/);
    expect(card?.exchanges[0]?.response).toMatchObject({ status: 402, json: { error: 'INSUFFICIENT_FUNDS' } });
  });

  it('leaves the players where it found them (every check cleans up after itself)', async () => {
    const before = { p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') };
    const outcome = await verifyWallet(wallet, 'players', { skip: ['pact'] });
    expect(outcome.exitCode).toBe(0);
    expect({ p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') }).toEqual(before);
  });

  it('sends fresh transaction ids on every run, so a second run against the same wallet passes too', async () => {
    const first = await verifyWallet(wallet, 'players', { only: ['idempotent-debit', 'same-tx-two-players'] });
    const second = await verifyWallet(wallet, 'players', { only: ['idempotent-debit', 'same-tx-two-players'] });
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    const ids = (o: typeof first) =>
      (o.report?.results ?? []).flatMap((r) =>
        r.exchanges.map((x) => (JSON.parse(x.request.body) as { transactionId: string }).transactionId),
      );
    const overlap = ids(first).filter((id) => ids(second).includes(id));
    expect(overlap).toEqual([]);
  });

  it('runs only the checks named by --only and leaves out those named by --skip', async () => {
    const outcome = await verifyWallet(wallet, 'state', {
      only: ['pact', 'debit-applies', 'malformed-json'],
      skip: ['pact:win-accepted'],
    });
    expect(outcome.report?.results.map((r) => r.id)).toEqual([
      ...PACT_IDS.filter((id) => id !== 'pact:win-accepted'),
      'debit-applies',
      'malformed-json',
    ]);
  });

  it('skips same-tx-two-players, with the reason, when it knows a single player', async () => {
    const outcome = await verifyWallet(wallet, 'players', { players: ['p3'], only: ['same-tx-two-players', 'debit-applies'] });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.report?.results.find((r) => r.id === 'same-tx-two-players')).toMatchObject({
      status: 'skip',
      reason: expect.stringMatching(/--players/),
    });
  });
});

describe('aggmock verify against the reference wallet on other wires', () => {
  const WIRE_CHECKS = ['wrong-currency', 'free-spin', 'bonus-credited-once'];
  const cases: [string, AggmockConfigInput['callbacks'], string[]][] = [
    ['the default profile with currency and bonus fields', { extraFields: ['currency', 'bonus'] }, []],
    ['the betnex profile', { profile: 'betnex' }, ['wrong-api-key', 'missing-api-key', 'whole-round']],
  ];
  for (const [name, callbacks, extra] of cases) {
    it(`passes every check on ${name}, the currency, bonus and round checks included`, async () => {
      const c = config({ callbacks });
      const wallet = await startReferenceWallet({ config: c });
      try {
        const before = { p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') };
        const outcome = await verifyWallet(wallet, 'players', { config: c });
        expect(failures(outcome)).toEqual({});
        expect(outcome.exitCode).toBe(0);
        for (const id of [...WIRE_CHECKS, ...extra]) expect(idsWith(outcome, 'pass')).toContain(id);
        expect({ p1: wallet.store.balanceOf('p1'), p2: wallet.store.balanceOf('p2') }).toEqual(before);
      } finally {
        await wallet.close();
      }
    }, 120_000);
  }
});

describe('aggmock verify in another currency', () => {
  it('passes the reference wallet whose players hold yen (no decimals), with a state URL and without', async () => {
    const c = config({ callbacks: { currency: 'JPY', extraFields: ['currency'] }, wallet: { currency: 'JPY' } });
    const wallet = await startReferenceWallet({ config: c });
    try {
      for (const mode of ['state', 'players'] as const) {
        const outcome = await verifyWallet(wallet, mode, { config: c });
        expect(failures(outcome), mode).toEqual({});
        expect(idsWith(outcome, 'pass')).toContain('wrong-currency');
      }
    } finally {
      await wallet.close();
    }
  }, 120_000);
});
