import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdminRoutes } from '../src/admin/index.ts';
import { createCallbackEngine } from '../src/callbacks/index.ts';
import { validateConfig } from '../src/config/index.ts';
import { createShadowLedger } from '../src/ledger/index.ts';
import { signPayload } from '../src/signing/index.ts';
import { openDatabase } from '../src/storage/index.ts';
import { createWallet } from '../src/wallet/index.ts';

const config = validateConfig({
  db: ':memory:',
  callbacks: { webhookUrl: 'http://127.0.0.1:9/callback/webhook', retrySchedule: [0] },
});

const validEvent = fc
  .record({
    type: fc.constantFrom('DEBIT', 'CREDIT', 'ROLLBACK'),
    transactionId: fc.constantFrom('tx-1', 'tx-2', 'tx-3', 'tx-4'),
    amount: fc.integer({ min: 1, max: 50_000 }).map((cents) => cents / 100),
    playerId: fc.constantFrom('p1', 'p2'),
  })
  .map((o) => JSON.stringify(o));

const anyBody = fc.oneof(
  validEvent,
  validEvent,
  fc.json(),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .record(
      {
        type: fc.oneof(fc.constantFrom('DEBIT', 'CREDIT', 'ROLLBACK', 'debit', 'BET'), fc.anything()),
        transactionId: fc.oneof(fc.string(), fc.anything()),
        referenceTransactionId: fc.oneof(fc.string(), fc.anything()),
        amount: fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -1, 0.001, 1e308), fc.anything()),
        playerId: fc.oneof(fc.constantFrom('p1', 'p2', 'nobody'), fc.anything()),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
);

describe('the reference wallet under random signed input', () => {
  const wallet = createWallet({ config, dbPath: ':memory:' });
  afterAll(() => wallet.close());

  it('never answers 5xx, always JSON, and never lets a balance go negative', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(anyBody, fc.boolean(), async (body, sign) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (sign) Object.assign(headers, signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body }));
        const res = await wallet.app.request('/callback/webhook', { method: 'POST', body, headers });
        seen.add(res.status);
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        const reply = (await res.json()) as Record<string, unknown>;
        if (res.status >= 400) expect(typeof reply.error).toBe('string');
        for (const p of ['p1', 'p2']) expect(wallet.store.balanceOf(p)!).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
    // The inputs reached the money: some were applied, some refused for each reason.
    for (const status of [200, 400, 401]) expect(seen.has(status), `saw ${status}`).toBe(true);
  });

  it('refuses a field holding an object that cannot be made text (the counterexample fast-check found): 400 signed, 401 not', async () => {
    const odd = { toString: 0 };
    for (const body of [
      { type: odd },
      { type: 'DEBIT', transactionId: odd, amount: 1, playerId: 'p1' },
      { type: 'DEBIT', transactionId: 'tx-odd', amount: 1, playerId: odd },
    ]) {
      const text = JSON.stringify(body);
      const signed = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: text });
      for (const [headers, status] of [
        [signed, 400],
        [{}, 401],
      ] as const) {
        const res = await wallet.app.request('/callback/webhook', {
          method: 'POST',
          body: text,
          headers: { 'content-type': 'application/json', ...headers },
        });
        expect(res.status, text).toBe(status);
        expect(((await res.json()) as { error: unknown }).error).toEqual(expect.any(String));
      }
    }
    expect(wallet.store.balanceOf('p1')).toBeGreaterThanOrEqual(0);
  });
});

describe('the admin API under random input', () => {
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db });
  const admin = createAdminRoutes({ engine, ledger, config });
  afterAll(async () => {
    await engine.stop({ deadlineMs: 0 });
    ledger.close();
    db.close();
  });

  it.each(['/events', '/scenarios/bet-win/run', '/scenarios/nope/run', '/deliveries/1/replay', '/deliveries/abc/rollback'])(
    'POST %s never answers 5xx and names the problem',
    async (path) => {
      await fc.assert(
        fc.asyncProperty(anyBody, fc.constantFrom('application/json', 'text/plain', ''), async (body, type) => {
          const res = await admin.request(path, { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
          expect(res.status).toBeLessThan(500);
          const reply = (await res.json()) as Record<string, unknown>;
          if (res.status >= 400) expect(typeof reply.message).toBe('string');
        }),
        { numRuns: 300 },
      );
    },
  );

  it('GET /deliveries never answers 5xx whatever the query', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.constantFrom('player', 'type', 'status', 'group', 'limit', 'before', 'x'), fc.string({ maxLength: 12 })),
          { maxLength: 4 },
        ),
        async (pairs) => {
          const res = await admin.request(`/deliveries?${new URLSearchParams(pairs)}`);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 500 },
    );
  });
});
