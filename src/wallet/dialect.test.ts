import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../config/index.ts';
import { buildRequest, builtinDialect, type CallFacts, type Credentials, readReply } from '../dialects/index.ts';
import { createWallet, startWallet, type Wallet, type WalletFault } from './index.ts';

/** The reference wallet in a vendor dialect, through `app.request` (no port). */

let wallet: Wallet | undefined;
afterEach(() => {
  wallet?.close();
  wallet = undefined;
});

const TOKEN = 'tok-p1';

function open(profile: string, options: { fault?: WalletFault; credentials?: Record<string, string> } = {}) {
  wallet = createWallet({
    config: configSchema.parse({
      callbacks: { profile, ...(options.credentials ? { credentials: options.credentials } : {}) },
      wallet: { currency: 'EUR', players: { p1: 100 } },
    }),
    dbPath: ':memory:',
    sessions: { [TOKEN]: 'p1' },
    testEndpoints: true,
    ...(options.fault ? { fault: options.fault } : {}),
  });
  return wallet;
}

let n = 0;
/** Sends one call built by the dialect and reads the reply the way aggmock reads it. */
async function call(profile: string, facts: Partial<CallFacts> & Pick<CallFacts, 'operation'>, credentials?: Credentials) {
  const dialect = builtinDialect(profile);
  const dev = Object.fromEntries(Object.entries(dialect.credentials).map(([k, c]) => [k, c.default ?? '']));
  const full = {
    playerId: 'p1',
    currency: 'EUR',
    sessionToken: TOKEN,
    createdAt: Date.now(),
    requestId: `req-${++n}`,
    ...facts,
  } as CallFacts;
  const req = buildRequest(dialect, full, credentials ?? dev);
  const res = await (wallet as Wallet).app.request(`http://127.0.0.1:4001${req.path}`, {
    method: req.method,
    headers: req.headers,
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const text = await res.text();
  return { ...readReply(dialect, full, { status: res.status, text }), text };
}

const balance = () => wallet?.store.balanceOf('p1');
const bet = (transactionId: string, amountMinor: number) => ({ operation: 'bet' as const, transactionId, amountMinor });

describe('the reference wallet in a vendor dialect', () => {
  it('takes a Hub88 bet (JSON, RSA-signed, × 100000) and answers RS_OK with the balance and the request_uuid', async () => {
    open('hub88');
    const reply = await call('hub88', { ...bet('tx-1', 1050), requestId: 'uuid-1' });
    expect(reply).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 8950 }, echoMismatches: [] });
    expect(JSON.parse(reply.text)).toEqual({ status: 'RS_OK', balance: 8_950_000, request_uuid: 'uuid-1' });
  });

  it('refuses a Hub88 bet signed with another key as RS_ERROR_INVALID_SIGNATURE and moves no money', async () => {
    open('hub88');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    expect(await call('hub88', bet('tx-1', 1050), { privateKey: other })).toMatchObject({
      verdict: 'rejected',
      outcome: 'INVALID_SIGNATURE',
    });
    expect(balance()).toBe(10_000);
  });

  it('checks the session token only where the dialect says: a Hub88 bet with a foreign token is refused, its win is paid', async () => {
    open('hub88');
    expect(await call('hub88', { ...bet('tx-1', 1000), sessionToken: 'not-issued' })).toMatchObject({
      verdict: 'rejected',
      outcome: 'INVALID_TOKEN',
    });
    await call('hub88', bet('tx-2', 1000));
    const win = { operation: 'win' as const, transactionId: 'tx-3', betTransactionId: 'tx-2', amountMinor: 500 };
    expect(await call('hub88', { ...win, sessionToken: 'expired-long-ago' })).toMatchObject({ verdict: 'accepted' });
    expect(balance()).toBe(9_500);
  });

  it('answers a repeated Pragmatic bet with success and the current balance, charging it once', async () => {
    open('pragmatic');
    await call('pragmatic', bet('tx-1', 1000));
    await call('pragmatic', { operation: 'win', transactionId: 'tx-2', amountMinor: 300 });
    expect(await call('pragmatic', bet('tx-1', 1000))).toMatchObject({
      verdict: 'accepted',
      balance: { kind: 'ok', minor: 9_300 },
    });
    expect(balance()).toBe(9_300);
  });

  it('refunds a Pragmatic bet once, and acknowledges the refund of a bet it never saw without moving money', async () => {
    open('pragmatic');
    await call('pragmatic', bet('tx-1', 1000));
    const refund = { operation: 'rollback' as const, betTransactionId: 'tx-1', amountMinor: 1000 };
    expect(await call('pragmatic', refund)).toMatchObject({ verdict: 'accepted' });
    expect(await call('pragmatic', refund)).toMatchObject({ verdict: 'accepted' });
    expect(await call('pragmatic', { ...refund, betTransactionId: 'tx-never' })).toMatchObject({ verdict: 'accepted' });
    expect(balance()).toBe(10_000);
  });

  it('answers a rollback of an unknown bet "not found" where the dialect has a code for it (100HP: HTTP 605), and refuses the late bet', async () => {
    const running = await startWallet({
      config: configSchema.parse({ callbacks: { profile: '100hp' }, wallet: { currency: 'EUR', players: { p1: 100 } } }),
      dbPath: ':memory:',
      port: 0,
      sessions: { [TOKEN]: 'p1' },
    });
    try {
      const hp = builtinDialect('100hp');
      const send = async (facts: Partial<CallFacts> & Pick<CallFacts, 'operation'>) => {
        const full = { playerId: 'p1', currency: 'EUR', sessionToken: TOKEN, createdAt: 0, ...facts } as CallFacts;
        const req = buildRequest(hp, full, { secret: 'aggmock-dev-secret' });
        const res = await fetch(`${running.url}${req.path}`, {
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
        });
        return readReply(hp, full, { status: res.status, text: await res.text() });
      };
      expect(await send({ operation: 'rollback', betTransactionId: 'tx-late' })).toMatchObject({
        verdict: 'rejected',
        status: 605,
        outcome: 'TRANSACTION_NOT_FOUND',
      });
      expect(await send(bet('tx-late', 1000))).toMatchObject({ verdict: 'rejected' });
      expect(running.store.balanceOf('p1')).toBe(10_000);
    } finally {
      await running.close();
    }
  });

  it('refuses insufficient funds with the dialect\u2019s code and status (SoftSwiss 412, code 100)', async () => {
    open('softswiss');
    expect(await call('softswiss', bet('tx-1', 20_000))).toMatchObject({
      verdict: 'rejected',
      status: 412,
      outcome: 'INSUFFICIENT_FUNDS',
    });
    expect(balance()).toBe(10_000);
  });

  it('checks the static credentials a call carries: a Red Tiger stake with another API key is refused', async () => {
    open('redtiger');
    expect(await call('redtiger', bet('tx-1', 100), { apiKey: 'someone-else' })).toMatchObject({
      verdict: 'rejected',
      outcome: 'INVALID_SIGNATURE',
    });
    expect(await call('redtiger', bet('tx-2', 100))).toMatchObject({ verdict: 'accepted' });
    expect(balance()).toBe(9_900);
  });

  it('finds the player of a token-only call by its session token, and answers Caleta\u2019s check with the token', async () => {
    open('caleta');
    const reply = await call('caleta', { operation: 'authenticate', playerId: undefined as unknown as string });
    expect(reply).toMatchObject({ verdict: 'accepted', token: TOKEN });
    // The dialect reads the check's reply without a code (code: false), so the refusal shows in the body only.
    const unknown = await call('caleta', { operation: 'authenticate', sessionToken: 'never-issued' });
    expect(JSON.parse(unknown.text)).toMatchObject({ status: 'RS_ERROR_INVALID_TOKEN' });
  });

  it('refuses a path the dialect does not have with 404, naming the calls it has', async () => {
    open('hub88');
    const res = await (wallet as Wallet).app.request('http://127.0.0.1:4001/transaction/bets', { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'RS_ERROR_WRONG_SYNTAX' });
  });

  it('refuses an amount finer than the currency, naming it, and moves no money', async () => {
    open('hub88');
    const dialect = builtinDialect('hub88');
    const body = JSON.stringify({
      user: 'p1',
      transaction_uuid: 't',
      currency: 'EUR',
      amount: 100_500,
      request_uuid: 'r',
      token: TOKEN,
    });
    const signed = buildRequest(
      dialect,
      { operation: 'bet', playerId: 'p1', currency: 'EUR', createdAt: 0 },
      {
        privateKey: dialect.credentials.privateKey?.default as string,
      },
    );
    // Re-sign the hand-made body with the development key.
    const { createSign } = await import('node:crypto');
    const signature = createSign('sha256')
      .update(body)
      .sign(dialect.credentials.privateKey?.default as string, 'base64');
    const res = await (wallet as Wallet).app.request('http://127.0.0.1:4001/transaction/bet', {
      method: 'POST',
      headers: { ...signed.headers, 'x-hub88-signature': signature },
      body,
    });
    expect(await res.json()).toMatchObject({ status: 'RS_ERROR_WRONG_SYNTAX' });
    expect(balance()).toBe(10_000);
  });

  it('serves its test endpoints beside the dialect, balances in the dialect\u2019s amounts', async () => {
    open('pragmatic');
    const res = await (wallet as Wallet).app.request('http://127.0.0.1:4001/__players/p1');
    expect(await res.json()).toEqual({ playerId: 'p1', balance: '100.00' });
  });
});

describe('the planted faults in a vendor dialect', () => {
  it('double-debit: a repeated Hub88 bet is charged twice', async () => {
    open('hub88', { fault: 'double-debit' });
    await call('hub88', bet('tx-1', 1000));
    await call('hub88', bet('tx-1', 1000));
    expect(balance()).toBe(8_000);
  });

  it('no-signature-check: a Pragmatic bet with a wrong hash moves money', async () => {
    open('pragmatic', { fault: 'no-signature-check' });
    expect(await call('pragmatic', bet('tx-1', 1000), { secretKey: 'forged' })).toMatchObject({ verdict: 'accepted' });
    expect(balance()).toBe(9_000);
  });

  it('debit-only-signature: a forged Pragmatic win is paid, a forged bet refused', async () => {
    open('pragmatic', { fault: 'debit-only-signature' });
    expect(await call('pragmatic', bet('tx-1', 1000), { secretKey: 'forged' })).toMatchObject({ outcome: 'INVALID_SIGNATURE' });
    expect(
      await call('pragmatic', { operation: 'win', transactionId: 'w-1', amountMinor: 700 }, { secretKey: 'forged' }),
    ).toMatchObject({
      verdict: 'accepted',
    });
    expect(balance()).toBe(10_700);
  });

  it('rollback-unknown-credits: a rollback of a bet never seen pays its amount out', async () => {
    open('pragmatic', { fault: 'rollback-unknown-credits' });
    await call('pragmatic', { operation: 'rollback', betTransactionId: 'tx-never', amountMinor: 500 });
    expect(balance()).toBe(10_500);
  });

  it('flaky: some calls are answered 500, which the dialect reads as "retry"', async () => {
    open('hub88', { fault: 'flaky' });
    const verdicts = new Set<string>();
    for (let i = 0; i < 12; i++) verdicts.add((await call('hub88', bet(`tx-${i}`, 10))).verdict);
    expect(verdicts).toEqual(new Set(['accepted', 'retry']));
  });
});
