import { describe, expect, it } from 'vitest';
import { carriedSecrets } from '../../src/dialects/capabilities.ts';
import { buildRequest, builtinDialect, unsignedRequest } from '../../src/dialects/index.ts';
import { leaveOut } from '../../src/verify/checks/credentials.ts';
import { checkPlan } from '../../src/verify/checks/index.ts';
import {
  expectAllPass,
  expectCaught,
  reasonOf,
  statuses,
  VENDORS,
  type VendorName,
  vendorConfig,
  verifyReceiver,
} from './new-checks-kit.ts';

/**
 * Issue 32's checks of who may call the wallet: a wrong or missing static credential, and an
 * authenticate/check with a session token the wallet never issued. Each passes correct vendor
 * receivers (both styles), is skipped with its reason where the wire cannot express it, and fails a
 * receiver with the bug planted, blaming no first cause.
 */

const CREDENTIAL = ['wrong-credential', 'missing-credential'];
const TAKEOVER = ['session-takeover'];
const FACTS = { operation: 'bet' as const, playerId: 'p1', currency: 'EUR', transactionId: 't1', amountMinor: 100, createdAt: 0 };

describe('which secrets a wire carries as they are (asked of the dialect)', () => {
  it('names the query token, the header key, the nested body passkey and the caller password, not ids or signing keys', () => {
    const carried = Object.fromEntries(
      (Object.keys(VENDORS) as VendorName[]).map((name) => [name, carriedSecrets(builtinDialect(name))]),
    );
    expect(carried).toEqual({
      evolution: ['authToken'],
      hub88: [],
      pragmatic: [],
      caleta: [],
      redtiger: ['apiKey'],
      habanero: ['passkey'],
      softswiss: [],
      blueocean: ['callerPassword'],
      '100hp': ['secret'],
      slotegrator: [],
      groove: [],
    });
  });

  it('leaves out exactly the place that carries it (query, header, nested field), the rest of the request untouched', () => {
    for (const [name, where] of [
      ['evolution', (r: ReturnType<typeof unsignedRequest>) => r.query],
      ['redtiger', (r: ReturnType<typeof unsignedRequest>) => r.headers],
      ['habanero', (r: ReturnType<typeof unsignedRequest>) => r.fields],
      ['blueocean', (r: ReturnType<typeof unsignedRequest>) => r.query],
    ] as const) {
      const dialect = builtinDialect(name);
      const credentials = VENDORS[name].credentials;
      const whole = unsignedRequest(dialect, { ...FACTS, sessionToken: 'tok' }, credentials);
      const cut = unsignedRequest(dialect, { ...FACTS, sessionToken: 'tok' }, credentials);
      const [secret] = carriedSecrets(dialect);
      leaveOut(dialect, cut, secret as string);
      const text = (r: typeof whole) => JSON.stringify(where(r));
      expect(text(whole), name).toContain(credentials[secret as keyof typeof credentials]);
      expect(text(cut), name).not.toContain(credentials[secret as keyof typeof credentials]);
      // Only that one entry went: a rendered request still builds.
      expect(() => buildRequest(dialect, { ...FACTS, sessionToken: 'tok' }, credentials)).not.toThrow();
    }
  });

  it('says why the checks do not run on a wire that signs (its keys are the signature checks’) or has no token check', () => {
    const plan = Object.fromEntries(checkPlan(vendorConfig('hub88').callbacks).map((p) => [p.check.id, p.notApplicable]));
    expect(plan['wrong-credential']).toMatch(/^not run: the hub88 dialect carries no secret as it is/);
    expect(plan['missing-credential']).toMatch(/^not run: the hub88 dialect carries no secret as it is/);
    expect(plan['session-takeover']).toBe('not run: the hub88 dialect has no authenticate call that checks a session token');
  });
});

describe('correct receivers pass', () => {
  it.each([
    ['evolution', 'B'],
    ['redtiger', 'A'],
    ['habanero', 'B'],
  ] as const)('%s (style %s): wrong-credential, missing-credential and session-takeover', async (name, style) => {
    const checks = [...CREDENTIAL, ...TAKEOVER];
    expectAllPass(await verifyReceiver(name, checks, { style }), checks);
  });

  it('blueocean (style A): the caller password, wrong and missing (no authenticate: session-takeover not run)', async () => {
    const outcome = await verifyReceiver('blueocean', [...CREDENTIAL, ...TAKEOVER], { style: 'A' });
    expect(statuses(outcome)).toEqual({ 'wrong-credential': 'pass', 'missing-credential': 'pass', 'session-takeover': 'skip' });
    expect(reasonOf(outcome, 'session-takeover')).toMatch(/has no authenticate call/);
  });

  it('groove (style B, rotates nothing it did not issue): session-takeover', async () => {
    expectAllPass(await verifyReceiver('groove', TAKEOVER, { style: 'B' }), TAKEOVER);
  });
});

describe('a receiver that ignores its static credential fails wrong- and missing-credential', () => {
  it.each(['evolution', 'redtiger', 'habanero', 'blueocean'] as const)('%s', async (name) => {
    const outcome = await verifyReceiver(name, CREDENTIAL, { bug: 'ignores-credential' });
    expectCaught(outcome, CREDENTIAL, CREDENTIAL, /^a DEBIT with a (wrong|missing) \w+: expected a refusal/);
  });

  it('names the vendor’s own refusal where the dialect has one (Evolution: INVALID_TOKEN_ID at HTTP 401)', async () => {
    const outcome = await verifyReceiver('evolution', ['wrong-credential'], { bug: 'ignores-credential' });
    expect(reasonOf(outcome, 'wrong-credential')).toMatch(/the evolution dialect's: INVALID_TOKEN_ID at HTTP 401/);
  });
});

describe('a receiver that lets a made-up token take a session over fails session-takeover', () => {
  it.each(['evolution', 'redtiger', 'groove', '100hp'] as const)('%s', async (name) => {
    const outcome = await verifyReceiver(name, TAKEOVER, { bug: 'session-takeover' });
    expectCaught(outcome, TAKEOVER, TAKEOVER, /with the made-up token .*: expected a refusal/);
  });
});
