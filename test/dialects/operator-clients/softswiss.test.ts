/**
 * The SoftSwiss GCP operator client proven against a loopback stand-in that checks X-REQUEST-SIGN
 * (HMAC-SHA256 hex of the raw body with the casino's auth token) and answers 403 on a mismatch, as
 * the sources in softswiss.ts say. No signature vector is published.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { constantTimeEqual, type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor } from './kit.ts';
import { softSwissClient, softSwissSign } from './softswiss.ts';

const CASINO = 'casino-7';
const AUTH_TOKEN = 'auth-token-7';

function softSwissStandIn(call: ReceivedCall) {
  const signature = String(call.headers['x-request-sign'] ?? '');
  // The raw bytes are hashed: PHP senders escape '/' as '\/', so re-serialising would break them.
  if (!signature || !constantTimeEqual(signature, softSwissSign(call.rawBody.toString('utf8'), AUTH_TOKEN))) {
    return { status: 403, body: { code: 403, message: 'Forbidden: request sign mismatch' } };
  }
  const body = JSON.parse(call.rawBody.toString('utf8')) as Record<string, unknown>;
  if (body.casino_id !== CASINO) return { status: 403, body: { code: 403, message: 'Unknown casino' } };
  switch (call.path) {
    case '/sessions':
      return {
        status: 201,
        body: { launch_options: { game_url: `https://games.example.test/${String(body.game)}?real`, strategy: 'iframe' } },
      };
    case '/demo':
      return {
        status: 200,
        body: { launch_options: { game_url: `https://games.example.test/${String(body.game)}?demo`, strategy: 'iframe' } },
      };
    case '/freespins/issue':
    case '/freespins/cancel':
      return { status: 200, body: { issue_id: body.issue_id } };
    default:
      return { status: 404, body: { code: 404, message: 'not found' } };
  }
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  vendor = await startLoopbackVendor(softSwissStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const client = (tamper?: 'wrong-key' | 'tampered-body' | 'no-signature') =>
  softSwissClient({ baseUrl: vendor.url, casinoId: CASINO, authToken: AUTH_TOKEN, tamper });
const lastBody = () => JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8')) as Record<string, unknown>;

describe('softswiss X-REQUEST-SIGN', () => {
  it('is the lowercase hex HMAC-SHA256 of the exact text, so PHP\u2019s escaped slashes sign differently', () => {
    const plain = '{"urls":{"return_url":"https://c.test/"}}';
    const php = '{"urls":{"return_url":"https:\\/\\/c.test\\/"}}';
    expect(softSwissSign(plain, 'k')).toBe(createHmac('sha256', 'k').update(plain).digest('hex'));
    expect(softSwissSign(plain, 'k')).toMatch(/^[0-9a-f]{64}$/);
    expect(softSwissSign(php, 'k')).not.toBe(softSwissSign(plain, 'k'));
    expect(JSON.parse(php)).toEqual(JSON.parse(plain));
  });
});

describe('softswiss operator client', () => {
  it('opens a real session with currency, subunit balance, urls and user, and returns launch_options.game_url', async () => {
    const url = await client().launch({
      player: 'p-1',
      token: 'not-sent',
      currency: 'EUR',
      gameId: 'softswiss:AllLuckyClover',
      mode: 'real',
      balance: 100000,
      lobbyUrl: 'https://c.test/lobby',
      depositUrl: 'https://c.test/deposit',
    });
    expect(url).toBe('https://games.example.test/softswiss:AllLuckyClover?real');
    expect(lastBody()).toMatchObject({
      casino_id: CASINO,
      game: 'softswiss:AllLuckyClover',
      currency: 'EUR',
      balance: 100000,
      client_type: 'desktop',
      urls: { return_url: 'https://c.test/lobby', deposit_url: 'https://c.test/deposit' },
      user: { id: 'p-1' },
    });
  });

  it('opens a demo on /demo without currency, balance or user', async () => {
    expect(await client().launch({ player: 'p-1', token: 'not-sent', currency: 'EUR', gameId: 'g', mode: 'demo' })).toBe(
      'https://games.example.test/g?demo',
    );
    expect(vendor.calls.at(-1)!.path).toBe('/demo');
    for (const field of ['currency', 'balance', 'user']) expect(lastBody()).not.toHaveProperty(field);
  });

  it('issues and cancels free spins', async () => {
    expect(
      await client().awardFreeSpins({
        issueId: 'i-1',
        player: 'p-1',
        currency: 'EUR',
        games: ['g'],
        quantity: 10,
        validUntil: '2027-01-01T00:00:00Z',
      }),
    ).toEqual({
      issue_id: 'i-1',
    });
    expect(lastBody()).toMatchObject({ freespins_quantity: 10, games: ['g'], user: { id: 'p-1' } });
    expect(await client().cancelFreeSpins('i-1')).toEqual({ issue_id: 'i-1' });
  });

  it('refuses to invent a game list no source documents', async () => {
    await expect(client().listGames()).rejects.toThrow(/no public source/);
  });

  it.each(['wrong-key', 'tampered-body', 'no-signature'] as const)('is refused with 403 when %s', async (tamper) => {
    const failure = await client(tamper)
      .launch({ player: 'p', token: 't', currency: 'EUR', gameId: 'g', mode: 'real' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OperatorCallError);
    expect(failure).toMatchObject({ status: 403 });
  });
});
