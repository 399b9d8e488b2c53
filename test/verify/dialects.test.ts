import { afterEach, describe, expect, it } from 'vitest';
import { credentialsOf } from '../../src/config/dialect.ts';
import { type AggmockConfig, configSchema } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/dialect.ts';
import { builtinDialect } from '../../src/dialects/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import {
  acceptsAnySignature,
  DIALECTS_UNDER_TEST,
  type DialectUnderTest,
  ignoresIdempotency,
  overdraws,
  type PlantedBug,
  RECEIVER_PLAYERS,
  startBuggyProxy,
} from './dialect-receivers.ts';
import { failures } from './helpers.ts';

/**
 * `aggmock verify --profile <dialect>` judged by the independent vendor receivers
 * (test/dialects/receivers): a careful wallet of each vendor passes with no failure, twice in a
 * row, and the same wallet with a bug planted by a proxy in front of it is caught by the check
 * about that bug.
 */

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function receiverOf(d: DialectUnderTest): Promise<VendorReceiver> {
  const receiver = await d.start(RECEIVER_PLAYERS);
  stops.push(() => receiver.stop());
  return receiver;
}

function configOf(d: DialectUnderTest): AggmockConfig {
  return configSchema.parse({ callbacks: { profile: d.dialect, credentials: d.credentials } });
}

function verify(d: DialectUnderTest, url: string, only?: string[]): Promise<VerifyOutcome> {
  return runVerify({
    webhookUrl: url,
    config: configOf(d),
    players: RECEIVER_PLAYERS.map((p) => p.playerId),
    tokens: Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string])),
    reportDir: false,
    ...(only ? { only } : {}),
  });
}

async function withBug(d: DialectUnderTest, bug: (config: AggmockConfig) => PlantedBug, only: string[]): Promise<VerifyOutcome> {
  const receiver = await receiverOf(d);
  const config = configOf(d);
  const proxy = await startBuggyProxy(receiver.url, bug(config));
  stops.push(() => proxy.stop());
  return verify(d, proxy.url, only);
}

describe.each(DIALECTS_UNDER_TEST)('aggmock verify --profile $dialect against an independent $dialect wallet', (d) => {
  const signed = builtinDialect(d.dialect).signing.algorithm !== 'none';

  it('passes its contracts and every check that applies, twice in a row, skipping the rest with the reason', async () => {
    const receiver = await receiverOf(d);
    const opening = RECEIVER_PLAYERS.map((p) => receiver.balanceOf(p.playerId));
    for (const round of [1, 2]) {
      const outcome = await verify(d, receiver.url);
      const failed = Object.keys(failures(outcome)).sort();
      expect({ round, failed, cause: outcome.report?.firstCause?.summary }).toEqual({
        round,
        failed: [],
        cause: undefined,
      });
      const results = outcome.report?.results ?? [];
      // The dialect's contracts, replayed by the Pact Verifier: every one of them ran and passed.
      const pacts = results.filter((r) => r.kind === 'pact');
      expect(pacts.map((r) => [r.id, r.status])).toEqual(
        dialectContracts(builtinDialect(d.dialect)).map((c) => [`pact:${c.id}`, 'pass']),
      );
      expect(pacts.map((r) => r.id)).toEqual(expect.arrayContaining(['pact:bet-accepted', 'pact:duplicate-bet']));
      expect(outcome.report?.notices.some((n) => n.startsWith('Contracts (Pact): not run'))).toBe(false);
      for (const r of results.filter((r) => r.status === 'skip')) expect(r.reason, r.id).toContain(d.dialect);
      expect(results.filter((r) => r.status === 'pass').length).toBeGreaterThanOrEqual(25);
      // The balance call reads balances: no probe transactions where the dialect has one.
      if (builtinDialect(d.dialect).operations.balance) {
        const reads = results.flatMap((r) => r.exchanges).filter((x) => x.label.startsWith('balance read:'));
        expect(reads.every((x) => x.label.includes('balance call') || x.label.includes('carries no balance'))).toBe(true);
      }
    }
    // Every player is left with what it had (the checks put back what they moved).
    expect(RECEIVER_PLAYERS.map((p) => receiver.balanceOf(p.playerId))).toEqual(opening);
    // Two whole runs, each with its Pact phase: the first of the file also starts the Pact child.
  }, 60_000);

  it('catches a wallet that ignores idempotency (a repeat reaches it with a fresh transaction id), in its check and its contract', async () => {
    const outcome = await withBug(d, (c) => ignoresIdempotency(builtinDialect(d.dialect), credentialsOf(c.callbacks)), [
      'idempotent-debit',
      'pact:duplicate-bet',
    ]);
    expect(failures(outcome)).toEqual({
      'idempotent-debit': expect.stringMatching(/money must have moved once|first reply/),
      'pact:duplicate-bet': expect.stringMatching(
        /the repeated bet was answered with balance .* but the first reply .* said|Expected .* to match/,
      ),
    });
  });

  it('catches a wallet that answers a refusal for lack of funds with a success and the old balance, in its check and its contract', async () => {
    const outcome = await withBug(d, () => overdraws(builtinDialect(d.dialect)), [
      'insufficient-funds',
      'pact:insufficient-funds',
    ]);
    expect(failures(outcome)).toEqual({
      'insufficient-funds': expect.any(String),
      'pact:insufficient-funds': expect.stringMatching(/the reply does not match the contract/),
    });
  });

  // Only a dialect that signs has a signature to let through (the others' keys travel as they are).
  if (signed)
    it('catches a wallet that lets a request with a bad signature through (it is signed again before the wallet checks), in its check and its contract', async () => {
      const outcome = await withBug(d, (c) => acceptsAnySignature(builtinDialect(d.dialect), credentialsOf(c.callbacks)), [
        'wrong-secret',
        'pact:bad-signature',
      ]);
      expect(failures(outcome)).toEqual({
        'wrong-secret': expect.stringMatching(/signed with a wrong secret/),
        'pact:bad-signature': expect.stringMatching(/the reply does not match the contract/),
      });
    });
});

describe('aggmock verify holds a wallet to what its vendor documents', () => {
  const under = (name: string) => DIALECTS_UNDER_TEST.find((d) => d.dialect === name) as DialectUnderTest;

  it('warns on a Caleta wallet that refuses a rollback of a bet it never saw (the OAS allows it; RS_OK is preferred)', async () => {
    const caleta = under('caleta');
    // A Hub88-style wallet: a rollback whose bet it never took is refused RS_ERROR_TRANSACTION_DOES_NOT_EXIST.
    const bets = new Set<string>();
    const outcome = await withBug(
      caleta,
      () => ({
        reply(req, reply) {
          const body = req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
          if (req.path === '/wallet/bet') bets.add(String(body.transaction_uuid));
          if (req.path !== '/wallet/rollback' || bets.has(String(body.reference_transaction_uuid))) return reply;
          return {
            status: 200,
            body: JSON.stringify({ status: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST', request_uuid: body.request_uuid }),
          };
        },
      }),
      ['rollback-unknown'],
    );
    expect(failures(outcome)).toEqual({});
    expect(outcome.report?.results.find((r) => r.id === 'rollback-unknown')?.status).toBe('warn');
  });

  it('fails a Blue Ocean wallet that acknowledges a rollback of a transaction it never saw (Blue Ocean answers 404)', async () => {
    let balance = '0.00';
    const outcome = await withBug(
      under('blueocean'),
      () => ({
        reply(_req, reply) {
          const body = JSON.parse(reply.body) as { status?: string; balance?: string };
          if (body.status === '200' && body.balance !== undefined) balance = body.balance;
          return body.status === '404' ? { status: 200, body: JSON.stringify({ status: '200', balance }) } : reply;
        },
      }),
      ['rollback-unknown'],
    );
    expect(failures(outcome)).toHaveProperty('rollback-unknown', expect.stringContaining('{status:"404"}'));
  });

  it('fails a Blue Ocean wallet that answers an unknown player with a status Blue Ocean does not give a refusal', async () => {
    const outcome = await withBug(
      under('blueocean'),
      () => ({
        reply: (_req, reply) =>
          reply.body.includes('PLAYER_NOT_FOUND') ? { status: 200, body: '{"status":"404","msg":"PLAYER_NOT_FOUND"}' } : reply,
      }),
      ['unknown-player'],
    );
    expect(failures(outcome)).toHaveProperty('unknown-player', expect.stringContaining('{status:"403"}'));
  });

  it('fails a Red Tiger wallet that answers an unknown player with "insufficient funds"', async () => {
    const outcome = await withBug(
      under('redtiger'),
      () => ({
        reply: (_req, reply) =>
          reply.body.includes('"code":301')
            ? { status: 400, body: '{"success":false,"error":{"code":304,"message":"Insufficient funds"}}' }
            : reply,
      }),
      ['unknown-player'],
    );
    expect(failures(outcome)).toHaveProperty('unknown-player', expect.stringContaining(`{error.code:"301"}`));
  });

  it("keeps Blue Ocean's caller password out of verify's report (JSON, HTML and JUnit are made from it)", async () => {
    const blueocean = under('blueocean');
    const receiver = await receiverOf(blueocean);
    const outcome = await verify(blueocean, receiver.url, ['idempotent-debit', 'unknown-player']);
    const exchanges = (outcome.report?.results ?? []).flatMap((r) => r.exchanges);
    expect(exchanges.length).toBeGreaterThan(2);
    const password = blueocean.credentials.callerPassword as string;
    expect(JSON.stringify(outcome.report)).not.toContain(password);
    for (const x of exchanges) expect(new URL(x.request.url).searchParams.get('callerPassword')).toBe('[masked]');
    // The wallet was called with it, and judged the calls as it should.
    expect(failures(outcome)).toEqual({});
  });
});
