import { afterEach, describe, expect, it } from 'vitest';
import type { AggmockConfigInput } from '../config/index.ts';
import { signPayload } from '../signing/index.ts';
import { createWallet, type Wallet } from './index.ts';
import { walletConfig } from './test-support.ts';

/*
 * How the reference wallet reads a body of the default wire: through the dialect's reading, the
 * same code as every vendor's (wallet/dialect.ts), each wrong field named. In process
 * (`app.request`), signed as aggmock signs.
 */

const open: Wallet[] = [];
afterEach(() => {
  for (const wallet of open.splice(0)) wallet.close();
});

function wallet(input: AggmockConfigInput = {}) {
  const config = walletConfig(input);
  const w = createWallet({ config, dbPath: ':memory:' });
  open.push(w);
  const post = async (body: unknown) => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const signing = config.callbacks.signing;
    const headers = signPayload({ scheme: signing.scheme, secrets: signing.secrets, headerNames: signing.headers, payload: raw });
    const response = await w.app.request('http://127.0.0.1/callback/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: '127.0.0.1', ...headers },
      body: raw,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const fields = (reply: { body: Record<string, unknown> }) =>
    ((reply.body.errors ?? []) as { field: string }[]).map((e) => e.field).sort();
  return { store: w.store, post, fields };
}

describe('the wallet reads a default body', () => {
  it('reads a DEBIT into minor units', async () => {
    const w = wallet();
    expect(await w.post({ type: 'DEBIT', transactionId: 'tx-1', amount: 10.5, playerId: 'p1' })).toEqual({
      status: 200,
      body: { balance: 989.5 },
    });
    expect(w.store.findTransaction('p1', 'DEBIT', 'tx-1')).toMatchObject({ amountMinor: 1_050, status: 'accepted' });
  });

  it('ignores extra fields such as roundId, gameId, currency and timestamp', async () => {
    const w = wallet();
    const reply = await w.post({
      type: 'CREDIT',
      transactionId: 'tx-1',
      amount: 1,
      playerId: 'p1',
      roundId: 'r',
      gameId: 'g',
      currency: 'EUR',
      timestamp: 1,
    });
    expect(reply).toEqual({ status: 200, body: { balance: 1001 } });
  });

  it('takes the reversed DEBIT of a ROLLBACK from its own transactionId, or from referenceTransactionId when present', async () => {
    const w = wallet();
    await w.post({ type: 'DEBIT', transactionId: 'tx-1', amount: 1, playerId: 'p1' });
    await w.post({ type: 'DEBIT', transactionId: 'tx-2', amount: 2, playerId: 'p1' });
    expect((await w.post({ type: 'ROLLBACK', transactionId: 'tx-1', amount: 1, playerId: 'p1' })).body).toEqual({ balance: 998 });
    const reply = await w.post({
      type: 'ROLLBACK',
      transactionId: 'rb-2',
      referenceTransactionId: 'tx-2',
      amount: 2,
      playerId: 'p1',
    });
    expect(reply.body).toEqual({ balance: 1000 });
    expect(w.store.findTransaction('p1', 'ROLLBACK', 'rb-2')).toMatchObject({ debitTransactionId: 'tx-2' });
  });

  it('maps configured type strings (BET/WIN/REFUND) to kinds and refuses the defaults then', async () => {
    const w = wallet({ callbacks: { types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } } });
    expect((await w.post({ type: 'WIN', transactionId: 't', amount: 1, playerId: 'p1' })).body).toEqual({ balance: 1001 });
    expect(w.store.findTransaction('p1', 'CREDIT', 't')).toBeDefined();
    const refused = await w.post({ type: 'CREDIT', transactionId: 't', amount: 1, playerId: 'p1' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^type: .*"BET".*"WIN".*"REFUND"/);
  });

  it.each([
    ['a third decimal', 10.001, /amount: expected a JSON number in major units, 0 or more, with at most 2 decimals.*got 10\.001/],
    ['a negative amount', -5, /amount: .*got -5/],
    ['a string amount', '10.00', /amount: expected a JSON number/],
  ])('refuses %s and names the amount field', async (_, amount, message) => {
    const w = wallet();
    const reply = await w.post({ type: 'DEBIT', transactionId: 'tx-1', amount, playerId: 'p1' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
    expect(w.fields(reply)).toEqual(['amount']);
    expect(w.store.balanceOf('p1')).toBe(100_000);
  });

  it('reads integer minor units when amountFormat is "minor", and refuses fractions then', async () => {
    const w = wallet({ callbacks: { amountFormat: 'minor' } });
    expect((await w.post({ type: 'DEBIT', transactionId: 't', amount: 1050, playerId: 'p1' })).body).toEqual({ balance: 98_950 });
    const refused = await w.post({ type: 'DEBIT', transactionId: 't2', amount: 10.5, playerId: 'p1' });
    expect(refused.body.message).toMatch(/amount: expected a whole number of minor units, 0 or more/);
  });

  it('reads an amount of 0 (a free spin, a losing round closed)', async () => {
    const w = wallet();
    expect(await w.post({ type: 'CREDIT', transactionId: 't', amount: 0, playerId: 'p1' })).toEqual({
      status: 200,
      body: { balance: 1000 },
    });
  });

  it('names every missing field', async () => {
    const w = wallet();
    expect(w.fields(await w.post({ type: 'DEBIT' }))).toEqual(['amount', 'playerId', 'transactionId']);
  });

  it('refuses an empty transactionId and a numeric playerId, naming them', async () => {
    const w = wallet();
    expect(w.fields(await w.post({ type: 'DEBIT', transactionId: '', amount: 1, playerId: 7 }))).toEqual([
      'playerId',
      'transactionId',
    ]);
  });

  it('explains a body that is not JSON', async () => {
    const reply = await wallet().post('{"type": "DEBIT",');
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^\(body\): expected a JSON object, but the body is not valid JSON/);
  });

  it('refuses a JSON array or null as the body', async () => {
    const w = wallet();
    for (const body of ['[1,2]', 'null']) {
      const reply = await w.post(body);
      expect(reply.status).toBe(400);
      expect(w.fields(reply)).toEqual(['(body)']);
    }
  });
});
