import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFactsOf, renderCall } from '../../src/callbacks/call.ts';
import { openDatabase } from '../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../src/callbacks/engine.ts';
import type { StoredEvent } from '../../src/callbacks/events.ts';
import { type AggmockConfig, configSchema } from '../../src/config/index.ts';
import { failures, startReferenceWallet, verifyWallet } from '../verify/helpers.ts';

/**
 * A currency ISO 4217 does not list (`callbacks.currencies`, BTC with 8 decimals) is written with its
 * own decimals by every sender: the engine, verify and the load generator render amounts through the
 * same facts (`withCurrencies`). Before, a dialect request wrote BTC with two decimals: 12,345 satoshis
 * went out as 123.45 BTC.
 */
const btc = (dialect: string, webhookUrl = 'http://127.0.0.1:1/wallet'): AggmockConfig =>
  configSchema.parse({
    callbacks: { dialect, webhookUrl, currency: 'BTC', currencies: { BTC: 8 }, retrySchedule: [0], jitter: 0 },
  });

const debit = { kind: 'debit', playerId: 'p1', amountMinor: 12_345, roundId: 'r1', transactionId: 'tx-btc-1' } as const;

function rendered(cfg: AggmockConfig): string {
  const event = { ...debit, status: 'pending', attemptCount: 0, createdAt: Date.now() } as unknown as Omit<StoredEvent, 'id'>;
  const request = renderCall(cfg.callbacks, callFactsOf(event, cfg.callbacks), { signedAt: Date.now() });
  return `${request.path}\n${request.body ?? ''}`;
}

describe('amounts in a configured currency', () => {
  it('are written with its own decimals on a decimal wire, a form wire and a minor-unit wire', () => {
    expect(JSON.parse(rendered(btc('default')).split('\n')[1] as string)).toMatchObject({ amount: 0.00012345 });
    expect(rendered(btc('pragmatic'))).toContain('amount=0.00012345');
    // SoftSwiss writes integer subunits of the currency: satoshis.
    expect(rendered(btc('softswiss'))).toMatch(/"amount":12345[,}]/);
    // The same call in EUR keeps its two decimals.
    const eur = configSchema.parse({ callbacks: { dialect: 'default' } });
    expect(JSON.parse(rendered(eur).split('\n')[1] as string)).toMatchObject({ amount: 123.45 });
  });

  describe('through the engine and verify, against a wallet that reads BTC with 8 decimals', () => {
    let server: Server;
    let url: string;
    const bodies: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on('end', () => {
          bodies.push(body);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ balance: 1 }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('the engine sends the stored event with its decimals', async () => {
      const cfg = btc('default', url);
      const db = openDatabase(':memory:');
      const engine = createCallbackEngine({ config: cfg, db });
      const settled: StoredEvent[] = [];
      engine.onSettled((e) => settled.push(e));
      engine.start();
      try {
        engine.enqueue(debit);
        for (let i = 0; i < 300 && settled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        expect(settled.map((e) => e.status)).toEqual(['delivered']);
        expect(JSON.parse(bodies.at(-1) as string)).toMatchObject({ amount: 0.00012345 });
        // The stored facts do not carry the config's currencies.
        expect(JSON.stringify(settled[0]?.facts ?? {})).not.toContain('currencies');
      } finally {
        await engine.stop();
        db.close();
      }
    });

    it('verify moves the amounts it means: the reference wallet in BTC passes the money checks', async () => {
      const cfg = configSchema.parse({ callbacks: { currency: 'BTC', currencies: { BTC: 8 } }, wallet: { currency: 'BTC' } });
      const wallet = await startReferenceWallet({ config: cfg });
      try {
        const outcome = await verifyWallet(wallet, 'state', {
          config: cfg,
          only: ['debit-applies', 'credit-applies', 'rollback-restores', 'exact-balance'],
        });
        expect(failures(outcome)).toEqual({});
        expect(outcome.report?.results.map((r) => `${r.id} ${r.status}`)).toEqual([
          'debit-applies pass',
          'credit-applies pass',
          'exact-balance pass',
          'rollback-restores pass',
        ]);
        // Its labels name the currency's smallest amount, not a cent.
        const labels = (outcome.report?.results ?? []).flatMap((r) => r.exchanges.map((x) => x.label));
        expect(labels).toEqual(
          expect.arrayContaining([
            'then DEBIT 0.00000001 on a balance of 0.00000000',
            'cleanup: DEBIT 0.00000100 (takes the test CREDIT back)',
          ]),
        );
        expect(outcome.exitCode).toBe(0);
      } finally {
        await wallet.close();
      }
    });
  });
});
