import { createHash, createHmac, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_DIALECTS,
  buildRequest,
  builtinDialect,
  type CallFacts,
  DIALECT_SCHEMA_PATH,
  type Dialect,
  type DialectInput,
  dialectJsonSchemaText,
  dialectSchema,
  readAmount,
  readReply,
  readsAttemptFacts,
  unknownRollbackAnswer,
  verifyRequest,
  writeAmount,
  writeReply,
} from './index.ts';

const T = Date.UTC(2026, 10, 25, 12, 0, 0);
const bet = (over: Partial<CallFacts> = {}): CallFacts => ({
  operation: 'bet',
  playerId: 'p1',
  currency: 'EUR',
  transactionId: 'tx_1',
  amountMinor: 1050,
  roundId: 'r_1',
  gameId: 'vs20test',
  sessionToken: 'tok-123',
  requestId: 'req-1',
  createdAt: T,
  ...over,
});

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

/** A minimal dialect with one recipe, for the signing cases. */
function withRecipe(
  signing: DialectInput['signing'],
  encoding: 'json' | 'form' | 'query' = 'json',
  method: 'GET' | 'POST' = 'POST',
): Dialect {
  return dialectSchema.parse({
    name: 'test',
    credentials: { secret: { description: 'a secret' }, salt: { description: 'a salt' } },
    request: { encoding },
    signing,
    operations: {
      bet: {
        method,
        path: '/players/{playerId}/bet',
        fields: { user: { from: 'playerId' }, amount: { from: 'amount' }, id: { from: 'transactionId' } },
      },
      win: { method, path: '/win', fields: { user: { from: 'playerId' }, amount: { from: 'amount' } } },
    },
  });
}
const creds = { secret: 's3cret', salt: 'pepper', privateKey: PEM };

describe('Pragmatic Play requests', () => {
  const pp = builtinDialect('pragmatic');

  it('posts a bet as a form to /bet.html with amounts in major units and a ms timestamp', () => {
    const req = buildRequest(pp, bet(), { secretKey: 'testKey' });
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/bet.html');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const params = new URLSearchParams(req.body);
    expect(params.get('amount')).toBe('10.50');
    expect(params.get('reference')).toBe('tx_1');
    expect(params.get('timestamp')).toBe(String(T));
    expect(params.get('userId')).toBe('p1');
  });

  it('signs with the MD5 of the sorted k=v pairs followed by the secret key, in the hash field', () => {
    const req = buildRequest(pp, bet(), { secretKey: 'testKey' });
    const params = [...new URLSearchParams(req.body)].filter(([k]) => k !== 'hash');
    const text = `${params
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&')}testKey`;
    expect(new URLSearchParams(req.body).get('hash')).toBe(createHash('md5').update(text).digest('hex'));
  });

  it('sends a refund with the bet it reverses as reference', () => {
    const req = buildRequest(pp, bet({ operation: 'rollback', transactionId: 'rb_1', betTransactionId: 'tx_1' }), {
      secretKey: 'k',
    });
    expect(req.path).toBe('/refund.html');
    expect(new URLSearchParams(req.body).get('reference')).toBe('tx_1');
  });

  it('reads cash + bonus as the balance, error 0 as success and error 100 as retry', () => {
    const ok = readReply(
      pp,
      { operation: 'bet', currency: 'EUR' },
      { status: 200, text: '{"cash":99.5,"bonus":0.5,"error":0,"description":"Success"}' },
    );
    expect(ok).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 10000 } });
    const retry = readReply(
      pp,
      { operation: 'bet', currency: 'EUR' },
      { status: 200, text: '{"error":100,"description":"Internal error"}' },
    );
    expect(retry.verdict).toBe('retry');
    const poor = readReply(
      pp,
      { operation: 'bet', currency: 'EUR' },
      { status: 200, text: '{"cash":1,"bonus":0,"error":1,"description":"Insufficient balance"}' },
    );
    expect(poor).toMatchObject({
      verdict: 'rejected',
      code: '1',
      outcome: 'INSUFFICIENT_FUNDS',
      message: 'Insufficient balance',
    });
  });

  it('reads a refund reply, which has no balance, as an acceptance without one', () => {
    const reply = readReply(
      pp,
      { operation: 'rollback', currency: 'EUR' },
      { status: 200, text: '{"transactionId":"w1","error":0,"description":"Success"}' },
    );
    expect(reply).toMatchObject({ verdict: 'accepted', balance: { kind: 'none' } });
  });

  it('verifies its own signature and refuses a tampered amount, naming the field', () => {
    const req = buildRequest(pp, bet(), { secretKey: 'testKey' });
    const received = { method: 'POST', path: req.path, headers: req.headers, body: req.body as string };
    expect(verifyRequest(pp, received, { secretKey: 'testKey' })).toEqual({ ok: true });
    const tampered = { ...received, body: (req.body as string).replace('amount=10.50', 'amount=1.50') };
    expect(verifyRequest(pp, tampered, { secretKey: 'testKey' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('field hash'),
    });
    expect(verifyRequest(pp, received, { secretKey: 'other' }).ok).toBe(false);
  });
});

describe('Hub88 requests', () => {
  const hub88 = builtinDialect('hub88');

  it('posts JSON to /transaction/bet with amounts × 100000 and the session token', () => {
    const req = buildRequest(hub88, bet({ amountMinor: 356 }), { privateKey: PEM });
    expect(req.path).toBe('/transaction/bet');
    const body = JSON.parse(req.body as string);
    expect(body).toMatchObject({
      user: 'p1',
      transaction_uuid: 'tx_1',
      amount: 356000,
      currency: 'EUR',
      token: 'tok-123',
      request_uuid: 'req-1',
      is_free: false,
    });
  });

  it('marks a free spin with is_free and a win with the bet it settles', () => {
    const req = buildRequest(
      hub88,
      bet({ operation: 'win', transactionId: 'tx_2', betTransactionId: 'tx_1', bonus: { kind: 'free-spins', id: 'fs1' } }),
      { privateKey: PEM },
    );
    expect(JSON.parse(req.body as string)).toMatchObject({
      is_free: true,
      reference_transaction_uuid: 'tx_1',
      reward_uuid: 'fs1',
    });
  });

  it('signs the raw body with RSA-SHA256 in X-Hub88-Signature (base64), verifiable with the public key', () => {
    const req = buildRequest(hub88, bet(), { privateKey: PEM });
    const signature = Buffer.from(req.headers['x-hub88-signature'] as string, 'base64');
    expect(verify('sha256', Buffer.from(req.body as string), publicKey, signature)).toBe(true);
    const received = { method: 'POST', path: req.path, headers: req.headers, body: req.body as string };
    expect(verifyRequest(hub88, received, { privateKey: PEM })).toEqual({ ok: true });
    expect(
      verifyRequest(hub88, { ...received, body: (req.body as string).replace('"p1"', '"p2"') }, { privateKey: PEM }).ok,
    ).toBe(false);
  });

  it('reads RS_OK as success and maps RS_ERROR_NOT_ENOUGH_MONEY to insufficient funds, with the balance', () => {
    const ok = readReply(
      hub88,
      { operation: 'bet', currency: 'EUR', requestId: 'req-1' },
      {
        status: 200,
        text: '{"user":"p1","status":"RS_OK","request_uuid":"req-1","currency":"EUR","balance":100500000}',
      },
    );
    expect(ok).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 100500 }, echoMismatches: [] });
    const poor = readReply(
      hub88,
      { operation: 'bet', currency: 'EUR' },
      { status: 200, text: '{"status":"RS_ERROR_NOT_ENOUGH_MONEY","balance":500000}' },
    );
    expect(poor).toMatchObject({ verdict: 'rejected', outcome: 'INSUFFICIENT_FUNDS', balance: { kind: 'ok', minor: 500 } });
  });

  it('notices a reply that echoes another request_uuid', () => {
    const reply = readReply(
      hub88,
      { operation: 'bet', currency: 'EUR', requestId: 'req-1' },
      { status: 200, text: '{"status":"RS_OK","request_uuid":"req-9","balance":100}' },
    );
    expect(reply.echoMismatches).toEqual(['request_uuid: sent req-1, echoed req-9']);
  });

  it('calls a 2xx reply without a status invalid, not accepted', () => {
    expect(readReply(hub88, { operation: 'bet', currency: 'EUR' }, { status: 200, text: '{"balance":100}' }).verdict).toBe(
      'invalid',
    );
  });

  it('writes the reply a correct wallet gives, which it reads back as the same answer', () => {
    const facts = { operation: 'bet' as const, currency: 'EUR', requestId: 'req-7', playerId: 'p1' };
    const written = writeReply(hub88, facts, { accepted: false, refusal: 'INSUFFICIENT_FUNDS', balanceMinor: 250 }, (m) =>
      writeAmount(hub88, 'EUR', m),
    );
    expect(written.body).toEqual({ status: 'RS_ERROR_NOT_ENOUGH_MONEY', balance: 250000, request_uuid: 'req-7' });
    expect(written.status).toBe(200);
    const read = readReply(hub88, facts, { status: written.status, text: JSON.stringify(written.body) });
    expect(read).toMatchObject({ verdict: 'rejected', outcome: 'INSUFFICIENT_FUNDS', balance: { kind: 'ok', minor: 250 } });
  });
});

describe('Slotegrator requests', () => {
  const sg = builtinDialect('slotegrator');
  const keys = { merchantId: 'merchant-7', merchantKey: 'mk-secret' };
  /** The signing string as Slotegrator's PHP example builds it: ksort, then http_build_query (form-urlencoded). */
  const phpSigningString = (params: [string, string][]) =>
    new URLSearchParams([...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();

  it('posts a bet as a form with action=bet, the amount in major units and the session id', () => {
    const req = buildRequest(sg, bet(), keys);
    expect(req.method).toBe('POST');
    expect(req.path).toBe('');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      action: 'bet',
      player_id: 'p1',
      currency: 'EUR',
      game_uuid: 'vs20test',
      session_id: 'tok-123',
      amount: '10.50',
      transaction_id: 'tx_1',
      round_id: 'r_1',
      type: 'bet',
      finished: '0',
    });
  });

  it('sends X-Merchant-Id, X-Timestamp in Unix seconds and a 32-character X-Nonce that changes with each attempt', () => {
    const first = buildRequest(sg, bet(), keys);
    expect(first.headers['x-merchant-id']).toBe('merchant-7');
    expect(first.headers['x-timestamp']).toBe(String(T / 1000));
    expect(first.headers['x-nonce']).toMatch(/^[0-9a-f]{32}$/);
    const retry = buildRequest(sg, bet({ createdAt: T + 5000 }), keys);
    expect(retry.headers['x-nonce']).not.toBe(first.headers['x-nonce']);
    expect(buildRequest(sg, bet({ nonce: 'given-nonce-0001' }), keys).headers['x-nonce']).toBe('given-nonce-0001');
  });

  it('signs X-Sign as HMAC-SHA1 hex of the parameters and the three headers, sorted and written as http_build_query writes them', () => {
    const req = buildRequest(sg, bet({ playerId: 'p 1' }), keys);
    const params: [string, string][] = [
      ...new URLSearchParams(req.body),
      ['X-Merchant-Id', req.headers['x-merchant-id'] as string],
      ['X-Timestamp', req.headers['x-timestamp'] as string],
      ['X-Nonce', req.headers['x-nonce'] as string],
    ];
    const text = phpSigningString(params);
    expect(text.startsWith('X-Merchant-Id=merchant-7&X-Nonce=')).toBe(true);
    expect(text).toContain('&player_id=p+1&');
    expect(req.headers['x-sign']).toBe(createHmac('sha1', 'mk-secret').update(text).digest('hex'));
  });

  it('signs a rollback list under its bracketed names, escaped as a form writes them', () => {
    const req = buildRequest(
      sg,
      bet({ operation: 'rollbackWin', transactionId: 'rb_1', betTransactionId: 'win_1', amountMinor: 2500 }),
      keys,
    );
    const params = new URLSearchParams(req.body);
    expect(params.get('action')).toBe('rollback');
    expect(params.get('rollback_transactions[0][action]')).toBe('win');
    expect(params.get('rollback_transactions[0][amount]')).toBe('25.00');
    expect(params.get('rollback_transactions[0][transaction_id]')).toBe('win_1');
    expect(req.signed).toContain('&rollback_transactions%5B0%5D%5Baction%5D=win&');
    const text = phpSigningString([
      ...params,
      ['X-Merchant-Id', 'merchant-7'],
      ['X-Timestamp', req.headers['x-timestamp'] as string],
      ['X-Nonce', req.headers['x-nonce'] as string],
    ]);
    expect(req.headers['x-sign']).toBe(createHmac('sha1', 'mk-secret').update(text).digest('hex'));
  });

  it('sends the rollback of a bet as action=refund with the bet it reverses in bet_transaction_id', () => {
    const req = buildRequest(sg, bet({ operation: 'rollback', transactionId: 'rf_1', betTransactionId: 'tx_1' }), keys);
    const params = new URLSearchParams(req.body);
    expect(params.get('action')).toBe('refund');
    expect(params.get('transaction_id')).toBe('rf_1');
    expect(params.get('bet_transaction_id')).toBe('tx_1');
  });

  it('verifies its own X-Sign and refuses a changed header, a changed amount and a missing header', () => {
    const req = buildRequest(sg, bet(), keys);
    const received = { method: 'POST', path: req.path, headers: req.headers, body: req.body as string };
    expect(verifyRequest(sg, received, keys)).toEqual({ ok: true });
    expect(verifyRequest(sg, { ...received, headers: { ...req.headers, 'x-nonce': 'replayed' } }, keys).ok).toBe(false);
    expect(verifyRequest(sg, { ...received, body: (req.body as string).replace('10.50', '1.50') }, keys)).toMatchObject({
      ok: false,
      reason: 'the signature in the header X-Sign does not match',
    });
    const { 'x-timestamp': _dropped, ...withoutTimestamp } = req.headers;
    expect(verifyRequest(sg, { ...received, headers: withoutTimestamp }, keys)).toEqual({
      ok: false,
      reason: 'the X-Timestamp header, which the signature covers, is missing from the request',
    });
  });

  it('reads {balance, transaction_id} as success and error_code INSUFFICIENT_FUNDS as a refusal for lack of money', () => {
    const facts = { operation: 'bet' as const, currency: 'EUR' };
    expect(readReply(sg, facts, { status: 200, text: '{"balance":989.5,"transaction_id":"w-77"}' })).toMatchObject({
      verdict: 'accepted',
      balance: { kind: 'ok', minor: 98950 },
    });
    expect(
      readReply(sg, facts, {
        status: 200,
        text: '{"error_code":"INSUFFICIENT_FUNDS","error_description":"Not enough money to continue playing"}',
      }),
    ).toMatchObject({ verdict: 'rejected', outcome: 'INSUFFICIENT_FUNDS', message: 'Not enough money to continue playing' });
    expect(readReply(sg, facts, { status: 200, text: '{"error_code":"INTERNAL_ERROR"}' }).verdict).toBe('rejected');
  });
});

describe('Habanero requests', () => {
  const hb = builtinDialect('habanero');
  const keys = { passkey: 'pk-1', brandId: 'brand-1' };
  const fundsOf = (req: { body?: string | undefined }) => JSON.parse(req.body as string).fundtransferrequest.funds;

  it('posts a bet to /transaction as a fundtransferrequest with the passkey and a negative fundinfo amount', () => {
    const req = buildRequest(hb, bet(), keys);
    expect(req.path).toBe('/transaction');
    const body = JSON.parse(req.body as string);
    expect(body).toMatchObject({
      type: 'fundtransferrequest',
      auth: { passkey: 'pk-1', brandid: 'brand-1' },
      fundtransferrequest: { token: 'tok-123', accountid: 'p1', gameinstanceid: 'r_1', isrefund: false },
    });
    expect(body.fundtransferrequest.funds).toEqual({
      debitandcredit: false,
      fundinfo: [
        { transferid: 'tx_1', currencycode: 'EUR', amount: -10.5, dtevent: new Date(T).toISOString(), gamestatemode: 1 },
      ],
    });
  });

  it('sends a win as a non-negative credit that ends the round and names its bet in initialdebittransferid', () => {
    const req = buildRequest(
      hb,
      bet({ operation: 'win', transactionId: 'tx_2', betTransactionId: 'tx_1', roundClosed: true }),
      keys,
    );
    expect(fundsOf(req).fundinfo).toEqual([
      expect.objectContaining({ transferid: 'tx_2', amount: 10.5, gamestatemode: 2, initialdebittransferid: 'tx_1' }),
    ]);
  });

  it('sends a bet and its win in one call with debitandcredit, the bet first', () => {
    const req = buildRequest(hb, bet({ operation: 'betWin', winMinor: 2500 }), keys);
    expect(fundsOf(req).debitandcredit).toBe(true);
    expect(fundsOf(req).fundinfo.map((f: { amount: number; gamestatemode: number }) => [f.amount, f.gamestatemode])).toEqual([
      [-10.5, 1],
      [25, 2],
    ]);
  });

  it('sends the rollback of a bet as a refund of the original transfer, flagged isrefund', () => {
    const req = buildRequest(hb, bet({ operation: 'rollback', transactionId: 'rf_1', betTransactionId: 'tx_1' }), keys);
    const body = JSON.parse(req.body as string);
    expect(body.fundtransferrequest).toMatchObject({ isrefund: true, isretry: true });
    expect(body.fundtransferrequest.funds.refund).toEqual({
      transferid: 'rf_1',
      originaltransferid: 'tx_1',
      currencycode: 'EUR',
      amount: 10.5,
    });
  });

  it('reads the reply inside fundtransferresponse: success with the balance, nofunds as a lack of money', () => {
    const facts = { operation: 'bet' as const, currency: 'EUR' };
    expect(
      readReply(hb, facts, {
        status: 200,
        text: '{"fundtransferresponse":{"status":{"success":true,"nofunds":false},"balance":989.5,"currencycode":"EUR"}}',
      }),
    ).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 98950 } });
    expect(
      readReply(hb, facts, {
        status: 200,
        text: '{"fundtransferresponse":{"status":{"success":false,"nofunds":true,"message":"Insufficient funds."},"balance":5}}',
      }),
    ).toMatchObject({ verdict: 'rejected', outcome: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds.' });
    expect(
      readReply(hb, facts, {
        status: 200,
        text: '{"fundtransferresponse":{"status":{"success":false,"message":"Passkey don\'t match!"}}}',
      }),
    ).toMatchObject({ verdict: 'rejected', message: "Passkey don't match!" });
    // A reply without the wrapper is no acceptance, even with a balance at the top.
    expect(readReply(hb, facts, { status: 200, text: '{"status":{"success":true},"balance":1}' }).verdict).toBe('invalid');
  });

  it('reads and writes the authenticate reply inside playerdetailresponse', () => {
    const facts = { operation: 'authenticate' as const, currency: 'EUR' };
    const written = writeReply(hb, facts, { accepted: true, balanceMinor: 100000 }, (m) => writeAmount(hb, 'EUR', m));
    expect(written.body).toEqual({ playerdetailresponse: { status: { success: true }, balance: 1000 } });
    expect(readReply(hb, facts, { status: 200, text: JSON.stringify(written.body) })).toMatchObject({
      verdict: 'accepted',
      balance: { kind: 'ok', minor: 100000 },
    });
  });
});

describe('GrooveTech requests', () => {
  const groove = builtinDialect('groove');
  const query = (req: { path: string }) => Object.fromEntries(new URLSearchParams(req.path.split('?')[1]));

  it('sends a wager as a GET to the casino endpoint itself, the request and the game session in the query', () => {
    const req = buildRequest(groove, bet(), {});
    expect(req.method).toBe('GET');
    expect(req.body).toBeUndefined();
    expect(req.path.startsWith('?request=wager&')).toBe(true);
    expect(query(req)).toEqual({
      request: 'wager',
      gamesessionid: 'tok-123',
      accountid: 'p1',
      device: 'desktop',
      gameid: 'vs20test',
      apiversion: '1.2',
      betamount: '10.50',
      roundid: 'r_1',
      transactionid: 'tx_1',
    });
  });

  it('reports a win as a result that completes the round, or leaves it pending', () => {
    const closed = query(buildRequest(groove, bet({ operation: 'win', transactionId: 'tx_2', roundClosed: true }), {}));
    expect(closed).toMatchObject({ request: 'result', result: '10.50', gamestatus: 'completed', transactionid: 'tx_2' });
    const open = query(buildRequest(groove, bet({ operation: 'win', transactionId: 'tx_3', roundClosed: false }), {}));
    expect(open.gamestatus).toBe('pending');
  });

  it("rolls a wager back under the wager's own transactionid, and a result back with reversewin", () => {
    const rollback = query(
      buildRequest(groove, bet({ operation: 'rollback', transactionId: 'rb_1', betTransactionId: 'tx_1' }), {}),
    );
    expect(rollback).toMatchObject({ request: 'rollback', transactionid: 'tx_1', rollbackAmount: '10.50' });
    const reverse = query(
      buildRequest(groove, bet({ operation: 'rollbackWin', transactionId: 'rw_1', betTransactionId: 'tx_2' }), {}),
    );
    expect(reverse).toMatchObject({ request: 'reversewin', transactionid: 'tx_2', amount: '10.50' });
  });

  it('reads code 200 as success and the code of each refusal, 1006 being a lack of money', () => {
    const facts = { operation: 'bet' as const, currency: 'EUR' };
    expect(
      readReply(groove, facts, {
        status: 200,
        text: '{"code":200,"status":"Success","balance":989.5,"real_balance":989.5,"bonus_balance":0,"apiversion":"1.2"}',
      }),
    ).toMatchObject({ verdict: 'accepted', balance: { kind: 'ok', minor: 98950 } });
    expect(readReply(groove, facts, { status: 200, text: '{"code":1006,"status":"Out of money","balance":5}' })).toMatchObject({
      verdict: 'rejected',
      outcome: 'INSUFFICIENT_FUNDS',
      message: 'Out of money',
    });
    expect(
      readReply(
        groove,
        { operation: 'rollback', currency: 'EUR' },
        { status: 200, text: '{"code":102,"status":"Wager not found"}' },
      ),
    ).toMatchObject({ verdict: 'rejected', outcome: 'TRANSACTION_NOT_FOUND' });
    expect(readReply(groove, facts, { status: 200, text: '{"status":"Success","balance":1}' }).verdict).toBe('invalid');
  });
});

describe('amounts on a wire with a scale of its own', () => {
  const hub88 = builtinDialect('hub88');

  it('writes EUR cents × 1000 and JPY yen × 100000, and reads them back', () => {
    expect(writeAmount(hub88, 'EUR', 356)).toBe(356000);
    expect(writeAmount(hub88, 'JPY', 5)).toBe(500000);
    expect(readAmount(hub88, 'EUR', 356000)).toBe(356);
    expect(readAmount(hub88, 'JPY', 500000)).toBe(5);
  });

  it('refuses to read an amount that is no whole cent (100500 is 1.005 EUR), never rounds it', () => {
    expect(readAmount(hub88, 'EUR', 100500)).toBeUndefined();
  });

  it('reads a balance written as a decimal string on a number wire', () => {
    const pp = builtinDialect('pragmatic');
    expect(readAmount(pp, 'EUR', '995.29')).toBe(99529);
    expect(readAmount(pp, 'EUR', '995.291')).toBeUndefined();
  });
});

describe('signing recipes', () => {
  it('HMAC-SHA1 over sorted query parameters with a salt prefix, in a query parameter (Blue Ocean-like GET)', () => {
    const dialect = withRecipe(
      {
        algorithm: 'hmac-sha1',
        key: 'secret',
        payload: { over: 'params', prefix: '{credential.salt}' },
        encoding: 'hex',
        place: { query: 'key' },
      },
      'query',
      'GET',
    );
    const req = buildRequest(dialect, bet(), creds);
    expect(req.body).toBeUndefined();
    expect(req.path.startsWith('/players/p1/bet?')).toBe(true);
    const expected = createHmac('sha1', 's3cret').update('pepperamount=10.5&id=tx_1&user=p1').digest('hex');
    expect(new URLSearchParams(req.path.split('?')[1]).get('key')).toBe(expected);
    expect(verifyRequest(dialect, { method: 'GET', path: req.path, headers: req.headers, body: '' }, creds)).toEqual({
      ok: true,
    });
    expect(
      verifyRequest(
        dialect,
        { method: 'GET', path: req.path.replace('amount=10.5', 'amount=99'), headers: req.headers, body: '' },
        creds,
      ).ok,
    ).toBe(false);
  });

  it('HMAC-SHA256 of the raw JSON body in a header with a prefix (SoftSwiss-like)', () => {
    const dialect = withRecipe({
      algorithm: 'hmac-sha256',
      key: 'secret',
      payload: { over: 'body' },
      encoding: 'hex',
      place: { header: 'X-Request-Sign', prefix: 'sha256=' },
    });
    const req = buildRequest(dialect, bet(), creds);
    expect(req.headers['x-request-sign']).toBe(
      `sha256=${createHmac('sha256', 's3cret')
        .update(req.body as string)
        .digest('hex')}`,
    );
    expect(
      verifyRequest(dialect, { method: 'POST', path: req.path, headers: req.headers, body: req.body as string }, creds),
    ).toEqual({ ok: true });
  });

  it('SHA-1 of a template over the query string (salt + query), upper-case hex', () => {
    const dialect = withRecipe(
      {
        algorithm: 'sha1',
        payload: { over: 'template', template: '{credential.salt}{query}' },
        encoding: 'HEX',
        place: { query: 'key' },
      },
      'query',
      'GET',
    );
    const req = buildRequest(dialect, bet(), creds);
    const [, query = ''] = req.path.split('?');
    const unsigned = query.replace(/&key=[^&]*$/, '');
    expect(new URLSearchParams(query).get('key')).toBe(
      createHash('sha1').update(`pepper${unsigned}`).digest('hex').toUpperCase(),
    );
    expect(verifyRequest(dialect, { method: 'GET', path: req.path, headers: req.headers, body: '' }, creds)).toEqual({
      ok: true,
    });
  });

  it('ECDSA-SHA256 (P-256) over the body in a header, base64 DER, verifiable with the public key', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ec = { ...creds, privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
    const dialect = dialectSchema.parse({
      ...withRecipe({ algorithm: 'none' }),
      credentials: { privateKey: { description: 'key', kind: 'private-key' } },
      signing: {
        algorithm: 'ecdsa-sha256',
        key: 'privateKey',
        payload: { over: 'body' },
        encoding: 'base64',
        place: { header: 'x-st8-sign' },
      },
    });
    const req = buildRequest(dialect, bet(), ec);
    expect(
      verify(
        'sha256',
        Buffer.from(req.body as string),
        pair.publicKey,
        Buffer.from(req.headers['x-st8-sign'] as string, 'base64'),
      ),
    ).toBe(true);
    expect(
      verifyRequest(dialect, { method: 'POST', path: req.path, headers: req.headers, body: req.body as string }, ec),
    ).toEqual({ ok: true });
  });

  it('a JSON body field signature covers the body without the field', () => {
    const dialect = withRecipe({
      algorithm: 'md5',
      payload: { over: 'template', template: '{body}{credential.secret}' },
      encoding: 'hex',
      place: { field: 'sign' },
    });
    const req = buildRequest(dialect, bet(), creds);
    const { sign, ...rest } = JSON.parse(req.body as string);
    expect(sign).toBe(
      createHash('md5')
        .update(`${JSON.stringify(rest)}s3cret`)
        .digest('hex'),
    );
    expect(
      verifyRequest(dialect, { method: 'POST', path: req.path, headers: req.headers, body: req.body as string }, creds),
    ).toEqual({ ok: true });
  });

  it('signs request headers as parameters under their own names, and escapes names and values when asked', () => {
    const dialect = dialectSchema.parse({
      ...withRecipe({ algorithm: 'none' }, 'form'),
      request: { encoding: 'form', headers: { 'X-Stamp': { from: 'timestampSeconds' } } },
      signing: {
        algorithm: 'hmac-sha256',
        key: 'secret',
        payload: { over: 'params', headers: ['X-Stamp'], escape: 'form' },
        place: { header: 'X-Sign' },
      },
    });
    const req = buildRequest(dialect, bet({ playerId: 'a b/c*~é' }), creds);
    // PHP: urlencode('a b/c*~é') === 'a+b%2Fc%2A%7E%C3%A9'
    expect(req.signed).toBe(`X-Stamp=${T / 1000}&amount=10.5&id=tx_1&user=a+b%2Fc%2A%7E%C3%A9`);
    expect(req.headers['x-sign']).toBe(
      createHmac('sha256', 's3cret')
        .update(req.signed as string)
        .digest('hex'),
    );
    const received = { method: 'POST', path: req.path, headers: req.headers, body: req.body as string };
    expect(verifyRequest(dialect, received, creds)).toEqual({ ok: true });
    expect(verifyRequest(dialect, { ...received, headers: { ...req.headers, 'x-stamp': '1' } }, creds).ok).toBe(false);
  });

  it('says which credential is missing and how to pass it', () => {
    const dialect = withRecipe({
      algorithm: 'hmac-sha256',
      key: 'secret',
      payload: { over: 'body' },
      encoding: 'hex',
      place: { header: 'X-Sign' },
    });
    expect(() => buildRequest(dialect, bet(), {})).toThrow(
      'the credential "secret" is not set: pass --credential secret=<value>',
    );
  });

  it('escapes a player id in a path template', () => {
    const dialect = withRecipe({ algorithm: 'none' });
    expect(buildRequest(dialect, bet({ playerId: 'a/b c' }), {}).path).toBe('/players/a%2Fb%20c/bet');
  });
});

describe('what an attempt renews', () => {
  it("names the calls whose request reads an attempt's own facts: its time or a nonce, in a header, a nested field, a template", () => {
    expect(readsAttemptFacts(builtinDialect('slotegrator'), 'bet')).toBe(true); // X-Timestamp, X-Nonce
    expect(readsAttemptFacts(builtinDialect('habanero'), 'bet')).toBe(true); // dtsent, nested
    expect(readsAttemptFacts(builtinDialect('hub88'), 'bet')).toBe(false);
    expect(readsAttemptFacts(builtinDialect('pragmatic'), 'bet')).toBe(false); // its timestamp is the call's
    const templated = (path: string) =>
      dialectSchema.parse({
        name: 'test',
        request: { encoding: 'json' },
        signing: { algorithm: 'none' },
        operations: { bet: { method: 'POST', path, fields: {} }, win: { method: 'POST', path: '/win', fields: {} } },
      });
    expect(readsAttemptFacts(templated('/bet/{nonce}'), 'bet')).toBe(true);
    expect(readsAttemptFacts(templated('/bet/{nonce}'), 'win')).toBe(false);
    expect(readsAttemptFacts(templated('/bet/{timestamp}'), 'bet')).toBe(false);
  });
});

describe('the dialect schema', () => {
  it('refuses a recipe whose key names an undeclared credential', () => {
    const result = dialectSchema.safeParse({
      name: 'x',
      signing: { algorithm: 'hmac-sha256', key: 'nope', payload: { over: 'body' }, place: { header: 'X' } },
      operations: { bet: { path: '/b', fields: {} }, win: { path: '/w', fields: {} } },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['signing', 'key'], message: expect.stringContaining('"nope"') });
  });

  it('refuses prototype names as field names and reply paths, and never lets __proto__ reach an object', () => {
    const base = { name: 'x', signing: { algorithm: 'none' }, operations: { win: { path: '/w', fields: {} } } };
    const proto = dialectSchema.parse({
      ...base,
      operations: { ...base.operations, bet: { path: '/b', fields: JSON.parse('{"__proto__":{"const":1}}') } },
    });
    expect(Object.keys(proto.operations.bet?.fields ?? {})).toEqual([]);
    expect(Object.getPrototypeOf(proto.operations.bet?.fields)).toBe(Object.prototype);
    expect(
      dialectSchema.safeParse({
        ...base,
        operations: { ...base.operations, bet: { path: '/b', fields: JSON.parse('{"constructor":{"const":1}}') } },
      }).success,
    ).toBe(false);
    expect(
      dialectSchema.safeParse({
        ...base,
        operations: { ...base.operations, bet: { path: '/b', fields: {} } },
        reply: { balance: 'a.__proto__' },
      }).success,
    ).toBe(false);
  });

  it('refuses a query-string POST', () => {
    const result = dialectSchema.safeParse({
      name: 'x',
      signing: { algorithm: 'none' },
      request: { encoding: 'query' },
      operations: { bet: { path: '/b', fields: {} }, win: { method: 'GET', path: '/w', fields: {} } },
    });
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['operations.bet.encoding']);
  });
});

describe('reply rules a vendor sets per operation or per case', () => {
  const redtiger = builtinDialect('redtiger');
  const caleta = builtinDialect('caleta');
  const refund = { operation: 'rollback' as const, currency: 'EUR' };

  it("reads Red Tiger's refund balance beside result, and a stake's inside result.balance", () => {
    const refundReply = JSON.stringify({
      success: true,
      result: { token: 't', id: 'RT-W1', stake: { cash: '10.50', bonus: '0.00' } },
      balance: { cash: '1000.00', bonus: '0.50' },
      currency: 'EUR',
    });
    expect(readReply(redtiger, refund, { status: 200, text: refundReply }).balance).toEqual({ kind: 'ok', minor: 100050 });
    const stakeReply = JSON.stringify({ success: true, result: { balance: { cash: '989.50', bonus: '0.00' } } });
    expect(readReply(redtiger, { operation: 'bet', currency: 'EUR' }, { status: 200, text: stakeReply }).balance).toEqual({
      kind: 'ok',
      minor: 98950,
    });
    // The reference wallet writes the refund's balance where Red Tiger puts it.
    const written = writeReply(redtiger, refund, { accepted: true, balanceMinor: 4200 }, (m) => writeAmount(redtiger, 'EUR', m));
    expect(written.body).toEqual({ success: true, balance: { cash: '42.00', bonus: '0.00' } });
  });

  it('accepts a balance path or sum on one operation, and refuses a prototype name in it', () => {
    const base = { name: 'x', signing: { algorithm: 'none' }, operations: { win: { path: '/w', fields: {} } } } as const;
    const parsed = dialectSchema.parse({
      ...base,
      operations: { ...base.operations, bet: { path: '/b', fields: {}, reply: { balance: 'data.balance' } } },
    });
    expect(
      readReply(parsed, { operation: 'bet', currency: 'EUR' }, { status: 200, text: '{"data":{"balance":1.5}}' }).balance,
    ).toEqual({ kind: 'ok', minor: 150 });
    const proto = dialectSchema.safeParse({
      ...base,
      operations: { ...base.operations, bet: { path: '/b', fields: {}, reply: { balance: { sum: ['a.constructor'] } } } },
    });
    expect(proto.success).toBe(false);
  });

  it("reads Caleta's check reply by its status when it carries one: RS_ERROR_INVALID_TOKEN is a refusal, {token} an acceptance", () => {
    const check = { operation: 'authenticate' as const, currency: 'EUR' };
    const refused = readReply(caleta, check, { status: 200, text: '{"status":"RS_ERROR_INVALID_TOKEN","request_uuid":"r"}' });
    expect(refused).toMatchObject({ verdict: 'rejected', code: 'RS_ERROR_INVALID_TOKEN', outcome: 'INVALID_TOKEN' });
    expect(refused.token).toBeUndefined();
    expect(readReply(caleta, check, { status: 200, text: '{"token":"tok-2"}' })).toMatchObject({
      verdict: 'accepted',
      token: 'tok-2',
    });
    expect(readReply(caleta, check, { status: 200, text: '{"status":"RS_OK","token":"tok-3"}' })).toMatchObject({
      verdict: 'accepted',
      token: 'tok-3',
    });
  });

  it('says how a rollback of an unknown transaction is answered: Caleta acknowledges it, Hub88 refuses it not found', () => {
    expect(unknownRollbackAnswer(caleta)).toBe('acknowledge');
    expect(unknownRollbackAnswer(builtinDialect('hub88'))).toBe('not-found');
    // A dialect without a "not found" code cannot ask for that refusal.
    const result = dialectSchema.safeParse({
      name: 'x',
      signing: { algorithm: 'none' },
      operations: { bet: { path: '/b', fields: {} }, win: { path: '/w', fields: {} } },
      reply: { unknownRollback: 'not-found' },
    });
    expect(result.error?.issues[0]).toMatchObject({
      path: ['reply', 'unknownRollback'],
      message: expect.stringContaining('TRANSACTION_NOT_FOUND'),
    });
  });

  it.each([
    ['redtiger', '{"success":false,"error":{"code":301,"message":"Not authorized"}}', 400],
    ['blueocean', '{"status":"403","msg":"PLAYER_NOT_FOUND"}', 200],
    ['groove', '{"code":110,"status":"Operation not allowed"}', 200],
  ])("maps %s's answer to an unknown player, and writes it", (name, text, status) => {
    const dialect = builtinDialect(name);
    const facts = { operation: 'bet' as const, currency: 'EUR' };
    const read = readReply(dialect, facts, { status, text });
    expect(read.verdict).toBe('rejected');
    const written = writeReply(dialect, facts, { accepted: false, refusal: 'PLAYER_NOT_FOUND' }, String);
    expect(readReply(dialect, facts, { status: written.status, text: JSON.stringify(written.body) }).code).toBe(read.code);
    expect([dialect.reply.codes.PLAYER_NOT_FOUND].flat().map(String)).toContain(read.code);
  });
});

describe('every built-in dialect', () => {
  const credentialsOf = (dialect: Dialect) =>
    Object.fromEntries(
      Object.entries(dialect.credentials).map(([name, c]) => [
        name,
        c.kind === 'private-key' ? PEM : (c.default ?? `${name}-value`),
      ]),
    );

  it.each(BUILTIN_DIALECTS)('%s: cites a source, and every call it has builds, signs and verifies', (name) => {
    const dialect = builtinDialect(name);
    expect(dialect.sources.length).toBeGreaterThan(0);
    const credentials = credentialsOf(dialect);
    for (const operation of Object.keys(dialect.operations) as CallFacts['operation'][]) {
      const req = buildRequest(dialect, bet({ operation, betTransactionId: 'tx_0', winMinor: 200 }), credentials);
      const received = { method: req.method, path: req.path, headers: req.headers, body: req.body ?? '' };
      expect(verifyRequest(dialect, received, credentials), `${name} ${operation}`).toEqual({ ok: true });
      expect(req.body === undefined ? req.method : 'POST').toMatch(/GET|DELETE|POST/);
    }
  });

  it.each(BUILTIN_DIALECTS)('%s: reads back every reply a correct wallet writes as the same answer', (name) => {
    const dialect = builtinDialect(name);
    const write = (minor: number) => writeAmount(dialect, 'EUR', minor);
    const facts = { operation: 'bet' as const, currency: 'EUR', requestId: 'req-5', playerId: 'p1', transactionId: 'tx_5' };
    const accepted = writeReply(dialect, facts, { accepted: true, balanceMinor: 12345 }, write);
    expect(readReply(dialect, facts, { status: accepted.status, text: JSON.stringify(accepted.body) })).toMatchObject({
      verdict: 'accepted',
      balance: { kind: 'ok', minor: 12345 },
      echoMismatches: [],
    });
    for (const refusal of Object.keys(dialect.reply.codes) as (keyof typeof dialect.reply.codes)[]) {
      const written = writeReply(dialect, facts, { accepted: false, refusal, balanceMinor: 500 }, write);
      const read = readReply(dialect, facts, { status: written.status, text: JSON.stringify(written.body) });
      expect(read.verdict, `${name} ${refusal}`).toBe('rejected');
      // Two refusals may share a code (Blue Ocean answers "403" to both, Red Tiger 301 to an unknown
      // player and a bad token); the code is the one written, and the outcome read is one that has it.
      const codes = (outcome: unknown) => [dialect.reply.codes[outcome as keyof typeof dialect.reply.codes]].flat().map(String);
      expect(codes(refusal), `${name} ${refusal}`).toContain(read.code);
      expect(codes(read.outcome), `${name} ${refusal}`).toContain(read.code);
    }
  });
});

describe('the dialect JSON Schema', () => {
  it('is committed in contracts/dialect.schema.json exactly as generated (npm run openapi)', () => {
    expect(readFileSync(DIALECT_SCHEMA_PATH, 'utf8')).toBe(dialectJsonSchemaText());
  });
});
