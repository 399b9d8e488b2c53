import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../shared/index.ts';
import { type FaultOptions, WALLET_FAULTS, type WalletFault } from './faults.ts';
import { type RunningWallet, startWallet } from './index.ts';
import { startTestWallet, type WalletClient, walletClient, walletConfig } from './test-support.ts';

/** Faults tuned for tests: a short "slow", a fixed seed. */
const TEST_FAULT_OPTIONS: FaultOptions = { slowMs: 1_000, seed: 7 };

async function withWallet<T>(
  fault: WalletFault | undefined,
  run: (client: WalletClient, wallet: RunningWallet) => Promise<T>,
): Promise<T> {
  const { wallet, client } = await startTestWallet({ ...(fault ? { fault } : {}), faultOptions: TEST_FAULT_OPTIONS });
  try {
    return await run(client, wallet);
  } finally {
    await wallet.close();
  }
}

/**
 * One probe per fault: it runs the same requests against a wallet and returns what a verifier
 * would see. Each fault must make its probe show the bug; the reference wallet must not.
 */
const PROBES: Record<WalletFault, { bug: string; probe: (client: WalletClient, wallet: RunningWallet) => Promise<boolean> }> = {
  'double-debit': {
    bug: 'a duplicate DEBIT is charged twice',
    probe: async (client) => {
      await client.debit('p1', 'tx-1', 10);
      await client.debit('p1', 'tx-1', 10);
      return (await client.balance('p1')) !== 990;
    },
  },
  'no-signature-check': {
    bug: 'an unsigned DEBIT moves money',
    probe: async (client) => {
      const reply = await client.post({ type: 'DEBIT', transactionId: 'tx-1', amount: 10, playerId: 'p1' }, { sign: false });
      return reply.status === 200 && (await client.balance('p1')) === 990;
    },
  },
  'rollback-ignored': {
    bug: 'a ROLLBACK is acknowledged but the money is not restored',
    probe: async (client) => {
      await client.debit('p1', 'tx-1', 10);
      const reply = await client.rollback('p1', 'tx-1', 10);
      return reply.status === 200 && (await client.balance('p1')) !== 1000;
    },
  },
  'negative-balance': {
    bug: 'a DEBIT above the balance is accepted and the balance goes below zero',
    probe: async (client) => {
      const reply = await client.debit('p1', 'big', 1500);
      return reply.status === 200 && ((await client.balance('p1')) ?? 0) < 0;
    },
  },
  slow: {
    bug: 'the reply does not arrive within the caller timeout',
    probe: async (client) => {
      try {
        // The aggregator would wait 10 s for a 12 s wallet; here 500 ms for a 1 s one.
        await client.post(
          { type: 'DEBIT', transactionId: 'tx-1', amount: 10, playerId: 'p1' },
          { signal: AbortSignal.timeout(500) },
        );
        return false;
      } catch (error) {
        return (error as Error).name === 'TimeoutError';
      }
    },
  },
  flaky: {
    bug: 'some of 50 valid callbacks are answered with 500',
    probe: async (client) => {
      const replies = [];
      for (let i = 0; i < 50; i++) replies.push(await client.credit('p1', `win-${i}`, 1));
      return replies.some((r) => r.status === 500);
    },
  },
  race: {
    bug: '50 concurrent DEBITs of 50.00 on 1000.00 overdraw or lose updates',
    probe: async (client) => {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => client.debit('p1', `burst-${i}`, 50)));
      const accepted = replies.filter((r) => r.status === 200).length;
      const balance = await client.balance('p1');
      return accepted > 20 || balance !== 1000 - 50 * accepted;
    },
  },
  'duplicate-race': {
    bug: 'the same DEBIT sent 5 times at once is charged more than once',
    probe: async (client) => {
      await Promise.all(Array.from({ length: 5 }, () => client.debit('p1', 'same', 10)));
      return (await client.balance('p1')) !== 990;
    },
  },
  'tx-only-key': {
    bug: "p2's DEBIT with p1's transactionId gets p1's reply and is not charged",
    probe: async (client) => {
      await client.debit('p1', 'shared', 10);
      const reply = await client.debit('p2', 'shared', 20);
      return reply.body.balance === 990 || (await client.balance('p2')) !== 980;
    },
  },
  'no-tombstone': {
    bug: 'a DEBIT arriving after its ROLLBACK is charged',
    probe: async (client) => {
      await client.rollback('p1', 'late', 10);
      await client.debit('p1', 'late', 10);
      return (await client.balance('p1')) !== 1000;
    },
  },
  'rollback-deletes-debit': {
    bug: 'a DEBIT retried after its ROLLBACK is charged again',
    probe: async (client) => {
      await client.debit('p1', 'tx-1', 10);
      await client.rollback('p1', 'tx-1', 10);
      await client.debit('p1', 'tx-1', 10);
      return (await client.balance('p1')) !== 1000;
    },
  },
  'refund-refused-debit': {
    bug: 'a ROLLBACK of a refused DEBIT pays its amount',
    probe: async (client) => {
      await client.debit('p1', 'too-big', 5000);
      await client.rollback('p1', 'too-big', 5000);
      return (await client.balance('p1')) !== 1000;
    },
  },
  'stale-debit-reply': {
    bug: 'a DEBIT of 10.00 is answered with the balance before it',
    probe: async (client) => (await client.debit('p1', 'bet', 10)).body.balance === 1000,
  },
  'reply-from-stale-read': {
    bug: 'two parallel DEBITs of 10.00 on 1000.00 both answer 990.00, a balance no order of them explains',
    probe: async (client) => {
      const [a, b] = await Promise.all([client.debit('p1', 'bet-a', 10), client.debit('p1', 'bet-b', 10)]);
      return a.body.balance === b.body.balance;
    },
  },
  'stale-credit-reply': {
    bug: 'a CREDIT of 10.00 is answered with the balance before it',
    probe: async (client) => (await client.credit('p1', 'win', 10)).body.balance === 1000,
  },
  'double-credit': {
    bug: 'a repeated CREDIT pays twice',
    probe: async (client) => {
      await client.credit('p1', 'win', 10);
      await client.credit('p1', 'win', 10);
      return (await client.balance('p1')) !== 1010;
    },
  },
  'negative-amounts': {
    bug: 'a DEBIT of -5.00 pays 5.00',
    probe: async (client) => {
      await client.debit('p1', 'minus', -5);
      return (await client.balance('p1')) === 1005;
    },
  },
  'rollback-unknown-crash': {
    bug: 'a ROLLBACK of a DEBIT it never saw gets a 500',
    probe: async (client) => (await client.rollback('p1', 'never-seen', 10)).status === 500,
  },
  'rollback-unknown-credits': {
    bug: 'a ROLLBACK of a DEBIT it never saw pays the 10.00 it claims',
    probe: async (client) => {
      await client.rollback('p1', 'never-seen', 10);
      return (await client.balance('p1')) === 1010;
    },
  },
  'malformed-json-crash': {
    bug: 'a body that is not JSON gets a 500',
    probe: async (client) => (await client.post('{"type":"DEBIT",')).status === 500,
  },
  'rollback-by-own-id': {
    bug: 'two ROLLBACKs of one DEBIT with different ids (reference style) restore it twice',
    probe: async (client) => {
      await client.debit('p1', 'bet', 10);
      await client.rollback('p1', 'rb-1', 10, 'bet');
      await client.rollback('p1', 'rb-2', 10, 'bet');
      return (await client.balance('p1')) !== 1000;
    },
  },
  'rollback-trusts-amount': {
    bug: 'a ROLLBACK carrying 30.00 for a DEBIT of 10.00 restores 30.00',
    probe: async (client) => {
      await client.debit('p1', 'bet', 10);
      await client.rollback('p1', 'bet', 30);
      return ((await client.balance('p1')) ?? 0) > 1000;
    },
  },
  'zero-as-default-stake': {
    bug: 'a DEBIT of 0 costs 1.00',
    probe: async (client) => {
      await client.debit('p1', 'free-spin', 0);
      return (await client.balance('p1')) !== 1000;
    },
  },
  'off-by-one-funds': {
    bug: 'a DEBIT of exactly the whole balance is refused',
    probe: async (client) => (await client.debit('p1', 'all-in', 1000)).status !== 200,
  },
  'float-money': {
    bug: 'CREDITs of 0.10 and 0.20 on 1000.00 reply 1000.3000000000001',
    probe: async (client) => {
      await client.credit('p1', 'w-1', 0.1);
      const reply = await client.credit('p1', 'w-2', 0.2);
      return !/^\{"balance":\d+(\.\d{1,2})?\}$/.test(reply.text);
    },
  },
  'int32-cents': {
    bug: 'a CREDIT above 21,474,836.47 wraps the balance around',
    probe: async (client) => {
      await client.credit('p1', 'jackpot', 63_727_092.34);
      return (await client.balance('p1')) !== 63_728_092.34;
    },
  },
  'creates-players': {
    bug: 'a CREDIT to an unknown player creates it',
    probe: async (client) => {
      await client.credit('ghost', 'w', 5);
      return (await client.balance('ghost')) !== undefined;
    },
  },
  'first-signature-only': {
    bug: 'a header with a stale secret first and the current one second is refused',
    probe: async (client) =>
      (
        await client.post(
          { type: 'DEBIT', transactionId: 'rot', amount: 1, playerId: 'p1' },
          { secrets: ['old', 'aggmock-dev-secret'] },
        )
      ).status === 401,
  },
  'past-only-timestamp': {
    bug: 'a signature dated 10 minutes ahead is accepted',
    probe: async (client) =>
      (
        await client.post(
          { type: 'DEBIT', transactionId: 'future', amount: 1, playerId: 'p1' },
          { timestamp: Math.floor(Date.now() / 1000) + 600 },
        )
      ).status === 200,
  },
  'debit-only-signature': {
    bug: 'an unsigned CREDIT pays',
    probe: async (client) => {
      const reply = await client.post({ type: 'CREDIT', transactionId: 'w', amount: 10, playerId: 'p1' }, { sign: false });
      return reply.status === 200 && (await client.balance('p1')) === 1010;
    },
  },
  'signature-cache': {
    bug: 'the signature headers of an accepted DEBIT are accepted again on a CREDIT',
    probe: async (client) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const debit = JSON.stringify({ type: 'DEBIT', transactionId: 'bet', amount: 1, playerId: 'p1' });
      await client.post(debit, { timestamp });
      const credit = { type: 'CREDIT', transactionId: 'forged', amount: 500, playerId: 'p1' };
      return (await client.post(credit, { timestamp, signedBody: debit })).status === 200;
    },
  },
  'ci-collation-ids': {
    bug: 'a DEBIT for P1 charges p1, and tx-A repeats tx-a',
    probe: async (client) => {
      await client.debit('P1', 'tx-a', 10);
      await client.debit('p1', 'tx-A', 5);
      return (await client.balance('p1')) !== 995;
    },
  },
  'trims-ids': {
    bug: 'a DEBIT for " p1" charges p1',
    probe: async (client) => {
      await client.debit(' p1', 'tx-1', 10);
      return (await client.balance('p1')) === 990;
    },
  },
  'truncates-ids': {
    bug: 'two 128-character transaction ids that differ only at the end are one DEBIT',
    probe: async (client) => {
      await client.debit('p1', `${'x'.repeat(127)}a`, 10);
      await client.debit('p1', `${'x'.repeat(127)}b`, 5);
      return (await client.balance('p1')) !== 985;
    },
  },
  'utf8mb3-ids': {
    bug: 'two transaction ids that differ only after an emoji are one DEBIT, and a DEBIT for "p1" and an emoji charges p1',
    probe: async (client) => {
      await client.debit('p1', 'tx-\u{1F3B0}a', 10);
      await client.debit('p1', 'tx-\u{1F3B0}b', 5);
      await client.debit('p1\u{1F3B0}', 'tx-other', 1);
      return (await client.balance('p1')) === 989;
    },
  },
  'sql-concat-ids': {
    bug: 'a transaction id with a quote gets a 500',
    probe: async (client) => (await client.debit('p1', "it's", 10)).status === 500,
  },
  'rounds-amounts': {
    bug: 'a DEBIT of 1.005 takes 1.00',
    probe: async (client) => {
      const reply = await client.debit('p1', 'fine', 1.005);
      return reply.status === 200 && (await client.balance('p1')) === 999;
    },
  },
  'charges-retried-refusal': {
    bug: 'a DEBIT refused for lack of funds is charged when retried after a win',
    probe: async (client) => {
      await client.debit('p1', 'big', 1500);
      await client.credit('p1', 'win', 1000);
      await client.debit('p1', 'big', 1500);
      return (await client.balance('p1')) !== 2000;
    },
  },
  'last-bet-only': {
    bug: 'the retry of a DEBIT that is not the last one is charged again',
    probe: async (client) => {
      await client.debit('p1', 'bet-1', 10);
      await client.debit('p1', 'bet-2', 5);
      await client.debit('p1', 'bet-1', 10);
      return (await client.balance('p1')) !== 985;
    },
  },
};

describe('faulty wallet variants', () => {
  it('offers every fault in WALLET_FAULTS and a probe for each', () => {
    expect(Object.keys(PROBES).sort()).toEqual([...WALLET_FAULTS].sort());
  });

  describe.each(WALLET_FAULTS)('fault %s', (fault) => {
    const { bug, probe } = PROBES[fault];

    it(`really has its bug over HTTP: ${bug}`, async () => {
      expect(await withWallet(fault, probe)).toBe(true);
    });

    it('the reference wallet passes the same probe', async () => {
      expect(await withWallet(undefined, probe)).toBe(false);
    });
  });
});

describe('details of the faults', () => {
  it('race: 20 concurrent CREDITs of 1.00 lose updates too', async () => {
    await withWallet('race', async (client) => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => client.credit('p1', `win-${i}`, 1)));
      expect(await client.balance('p1')).toBeLessThan(1020);
    });
  });

  it('race: more than 20 of 50 concurrent 50.00 bets are accepted and the final balance is not what they imply', async () => {
    await withWallet('race', async (client) => {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => client.debit('p1', `burst-${i}`, 50)));
      const accepted = replies.filter((r) => r.status === 200).length;
      expect(accepted).toBeGreaterThan(20);
      expect(await client.balance('p1')).not.toBe(1000 - 50 * accepted);
    });
  });

  it('slow: the reply takes longer than the configured delay, and the money has moved meanwhile', async () => {
    await withWallet('slow', async (client, wallet) => {
      const started = performance.now();
      const reply = await client.debit('p1', 'tx-1', 10);
      expect(performance.now() - started).toBeGreaterThanOrEqual(TEST_FAULT_OPTIONS.slowMs! - 5);
      expect(reply.body).toEqual({ balance: 990 });
      expect(wallet.store.balanceOf('p1')).toBe(99_000);
    });
  });

  it('flaky: the same seed fails the same requests, and a 500 moves no money', async () => {
    const run = () =>
      withWallet('flaky', async (client) => {
        const statuses = [];
        for (let i = 0; i < 50; i++) statuses.push((await client.credit('p1', `win-${i}`, 1)).status);
        const ok = statuses.filter((s) => s === 200).length;
        expect(await client.balance('p1')).toBe(1000 + ok);
        return statuses;
      });
    const first = await run();
    expect(await run()).toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(5);
    expect(failures).toBeLessThan(25);
  });

  it('flaky: the failure rate is configurable', async () => {
    const config = walletConfig();
    const wallet = await startWallet({ config, dbPath: ':memory:', port: 0, fault: 'flaky', faultOptions: { flakyRate: 1 } });
    try {
      const reply = await walletClient(wallet, config).credit('p1', 'w', 1);
      expect(reply).toMatchObject({ status: 500, body: { error: 'INTERNAL_ERROR' } });
    } finally {
      await wallet.close();
    }
  });

  it.each(['no-signature-check', 'negative-balance', 'race', 'rollback-ignored'] as const)(
    '%s keeps every other rule: a duplicate DEBIT still replays the first reply',
    async (fault) => {
      await withWallet(fault, async (client) => {
        const first = await client.debit('p1', 'tx-1', 10);
        expect((await client.debit('p1', 'tx-1', 10)).text).toBe(first.text);
        expect(await client.balance('p1')).toBe(990);
      });
    },
  );

  it('no-signature-check still refuses nothing that is signed correctly', async () => {
    await withWallet('no-signature-check', async (client) => {
      expect((await client.debit('p1', 'tx-1', 10)).status).toBe(200);
    });
  });

  it('mulberry32 is reproducible and spread over [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const values = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(values);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    expect(values.filter((v) => v < 0.3).length).toBeGreaterThan(250);
    expect(values.filter((v) => v < 0.3).length).toBeLessThan(350);
  });
});
