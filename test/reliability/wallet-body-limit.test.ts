import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AggmockConfig } from '../../src/config/index.ts';
import { signPayload } from '../../src/signing/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { startTestWallet } from '../../src/wallet/test-support.ts';

/**
 * The wallet's body limit (`limits.bodyBytes`) on the webhook and the test endpoints, whether the
 * body declares its length (decided from Content-Length, without reading it) or comes chunked
 * (counted as it arrives): over the limit a 413, at or under it the call is served.
 */
const LIMIT = 2_000;

/** A raw HTTP POST: with Content-Length, or chunked in two writes (no length declared). */
function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  framing: 'length' | 'chunked',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          host: target.host,
          ...(framing === 'length' ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    if (framing === 'chunked') {
      const half = Math.floor(body.length / 2);
      req.write(body.slice(0, half));
      req.end(body.slice(half));
    } else req.end(body);
  });
}

describe('the wallet refuses a body over limits.bodyBytes, declared or chunked', () => {
  let wallet: RunningWallet;
  let config: AggmockConfig;
  let n = 0;
  beforeAll(async () => {
    ({ wallet, config } = await startTestWallet({ configInput: { limits: { bodyBytes: LIMIT } } }));
  });
  afterAll(() => wallet.close());

  /** A signed DEBIT of 1 cent for p1, padded to `size` bytes. */
  function debit(size: number): { body: string; headers: Record<string, string> } {
    n += 1;
    const bare = JSON.stringify({ type: 'DEBIT', transactionId: `limit-${n}`, amount: 0.01, playerId: 'p1', pad: '' });
    const body = bare.replace('"pad":""', `"pad":"${'x'.repeat(size - bare.length)}"`);
    expect(Buffer.byteLength(body)).toBe(size);
    const signing = config.callbacks.signing;
    const headers = signPayload({
      scheme: signing.scheme,
      secrets: signing.secrets,
      headerNames: signing.headers,
      payload: body,
    });
    return { body, headers: { 'content-type': 'application/json', ...headers } };
  }

  for (const framing of ['length', 'chunked'] as const) {
    it(`webhook, ${framing}: one byte over the limit is a 413 naming it, and moves no money`, async () => {
      const before = wallet.store.balanceOf('p1');
      const { body, headers } = debit(LIMIT + 1);
      const reply = await post(wallet.webhookUrl, body, headers, framing);
      expect(reply.status).toBe(413);
      expect(reply.body).toMatchObject({ error: 'INVALID_REQUEST', message: `Body larger than ${LIMIT} bytes.` });
      expect(wallet.store.balanceOf('p1')).toBe(before);
    });

    it(`webhook, ${framing}: a body of exactly the limit is read and applied`, async () => {
      const before = wallet.store.balanceOf('p1') as number;
      const { body, headers } = debit(LIMIT);
      const reply = await post(wallet.webhookUrl, body, headers, framing);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(wallet.store.balanceOf('p1')).toBe(before - 1);
    });

    it(`provider state, ${framing}: over the limit a 413, under it applied`, async () => {
      const headers = { 'content-type': 'application/json' };
      const big = await post(`${wallet.url}/__state`, `{"state":"${'x'.repeat(LIMIT)}"}`, headers, framing);
      expect(big.status).toBe(413);
      const state = JSON.stringify({ state: 'player p2 has balance 12.34' });
      const small = await post(`${wallet.url}/__state`, state, headers, framing);
      expect(small.status, JSON.stringify(small.body)).toBe(200);
      expect(wallet.store.balanceOf('p2')).toBe(1234);
    });
  }
});
