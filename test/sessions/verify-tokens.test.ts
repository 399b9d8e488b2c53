import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { builtinDialect, devSessionToken } from '../../src/dialects/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { madeUpToken } from '../../src/verify/tokens.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import { startPragmaticReceiver } from '../dialects/receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import type { ReceiverOptions, ReceiverStyle } from '../dialects/receivers/receiver-style.ts';

/*
 * verify and session tokens (issue 32 item 3): a token a reply hands over is adopted for the rest of
 * the run (Evolution's /check, Pragmatic's authenticate, both in the style-B wallets that refuse the
 * old token afterwards); a token the wallet refuses is the run's first cause and blocks the checks
 * instead of failing them; `--skip pact:authenticate` sends no authenticate at all; tokens verify
 * makes up have the length the dialect's wallets validate.
 */

const PLAYERS: ReceiverPlayer[] = [
  { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef0123456789' },
  { playerId: 'player02', currency: 'EUR', balance: '500.00', token: 'tok-player02-0123456789abcdef0123456789' },
];
const TOKENS = Object.fromEntries(PLAYERS.map((p) => [p.playerId, p.token as string]));
/** Checks that move money with the player's token: each is refused when the token is stale. */
const ONLY = ['pact:authenticate', 'pact:balance', 'pact:bet-accepted', 'debit-applies', 'credit-applies', 'rollback-restores'];

const VENDORS = {
  evolution: { start: startEvolutionReceiver, credentials: { authToken: 'evo-token-1' } },
  pragmatic: { start: startPragmaticReceiver, credentials: { secretKey: 'pp-secret-1' } },
} satisfies Record<string, { start: (o: ReceiverOptions) => Promise<VendorReceiver>; credentials: Record<string, string> }>;
type Vendor = keyof typeof VENDORS;

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function receiver(vendor: Vendor, style: ReceiverStyle): Promise<VendorReceiver> {
  const v = VENDORS[vendor];
  const rx = await v.start({ credentials: v.credentials, players: PLAYERS, style });
  stops.push(() => rx.stop());
  return rx;
}

function verify(
  vendor: Vendor,
  url: string,
  extra: { only?: string[]; skip?: string[] } = { only: ONLY },
): Promise<VerifyOutcome> {
  return runVerify({
    webhookUrl: url,
    config: configSchema.parse({ callbacks: { profile: vendor, credentials: VENDORS[vendor].credentials } }),
    players: PLAYERS.map((p) => p.playerId),
    tokens: TOKENS,
    reportDir: false,
    ...extra,
  });
}

const statuses = (o: VerifyOutcome, status: string) =>
  (o.report?.results ?? []).filter((r) => r.status === status).map((r) => r.id);

describe('verify adopts a session token the wallet hands over', () => {
  // Style A (tokens kept) is every other verify suite's receiver; B rotates on authenticate.
  it.each([
    ['evolution', 'B'],
    ['pragmatic', 'B'],
  ] as const)('%s style %s: every check passes with the token authenticate answered', async (vendor, style) => {
    const rx = await receiver(vendor, style);
    const outcome = await verify(vendor, rx.url);
    expect(outcome.report?.firstCause).toBeUndefined();
    expect(statuses(outcome, 'fail')).toEqual([]);
    expect(statuses(outcome, 'pass').sort()).toEqual([...ONLY].sort());
    expect(rx.errors.filter((e) => /token|sid/i.test(e))).toEqual([]);
  });

  it.each(['evolution', 'pragmatic'] as const)(
    '%s: a second run with the launch token the first made stale is blocked by the first cause "session token refused", not failed',
    async (vendor) => {
      const rx = await receiver(vendor, 'B');
      await verify(vendor, rx.url);
      const again = await verify(vendor, rx.url);
      expect(again.report?.firstCause?.summary).toMatch(
        /refused the session token of player player01|refused player player01's session token/,
      );
      expect(again.report?.firstCause?.fix).toContain('--token player01=');
      expect(statuses(again, 'fail')).toEqual([]);
      expect(statuses(again, 'blocked').length).toBeGreaterThan(0);
      expect(again.exitCode).toBe(1);
    },
  );

  it('a wallet that keeps its tokens passes the second run too (nothing is made stale)', async () => {
    const rx = await receiver('pragmatic', 'A');
    await verify('pragmatic', rx.url);
    const again = await verify('pragmatic', rx.url);
    expect(again.report?.firstCause).toBeUndefined();
    expect(statuses(again, 'fail')).toEqual([]);
  });
});

describe('--skip never sends what it skips', () => {
  it('--skip pact:authenticate sends no authenticate, even without --token', async () => {
    const rx = await receiver('evolution', 'A');
    const outcome = await runVerify({
      webhookUrl: rx.url,
      config: configSchema.parse({ callbacks: { profile: 'evolution', credentials: VENDORS.evolution.credentials } }),
      players: ['player01'],
      reportDir: false,
      only: ['pact:authenticate', 'debit-applies'],
      skip: ['pact:authenticate'],
    });
    expect(rx.log.filter((e) => e.path === '/check')).toEqual([]);
    // The made-up token is refused on the bet: said as the first cause, not a wrong wallet.
    expect(statuses(outcome, 'fail')).toEqual([]);
  });

  it('without --skip the same run authenticates (the control)', async () => {
    const rx = await receiver('evolution', 'A');
    await verify('evolution', rx.url, { only: ['pact:authenticate'] });
    expect(rx.log.filter((e) => e.path === '/check').length).toBeGreaterThan(0);
  });
});

describe('the tokens aggmock mints', () => {
  it('are as long as the dialect validates: Red Tiger 32 to 128, Blue Ocean 32 to 40; others unchanged', () => {
    const redtiger = builtinDialect('redtiger');
    const blueocean = builtinDialect('blueocean');
    expect(devSessionToken('p1', redtiger).length).toBe(32);
    expect(devSessionToken('p1', redtiger)).toBe(devSessionToken('p1', redtiger));
    expect(devSessionToken('p1', redtiger).startsWith('aggmock-session-p1-')).toBe(true);
    expect(devSessionToken('p1', blueocean).length).toBe(32);
    expect(devSessionToken('p1', builtinDialect('hub88'))).toBe('aggmock-session-p1');
    const callbacks = configSchema.parse({ callbacks: { profile: 'redtiger' } }).callbacks;
    const made = madeUpToken({ runId: 'r1', callbacks }, 'p1');
    expect(made.length).toBeGreaterThanOrEqual(32);
    expect(made.length).toBeLessThanOrEqual(128);
    const long = madeUpToken(
      { runId: 'r'.repeat(60), callbacks: configSchema.parse({ callbacks: { profile: 'blueocean' } }).callbacks },
      'p1',
    );
    expect(long.length).toBe(40);
  });
});

describe('Habanero rounds verify opens', () => {
  it('carry no 0.00 bet (a payout there): a credit goes as one bet of 0.01 and a win that pays it back', async () => {
    const { startHabaneroReceiver } = await import('../dialects/receivers/habanero.ts');
    const credentials = { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' };
    const rx = await startHabaneroReceiver({ credentials, players: PLAYERS });
    stops.push(() => rx.stop());
    const outcome = await runVerify({
      webhookUrl: rx.url,
      config: configSchema.parse({ callbacks: { profile: 'habanero', credentials } }),
      players: PLAYERS.map((p) => p.playerId),
      tokens: TOKENS,
      reportDir: false,
      only: ['credit-applies', 'idempotent-credit'],
    });
    expect(statuses(outcome, 'fail')).toEqual([]);
    expect(statuses(outcome, 'pass').sort()).toEqual(['credit-applies', 'idempotent-credit']);
    const infos = rx.log.flatMap((e) => {
      const funds = (e.fields.fundtransferrequest as { funds?: { fundinfo?: { amount: number; gamestatemode: number }[] } })
        ?.funds;
      return funds?.fundinfo ?? [];
    });
    expect(infos.length).toBeGreaterThan(0);
    // A round opens with a real bet: no fund transfer opens a round (gamestatemode 1) with 0.00.
    expect(infos.filter((f) => f.gamestatemode === 1 && f.amount === 0)).toEqual([]);
  });
});
