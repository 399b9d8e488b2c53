// Requests built by hand from Blue Ocean's "Seamless wallet calls (balance, debit, credit,
// rollback)" page: GET with everything in the query, key = sha1(salt + query without key), unsorted.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBlueOceanReceiver } from './blueocean.ts';
import type { VendorReceiver } from './receiver-kit.ts';

const CREDENTIALS = { callerId: 'casino_s', callerPassword: 'pw', salt: 'Salt123' };
let wallet: VendorReceiver;

beforeEach(async () => {
  wallet = await startBlueOceanReceiver({
    credentials: CREDENTIALS,
    players: [{ playerId: 'u1', currency: 'EUR', balance: '300.00' }],
  });
});
afterEach(() => wallet.stop());

async function call(params: Record<string, string>, key?: string) {
  const query = new URLSearchParams({
    callerId: CREDENTIALS.callerId,
    callerPassword: CREDENTIALS.callerPassword,
    ...params,
  }).toString();
  const signed = `${query}&key=${
    key ??
    createHash('sha1')
      .update(CREDENTIALS.salt + query)
      .digest('hex')
  }`;
  const res = await fetch(`${wallet.url}/api/seamless/s2s/gh?${signed}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, string>;
}

const debit = (id: string, amount: string) => ({
  action: 'debit',
  game_id_hash: 're_re-reactor',
  gamesession_id: 'gs-1',
  username: 'u1',
  session_id: 's1',
  round_id: 'r1',
  gameplay_final: '0',
  amount,
  transaction_id: id,
});

describe('Blue Ocean receiver', () => {
  it('answers a balance call with status and balance as strings', async () => {
    expect(await call({ action: 'balance', username: 'u1', currency: 'EUR' })).toEqual({ status: '200', balance: '300.00' });
    expect(wallet.errors).toEqual([]);
  });

  it('debits and credits exactly, including a 0 credit that closes the round', async () => {
    expect(await call(debit('tx-debit-1', '0.10'))).toEqual({ status: '200', balance: '299.90' });
    expect(await call({ ...debit('tx-credit-1', '0.20'), action: 'credit' })).toEqual({ status: '200', balance: '300.10' });
    expect(await call({ ...debit('tx-credit-2', '0'), action: 'credit', gameplay_final: '1' })).toEqual({
      status: '200',
      balance: '300.10',
    });
    expect(wallet.balanceOf('u1')).toBe('300.10');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a repeated transaction_id with the same response and moves no money', async () => {
    const first = await call(debit('tx-1', '50'));
    await call({ ...debit('tx-2', '5'), action: 'credit' });
    expect(await call(debit('tx-1', '50'))).toEqual(first);
    expect(wallet.balanceOf('u1')).toBe('255.00');
  });

  it('refuses a debit over the balance with status 403 and keeps the balance', async () => {
    expect(await call(debit('tx-big', '300.01'))).toMatchObject({ status: '403', balance: '300.00' });
    expect(wallet.balanceOf('u1')).toBe('300.00');
  });

  it('rolls back a debit once by its transaction_id, ignoring the amount, and answers 404 for an unknown one', async () => {
    await call(debit('tx-1', '40'));
    expect(
      await call({
        action: 'rollback',
        username: 'u1',
        session_id: 's1',
        gamesession_id: 'gs-1',
        transaction_id: 'tx-1',
        amount: '1',
      }),
    ).toEqual({
      status: '200',
      balance: '300.00',
    });
    expect(
      await call({
        action: 'rollback',
        username: 'u1',
        session_id: 's1',
        gamesession_id: 'gs-1',
        transaction_id: 'tx-1',
        amount: '1',
      }),
    ).toEqual({
      status: '200',
      balance: '300.00',
    });
    expect(
      await call({ action: 'rollback', username: 'u1', session_id: 's1', gamesession_id: 'gs-1', transaction_id: 'nope' }),
    ).toEqual({ status: '404', msg: 'transaction missing' });
    expect(wallet.balanceOf('u1')).toBe('300.00');
  });

  it('accepts a key over the query exactly as sent, whatever its parameter order', async () => {
    const query = `amount=1.00&transaction_id=t9&username=u1&action=debit&callerPassword=pw&callerId=casino_s&game_id=a%20b&session_id=s&round_id=r&gameplay_final=0&gamesession_id=g`;
    const res = await fetch(
      `${wallet.url}/?${query}&key=${createHash('sha1')
        .update(CREDENTIALS.salt + query)
        .digest('hex')}`,
    );
    expect(await res.json()).toEqual({ status: '200', balance: '299.00' });
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a wrong key with INCORRECT_KEY_VALIDATION and records it', async () => {
    expect(await call(debit('tx-1', '1'), 'f'.repeat(40))).toEqual({ status: '403', msg: 'INCORRECT_KEY_VALIDATION' });
    expect(wallet.balanceOf('u1')).toBe('300.00');
    expect(wallet.errors).toEqual([expect.stringContaining('key does not match')]);
  });

  it('records an amount with three decimals and a flag that is not 0/1, naming the fields', async () => {
    expect((await call({ ...debit('tx-1', '1.005'), gameplay_final: 'true' })).status).toBe('500');
    expect(wallet.errors.join('\n')).toMatch(/amount: got "1\.005"/);
    expect(wallet.errors.join('\n')).toMatch(/gameplay_final: got "true"; expected 0 or 1/);
    expect(wallet.balanceOf('u1')).toBe('300.00');
  });

  it('records a debit missing its round, session and game, and moves no money', async () => {
    const reply = await call({ action: 'debit', username: 'u1', amount: '1', transaction_id: 'tx-1' });
    expect(reply.status).toBe('500');
    for (const name of ['session_id', 'round_id', 'gameplay_final', 'gamesession_id', 'game_id_hash']) {
      expect(wallet.errors.join('\n')).toContain(`${name}: required by the docs`);
    }
    expect(wallet.balanceOf('u1')).toBe('300.00');
  });
});
