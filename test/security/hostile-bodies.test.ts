import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Aggmock } from '../../src/runtime.ts';
import { requestPayload, signPayload } from '../../src/signing/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { startTestWallet } from '../../src/wallet/test-support.ts';
import { DEV_KEY_HEADERS, startSmallAggmock, testApp } from '../api/helpers.ts';

/** Bodies an attacker or a broken client sends: each a clear 400, nothing stored, never a 500. */
describe('hostile request bodies', () => {
  const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  /** Two transaction ids that differ only in invalid bytes: decoded loosely, both become "tx-\uFFFD". */
  const invalidUtf8 = (byte: number) =>
    Buffer.concat([
      Buffer.from('{"type":"debit","playerId":"p1","amount":1,"transactionId":"tx-'),
      Buffer.from([byte]),
      Buffer.from('"}'),
    ]);

  let aggmock: Aggmock;
  let wallet: RunningWallet;
  beforeAll(async () => {
    ({ wallet } = await startTestWallet());
    aggmock = await startSmallAggmock({ webhookUrl: wallet.webhookUrl });
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  const adminEvent = (body: string | Uint8Array<ArrayBuffer>) =>
    fetch(`${aggmock.url}/__admin/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const walletPost = (body: string | Uint8Array<ArrayBuffer>) => {
    const signing = aggmock.config.callbacks.signing;
    return fetch(wallet.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signPayload({ scheme: signing.scheme, secrets: signing.secrets, headerNames: signing.headers, payload: body }),
      },
      body,
    });
  };
  const outboxSize = () => aggmock.engine.outbox.list({ limit: 1000 }).length;

  it('deeply nested JSON: 400 from the admin API, the wallet and the aggregator API', async () => {
    const admin = await adminEvent(deep);
    expect(admin.status).toBe(400);
    expect(((await admin.json()) as { message: string }).message).toMatch(/nests 100001 levels deep; expected at most 32/);
    const walletReply = await walletPost(deep);
    expect(walletReply.status).toBe(400);
    const launch = await testApp().app.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: deep,
    });
    expect(launch.status).toBe(400);
    expect(outboxSize()).toBe(0);
  });

  it('transaction ids with invalid UTF-8 are refused, not collapsed into one', async () => {
    for (const byte of [0xff, 0xfe]) {
      const res = await adminEvent(invalidUtf8(byte));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('not valid UTF-8');
    }
    expect(outboxSize()).toBe(0);
    const before = wallet.store.balanceOf('p1');
    for (const byte of [0xff, 0xfe]) {
      const body = Buffer.from(invalidUtf8(byte).toString('latin1').replace('"debit"', '"DEBIT"'), 'latin1');
      const reply = await walletPost(body);
      expect(reply.status).toBe(400);
    }
    expect(wallet.store.balanceOf('p1')).toBe(before);
  });

  it('an amount beyond the safe range (90071992547409.91) is refused, not rounded by a cent', async () => {
    const admin = await adminEvent('{"type":"credit","playerId":"p1","amount":90071992547409.91}');
    expect(admin.status).toBe(400);
    expect(((await admin.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('amount');
    const before = wallet.store.balanceOf('p1');
    const reply = await walletPost('{"type":"CREDIT","transactionId":"big-1","amount":90071992547409.91,"playerId":"p1"}');
    expect(reply.status).toBe(400);
    expect(wallet.store.balanceOf('p1')).toBe(before);
    const launch = await testApp().app.request('/getgameurl', {
      method: 'POST',
      headers: { ...DEV_KEY_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p1',
        gameId: aggmock.catalog.games[0]!.id,
        money: 90071992547409.91,
        platform: 1,
        home_url: 'https://casino.example',
      }),
    });
    expect(launch.status).toBe(400);
    expect(outboxSize()).toBe(0);
  });

  it('a bad ?wait on replay is a 400 that leaves no event behind (found by the fuzz test)', async () => {
    const first = await adminEvent('{"type":"credit","playerId":"p1","amount":1,"transactionId":"wait-1"}');
    const { event } = (await first.json()) as { event: { id: number } };
    const before = outboxSize();
    const res = await fetch(`${aggmock.url}/__admin/deliveries/${event.id}/replay?wait=%00`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('wait');
    expect(outboxSize()).toBe(before);
  });
});

describe('rate limit counts authenticated clients', () => {
  it('a junk API key next to a valid signature is still counted', async () => {
    const clock = { now: 1_000_000 };
    const { app, config } = testApp({ limits: { rateLimit: { requests: 2, window: '10s' } } }, clock);
    const signing = config.auth.signing;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const headers = {
        'x-betnex-key': `junk-${i}`,
        ...signPayload({
          scheme: signing.scheme,
          secrets: signing.secrets,
          headerNames: signing.headers,
          payload: requestPayload('GET', '/getallproviders', ''),
          timestamp: Math.floor(clock.now / 1000),
        }),
      };
      statuses.push((await app.request('/getallproviders', { headers })).status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});
