/**
 * Proves the Pragmatic Play receiver before it judges anyone: form-encoded calls built by hand from
 * the Integration API Specification summary (see pragmatic.ts), hashed here with MD5 as §3.2 says,
 * sent over real HTTP to 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pragmaticHashCandidates, startPragmaticReceiver, type VendorReceiver } from './pragmatic.ts';

const SECRET = 'testKey';
const TOKEN = '5v93mto7jr';
let wallet: VendorReceiver;
let sequence = 0;
const ref = (label: string) => `${label}${++sequence}`;
const NOW_MS = '1732536000000';

/** §3.2 written out independently of the receiver: sort the names, k=v&…, append the key, MD5 hex. */
function hashOf(params: Record<string, string>, key = SECRET): string {
  const text = Object.keys(params)
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return createHash('md5')
    .update(text + key)
    .digest('hex');
}

async function call(
  path: string,
  params: Record<string, string>,
  options: { hash?: string | null; contentType?: string; raw?: string } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const hash = options.hash === undefined ? hashOf(params) : options.hash;
  const form = new URLSearchParams(hash === null ? params : { ...params, hash });
  const response = await fetch(`${wallet.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' },
    body: options.raw ?? form.toString(),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function bet(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    providerId: 'pragmaticplay',
    userId: '421',
    gameId: 'vs50aladdin',
    roundId: '5103188801',
    amount: '10.00',
    reference: ref('585c2f4a1b8e6e0001'),
    timestamp: NOW_MS,
    roundDetails: 'spin',
    token: TOKEN,
    platform: 'WEB',
    ...overrides,
  };
}

function result(overrides: Record<string, string> = {}): Record<string, string> {
  const { token: _token, ...rest } = bet();
  return { ...rest, amount: '25.50', reference: ref('585c2f4a1b8e6e0099'), roundDetails: 'spin', ...overrides };
}

beforeEach(async () => {
  wallet = await startPragmaticReceiver({
    credentials: { secretKey: SECRET },
    players: [
      { playerId: '421', currency: 'USD', balance: '100.00', token: TOKEN },
      { playerId: 'playerAbc', currency: 'EUR', balance: '5.00' },
    ],
  });
});
afterEach(async () => {
  await wallet.stop();
});

describe('pragmatic receiver: hash rule', () => {
  it('computes the same hash as §3.2 written out by hand, for the spec example order', () => {
    const params = { providerId: 'pragmaticplay', token: TOKEN, hash: 'ignored' };
    const byHand = createHash('md5').update(`providerId=pragmaticplay&token=${TOKEN}${SECRET}`).digest('hex');
    expect(pragmaticHashCandidates(params, SECRET)).toContain(byHand);
  });

  it('accepts every reading the sources leave open: empty values skipped or kept, names sorted with or without case', async () => {
    const params = { providerId: 'pragmaticplay', userId: '421', token: '' };
    const withoutEmpty = hashOf({ providerId: 'pragmaticplay', userId: '421' });
    expect(pragmaticHashCandidates(params, SECRET)).toEqual(expect.arrayContaining([hashOf(params), withoutEmpty]));
    // 'Z' sorts before 'a' by code unit, after it without case: the two readings give two hashes.
    const mixedCase = { alpha: '2', Zeta: '1' };
    const byCodeUnit = createHash('md5').update(`Zeta=1&alpha=2${SECRET}`).digest('hex');
    const caseless = createHash('md5').update(`alpha=2&Zeta=1${SECRET}`).digest('hex');
    expect(byCodeUnit).not.toBe(caseless);
    expect(pragmaticHashCandidates(mixedCase, SECRET)).toEqual(expect.arrayContaining([caseless, byCodeUnit]));
  });
});

describe('pragmatic receiver: authenticate and balance', () => {
  it('authenticates the launch token and answers userId, currency, cash and bonus', async () => {
    const { status, json } = await call('/authenticate.html', { providerId: 'pragmaticplay', token: TOKEN });
    expect(status).toBe(200);
    expect(json).toEqual({ userId: '421', currency: 'USD', cash: 100, bonus: 0, token: TOKEN, error: 0, description: 'Success' });
    expect(wallet.errors).toEqual([]);
  });

  it('answers an unknown token with error 4 and records it', async () => {
    const { json } = await call('/authenticate.html', { providerId: 'pragmaticplay', token: 'forged' });
    expect(json).toMatchObject({ error: 4 });
    expect(wallet.errors).toEqual([expect.stringMatching(/token "forged" is not a session token/)]);
  });

  it('answers balance with cash and bonus', async () => {
    const { json } = await call('/balance.html', { providerId: 'pragmaticplay', userId: '421', token: TOKEN });
    expect(json).toEqual({ currency: 'USD', cash: 100, bonus: 0, error: 0, description: 'Success' });
  });

  it('treats userId as case-sensitive: PLAYERABC is not playerAbc (error 2)', async () => {
    const { json } = await call('/balance.html', { providerId: 'pragmaticplay', userId: 'PLAYERABC' });
    expect(json).toMatchObject({ error: 2 });
    expect(wallet.errors).toEqual([expect.stringMatching(/userId "PLAYERABC" is not a player/)]);
  });
});

describe('pragmatic receiver: bet, result, refund, endRound, promoWin', () => {
  it('debits a bet and credits its result, answering transactionId, currency, cash, bonus', async () => {
    const placed = await call('/bet.html', bet({ amount: '10.25' }));
    expect(placed.json).toMatchObject({ currency: 'USD', cash: 89.75, bonus: 0, usedPromo: 0, error: 0, description: 'Success' });
    expect(placed.json.transactionId).toEqual(expect.any(String));
    const won = await call('/result.html', result({ amount: '25.50' }));
    expect(won.json).toMatchObject({ cash: 115.25, error: 0 });
    expect(won.json.transactionId).not.toBe(placed.json.transactionId);
    expect(wallet.balanceOf('421')).toBe('115.25');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a retried bet (same reference) with the same transactionId and the current balance, and charges once', async () => {
    const params = bet();
    const first = await call('/bet.html', params);
    await call('/result.html', result({ amount: '1.00' }));
    const retry = await call('/bet.html', params);
    expect(retry.json).toMatchObject({ transactionId: first.json.transactionId, cash: 91, error: 0 });
    expect(wallet.balanceOf('421')).toBe('91.00');
    expect(wallet.errors).toEqual([]);
  });

  it('credits a retried result once', async () => {
    const params = result({ amount: '3.00' });
    await call('/result.html', params);
    await call('/result.html', params);
    expect(wallet.balanceOf('421')).toBe('103.00');
  });

  it('records a reused reference with another amount and moves no money for it', async () => {
    const params = bet();
    await call('/bet.html', params);
    const { json } = await call('/bet.html', { ...params, amount: '20.00' });
    expect(json).toMatchObject({ error: 0 });
    expect(wallet.balanceOf('421')).toBe('90.00');
    expect(wallet.errors).toEqual([
      expect.stringMatching(/reference .* was already a bet with other details \(amount 10 vs 20.00\)/),
    ]);
  });

  it('refuses a bet above the balance with error 1 and moves no money, not as a request error', async () => {
    const { json } = await call('/bet.html', bet({ amount: '100.01' }));
    expect(json).toMatchObject({ error: 1, description: 'Insufficient balance' });
    expect(wallet.balanceOf('421')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('refunds a bet by its reference once: the stake comes back, a repeated refund gets the same transactionId', async () => {
    const params = bet({ amount: '7.00' });
    await call('/bet.html', params);
    const refund = { providerId: 'pragmaticplay', userId: '421', reference: params.reference as string };
    const first = await call('/refund.html', refund);
    expect(first.json).toEqual({ transactionId: expect.any(String), error: 0, description: 'Success' });
    const again = await call('/refund.html', { ...refund, amount: '7.00' });
    expect(again.json).toEqual(first.json);
    expect(wallet.balanceOf('421')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a refund of a bet it never saw with success and moves no money', async () => {
    const { json } = await call('/refund.html', { providerId: 'pragmaticplay', userId: '421', reference: 'neverplaced1' });
    expect(json).toMatchObject({ error: 0 });
    expect(wallet.balanceOf('421')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('refuses a refund whose amount is not the bet amount with error 7 and moves no money', async () => {
    const params = bet({ amount: '7.00' });
    await call('/bet.html', params);
    const { json } = await call('/refund.html', {
      providerId: 'pragmaticplay',
      userId: '421',
      reference: params.reference as string,
      amount: '9.00',
    });
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.balanceOf('421')).toBe('93.00');
    expect(wallet.errors).toEqual([expect.stringMatching(/refund amount 9.00 is not the bet amount 7/)]);
  });

  it('answers endRound with cash and bonus, as often as it comes, and moves no money', async () => {
    const end = { providerId: 'pragmaticplay', userId: '421', gameId: 'vs50aladdin', roundId: '5103188801' };
    expect((await call('/endRound.html', end)).json).toEqual({ cash: 100, bonus: 0, error: 0, description: 'Success' });
    expect((await call('/endRound.html', end)).json).toEqual({ cash: 100, bonus: 0, error: 0, description: 'Success' });
  });

  it('credits a promoWin once by its reference', async () => {
    const promo = {
      providerId: 'pragmaticplay',
      timestamp: NOW_MS,
      userId: '421',
      campaignId: '900001',
      campaignType: 'T',
      amount: '5.00',
      currency: 'USD',
      reference: ref('promo'),
    };
    expect((await call('/promoWin.html', promo)).json).toMatchObject({ cash: 105, error: 0 });
    await call('/promoWin.html', promo);
    expect(wallet.balanceOf('421')).toBe('105.00');
    expect(wallet.errors).toEqual([]);
  });

  it('pays a result whatever its token (it may come after the session ended)', async () => {
    const { json } = await call('/result.html', result({ token: 'expired' }));
    expect(json).toMatchObject({ error: 0 });
    expect(wallet.errors).toEqual([]);
  });
});

describe('pragmatic receiver: bonusWin and jackpotWin', () => {
  it('credits a bonusWin once, including a 0.00 one that moves nothing', async () => {
    const bonus = {
      providerId: 'pragmaticplay',
      userId: '421',
      amount: '12.00',
      reference: ref('bw'),
      timestamp: NOW_MS,
      bonusCode: 'FRB1',
    };
    await call('/bonusWin.html', bonus);
    await call('/bonusWin.html', bonus);
    expect((await call('/bonusWin.html', { ...bonus, amount: '0.00', reference: ref('bw') })).json).toMatchObject({ error: 0 });
    expect(wallet.balanceOf('421')).toBe('112.00');
    expect(wallet.errors).toEqual([]);
  });

  it('credits a jackpotWin once', async () => {
    const jackpot = {
      providerId: 'pragmaticplay',
      timestamp: NOW_MS,
      userId: '421',
      gameId: 'vs50aladdin',
      roundId: '5103188802',
      jackpotId: '77',
      amount: '1000.00',
      reference: ref('jp'),
    };
    await call('/jackpotWin.html', jackpot);
    await call('/jackpotWin.html', jackpot);
    expect(wallet.balanceOf('421')).toBe('1100.00');
  });
});

describe('pragmatic receiver: what it refuses and records', () => {
  it('refuses a hash made with another key with error 5 and moves no money', async () => {
    const params = bet();
    const { json } = await call('/bet.html', params, { hash: hashOf(params, 'wrongKey') });
    expect(json).toMatchObject({ error: 5 });
    expect(wallet.balanceOf('421')).toBe('100.00');
    expect(wallet.errors).toEqual([expect.stringMatching(/hash does not match/)]);
  });

  it('refuses a call whose hash left a parameter out with error 5', async () => {
    const params = bet();
    const { platform: _platform, ...withoutPlatform } = params;
    const { json } = await call('/bet.html', params, { hash: hashOf(withoutPlatform) });
    expect(json).toMatchObject({ error: 5 });
  });

  it('refuses a call without hash with error 5', async () => {
    const { json } = await call('/balance.html', { providerId: 'pragmaticplay', userId: '421' }, { hash: null });
    expect(json).toMatchObject({ error: 5 });
    expect(wallet.errors).toEqual([expect.stringMatching(/parameter hash is missing/)]);
  });

  it('refuses a timestamp in seconds with error 7 naming the field and the milliseconds rule', async () => {
    const { json } = await call('/bet.html', bet({ timestamp: '1732536000' }));
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.errors).toEqual([
      expect.stringMatching(/parameter timestamp="1732536000" is not a Unix timestamp in milliseconds/),
    ]);
  });

  it('refuses an amount with three fraction digits or in minor units with error 7', async () => {
    expect((await call('/bet.html', bet({ amount: '1.005' }))).json).toMatchObject({ error: 7 });
    expect((await call('/bet.html', bet({ amount: '-1.00' }))).json).toMatchObject({ error: 7 });
    expect(wallet.balanceOf('421')).toBe('100.00');
  });

  it('refuses a roundId that is not a Long with error 7', async () => {
    const { json } = await call('/bet.html', bet({ roundId: 'round-abc' }));
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.errors).toEqual([expect.stringMatching(/parameter roundId="round-abc" is not a Long/)]);
  });

  it('refuses a reference longer than 32 characters with error 7', async () => {
    const { json } = await call('/bet.html', bet({ reference: 'r'.repeat(33) }));
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.errors).toEqual([expect.stringMatching(/parameter reference is 33 characters; at most 32/)]);
  });

  it('refuses a bet without roundDetails with error 7 naming it', async () => {
    const { roundDetails: _details, ...params } = bet();
    const { json } = await call('/bet.html', params);
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.errors).toEqual([expect.stringMatching(/parameter roundDetails is missing/)]);
  });

  it('refuses a bet carrying another player session token with error 4', async () => {
    const { json } = await call('/bet.html', bet({ token: 'someone-else' }));
    expect(json).toMatchObject({ error: 4 });
    expect(wallet.balanceOf('421')).toBe('100.00');
  });

  it('refuses a JSON body with error 7 naming the expected encoding', async () => {
    const params = bet();
    const raw = JSON.stringify({ ...params, hash: hashOf(params) });
    const { json } = await call('/bet.html', params, { raw, contentType: 'application/json' });
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.errors).toEqual([expect.stringMatching(/expected application\/x-www-form-urlencoded/)]);
  });

  it('refuses a refund naming another player than the bet with error 7 and moves no money', async () => {
    const params = bet();
    await call('/bet.html', params);
    const { json } = await call('/refund.html', {
      providerId: 'pragmaticplay',
      userId: 'playerAbc',
      reference: params.reference as string,
    });
    expect(json).toMatchObject({ error: 7 });
    expect(wallet.balanceOf('421')).toBe('90.00');
    expect(wallet.balanceOf('playerAbc')).toBe('5.00');
  });

  it('answers an unknown path 404 and records it', async () => {
    const { status } = await call('/debit.html', { providerId: 'pragmaticplay' });
    expect(status).toBe(404);
    expect(wallet.errors).toEqual([expect.stringMatching(/POST \/debit.html: unknown path/)]);
  });

  it('logs each answered call with its parsed parameters and reply', async () => {
    const params = { providerId: 'pragmaticplay', userId: '421' };
    await call('/balance.html', params);
    expect(wallet.log).toEqual([
      {
        method: 'POST',
        path: '/balance.html',
        fields: { ...params, hash: hashOf(params) },
        status: 200,
        reply: { currency: 'USD', cash: 100, bonus: 0, error: 0, description: 'Success' },
      },
    ]);
  });

  it('refuses to start without credentials.secretKey', async () => {
    await expect(startPragmaticReceiver({ credentials: {}, players: [] })).rejects.toThrow(/credentials.secretKey/);
  });
});
