import { describe, expect, it } from 'vitest';
import type { AggmockConfigInput } from '../config/index.ts';
import { SIGNING_SCHEMES, signPayload, toWhsec } from '../signing/index.ts';
import { createWallet } from './index.ts';
import { nowSeconds, startTestWallet, walletConfig } from './test-support.ts';

const bet = { type: 'DEBIT', transactionId: 'tx-1', amount: 10, playerId: 'p1' };

async function withWallet(
  configInput: AggmockConfigInput,
  run: (t: Awaited<ReturnType<typeof startTestWallet>>) => Promise<void>,
) {
  const started = await startTestWallet({ configInput });
  try {
    await run(started);
  } finally {
    await started.wallet.close();
  }
}

describe.each(SIGNING_SCHEMES)('signature scheme %s', (scheme) => {
  const configInput = { callbacks: { signing: { scheme, secrets: ['current-secret', 'previous-secret'] } } };

  it('accepts a request signed with the current secret', () =>
    withWallet(configInput, async ({ client }) => {
      expect(await client.post(bet, { secrets: ['current-secret'] })).toMatchObject({ status: 200, body: { balance: 990 } });
    }));

  it('accepts a request signed with the second (rotated-out) secret', () =>
    withWallet(configInput, async ({ client }) => {
      expect(await client.post(bet, { secrets: ['previous-secret'] })).toMatchObject({ status: 200, body: { balance: 990 } });
    }));

  it('refuses a wrong secret with 401 INVALID_SIGNATURE and moves no money', () =>
    withWallet(configInput, async ({ client }) => {
      const reply = await client.post(bet, { secrets: ['someone-else'] });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: 'INVALID_SIGNATURE', message: expect.stringMatching(/No signature matches/) });
      expect(await client.balance('p1')).toBe(1000);
    }));

  it('refuses a tampered body (signed 10.00, sent 1.00) with 401 and moves no money', () =>
    withWallet(configInput, async ({ client }) => {
      const reply = await client.post({ ...bet, amount: 1 }, { signedBody: JSON.stringify(bet) });
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe('INVALID_SIGNATURE');
      expect(await client.balance('p1')).toBe(1000);
    }));

  it('refuses a request without signature headers with 401 naming the missing header', () =>
    withWallet(configInput, async ({ client }) => {
      const reply = await client.post(bet, { sign: false });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/^Missing signature header/);
      expect(await client.balance('p1')).toBe(1000);
    }));

  if (scheme !== 'hmac-hex') {
    it('refuses a stale timestamp (10 minutes old) with 401 and moves no money', () =>
      withWallet(configInput, async ({ client }) => {
        const reply = await client.post(bet, { timestamp: nowSeconds() - 600 });
        expect(reply.status).toBe(401);
        expect(reply.body.message).toMatch(/old; at most 300s/);
        expect(await client.balance('p1')).toBe(1000);
      }));

    it('refuses a timestamp from the future beyond the tolerance', () =>
      withWallet(configInput, async ({ client }) => {
        const reply = await client.post(bet, { timestamp: nowSeconds() + 600 });
        expect(reply.status).toBe(401);
        expect(reply.body.message).toMatch(/in the future/);
      }));
  }
});

describe('signature configuration', () => {
  it('accepts a standard-webhooks whsec_ secret that is the same key as the plain one', () =>
    withWallet(
      { callbacks: { signing: { scheme: 'standard-webhooks', secrets: [toWhsec('aggmock-dev-secret')] } } },
      async ({ client }) => {
        expect((await client.post(bet, { secrets: ['aggmock-dev-secret'] })).status).toBe(200);
      },
    ));

  it('honours a configured signature header name', () =>
    withWallet({ callbacks: { signing: { headers: { signature: 'X-Casino-Signature' } } } }, async ({ client, wallet }) => {
      expect((await client.post(bet)).status).toBe(200);
      // The default header name alone is not enough once another one is configured.
      const body = JSON.stringify({ ...bet, transactionId: 'tx-2' });
      const response = await fetch(wallet.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body }),
        },
        body,
      });
      expect(response.status).toBe(401);
    }));

  it('honours a configured tolerance', () =>
    withWallet({ callbacks: { signing: { toleranceSeconds: 5 } } }, async ({ client }) => {
      expect((await client.post(bet, { timestamp: nowSeconds() - 60 })).status).toBe(401);
    }));

  it('checks the signature before parsing, so an unsigned malformed body is a 401, not a 400', () =>
    withWallet({}, async ({ client }) => {
      expect((await client.post('{oops', { sign: false })).status).toBe(401);
    }));

  it('checks timestamps against the injected clock', async () => {
    const config = walletConfig();
    const { app, close } = createWallet({ config, dbPath: ':memory:', now: () => new Date('2030-01-01T00:00:00Z') });
    try {
      const body = JSON.stringify(bet);
      const signedNow = signPayload({ scheme: 'timestamped', secrets: config.callbacks.signing.secrets, payload: body });
      const response = await app.request('/callback/webhook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signedNow },
        body,
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        error: 'INVALID_SIGNATURE',
        message: expect.stringMatching(/old; at most 300s/),
      });
      const signedThen = signPayload({
        scheme: 'timestamped',
        secrets: config.callbacks.signing.secrets,
        payload: body,
        timestamp: 1_893_456_000,
      });
      const accepted = await app.request('/callback/webhook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signedThen },
        body,
      });
      expect(await accepted.json()).toEqual({ balance: 990 });
    } finally {
      close();
    }
  });
});
