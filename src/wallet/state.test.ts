import { describe, expect, it } from 'vitest';
import { createWallet } from './index.ts';
import { parseProviderState } from './state.ts';
import { startTestWallet, walletConfig } from './test-support.ts';

describe('parseProviderState', () => {
  it.each([
    ['player p1 has balance 100.00', {}, { kind: 'player-balance', playerId: 'p1', balanceMinor: 10_000 }],
    ['player p1 has a balance of 7.5', {}, { kind: 'player-balance', playerId: 'p1', balanceMinor: 750 }],
    ['player has balance', { playerId: 'p3', balance: 12.34 }, { kind: 'player-balance', playerId: 'p3', balanceMinor: 1_234 }],
    ['player p1 has balance 1.00', { balance: '2.00' }, { kind: 'player-balance', playerId: 'p1', balanceMinor: 200 }],
    ['player p9 does not exist', {}, { kind: 'player-absent', playerId: 'p9' }],
    ['player p1 has session token tok-1', {}, { kind: 'player-session', playerId: 'p1', token: 'tok-1' }],
    ['player has a session token', { playerId: 'p2', token: 't2' }, { kind: 'player-session', playerId: 'p2', token: 't2' }],
    [
      'transaction tx-1 was debited from player p1 for 10.00',
      {},
      { kind: 'transaction-debited', playerId: 'p1', transactionId: 'tx-1', amountMinor: 1_000 },
    ],
    [
      'transaction was debited',
      { transactionId: 'tx-2', playerId: 'p2', amount: 5 },
      { kind: 'transaction-debited', playerId: 'p2', transactionId: 'tx-2', amountMinor: 500 },
    ],
  ])('reads %j with params %j', (name, params, state) => {
    expect(parseProviderState(name, params)).toEqual({ ok: true, state });
  });

  it('names an unknown state and lists the supported ones', () => {
    const parsed = parseProviderState('the moon is full');
    expect(parsed).toEqual({
      ok: false,
      message: expect.stringMatching(/^Unknown provider state "the moon is full"\. Supported: "player <id> has balance/),
    });
  });

  it('says which value is missing', () => {
    expect(parseProviderState('player has balance', { balance: 1 })).toEqual({
      ok: false,
      message: expect.stringMatching(/needs playerId/),
    });
  });

  it('refuses a balance with three decimals or below zero', () => {
    expect(parseProviderState('player p1 has balance', { balance: 1.005 }).ok).toBe(false);
    expect(parseProviderState('player p1 has balance -1.00').ok).toBe(false);
  });
});

describe('test endpoints', () => {
  const postState = (url: string, body: unknown) =>
    fetch(`${url}/__state`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('sets a balance, removes a player and records a prior DEBIT that a ROLLBACK can then restore', async () => {
    const { wallet, client } = await startTestWallet();
    try {
      expect((await postState(wallet.url, { state: 'player p1 has balance 100.00' })).status).toBe(200);
      expect(await client.balance('p1')).toBe(100);

      const debited = await postState(wallet.url, {
        state: 'transaction tx-1 was debited from player p1 for 10.00',
        action: 'setup',
      });
      expect(await debited.json()).toMatchObject({ ok: true, results: [{ playerId: 'p1', balance: 90 }] });
      expect((await client.debit('p1', 'tx-1', 10)).body).toEqual({ balance: 90 }); // a duplicate now
      expect((await client.rollback('p1', 'tx-1', 10)).body).toEqual({ balance: 100 });

      await postState(wallet.url, { state: 'player p2 does not exist' });
      expect(await client.balance('p2')).toBeUndefined();
      expect((await client.credit('p2', 'w', 1)).status).toBe(404);

      await postState(wallet.url, { state: 'player has balance', params: { playerId: 'new', balance: 5 } });
      expect(await client.balance('new')).toBe(5);
    } finally {
      await wallet.close();
    }
  });

  it('issues a session token to a player, which a dialect that checks tokens then accepts', async () => {
    const wallet = createWallet({
      config: walletConfig({ callbacks: { profile: 'hub88' }, wallet: { players: { p1: 100 } } }),
      dbPath: ':memory:',
      testEndpoints: true,
    });
    try {
      const res = await wallet.app.request('http://127.0.0.1:4001/__state', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:4001' },
        body: JSON.stringify({ state: 'player p1 has session token launch-42' }),
      });
      expect(res.status).toBe(200);
      expect(wallet.store.playerOfToken('launch-42')).toBe('p1');
      const unknown = await wallet.app.request('http://127.0.0.1:4001/__state', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:4001' },
        body: JSON.stringify({ state: 'player ghost has session token t' }),
      });
      expect(unknown.status).toBe(400);
    } finally {
      wallet.close();
    }
  });

  it('accepts teardown as a no-op and the legacy {states:[…]} body', async () => {
    const { wallet, client } = await startTestWallet();
    try {
      expect((await postState(wallet.url, { state: 'player p1 has balance 1.00', action: 'teardown' })).status).toBe(200);
      expect(await client.balance('p1')).toBe(1000);
      expect((await postState(wallet.url, { states: ['player p1 has balance 2.00'] })).status).toBe(200);
      expect(await client.balance('p1')).toBe(2);
    } finally {
      await wallet.close();
    }
  });

  it('answers an unknown state with 400 naming it', async () => {
    const { wallet } = await startTestWallet();
    try {
      const response = await postState(wallet.url, { state: 'player p1 is a VIP' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: 'INVALID_REQUEST',
        message: expect.stringContaining('"player p1 is a VIP"'),
      });
    } finally {
      await wallet.close();
    }
  });

  it('answers 400 when a prior DEBIT cannot be set up', async () => {
    const { wallet } = await startTestWallet();
    try {
      const noPlayer = await postState(wallet.url, { state: 'transaction t was debited from player ghost for 1.00' });
      expect(noPlayer.status).toBe(400);
      const tooBig = await postState(wallet.url, { state: 'transaction t was debited from player p1 for 5000.00' });
      expect(tooBig.status).toBe(400);
      expect(await tooBig.json()).toMatchObject({ message: expect.stringContaining('INSUFFICIENT_FUNDS') });
    } finally {
      await wallet.close();
    }
  });

  it('answers GET /__players/:id with {playerId, balance} or a JSON 404', async () => {
    const { wallet } = await startTestWallet();
    try {
      expect(await (await fetch(`${wallet.url}/__players/p1`)).json()).toEqual({ playerId: 'p1', balance: 1000 });
      const missing = await fetch(`${wallet.url}/__players/ghost`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ error: 'PLAYER_NOT_FOUND' });
    } finally {
      await wallet.close();
    }
  });

  it('does not exist when disabled (the default of config.wallet.testEndpoints)', async () => {
    const { app, close } = createWallet({ config: walletConfig(), dbPath: ':memory:' });
    try {
      const state = await app.request('/__state', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'player p1 has balance 0.00' }),
      });
      expect(state.status).toBe(404);
      expect((await app.request('/__players/p1')).status).toBe(404);
    } finally {
      close();
    }
  });

  it('is switched on by config.wallet.testEndpoints too', async () => {
    const { app, close } = createWallet({ config: walletConfig({ wallet: { testEndpoints: true } }), dbPath: ':memory:' });
    try {
      expect((await app.request('/__players/p1')).status).toBe(200);
    } finally {
      close();
    }
  });
});
