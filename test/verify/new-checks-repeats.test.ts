import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/signing/index.ts';
import { CHECK_IDS, DEEP_CHECK_IDS } from '../../src/verify/checks/index.ts';
import { OTHER_TRANSACTIONS } from '../../src/verify/checks/repeats.ts';
import { prepare } from '../../src/verify/plan.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import { DedupeRecall } from '../dialects/receivers/receiver-style.ts';
import { config, startReferenceWallet } from './helpers.ts';
import { expectAllPass, expectCaught, verifyReceiver, verifyUrl } from './new-checks-kit.ts';

/**
 * Issue 32's repeats: an applied bet repeated after the balance fell below it (default), and one
 * repeated after a thousand other transactions (deep: run with --only deep). Each passes the
 * reference wallet and correct receivers in both styles, and fails a wallet that checks funds before
 * the duplicate, or whose dedupe memory is a bounded cache (planted in receivers, and for the
 * default wire in front of the reference wallet).
 *
 * The deep check sends a thousand requests a run: by default this file runs it on the reference
 * wallet both ways; AGGMOCK_FAULTS_BOTH_MODES=1 (npm run test:nightly) also on three correct
 * receivers (both styles) and on three receivers with the bug.
 */

const FELL = ['repeat-after-balance-fell'];
const MANY = ['repeat-after-many'];
const NIGHTLY = process.env.AGGMOCK_FAULTS_BOTH_MODES === '1';

let wallet: RunningWallet;
/**
 * In front of the reference wallet, a dedupe memory that forgets: a DEBIT whose transactionId it saw
 * before, but not among its last FORGETFUL_MEMORY, is passed on under a new id (re-signed), so the
 * wallet applies it again.
 */
let forgetful: Server;
let forgetfulUrl: string;

beforeAll(async () => {
  wallet = await startReferenceWallet();
  const signing = config().callbacks.signing;
  const seen = new Set<string>();
  const recall = new DedupeRecall(true);
  let forgotten = 0;
  forgetful = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
    const event = JSON.parse(body) as { type?: string; transactionId?: string };
    const tx = event.type === 'DEBIT' ? event.transactionId : undefined;
    if (tx !== undefined) {
      if (seen.has(tx) && !recall.remembers(tx)) {
        forgotten += 1;
        body = JSON.stringify({ ...event, transactionId: `${tx}-forgotten-${forgotten}` });
        Object.assign(headers, signPayload({ scheme: signing.scheme, secrets: signing.secrets, payload: body }));
      }
      seen.add(tx);
      recall.note(tx);
    }
    const answer = await fetch(wallet.webhookUrl, { method: 'POST', headers, body });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(await answer.text());
  });
  forgetful.listen(0, '127.0.0.1');
  await once(forgetful, 'listening');
  forgetfulUrl = `http://127.0.0.1:${(forgetful.address() as AddressInfo).port}/callback/webhook`;
});

afterAll(async () => {
  forgetful?.close();
  await wallet?.close();
});

describe('the deep group', () => {
  it('repeat-after-many is a deep check: listed, but run only when asked for by id or as "deep"', async () => {
    expect(OTHER_TRANSACTIONS).toBeGreaterThanOrEqual(1_000);
    expect(DEEP_CHECK_IDS).toEqual(MANY);
    expect(CHECK_IDS).toContain('repeat-after-many');
    const selected = async (only?: string[]) =>
      (await prepare({ webhookUrl: 'http://x.invalid/', ...(only ? { only } : {}) })).selected;
    const byDefault = await selected();
    expect(byDefault('repeat-after-many')).toBe(false);
    expect(byDefault('repeat-after-balance-fell')).toBe(true);
    expect((await selected(['checks']))('repeat-after-many')).toBe(false);
    expect((await selected(['deep']))('repeat-after-many')).toBe(true);
    expect((await selected(['deep']))('repeat-after-balance-fell')).toBe(false);
    expect((await selected(['repeat-after-many']))('repeat-after-many')).toBe(true);
  });
});

describe('repeat-after-balance-fell', () => {
  it('passes the reference wallet (with --state-url and with --players only)', async () => {
    expectAllPass(await verifyUrl(wallet.webhookUrl, FELL, { stateUrl: `${wallet.url}/__state` }), FELL);
    expectAllPass(await verifyUrl(wallet.webhookUrl, FELL, { players: ['p1', 'p2'] }), FELL);
  });

  it.each([
    ['hub88', 'B'],
    ['evolution', 'B'],
    ['pragmatic', 'A'],
    ['redtiger', 'A'],
  ] as const)('passes the %s receiver (style %s)', async (name, style) => {
    expectAllPass(await verifyReceiver(name, FELL, { style }), FELL);
  });

  it.each(['hub88', 'evolution', 'pragmatic', 'groove'] as const)(
    'fails the %s receiver that checks funds before the duplicate',
    async (name) => {
      const outcome = await verifyReceiver(name, FELL, { bug: 'funds-before-duplicate' });
      expectCaught(
        outcome,
        FELL,
        FELL,
        /^the repeat of an applied DEBIT: expected the first reply .*got a refusal for insufficient funds/,
      );
    },
  );
});

describe('repeat-after-many (deep)', () => {
  /** A thousand requests a run: minutes on a loaded machine. */
  const DEEP_TIMEOUT = 240_000;

  it(
    'passes the reference wallet and fails a forgetful dedupe memory in front of it (the default wire)',
    async () => {
      expectAllPass(await verifyUrl(wallet.webhookUrl, MANY, { players: ['p1', 'p2'] }), MANY);
      const outcome = await verifyUrl(forgetfulUrl, MANY, { players: ['p1', 'p2'] });
      expectCaught(outcome, MANY, MANY, /after 1000 other transactions/);
      // The report lists the check's own calls, not the thousand between them.
      const exchanges = outcome.report?.results.find((r) => r.id === 'repeat-after-many')?.exchanges ?? [];
      expect(exchanges.length).toBeLessThan(20);
    },
    DEEP_TIMEOUT,
  );

  // Nightly: three correct receivers (both styles), and the bug planted in three dialects' receivers.
  if (NIGHTLY) {
    it.each([
      ['evolution', 'B'],
      ['groove', 'B'],
      ['hub88', 'A'],
    ] as const)(
      'passes the %s receiver (style %s)',
      async (name, style) => {
        expectAllPass(await verifyReceiver(name, MANY, { style }), MANY);
      },
      DEEP_TIMEOUT,
    );

    it.each(['groove', 'evolution', 'slotegrator'] as const)(
      'fails the %s receiver whose dedupe memory forgets',
      async (name) => {
        const outcome = await verifyReceiver(name, MANY, { bug: 'forgetful-dedupe' });
        expectCaught(outcome, MANY, MANY, /after 1000 other transactions/);
      },
      DEEP_TIMEOUT,
    );
  }
});
