import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinDialect, unsignedRequest } from '../../src/dialects/index.ts';
import { cutBeforeAmount, rewritten } from '../../src/verify/checks/bodies.ts';
import { checkPlan } from '../../src/verify/checks/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { signedBytes } from '../dialects/receivers/receiver-style.ts';
import { startReferenceWallet } from './helpers.ts';
import { expectAllPass, expectCaught, statuses, VENDORS, vendorConfig, verifyReceiver, verifyUrl } from './new-checks-kit.ts';

/**
 * Issue 32's checks of bodies as they arrive: a request cut off before its amount (every wire,
 * re-signed over what is sent) and a JSON body written another way under a signature over its raw
 * bytes. Each passes the reference wallet and correct vendor receivers, and fails a wallet with the
 * bug: one that crashes on a missing field, one that checks the signature over its own
 * re-serialisation (planted in receivers, and in front of the reference wallet for the default wire).
 */

const TRUNCATED = ['truncated-request'];
const RESERIALISED = ['reserialised-json'];
const BOTH = [...TRUNCATED, ...RESERIALISED];

let wallet: RunningWallet;
/** In front of the reference wallet: the body it passes on is JSON.stringify(JSON.parse(body)), signature headers unchanged. */
let reserialising: Server;
let reserialisingUrl: string;

beforeAll(async () => {
  wallet = await startReferenceWallet();
  reserialising = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
    const answer = await fetch(wallet.webhookUrl, {
      method: req.method ?? 'POST',
      headers,
      body: signedBytes(Buffer.concat(chunks), true).toString('utf8'),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(await answer.text());
  });
  reserialising.listen(0, '127.0.0.1');
  await once(reserialising, 'listening');
  reserialisingUrl = `http://127.0.0.1:${(reserialising.address() as AddressInfo).port}/callback/webhook`;
});

afterAll(async () => {
  reserialising?.close();
  await wallet?.close();
});

describe('the forged bodies', () => {
  it('a rewritten JSON body parses to the same value, and differs from its re-serialisation in order, spacing, numbers and escapes', () => {
    const body = JSON.stringify({ transactionId: 'tx-é1', amount: 100, price: 1.5, nested: { b: 'x', a: [1, 'y'] }, flag: true });
    const text = rewritten(body);
    expect(JSON.parse(text)).toEqual(JSON.parse(body));
    expect(JSON.stringify(JSON.parse(text))).not.toBe(text);
    expect(text).toContain('100.0');
    expect(text).toContain('\\u0074ransactionId');
    expect(text.indexOf('flag')).toBeLessThan(text.indexOf('\\u0074ransactionId'));
  });

  it('a cut request loses its amount and every field after it, never a credential it carries', () => {
    for (const name of ['pragmatic', 'groove', 'blueocean', 'habanero', 'hub88', '100hp'] as const) {
      const dialect = builtinDialect(name);
      const facts = {
        operation: 'bet' as const,
        playerId: 'player01',
        currency: 'EUR',
        transactionId: 't1',
        amountMinor: 100,
        roundId: 'r1',
        sessionToken: 'tok',
        createdAt: 0,
      };
      const req = unsignedRequest(dialect, facts, VENDORS[name].credentials);
      const before = Object.keys(req.fields);
      cutBeforeAmount(dialect, req);
      const after = Object.keys(req.fields);
      expect(after.length, name).toBeLessThan(before.length);
      expect(before.slice(0, after.length), name).toEqual(after.filter((k) => before.indexOf(k) < after.length));
      if (name === '100hp') expect(after, name).toContain('secret');
    }
  });

  it('reserialised-json runs only where JSON body bytes are signed, saying why elsewhere', () => {
    const why = (name: keyof typeof VENDORS) =>
      checkPlan(vendorConfig(name).callbacks).find((p) => p.check.id === 'reserialised-json')?.notApplicable;
    expect(why('hub88')).toBeUndefined();
    expect(why('caleta')).toBeUndefined();
    expect(why('softswiss')).toBeUndefined();
    expect(why('evolution')).toBe(
      'not run: the evolution dialect signs no JSON body bytes (nothing to re-serialise under a signature)',
    );
    expect(why('pragmatic')).toBe(
      'not run: the pragmatic dialect signs no JSON body bytes (nothing to re-serialise under a signature)',
    );
  });
});

describe('the reference wallet passes', () => {
  it('with --state-url', async () => {
    expectAllPass(await verifyUrl(wallet.webhookUrl, BOTH, { stateUrl: `${wallet.url}/__state` }), BOTH);
  });

  it('with --players only', async () => {
    expectAllPass(await verifyUrl(wallet.webhookUrl, BOTH, { players: ['p1', 'p2'] }), BOTH);
  });

  it('and fails reserialised-json when its signature is checked over a re-serialisation (the default wire)', async () => {
    const outcome = await verifyUrl(reserialisingUrl, BOTH, { players: ['p1', 'p2'] });
    expectCaught(
      outcome,
      BOTH,
      RESERIALISED,
      /expected it accepted, got a refusal \(is the signature checked over a re-serialisation/,
    );
  });
});

describe('correct receivers pass', () => {
  it.each([
    ['pragmatic', 'A', TRUNCATED],
    ['groove', 'B', TRUNCATED],
    ['blueocean', 'A', TRUNCATED],
    ['hub88', 'A', BOTH],
    ['caleta', 'B', BOTH],
    ['softswiss', 'B', BOTH],
  ] as const)('%s (style %s)', async (name, style, checks) => {
    expectAllPass(await verifyReceiver(name, checks, { style }), checks);
  });
});

describe('a receiver that crashes on a cut request fails truncated-request', () => {
  it.each(['pragmatic', 'groove', 'blueocean'] as const)('%s', async (name) => {
    const outcome = await verifyReceiver(name, TRUNCATED, { bug: 'crashes-on-cut-request' });
    expectCaught(outcome, TRUNCATED, TRUNCATED, /^a DEBIT cut off before its amount: expected a refusal .*HTTP 500/);
  });
});

describe('a receiver that checks its signature over a re-serialisation fails reserialised-json', () => {
  it.each(['hub88', 'caleta', 'softswiss'] as const)('%s', async (name) => {
    const outcome = await verifyReceiver(name, BOTH, { bug: 'reserialised-signature' });
    expectCaught(outcome, BOTH, RESERIALISED, /expected it accepted, got a refusal/);
    expect(statuses(outcome)['truncated-request']).toBe('pass');
  });
});
