import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletReadyMessage } from '../../src/cli/commands/wallet.ts';
import { validateConfig } from '../../src/config/index.ts';
import { createWallet, type Wallet } from '../../src/wallet/index.ts';
import { testApp } from '../api/helpers.ts';

/**
 * The reference wallet's test endpoints set any balance (M4 of the 2026-11-25 review), and what
 * the banners and public pages show of secrets (L3). Each test failed before the fix.
 */
describe('M4: the reference wallet test endpoints against other web pages', () => {
  let wallet: Wallet;
  const config = validateConfig({ db: ':memory:', limits: { bodyBytes: 4096 } });
  beforeAll(() => {
    wallet = createWallet({ config, dbPath: ':memory:', testEndpoints: true });
  });
  afterAll(() => wallet?.close());
  const balance = () => wallet.store.balanceOf('p1');
  const state = (headers: Record<string, string>, body = '{"state":"player p1 has balance 99999999.00"}') =>
    wallet.app.request('http://127.0.0.1:4001/__state', {
      method: 'POST',
      headers: { host: '127.0.0.1:4001', ...headers },
      body,
    });

  it.each([
    [
      'a no-cors text/plain POST from another site',
      { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      403,
    ],
    ['text/plain with no Origin (an old browser)', { 'content-type': 'text/plain;charset=UTF-8' }, 415],
    ['a foreign Origin with JSON', { 'content-type': 'application/json', origin: 'https://evil.example' }, 403],
    ['a rebinding name as Host', { 'content-type': 'application/json', host: 'evil.rebind.example:4001' }, 403],
  ])('refuses %s and moves no money', async (_what, headers, status) => {
    const before = balance();
    const res = await state(headers as Record<string, string>);
    expect(res.status).toBe(status);
    expect(balance()).toBe(before);
  });

  it('refuses a balance read under a rebinding name', async () => {
    const res = await wallet.app.request('http://evil.rebind.example:4001/__players/p1', {
      headers: { host: 'evil.rebind.example:4001' },
    });
    expect(res.status).toBe(403);
  });

  it('refuses a body over limits.bodyBytes with 413 before parsing it', async () => {
    const res = await state({ 'content-type': 'application/json' }, `{"state":"${'x'.repeat(10_000)}"}`);
    expect(res.status).toBe(413);
  });

  it('takes same-origin JSON, as verify and Pact send it', async () => {
    const res = await state({ 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(balance()).toBe(9_999_999_900);
    const read = await wallet.app.request('http://127.0.0.1:4001/__players/p1', { headers: { host: '127.0.0.1:4001' } });
    expect(await read.json()).toMatchObject({ playerId: 'p1', balance: 99999999 });
  });

  it('refuses a callback to the webhook under a rebinding name (the dev secret is public)', async () => {
    const res = await wallet.app.request('http://evil.rebind.example:4001/callback/webhook', {
      method: 'POST',
      headers: { host: 'evil.rebind.example:4001', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('not this server');
  });
});

describe('M4: a reference wallet bound beyond loopback', () => {
  it('refuses its test endpoints without an admin token, and takes them with one', async () => {
    const open = createWallet({
      config: validateConfig({ db: ':memory:' }),
      dbPath: ':memory:',
      testEndpoints: true,
      host: '0.0.0.0',
    });
    const closed = await open.app.request('http://10.0.0.5:4001/__players/p1', { headers: { host: '10.0.0.5:4001' } });
    expect(closed.status).toBe(403);
    open.close();
    const tokened = createWallet({
      config: validateConfig({ db: ':memory:', admin: { token: 'wallet-tok' } }),
      dbPath: ':memory:',
      testEndpoints: true,
      host: '0.0.0.0',
    });
    const anonymous = await tokened.app.request('http://10.0.0.5:4001/__players/p1', { headers: { host: '10.0.0.5:4001' } });
    expect(anonymous.status).toBe(401);
    const ok = await tokened.app.request('http://10.0.0.5:4001/__players/p1', {
      headers: { host: '10.0.0.5:4001', authorization: 'Bearer wallet-tok' },
    });
    expect(ok.status).toBe(200);
    tokened.close();
  });

  it('still takes callbacks under any name the network uses (a container service name)', async () => {
    const wallet = createWallet({ config: validateConfig({ db: ':memory:' }), dbPath: ':memory:', host: '0.0.0.0' });
    const res = await wallet.app.request('http://wallet:4001/callback/webhook', {
      method: 'POST',
      headers: { host: 'wallet:4001', 'content-type': 'application/json' },
      body: '{}',
    });
    // Past the Host check: refused for its missing signature, not its name.
    expect(((await res.json()) as { error: string }).error).toBe('INVALID_SIGNATURE');
    wallet.close();
  });
});

describe('L3: secrets in banners and on public pages', () => {
  it('the wallet banner masks a configured secret the way serve does', () => {
    const config = validateConfig({ db: ':memory:', callbacks: { signing: { secrets: ['SuperRealStagingSecret123'] } } });
    const banner = walletReadyMessage(config, 'http://127.0.0.1:4001/callback/webhook', {});
    expect(banner).not.toContain('SuperRealStagingSecret123');
    expect(banner).toContain('masked');
    // The public development default stays readable.
    expect(walletReadyMessage(validateConfig({ db: ':memory:' }), 'http://127.0.0.1:4001/callback/webhook', {})).toContain(
      'aggmock-dev-secret',
    );
  });

  const webhook = 'http://user:pw@127.0.0.1:14001/callback/webhook?access_token=WEBHOOK-SECRET-123';
  const { app, catalog } = testApp({ host: '0.0.0.0', admin: { token: 't' }, callbacks: { webhookUrl: webhook } });
  it.each([
    ['/ui/deliveries', () => '/ui/deliveries'],
    ['/ui/launch', () => `/ui/launch?gameId=${catalog.games[0]!.id}`],
  ])('%s shows the webhook without its query or userinfo', async (_what, path) => {
    const res = await app.request(`http://127.0.0.1:4000${path()}`, { headers: { host: '127.0.0.1:4000' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('WEBHOOK-SECRET-123');
    expect(text).not.toContain('user:pw');
    expect(text).toContain('127.0.0.1:14001/callback/webhook?…');
  });

  it('/openapi.json documents the webhooks without the webhook URL, its query or its userinfo', async () => {
    const res = await app.request('http://127.0.0.1:4000/openapi.json', { headers: { host: '127.0.0.1:4000' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text).webhooks).toHaveProperty('bet');
    expect(text).not.toContain('WEBHOOK-SECRET-123');
    expect(text).not.toContain('user:pw');
  });
});
